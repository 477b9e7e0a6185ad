import CEncoreHTTP
import EncoreSupport
#if canImport(Glibc)
import Glibc
#endif

/// The built-in transport: HTTPS through libcurl (Debian's libcurl4,
/// OpenSSL), with TLS verification always on, redirects refused, answers
/// capped and timeouts (CEncoreHTTP holds that policy; it loads libcurl on
/// the first request). Thread-safe.
public final class CurlTransport: HTTPTransport {
    public let options: TransportOptions

    public init(options: TransportOptions = TransportOptions()) throws {
        try options.validate()
        self.options = options
    }

    /// libcurl's version ("7.88.1"; "unavailable" without libcurl).
    public static var version: String { String(cString: enc_http_version()) }

    public func perform(_ request: HTTPRequest, cancel: (@Sendable () -> Bool)?) throws -> HTTPResponse {
        try URLPolicy.check(request.url)
        // libcurl drops a header written "Name: " with nothing after it;
        // "Name;" is its way of sending one with an empty value.
        let lines = request.headers.map { $0.value.isEmpty ? "\($0.name);" : "\($0.name): \($0.value)" }
        for line in lines where line.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0 }) {
            throw EncoreError(.invalidArgument, "a request header holds a line break or NUL: \(line.prefix(40))")
        }
        var response = enc_http_response()
        var error = [CChar](repeating: 0, count: 512)
        let box = CancelBox(cancel)
        let status: Int32 = try withCStrings(lines) { headerPointers in
            request.body.withUnsafeBufferPointer { body in
                var r = enc_http_request()
                return request.method.withCString { method in
                    request.url.withCString { url in
                        withOptionalCString(options.caFile) { caFile in
                            withOptionalCString(options.caDirectory) { caDir in
                                r.method = method
                                r.url = url
                                r.headers = headerPointers.baseAddress
                                r.header_count = headerPointers.count
                                r.body = body.count > 0 ? body.baseAddress : nil
                                r.body_length = body.count
                                r.connect_timeout_ms = options.connectTimeoutMilliseconds
                                r.timeout_ms = options.timeoutMilliseconds
                                r.max_response_bytes = options.maxResponseBytes
                                r.ca_file = caFile
                                r.ca_dir = caDir
                                if cancel != nil {
                                    r.cancel = { context in
                                        guard let context else { return 0 }
                                        return Unmanaged<CancelBox>.fromOpaque(context).takeUnretainedValue().cancelled() ? 1 : 0
                                    }
                                    r.cancel_context = Unmanaged.passUnretained(box).toOpaque()
                                }
                                return withExtendedLifetime(box) { enc_http_perform(&r, &response, &error, error.count) }
                            }
                        }
                    }
                }
            }
        }
        defer { enc_http_response_free(&response) }
        let reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let what = "\(request.method) \(request.url)"
        switch status {
        case ENC_HTTP_OK:
            let block = response.headers.map { String(cString: $0) } ?? ""
            let body = response.body.map { Array(UnsafeBufferPointer(start: $0, count: response.body_length)) } ?? []
            return HTTPResponse(status: Int(response.status), headers: HTTPResponse.headers(fromBlock: block), body: body)
        case ENC_HTTP_ERR_TIMEOUT: throw EncoreError(.timeout, "\(what): timed out (\(reason))")
        case ENC_HTTP_ERR_TLS: throw EncoreError(.tls, "\(what): TLS failed: \(reason)")
        case ENC_HTTP_ERR_TOO_LARGE: throw EncoreError(.responseTooLarge, "\(what): \(reason)")
        case ENC_HTTP_ERR_CANCELLED: throw EncoreError(.cancelled, "\(what): cancelled")
        case ENC_HTTP_ERR_ARGUMENT: throw EncoreError(.invalidArgument, "\(what): \(reason)")
        case ENC_HTTP_ERR_INTERNAL: throw EncoreError(.internalError, "\(what): \(reason)")
        // libcurl is loaded on the first request: without it nothing can be
        // sent, as without a network (the message names the package).
        case ENC_HTTP_ERR_UNAVAILABLE: throw EncoreError(.network, "\(what): \(reason)")
        default: throw EncoreError(.network, "\(what): \(reason)")
        }
    }
}

/// The cancel closure, reachable from C through an opaque pointer.
private final class CancelBox: @unchecked Sendable {
    // @unchecked: immutable.
    let cancel: (@Sendable () -> Bool)?
    init(_ cancel: (@Sendable () -> Bool)?) { self.cancel = cancel }
    func cancelled() -> Bool { cancel?() ?? false }
}

/// C strings of `strings` for the duration of `body`.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) throws -> R) throws -> R {
    var copies: [UnsafeMutablePointer<CChar>] = []
    defer { copies.forEach { free($0) } }
    for s in strings {
        guard let p = strdup(s) else { throw EncoreError(.outOfMemory, "cannot copy a header") }
        copies.append(p)
    }
    let pointers = copies.map { UnsafePointer<CChar>?(UnsafePointer($0)) }
    return try pointers.withUnsafeBufferPointer(body)
}

private func withOptionalCString<R>(_ s: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let s else { return body(nil) }
    return s.withCString { body($0) }
}
