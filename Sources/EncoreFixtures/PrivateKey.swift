import CCrypto
import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreSupport

/// An ECDSA P-256 private key for signing key files (servers, tests, demos).
public final class PrivateKey: @unchecked Sendable {
    // @unchecked: the EVP_PKEY is never changed after creation.
    package let pkey: OpaquePointer

    /// A fresh random key.
    public init() throws {
        // EVP_EC_gen() is a variadic macro, out of Swift's reach.
        guard let ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil) else {
            throw EncoreError(.outOfMemory, "cannot allocate a key generation context")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        var key: OpaquePointer? = nil
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_ec_paramgen_curve_nid(ctx, NID_X9_62_prime256v1) == 1,
              EVP_PKEY_keygen(ctx, &key) == 1, let key else {
            ERR_clear_error()
            throw EncoreError(.internalError, "libcrypto could not generate a P-256 key")
        }
        pkey = key
    }

    /// A key from PEM ("BEGIN PRIVATE KEY" or "BEGIN EC PRIVATE KEY").
    public init(pem: [UInt8]) throws {
        let key: OpaquePointer? = pem.withUnsafeBytes { buf in
            guard let bio = BIO_new_mem_buf(buf.baseAddress, Int32(clamping: buf.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let key else {
            ERR_clear_error()
            throw EncoreError(.keyFormat, "private key PEM cannot be read")
        }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else {
            EVP_PKEY_free(key)
            throw EncoreError(.keyFormat, "private key is not an EC key")
        }
        pkey = key
    }

    deinit { EVP_PKEY_free(pkey) }

    /// The public half as PEM SubjectPublicKeyInfo, ready for a trust list.
    public func publicKeyPEM() throws -> [UInt8] {
        try bioText { PEM_write_bio_PUBKEY($0, pkey) }
    }

    /// The key as PKCS#8 PEM.
    public func pem() throws -> [UInt8] {
        try bioText { PEM_write_bio_PrivateKey($0, pkey, nil, nil, 0, nil, nil) }
    }

    /// A DER ECDSA signature over the digest of `data`.
    package func sign(_ data: UnsafeRawBufferPointer, algorithm: DigestAlgorithm) throws -> [UInt8] {
        guard let digest = algorithm.digest(data), let ctx = EVP_PKEY_CTX_new(pkey, nil) else {
            throw EncoreError(.internalError, "libcrypto could not prepare a signature")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        var length = 0
        guard EVP_PKEY_sign_init(ctx) == 1, EVP_PKEY_CTX_set_signature_md(ctx, algorithm.md) == 1,
              EVP_PKEY_sign(ctx, nil, &length, digest, digest.count) == 1 else {
            ERR_clear_error()
            throw EncoreError(.internalError, "libcrypto could not sign")
        }
        var out = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_sign(ctx, &out, &length, digest, digest.count) == 1 else {
            ERR_clear_error()
            throw EncoreError(.internalError, "libcrypto could not sign")
        }
        return Array(out.prefix(length))
    }

    private func bioText(_ write: (OpaquePointer) -> Int32) throws -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { throw EncoreError(.outOfMemory, "cannot allocate a BIO") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw EncoreError(.internalError, "libcrypto could not write PEM") }
        var chunk = [UInt8](repeating: 0, count: 4096)
        var out: [UInt8] = []
        while true {
            let n = BIO_read(bio, &chunk, Int32(chunk.count))
            if n <= 0 { break }
            out += chunk.prefix(Int(n))
        }
        return out
    }
}
