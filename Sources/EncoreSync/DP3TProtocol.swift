import EncoreCheck
import EncoreCheckIns
import EncoreCrypto
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport

/// A DP-3T / SwissCovid backend's exposed keys and CrowdNotifier trace
/// keys, as requests and answers: everything published since a bundle tag,
/// the new tag in `x-key-bundle-tag`, and the body signed by a JWT in
/// `Signature` whose claims carry its SHA-256 (`content-hash`, base64).
public enum DP3TProtocol {
    public static func exposed(base: String, lastKeyBundleTag: String?) throws -> HTTPRequest {
        try request(base, "/v2/gaen/exposed", lastKeyBundleTag, accept: "application/zip")
    }

    /// `GET /v3/traceKeys`: a ProblematicEventWrapper (protobuf).
    public static func traceKeys(base: String, lastKeyBundleTag: String?) throws -> HTTPRequest {
        try request(base, "/v3/traceKeys", lastKeyBundleTag, accept: "application/x-protobuf")
    }

    static func request(_ base: String, _ path: String, _ lastKeyBundleTag: String?, accept: String) throws -> HTTPRequest {
        if let tag = lastKeyBundleTag { try checkTag(tag) }
        let query = lastKeyBundleTag.map { "?lastKeyBundleTag=\($0)" } ?? ""
        return HTTPRequest(method: "GET", url: URLPolicy.joined(base, path) + query, headers: [HTTPHeader("Accept", accept)])
    }

    /// A tag is milliseconds since the epoch, digits only.
    static func checkTag(_ tag: String) throws {
        guard (1 ... 19).contains(tag.utf8.count), tag.utf8.allSatisfy({ (48 ... 57).contains($0) }) else {
            throw EncoreError(.protocolError, "a key bundle tag is milliseconds (digits), not \"\(tag.prefix(24))\"")
        }
    }

    public enum Answer: Equatable {
        /// New keys: the verified body (a key file zip) and the next tag.
        case keys(body: [UInt8], tag: String)
        /// 204: nothing new since the tag; the next tag when the server gave one.
        case nothingNew(tag: String?)
        /// 400 (tag not aligned) or 404 (tag in the future): start over without one.
        case tagRefused(status: Int)
    }

    /// Reads an answer; a body is returned only when the JWT verifies with
    /// `key` and its content-hash matches the body.
    public static func answer(_ r: HTTPResponse, key: PublicKey) throws -> Answer {
        switch r.status {
        case 200:
            guard let tag = r.header("x-key-bundle-tag") else { throw EncoreError(.protocolError, "DP-3T: the answer has no x-key-bundle-tag") }
            try checkTag(tag)
            guard let token = r.header("Signature") else { throw EncoreError(.signatureMissing, "DP-3T: the answer is not signed (no Signature header)") }
            guard try JWS.signedContentHash(token, key: key) == Digest.sha256(r.body) else {
                throw EncoreError(.signatureInvalid, "DP-3T: the JWT's content-hash is not the body's SHA-256")
            }
            return .keys(body: r.body, tag: tag)
        case 204:
            let tag = r.header("x-key-bundle-tag")
            if let tag { try checkTag(tag) }
            return .nothingNew(tag: tag)
        case 400, 404:
            return .tagRefused(status: r.status)
        default:
            throw ServerAnswer.error(r, "the DP-3T backend")
        }
    }
}
