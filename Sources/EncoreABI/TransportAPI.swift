// encore.h section: net
import CEncoreTypes
import EncoreCheck
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport
#if canImport(Glibc)
import Glibc
#endif

public typealias encore_transport_ptr = OpaquePointer
public typealias encore_http_response_ptr = OpaquePointer

/// A transport as C holds it.
typealias TransportHandle = Held<any HTTPTransport>

func transportOptions(_ pointer: UnsafePointer<encore_transport_options>?) throws -> TransportOptions {
    var t = TransportOptions()
    guard let pointer else { return t }
    let o = try checkedStruct(pointer, "encore_transport_options_init")
    guard o.reserved == 0 else { throw EncoreError(.invalidArgument, "transport options: reserved must be 0") }
    t.connectTimeoutMilliseconds = o.connect_timeout_ms
    t.timeoutMilliseconds = o.timeout_ms
    t.maxResponseBytes = o.max_response_bytes
    t.caFile = try o.ca_file.map { try text($0, "ca_file") }
    t.caDirectory = try o.ca_dir.map { try text($0, "ca_dir") }
    try t.validate()
    return t
}

/// Writes the default transport options to *options (pass sizeof *options):
/// connect within 10 s, a request within 60 s, answers up to 16 MiB, the
/// system's trusted CAs.
@c public func encore_transport_options_init(_ options: UnsafeMutablePointer<encore_transport_options>?, _ struct_size: Int) -> encore_status {
    initOptions(options, "options", struct_size) { o in
        let d = TransportOptions()
        o.connect_timeout_ms = d.connectTimeoutMilliseconds
        o.timeout_ms = d.timeoutMilliseconds
        o.max_response_bytes = d.maxResponseBytes
    }
}

/// The built-in transport: HTTPS through libcurl with TLS verification
/// always on (ca_file/ca_dir add trusted CAs for private deployments),
/// redirects refused, answers capped, timeouts. `options` may be NULL.
/// Release it with encore_transport_free().
@c public func encore_transport_new_curl(_ options: UnsafePointer<encore_transport_options>?, _ out: UnsafeMutablePointer<encore_transport_ptr?>?) -> encore_status {
    guarded {
        let o = try transportOptions(options)
        try output(out, "out") { retainedHandle(TransportHandle(try CurlTransport(options: o))) }
    }
}

/// A transport that hands each request to the host's `fn` (see
/// encore_http_fn), so an app with its own HTTP stack uses the same
/// protocols. encore still applies its URL rule and the answer limit of
/// `options` (may be NULL). Release it with encore_transport_free().
@c public func encore_transport_new_callback(_ fn: encore_http_fn?, _ context: UnsafeMutableRawPointer?, _ options: UnsafePointer<encore_transport_options>?, _ out: UnsafeMutablePointer<encore_transport_ptr?>?) -> encore_status {
    guarded {
        let fn = try required(fn, "fn")
        let o = try transportOptions(options)
        try output(out, "out") { retainedHandle(TransportHandle(CallbackTransport(fn: fn, context: context, options: o))) }
    }
}

/// Releases a transport; NULL does nothing.
@c public func encore_transport_free(_ transport: encore_transport_ptr?) {
    release(transport)
}

/// Sets the answer's HTTP status (100...599); a callback that returns 0
/// must have set it.
@c public func encore_http_response_set_status(_ response: encore_http_response_ptr?, _ status: Int32) -> encore_status {
    guarded {
        let r = try borrow(response, as: ResponseBuilder.self, "response")
        guard (100 ... 599).contains(status) else { throw EncoreError(.invalidArgument, "status \(status) is not an HTTP status") }
        r.status = Int(status)
    }
}

/// Adds a header of the answer (name and value are copied).
@c public func encore_http_response_add_header(_ response: encore_http_response_ptr?, _ name: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?) -> encore_status {
    guarded {
        let r = try borrow(response, as: ResponseBuilder.self, "response")
        r.headers.append(HTTPHeader(try text(name, "name"), try text(value, "value")))
    }
}

/// Appends `length` bytes to the answer's body (copied). Beyond the
/// transport's max_response_bytes: ENCORE_ERR_RESPONSE_TOO_LARGE, and the
/// request fails so however the callback returns.
@c public func encore_http_response_append_body(_ response: encore_http_response_ptr?, _ data: UnsafePointer<UInt8>?, _ length: Int) -> encore_status {
    guarded {
        let r = try borrow(response, as: ResponseBuilder.self, "response")
        let bytes = try buffer(data, length, "data")
        guard UInt64(r.body.count) + UInt64(bytes.count) <= r.limit else {
            r.tooLarge = true
            throw EncoreError(.responseTooLarge, "the answer is larger than the transport's \(r.limit) bytes")
        }
        r.body += bytes
    }
}

/// An answer being filled by a host's callback.
final class ResponseBuilder: @unchecked Sendable {
    // @unchecked: used by one callback on one thread at a time.
    let limit: UInt64
    var status: Int?
    var headers: [HTTPHeader] = []
    var body: [UInt8] = []
    var tooLarge = false
    init(limit: UInt64) { self.limit = limit }
}

/// A host's transport: each request goes to its C callback.
final class CallbackTransport: HTTPTransport, @unchecked Sendable {
    // @unchecked: the host's callback and context are its own to make safe
    // (documented on encore_http_fn); the rest is immutable.
    let fn: encore_http_fn
    let context: UnsafeMutableRawPointer?
    let options: TransportOptions

    init(fn: encore_http_fn, context: UnsafeMutableRawPointer?, options: TransportOptions) {
        self.fn = fn
        self.context = context
        self.options = options
    }

    func perform(_ request: HTTPRequest, cancel: (@Sendable () -> Bool)?) throws -> HTTPResponse {
        try URLPolicy.check(request.url)
        if cancel?() == true { throw EncoreError(.cancelled, "\(request.method) \(request.url): cancelled") }
        let strings = CStrings()
        let headers = request.headers.map { encore_http_header(name: strings.keep($0.name), value: strings.keep($0.value)) }
        let builder = ResponseBuilder(limit: options.maxResponseBytes)
        let answered: Int32 = headers.withUnsafeBufferPointer { h in
            request.body.withUnsafeBufferPointer { body in
                var r = encore_http_request(struct_size: structSize(encore_http_request.self), reserved: 0, method: strings.keep(request.method), url: strings.keep(request.url),
                                            headers: h.baseAddress, header_count: h.count,
                                            body: body.count > 0 ? body.baseAddress : nil, body_length: body.count,
                                            connect_timeout_ms: options.connectTimeoutMilliseconds, timeout_ms: options.timeoutMilliseconds)
                let handle = Unmanaged.passRetained(builder)
                defer { handle.release() }
                return fn(context, &r, OpaquePointer(handle.toOpaque()))
            }
        }
        let what = "\(request.method) \(request.url)"
        if builder.tooLarge { throw EncoreError(.responseTooLarge, "\(what): the answer is larger than \(options.maxResponseBytes) bytes") }
        guard answered == 0 else { throw EncoreError(.network, "\(what): the host's transport got no answer (it returned \(answered))") }
        guard let status = builder.status else { throw EncoreError(.protocolError, "\(what): the host's transport returned an answer without a status") }
        return HTTPResponse(status: status, headers: builder.headers, body: builder.body)
    }
}
