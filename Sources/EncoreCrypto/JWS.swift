import EncoreSupport

/// A compact JWS signed with ES256 (ECDSA P-256, SHA-256; the signature is
/// r ‖ s, 32 bytes each): DP-3T and NotifyMe backends sign their answers so,
/// their claims carrying the SHA-256 of the body.
public enum JWS {
    /// The content hash an answer's `Signature` JWT claims, once the JWT
    /// verified with `key` (the caller compares it with the body's SHA-256).
    public static func signedContentHash(_ token: String, key: PublicKey) throws -> [UInt8] {
        let claims = try JWS.verifiedClaims(token, key: key)
        guard case .string(let hash)? = claims["content-hash"], let claimed = Base64.decode(hash.utf8), claimed.count == 32 else {
            throw EncoreError(.signatureInvalid, "the JWT has no content-hash of 32 bytes (standard base64)")
        }
        return claimed
    }

    /// The claims of `token` when its signature verifies with `key` and its
    /// header names ES256; INVALID signatures and malformed tokens throw
    /// .signatureInvalid / .signatureMalformed.
    public static func verifiedClaims(_ token: String, key: PublicKey) throws -> JSONValue {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Base64.decodeURL(String(parts[0])), let claims = Base64.decodeURL(String(parts[1])),
              let signature = Base64.decodeURL(String(parts[2])) else {
            throw EncoreError(.signatureMalformed, "the JWT is not three base64url parts")
        }
        guard case .string("ES256")? = (try? JSONParser.parse(header))?["alg"] else {
            throw EncoreError(.signatureMalformed, "the JWT is not signed with ES256")
        }
        guard signature.count == 64, let der = ECDSASignature.der(r: Array(signature[0 ..< 32]), s: Array(signature[32 ..< 64])) else {
            throw EncoreError(.signatureMalformed, "an ES256 signature is 64 bytes")
        }
        let signed = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
        guard let digest = signed.withUnsafeBytes({ DigestAlgorithm.sha256.digest($0) }),
              key.verify(signature: der, digest: digest, algorithm: .sha256) else {
            throw EncoreError(.signatureInvalid, "the JWT's signature does not verify with the trusted key")
        }
        do { return try JSONParser.parse(claims) } catch {
            throw EncoreError(.signatureMalformed, "the JWT's claims are not JSON")
        }
    }
}
