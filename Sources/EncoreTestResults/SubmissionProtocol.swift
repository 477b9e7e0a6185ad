import EncoreHTTP
import EncoreSupport

/// CWA's submission server as requests and answers (no I/O): the upload of
/// a padded SubmissionPayload with the TAN in `cwa-authorization`; a fake
/// upload carries a random UUID and `cwa-fake: 1` and has the same size.
public enum SubmissionProtocol {
    public static let path = "/version/v1/diagnosis-keys"

    /// The upload; `tan` nil makes a fake one.
    public static func submission(base: String, tan: String?, payload: SubmissionPayload) throws -> HTTPRequest {
        try URLPolicy.check(base)
        return HTTPRequest(method: "POST", url: URLPolicy.joined(base, path), headers: [
            HTTPHeader("Content-Type", "application/x-protobuf"),
            HTTPHeader("cwa-fake", tan == nil ? "1" : "0"),
            HTTPHeader("cwa-authorization", try tan ?? RandomText.uuid()),
        ], body: try payload.encoded())
    }

    /// A fake upload: no keys, padded like a real one.
    public static func fakeSubmission(base: String) throws -> HTTPRequest {
        try submission(base: base, tan: nil, payload: SubmissionPayload(keys: []))
    }

    /// 200 is success; 403 means the TAN was refused (unknown, used or
    /// expired); anything else is the server's error.
    public static func check(_ r: HTTPResponse) throws {
        switch r.status {
        case 200: return
        case 403: throw EncoreError(.tanRefused, "submission: the submission server answered 403: the TAN was refused (unknown, used or expired)")
        default: throw ServerAnswer.error(r, "submission", server: "the submission server")
        }
    }
}
