import CCrypto
import EncoreStorage
import EncoreSupport

/// How the PostgreSQL back-end keeps push tokens at rest: the SQLCipher
/// back-end encrypts the whole file, PostgreSQL's data files and WAL are in
/// clear, so each token is sealed on its own (AES-256-GCM, a random
/// 96-bit nonce, the row's digest as associated data so that a sealed
/// token cannot be moved to another row), and looked up and kept unique by
/// its HMAC-SHA-256 digest, a fixed 32 bytes whatever the token's length
/// (PostgreSQL's B-tree cannot hold rows over 2704 bytes: 4096-character
/// FCM tokens were refused). Both keys come from the database key (the
/// same key file as SQLCipher's, or ENCORE_PUSHD_DB_KEY), through HMAC
/// with a label each.
public struct TokenSealer: Sendable {
    public static let digestBytes = 32
    static let nonceBytes = 12
    static let tagBytes = 16

    private let digestKey: [UInt8]
    private let sealKey: [UInt8]

    /// A raw key is used as is; a passphrase is stretched first
    /// (PBKDF2-HMAC-SHA-256, a fixed salt: the result must be the same in
    /// every instance that shares the database).
    public init(key: StoreKey) throws {
        let master: [UInt8]
        switch key {
        case .raw(let bytes):
            guard bytes.count == 32 else { throw EncoreError(.invalidArgument, "a raw database key is 32 bytes") }
            master = bytes
        case .passphrase(let text):
            guard !text.isEmpty else { throw EncoreError(.invalidArgument, "the database passphrase is empty") }
            var out = [UInt8](repeating: 0, count: 32)
            let salt = Array("encore-pushd token key".utf8)
            let ok = text.withUnsafeBufferPointer { p in
                PKCS5_PBKDF2_HMAC(p.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }, Int32(p.count),
                                  salt, Int32(salt.count), 200_000, EVP_sha256(), Int32(out.count), &out)
            }
            guard ok == 1 else { throw EncoreError(.internalError, "PBKDF2 failed") }
            master = out
        }
        digestKey = Self.hmac(master, Array("encore-pushd push-token digest v1".utf8))
        sealKey = Self.hmac(master, Array("encore-pushd push-token seal v1".utf8))
    }

    /// The lookup and uniqueness key of a canonical token.
    public func digest(_ token: String) -> [UInt8] { Self.hmac(digestKey, Array(token.utf8)) }

    /// nonce ‖ ciphertext ‖ tag.
    public func seal(_ token: String, digest: [UInt8]) throws -> [UInt8] {
        var nonce = [UInt8](repeating: 0, count: Self.nonceBytes)
        guard RAND_bytes(&nonce, Int32(nonce.count)) == 1 else { throw EncoreError(.internalError, "no random bytes for a nonce") }
        let plain = Array(token.utf8)
        var out = nonce + [UInt8](repeating: 0, count: plain.count + Self.tagBytes)
        try gcm(encrypt: true, nonce: nonce, aad: digest, input: plain, output: &out, at: Self.nonceBytes)
        return out
    }

    /// The token of a sealed value, or an error when it was not sealed with
    /// this key for this digest (a wrong key file, or a row tampered with).
    public func open(_ sealed: [UInt8], digest: [UInt8]) throws -> String {
        guard sealed.count >= Self.nonceBytes + Self.tagBytes else { throw EncoreError(.storeFailed, "a sealed push token is too short") }
        let nonce = Array(sealed[0 ..< Self.nonceBytes])
        let body = Array(sealed[Self.nonceBytes...])
        var out = [UInt8](repeating: 0, count: body.count - Self.tagBytes)
        try gcm(encrypt: false, nonce: nonce, aad: digest, input: body, output: &out, at: 0)
        guard let token = String(validating: out, as: UTF8.self) else { throw EncoreError(.storeFailed, "a sealed push token is not text") }
        return token
    }

    /// Encrypts `input` into `output[at...]` followed by the tag, or
    /// decrypts `input` (ciphertext ‖ tag) into `output`.
    private func gcm(encrypt: Bool, nonce: [UInt8], aad: [UInt8], input: [UInt8], output: inout [UInt8], at: Int) throws {
        guard let ctx = EVP_CIPHER_CTX_new() else { throw EncoreError(.outOfMemory, "no cipher context") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let wrong = EncoreError(.storeFailed, "a push token cannot be unsealed: wrong database key, or the row was altered")
        let started = encrypt ? EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), nil, sealKey, nonce)
                            : EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), nil, sealKey, nonce)
        guard started == 1 else { throw EncoreError(.internalError, "AES-GCM init failed") }
        var n: Int32 = 0
        let update: (UnsafeMutablePointer<UInt8>?, UnsafePointer<UInt8>?, Int) -> Int32 = { out, inp, count in
            encrypt ? EVP_EncryptUpdate(ctx, out, &n, inp, Int32(count)) : EVP_DecryptUpdate(ctx, out, &n, inp, Int32(count))
        }
        guard update(nil, aad, aad.count) == 1 else { throw EncoreError(.internalError, "AES-GCM AAD failed") }
        let payload = encrypt ? input.count : input.count - Self.tagBytes
        let ok: Bool = output.withUnsafeMutableBufferPointer { o in
            input.withUnsafeBufferPointer { i in
                guard let ob = o.baseAddress, let ib = i.baseAddress else { return false }
                if payload > 0 { guard update(ob + at, ib, payload) == 1 else { return false } }
                if encrypt {
                    guard EVP_EncryptFinal_ex(ctx, ob + at + payload, &n) == 1 else { return false }
                    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, Int32(Self.tagBytes), ob + at + payload) == 1
                }
                var tag = Array(UnsafeBufferPointer(start: ib + payload, count: Self.tagBytes))
                guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, Int32(Self.tagBytes), &tag) == 1 else { return false }
                return EVP_DecryptFinal_ex(ctx, ob + payload, &n) == 1
            }
        }
        guard ok else { throw encrypt ? EncoreError(.internalError, "AES-GCM failed") : wrong }
    }

    static func hmac(_ key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = HMAC(EVP_sha256(), key, Int32(key.count), data, data.count, &out, &length)
        return out
    }
}
