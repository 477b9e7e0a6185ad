import EncoreSupport

/// What performs requests: the built-in libcurl transport, or a host's
/// (an app with its own HTTP stack hands encore a callback). Protocols make
/// requests and read answers; only a transport does I/O.
public protocol HTTPTransport: Sendable {
    /// Performs one request and returns its answer, whatever the status;
    /// throws when there is no answer (.network, .timeout, .tls,
    /// .responseTooLarge, .cancelled). `cancel` is polled during the
    /// transfer; returning true stops it with .cancelled.
    func perform(_ request: HTTPRequest, cancel: (@Sendable () -> Bool)?) throws -> HTTPResponse
}

extension HTTPTransport {
    public func perform(_ request: HTTPRequest) throws -> HTTPResponse { try perform(request, cancel: nil) }
}

/// Limits every transport keeps (the built-in one in libcurl, a host's in
/// the C layer: the answers it hands back are checked against them).
public struct TransportOptions: Sendable, Equatable {
    public var connectTimeoutMilliseconds: Int64 = 10_000
    /// The whole request, answer included.
    public var timeoutMilliseconds: Int64 = 60_000
    public var maxResponseBytes: UInt64 = 16 << 20
    /// Trusted CAs for private deployments (PEM file, or a directory of
    /// hashed certificates); nil: the system's trust store.
    public var caFile: String?
    public var caDirectory: String?

    public init() {}

    public func validate() throws {
        guard connectTimeoutMilliseconds > 0, timeoutMilliseconds > 0,
              connectTimeoutMilliseconds <= 3_600_000, timeoutMilliseconds <= 3_600_000 else {
            throw EncoreError(.invalidArgument, "transport: timeouts must be 1 ms to 1 h")
        }
        guard maxResponseBytes > 0, maxResponseBytes <= 1 << 30 else {
            throw EncoreError(.invalidArgument, "transport: the answer limit must be 1 byte to 1 GiB")
        }
    }
}

/// Which URLs a transport may be given: https, or plain http to this
/// machine only (local servers and tests); nothing else leaves the device
/// unencrypted.
public enum URLPolicy {
    /// A server's base URL and a path, with one slash between them.
    public static func joined(_ base: String, _ path: String) -> String {
        base.hasSuffix("/") ? String(base.dropLast()) + path : base + path
    }

    public static func check(_ url: String) throws {
        let lower = url.lowercased()
        if lower.hasPrefix("https://") { return }
        if lower.hasPrefix("http://") {
            let rest = lower.dropFirst("http://".count)
            let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            let host: Substring
            if authority.hasPrefix("[") {
                host = authority.prefix { $0 != "]" }.dropFirst()
            } else {
                host = authority.prefix { $0 != ":" }
            }
            if host == "localhost" || host == "::1" || isLoopbackIPv4(host) { return }
            throw EncoreError(.invalidArgument, "\(url): plain http is allowed to this machine only (127.0.0.0/8, ::1, localhost); use https")
        }
        throw EncoreError(.invalidArgument, "\(url) is not an http(s) URL")
    }

    /// 127.x.y.z written as four decimal numbers (not "127.0.0.1.example.org").
    static func isLoopbackIPv4(_ host: Substring) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127"
            && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) && (Int($0) ?? 256) <= 255 }
    }
}
