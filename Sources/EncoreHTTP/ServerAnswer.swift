import EncoreSupport

/// What an answer with an error status means, for every server.
public enum ServerAnswer {
    /// `server` names the server that answered ("the verification server"),
    /// for flows that talk to more than one.
    public static func error(_ r: HTTPResponse, _ what: String, server: String = "the server") -> EncoreError {
        let detail = "\(what): \(server) answered \(r.status)\(reason(r.status))"
        switch r.status {
        case 429, 500 ... 599: return EncoreError(.serverUnavailable, detail + "; try again later")
        case 300 ... 399: return EncoreError(.protocolError, detail + " (redirects are not followed)")
        case 400 ... 499: return EncoreError(.serverRefused, detail)
        default: return EncoreError(.protocolError, detail)
        }
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 400: return " (bad request)"
        case 403: return " (forbidden)"
        case 404: return " (not found)"
        case 409: return " (conflict)"
        case 413: return " (payload too large)"
        case 429: return " (too many requests)"
        case 500 ... 599: return " (server error)"
        default: return ""
        }
    }
}
