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

/// AES-256 in CBC mode with PKCS#7 padding, through libcrypto EVP: CWA
/// check-in reports.
package enum AES256CBC {
    /// The ciphertext (encrypt) or the plaintext; nil when decryption finds
    /// bad padding.
    package static func crypt(key: [UInt8], iv: UnsafeRawBufferPointer, _ input: UnsafeRawBufferPointer, encrypt: Bool) throws -> [UInt8]? {
        guard key.count == 32, iv.count == 16 else { throw EncoreError(.internalError, "AES-256-CBC needs a 32-byte key and a 16-byte IV") }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw EncoreError(.outOfMemory, "cannot allocate a cipher context") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        guard input.count <= Int(Int32.max) - 32 else { throw EncoreError(.invalidArgument, "AES-256-CBC input too large") }
        var out = [UInt8](repeating: 0, count: input.count + 32)
        var n: Int32 = 0, final: Int32 = 0
        let inBytes = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let ivBytes = iv.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let ok: Bool = key.withUnsafeBytes { k in
            let kp = k.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return out.withUnsafeMutableBufferPointer { o in
                guard let base = o.baseAddress else { return false }
                if encrypt {
                    return EVP_EncryptInit_ex(ctx, EVP_aes_256_cbc(), nil, kp, ivBytes) == 1
                        && EVP_EncryptUpdate(ctx, base, &n, inBytes, Int32(input.count)) == 1
                        && EVP_EncryptFinal_ex(ctx, base + Int(n), &final) == 1
                }
                return EVP_DecryptInit_ex(ctx, EVP_aes_256_cbc(), nil, kp, ivBytes) == 1
                    && EVP_DecryptUpdate(ctx, base, &n, inBytes, Int32(input.count)) == 1
                    && EVP_DecryptFinal_ex(ctx, base + Int(n), &final) == 1
            }
        }
        guard ok else {
            if encrypt { throw EncoreError(.internalError, "libcrypto AES-256-CBC failed") }
            return nil // bad padding
        }
        return Array(out.prefix(Int(n) + Int(final)))
    }
}
