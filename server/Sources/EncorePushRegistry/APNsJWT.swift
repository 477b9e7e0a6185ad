import CCrypto
import EncoreCrypto
import EncoreSupport
#if canImport(Glibc)
import Glibc
#endif

/// The team's APNs signing key (an `AuthKey_<KEYID>.p8`: a PKCS#8 PEM of a
/// P-256 private key), signing ES256 through libcrypto.
public final class APNsSigningKey: @unchecked Sendable {
    // @unchecked: the EVP_PKEY is only read after init (signing uses a
    // fresh EVP_MD_CTX per call, which libcrypto allows from several threads).
    private let key: OpaquePointer

    public init(pem: [UInt8]) throws {
        let loaded: OpaquePointer? = pem.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let loaded else { throw EncoreError(.keyFormat, "the APNs key is not a PEM private key (.p8)") }
        guard EVP_PKEY_get_base_id(loaded) == EVP_PKEY_EC, EVP_PKEY_get_bits(loaded) == 256 else {
            EVP_PKEY_free(loaded)
            throw EncoreError(.keyFormat, "the APNs key is not a P-256 (ES256) key")
        }
        key = loaded
    }

    /// The key from its .p8 file (a few hundred bytes; more than 64 KiB is not a key).
    public convenience init(path: String) throws {
        try self.init(pem: FileReader.read(path: path, maxSize: 64 * 1024).bytes)
    }

    deinit { EVP_PKEY_free(key) }

    /// ECDSA P-256 over SHA-256, as JWS wants it: r || s, 32 bytes each
    /// (libcrypto gives DER, which is converted here).
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        guard let ctx = EVP_MD_CTX_new() else { throw EncoreError(.outOfMemory, "EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestSignInit(ctx, nil, EVP_sha256(), nil, key) == 1 else { throw EncoreError(.internalError, "EVP_DigestSignInit failed") }
        var length = 0
        guard message.withUnsafeBufferPointer({ EVP_DigestSign(ctx, nil, &length, $0.baseAddress, $0.count) }) == 1 else {
            throw EncoreError(.internalError, "EVP_DigestSign failed")
        }
        var der = [UInt8](repeating: 0, count: length)
        let signed = der.withUnsafeMutableBufferPointer { out in
            message.withUnsafeBufferPointer { EVP_DigestSign(ctx, out.baseAddress, &length, $0.baseAddress, $0.count) }
        }
        guard signed == 1 else { throw EncoreError(.internalError, "EVP_DigestSign failed") }
        return try Self.rawSignature(der: Array(der[0 ..< length]))
    }

    /// DER ECDSA-Sig-Value → r || s (each left-padded to 32 bytes).
    public static func rawSignature(der: [UInt8]) throws -> [UInt8] {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var p = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &p, buffer.count)
        }
        guard let sig = parsed else { throw EncoreError(.internalError, "not a DER ECDSA signature") }
        defer { ECDSA_SIG_free(sig) }
        var out = [UInt8](repeating: 0, count: 64)
        let ok = out.withUnsafeMutableBufferPointer { o -> Bool in
            guard let base = o.baseAddress, let r = ECDSA_SIG_get0_r(sig), let s = ECDSA_SIG_get0_s(sig) else { return false }
            return BN_bn2binpad(r, base, 32) == 32 && BN_bn2binpad(s, base + 32, 32) == 32
        }
        guard ok else { throw EncoreError(.internalError, "an ECDSA signature value does not fit 32 bytes") }
        return out
    }
}

/// The provider token APNs wants (`authorization: bearer <JWT>`):
/// header {alg ES256, kid}, claims {iss team, iat}. Plain function of its
/// inputs, so that it can be checked without a server.
public enum APNsJWT {
    public static func make(keyID: String, teamID: String, issuedAt: Int64, key: APNsSigningKey) throws -> String {
        let header = JSONValue.object([("alg", .string("ES256")), ("kid", .string(keyID))]).rendered
        let claims = JSONValue.object([("iss", .string(teamID)), ("iat", .int(issuedAt))]).rendered
        let signingInput = Base64.encodeURL(Array(header.utf8)) + "." + Base64.encodeURL(Array(claims.utf8))
        let signature = try key.sign(Array(signingInput.utf8))
        return signingInput + "." + Base64.encodeURL(signature)
    }
}

/// When to make a new provider token. Apple refuses tokens older than one
/// hour (ExpiredProviderToken) and refuses tokens renewed more often than
/// every 20 minutes (TooManyProviderTokenUpdates): one is kept for 40
/// minutes, and a token APNs calls expired is replaced early, but never
/// twice within 20 minutes.
public struct JWTRefreshPolicy: Sendable, Equatable {
    public static let minimumAgeSeconds: Int64 = 20 * 60
    public static let maximumAgeSeconds: Int64 = 60 * 60
    public var refreshAfterSeconds: Int64 = 40 * 60

    public init(refreshAfterSeconds: Int64 = 40 * 60) {
        self.refreshAfterSeconds = min(max(refreshAfterSeconds, Self.minimumAgeSeconds), Self.maximumAgeSeconds - 60)
    }

    /// Whether a token issued at `issuedAt` must be replaced at `now`.
    /// `rejected`: APNs answered ExpiredProviderToken for it.
    public func needsRefresh(issuedAt: Int64?, now: Int64, rejected: Bool = false) -> Bool {
        guard let issuedAt else { return true }
        let age = now - issuedAt
        if rejected { return age >= Self.minimumAgeSeconds }
        return age >= refreshAfterSeconds || age < 0
    }
}
