import EncoreSupport

/// No answer from a server (no connection, a dropped or broken transfer, a
/// timeout, TLS, an answer over the size limit); the server answered,
/// refusing (4xx), or cannot now (5xx, 429), or with something encore
/// cannot read (a 3xx, a malformed body); an operation driven out of turn.
extension EncoreError.Kind {
    public static let network = EncoreError.Kind("network")
    public static let timeout = EncoreError.Kind("timeout")
    public static let tls = EncoreError.Kind("tls")
    public static let responseTooLarge = EncoreError.Kind("responseTooLarge")
    public static let serverRefused = EncoreError.Kind("serverRefused")
    public static let serverUnavailable = EncoreError.Kind("serverUnavailable")
    public static let protocolError = EncoreError.Kind("protocolError")
    public static let operationState = EncoreError.Kind("operationState")
}
