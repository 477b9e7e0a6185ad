// encore.h section: operation
import CEncoreTypes
import EncoreCheckIns
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreSync

public typealias encore_operation_ptr = OpaquePointer

/// An operation as C holds it: the machine, and the C copy of the request
/// it is waiting on (valid until that answer is fed).
final class OperationHandle: @unchecked Sendable {
    // @unchecked: one thread drives an operation at a time (documented).
    let operation: any NetworkOperation
    private var request: (id: UInt64, copy: CRequest)?

    init(_ operation: any NetworkOperation) { self.operation = operation }

    func step(now: Int64) throws -> encore_operation_step {
        var s = encore_operation_step()
        s.struct_size = UInt32(MemoryLayout<encore_operation_step>.size)
        switch try operation.next(now: now) {
        case .done:
            s.kind = ENCORE_STEP_DONE
        case .wait(let milliseconds):
            s.kind = ENCORE_STEP_WAIT
            s.wait_ms = milliseconds
        case .compute:
            s.kind = ENCORE_STEP_COMPUTE
        case .request(let id, let r):
            let copy = CRequest(r)
            request = (id, copy)
            s.kind = ENCORE_STEP_REQUEST
            s.request_id = id
            s.method = copy.method
            s.url = copy.url
            s.headers = UnsafePointer(copy.headers)
            s.header_count = copy.headerCount
            s.body = UnsafePointer(copy.body)
            s.body_length = copy.bodyLength
        }
        return s
    }

    /// Forgets the request's C copy once its answer is in (whether or not
    /// the machine took it, the host is done with it).
    func answered(_ id: UInt64) {
        if request?.id == id { request = nil }
    }
}

/// A request in memory C can point to, freed with this object.
final class CRequest: @unchecked Sendable {
    // @unchecked: made once, then only read.
    private let strings = CStrings()
    let method, url: UnsafePointer<CChar>?
    let headers: UnsafeMutablePointer<encore_http_header>?
    let headerCount: Int
    let body: UnsafeMutablePointer<UInt8>?
    let bodyLength: Int

    init(_ r: HTTPRequest) {
        method = strings.keep(r.method)
        url = strings.keep(r.url)
        headerCount = r.headers.count
        headers = r.headers.isEmpty ? nil : .allocate(capacity: r.headers.count)
        for (i, h) in r.headers.enumerated() {
            headers?[i] = encore_http_header(name: strings.keep(h.name), value: strings.keep(h.value))
        }
        bodyLength = r.body.count
        body = r.body.isEmpty ? nil : .allocate(capacity: r.body.count)
        if let body { _ = UnsafeMutableBufferPointer(start: body, count: r.body.count).initialize(from: r.body) }
    }

    deinit {
        headers?.deallocate()
        body?.deallocate()
    }
}

/// The outcome of any operation, for the typed result getters of the features.
func finishedOperation<Result>(_ handle: encore_operation_ptr?, as type: Result.Type) throws -> Result {
    let op = try borrow(handle, as: OperationHandle.self, "operation").operation
    if let failure = op.failure { throw failure }
    guard let script = op as? RequestScript<Result> else {
        throw EncoreError(.invalidArgument, "\(op.name) has no result of this kind")
    }
    guard let value = script.value else { throw EncoreError(.operationState, "\(op.name) has not finished") }
    return value
}

/// What to do next, at `now` (unix seconds): *step (struct_size set by the
/// caller) gets ENCORE_STEP_REQUEST with the request to perform,
/// ENCORE_STEP_WAIT with how long to wait, ENCORE_STEP_COMPUTE when heavy
/// work is due (encore_operation_compute()), or ENCORE_STEP_DONE. Does no
/// heavy work and starts no thread. ENCORE_ERR_OPERATION_STATE while a
/// request waits for its answer.
@c public func encore_operation_next(_ operation: encore_operation_ptr?, _ now: Int64, _ step: UnsafeMutablePointer<encore_operation_step>?) -> encore_status {
    guarded {
        let handle = try borrow(operation, as: OperationHandle.self, "operation")
        _ = try required(step, "step")
        try writeOutput(try handle.step(now: now), to: step, "step")
    }
}

/// Feeds the answer to request `request_id`, whatever its HTTP status
/// (100...599): headers and body are copied. What the answer brings is
/// stored now, in one transaction; or, when verifying it is heavy work (a
/// key file), kept as it came, and the ENCORE_STEP_COMPUTE that
/// encore_operation_next() announces next verifies and stores it (nothing
/// is stored unverified; an answer that fails there ends the operation as
/// here). A refusal or an answer that cannot be
/// read is not an error of this call: it ends the operation (or schedules a
/// retry), and encore_operation_get_status() tells. ENCORE_ERR_OPERATION_STATE
/// for an id the operation is not waiting for.
@c public func encore_operation_feed_answer(_ operation: encore_operation_ptr?, _ request_id: UInt64, _ http_status: Int32, _ headers: UnsafePointer<encore_http_header>?, _ header_count: Int, _ body: UnsafePointer<UInt8>?, _ body_length: Int, _ now: Int64) -> encore_status {
    guarded {
        let handle = try borrow(operation, as: OperationHandle.self, "operation")
        guard (100 ... 599).contains(http_status) else { throw EncoreError(.invalidArgument, "http_status \(http_status) is not an HTTP status") }
        guard header_count >= 0, header_count <= 10_000 else { throw EncoreError(.invalidArgument, "header_count \(UInt(bitPattern: header_count)): at most 10000") }
        guard header_count == 0 || headers != nil else { throw EncoreError(.invalidArgument, "headers is NULL but header_count is \(header_count)") }
        var list: [HTTPHeader] = []
        for i in 0 ..< header_count {
            let h = headers.map { $0[i] } ?? encore_http_header()
            list.append(HTTPHeader(try text(h.name, "headers[\(i)].name"), try text(h.value, "headers[\(i)].value")))
        }
        let bytes = Array(try buffer(body, body_length, "body"))
        try handle.operation.receive(request_id, answer: HTTPResponse(status: Int(http_status), headers: list, body: bytes), now: now)
        handle.answered(request_id)
    }
}

/// Feeds that request `request_id` got no answer: `failure` is
/// ENCORE_ERR_NETWORK, _TIMEOUT, _TLS, _RESPONSE_TOO_LARGE or _CANCELLED.
/// The operation retries where its flow does, or ends with that status.
@c public func encore_operation_feed_failure(_ operation: encore_operation_ptr?, _ request_id: UInt64, _ failure: encore_status, _ now: Int64) -> encore_status {
    guarded {
        let handle = try borrow(operation, as: OperationHandle.self, "operation")
        let kinds: [encore_status: EncoreError.Kind] = [ENCORE_ERR_NETWORK: .network, ENCORE_ERR_TIMEOUT: .timeout, ENCORE_ERR_TLS: .tls,
                                                        ENCORE_ERR_RESPONSE_TOO_LARGE: .responseTooLarge, ENCORE_ERR_CANCELLED: .cancelled]
        guard let kind = kinds[failure] else {
            throw EncoreError(.invalidArgument, "failure must be ENCORE_ERR_NETWORK, _TIMEOUT, _TLS, _RESPONSE_TOO_LARGE or _CANCELLED, not \(failure)")
        }
        try handle.operation.receive(request_id, failure: EncoreError(kind, "\(handle.operation.name): request \(request_id) got no answer (\(kind))"), now: now)
        handle.answered(request_id)
    }
}

/// Runs the heavy work that encore_operation_next() announced with
/// ENCORE_STEP_COMPUTE, at `now` (unix seconds), on the calling thread
/// (which may be any thread; it may use every core), then the host calls
/// encore_operation_next() again. `progress` (may be NULL) is called while
/// it runs (total 0: not known); returning nonzero cancels it, and the
/// operation ends with ENCORE_ERR_CANCELLED. A failure of the work ends the
/// operation (encore_operation_get_status() tells) and is not an error of
/// this call; ENCORE_ERR_OPERATION_STATE when no computation is due.
/// Not thread-safe with other calls on the same operation.
@c public func encore_operation_compute(_ operation: encore_operation_ptr?, _ now: Int64, _ progress: encore_progress_fn?, _ context: UnsafeMutableRawPointer?) -> encore_status {
    guarded {
        let op = try borrow(operation, as: OperationHandle.self, "operation").operation
        try op.compute(now: now, progress: progressHandler(progress, context))
    }
}

/// How the operation ended: ENCORE_OK when it succeeded, its failure's
/// status (and encore_last_error_message()) when it failed,
/// ENCORE_ERR_OPERATION_STATE while it has not finished.
@c public func encore_operation_get_status(_ operation: encore_operation_ptr?) -> encore_status {
    guarded {
        let op = try borrow(operation, as: OperationHandle.self, "operation").operation
        _ = try op.result()
    }
}

/// The result of a finished, successful operation as JSON (the same
/// document the CLI prints), for encore_bytes_free(). The operation's own
/// status when it failed; ENCORE_ERR_OPERATION_STATE before it finished.
@c public func encore_operation_get_result_json(_ operation: encore_operation_ptr?, _ out: UnsafeMutablePointer<encore_bytes>?) -> encore_status {
    guarded {
        let op = try borrow(operation, as: OperationHandle.self, "operation").operation
        _ = try required(out, "out")
        let json = try op.result()
        try output(out, "out") { try LibraryBytes.make(json.rendered) }
    }
}

/// The blocking form: drives the operation to its end through `transport`
/// on the calling thread (the transport's callback runs on it), waiting
/// where the flow waits. Time is `now` plus the time that has passed since
/// the call (a monotonic clock). `progress` (may be NULL) is called while it
/// runs with the requests done so far (total 0: not known); returning
/// nonzero cancels with ENCORE_ERR_CANCELLED, and the operation can then be
/// driven on or freed. Returns the operation's status.
@c public func encore_operation_run(_ operation: encore_operation_ptr?, _ transport: encore_transport_ptr?, _ now: Int64, _ progress: encore_progress_fn?, _ context: UnsafeMutableRawPointer?) -> encore_status {
    guarded {
        let op = try borrow(operation, as: OperationHandle.self, "operation").operation
        let t = try borrow(transport, as: TransportHandle.self, "transport").value
        try runOperation(op, transport: t, now: now, progress: progress, context: context)
    }
}

/// Releases an operation; NULL does nothing. What it stored stays stored;
/// a request still waiting for its answer is abandoned.
@c public func encore_operation_free(_ operation: encore_operation_ptr?) {
    release(operation)
}

/// The blocking loop the features' one-call functions use too.
func runOperation(_ op: any NetworkOperation, transport: any HTTPTransport, now: Int64,
                  progress: encore_progress_fn? = nil, context: UnsafeMutableRawPointer? = nil) throws {
    let counter = RequestCounter()
    let cancel: (@Sendable () -> Bool)? = progress.map { fn in
        let box = UncheckedContext(context)
        return { @Sendable in fn(box.pointer, counter.count, 0) != 0 }
    }
    _ = try OperationRunner.run(op, transport: CountingTransport(transport, counter), now: now, cancel: cancel)
}

/// Requests done so far, for progress callbacks.
final class RequestCounter: @unchecked Sendable {
    // @unchecked: written and read on the one thread that runs the loop.
    var count: UInt64 = 0
}

struct CountingTransport: HTTPTransport {
    let inner: any HTTPTransport
    let counter: RequestCounter
    init(_ inner: any HTTPTransport, _ counter: RequestCounter) {
        self.inner = inner
        self.counter = counter
    }

    func perform(_ request: HTTPRequest, cancel: (@Sendable () -> Bool)?) throws -> HTTPResponse {
        defer { counter.count &+= 1 }
        return try inner.perform(request, cancel: cancel)
    }
}

/// A host's context pointer, handed back to its callback on the same thread.
struct UncheckedContext: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer?
    init(_ pointer: UnsafeMutableRawPointer?) { self.pointer = pointer }
}
