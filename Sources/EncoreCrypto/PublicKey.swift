import CCrypto
import EncoreSupport
/// A trusted ECDSA P-256 public key (libcrypto EVP_PKEY). Read-only after
/// creation, so one key may verify on several threads at once.
public final class PublicKey: @unchecked Sendable {
    package let pkey: OpaquePointer

    /// Reads a SubjectPublicKeyInfo given as PEM, as base64 of the DER, or as
    /// the DER bytes themselves.
    public init(material: [UInt8]) throws {
        let der: [UInt8]
        if material.first == 0x30 { // DER SEQUENCE
            der = material
        } else if material.contains(UInt8(ascii: "-")) { // PEM armour; base64 has no '-'
            der = try PublicKey.pemToDER(material)
        } else if let decoded = Base64.decode(material), !decoded.isEmpty {
            der = decoded
        } else {
            throw EncoreError(.keyFormat, "public key is neither PEM, base64 nor DER")
        }
        var cursor: UnsafePointer<UInt8>? = nil
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buf in
            cursor = buf.baseAddress
            let key = d2i_PUBKEY(nil, &cursor, buf.count)
            // A key with trailing bytes is not the key the caller meant.
            if let key, let start = buf.baseAddress, let end = cursor, end - start != buf.count {
                EVP_PKEY_free(key)
                return nil
            }
            return key
        }
        guard let key = parsed else {
            ERR_clear_error()
            throw EncoreError(.keyFormat, "public key is not a valid DER SubjectPublicKeyInfo")
        }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC, PublicKey.groupName(key) == "prime256v1" else {
            EVP_PKEY_free(key)
            throw EncoreError(.keyFormat, "public key is not an ECDSA P-256 key")
        }
        pkey = key
    }

    deinit { EVP_PKEY_free(pkey) }

    /// Verifies a DER ECDSA signature over a precomputed digest.
    package func verify(signature: [UInt8], digest: [UInt8], algorithm: DigestAlgorithm) -> Bool {
        guard let ctx = EVP_PKEY_CTX_new(pkey, nil) else { return false }
        defer { EVP_PKEY_CTX_free(ctx); ERR_clear_error() }
        guard EVP_PKEY_verify_init(ctx) == 1, EVP_PKEY_CTX_set_signature_md(ctx, algorithm.md) == 1 else { return false }
        return EVP_PKEY_verify(ctx, signature, signature.count, digest, digest.count) == 1
    }

    private static func pemToDER(_ pem: [UInt8]) throws -> [UInt8] {
        let key: OpaquePointer? = pem.withUnsafeBytes { buf in
            guard let bio = BIO_new_mem_buf(buf.baseAddress, Int32(clamping: buf.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        guard let key else {
            ERR_clear_error()
            throw EncoreError(.keyFormat, "public key PEM cannot be read: expected a PUBLIC KEY block holding a DER SubjectPublicKeyInfo")
        }
        defer { EVP_PKEY_free(key) }
        var out: UnsafeMutablePointer<UInt8>? = nil
        let n = i2d_PUBKEY(key, &out)
        guard n > 0, let out else { throw EncoreError(.keyFormat, "public key cannot be re-encoded") }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(n)))
    }

    private static func groupName(_ key: OpaquePointer) -> String? {
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 else { return nil }
        return String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
