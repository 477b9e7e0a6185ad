import CCrypto
import EncoreSupport

/// AES-128 in ECB mode without padding, through libcrypto EVP: ENF's RPIs
/// (one block per interval) and AEM key stream.
package enum AES128 {
    package static func ecb(key: UnsafeRawBufferPointer, _ input: [UInt8]) throws -> [UInt8] {
        guard key.count == 16, input.count % 16 == 0 else {
            throw EncoreError(.invalidArgument, "AES-128-ECB needs a 16-byte key and whole blocks")
        }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw EncoreError(.outOfMemory, "cannot allocate a cipher context") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var out = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0
        guard EVP_EncryptInit_ex(ctx, EVP_aes_128_ecb(), nil, key.baseAddress?.assumingMemoryBound(to: UInt8.self), nil) == 1,
              EVP_CIPHER_CTX_set_padding(ctx, 0) == 1,
              EVP_EncryptUpdate(ctx, &out, &written, input, Int32(input.count)) == 1, Int(written) == input.count else {
            throw EncoreError(.internalError, "libcrypto AES-128-ECB failed")
        }
        return Array(out.prefix(input.count))
    }
}
