import EncoreSupport

/// What a network operation wants from its host next.
public enum OperationStep: Sendable, Equatable {
    /// Perform this request and feed its answer (or failure) back with `id`.
    case request(id: UInt64, HTTPRequest)
    /// Nothing to send before `milliseconds` have passed (a retry's delay):
    /// ask again then.
    case wait(milliseconds: Int64)
    /// Heavy local work is due (verifying and storing a key file that was
    /// fed, CrowdNotifier matching, the exposure check): call `compute` where the host likes
    /// (a worker thread, an executor), then ask again. `next` and `receive`
    /// never do such work themselves, so a host's event loop never waits
    /// on more than one answer's worth of work.
    case compute
    /// Finished: the outcome is in `result()`.
    case done
}

/// A network flow as a state machine (sans-I/O): it makes requests and
/// applies answers, and does no I/O and reads no clock. `next` and
/// `receive` run on the calling thread, start no thread and do work bounded
/// by one answer; heavier work waits for the host's `compute` (which may
/// use every core).
/// The host drives it: `next` for what to do, `receive` for what came back,
/// `outcome` once done. Whatever the flow stores happens inside `receive`
/// of the answer that brings it, in one transaction, or, when verifying it
/// is heavy work, in the `compute` step that follows that answer (the
/// answer waits as it came, never stored before it was verified). The requests, their
/// sizes and their order are the flow's own (fake requests included), so
/// how a host performs them does not change what the wire shows.
///
/// Not thread-safe: one host drives one operation at a time.
public protocol NetworkOperation: AnyObject {
    /// Names the flow in messages ("push registration", "test result poll").
    var name: String { get }
    /// What to do next, at `now` (Unix seconds; the host's clock).
    func next(now: Int64) throws -> OperationStep
    /// The answer to request `id`, whatever its HTTP status.
    func receive(_ id: UInt64, answer: HTTPResponse, now: Int64) throws
    /// Request `id` got no answer (`failure.kind`: .network, .timeout,
    /// .tls, .responseTooLarge, .cancelled).
    func receive(_ id: UInt64, failure: EncoreError, now: Int64) throws
    /// Runs the work `next` said `.compute` for; `progress` (done, total)
    /// may cancel it, which ends the operation with `.cancelled`. The state
    /// error when no work is due.
    func compute(now: Int64, progress: ProgressHandler?) throws
    /// Once `next` said `.done`: nil when the flow succeeded, its error otherwise.
    var failure: EncoreError? { get }
    /// Once done and successful: the flow's result as JSON.
    func resultJSON() throws -> JSONValue
}

extension NetworkOperation {
    /// The flows without heavy work: nothing is ever due.
    public func compute(now: Int64, progress: ProgressHandler?) throws {
        throw EncoreError(.operationState, "\(name): no computation is due")
    }

    /// The flow's outcome: throws its error, or the state error before it is done.
    public func result() throws -> JSONValue {
        if let failure { throw failure }
        return try resultJSON()
    }
}

/// Failures a host may report for a request that got no answer.
public enum TransportFailure {
    public static let kinds: [EncoreError.Kind] = [.network, .timeout, .tls, .responseTooLarge, .cancelled]
}

/// The blocking form of every operation: one loop over the transport, on
/// the calling thread. Time is `start` plus what the monotonic clock says
/// has passed since, so a caller that passes its own `now` gets the same
/// timestamps it would get driving the operation itself.
public enum OperationRunner {
    /// `cancel` is polled before each step and during transfers.
    public static func run(_ operation: any NetworkOperation, transport: any HTTPTransport, now start: Int64,
                           cancel: (@Sendable () -> Bool)? = nil) throws -> JSONValue {
        let clock = MonotonicClock()
        while true {
            if cancel?() == true { throw EncoreError(.cancelled, "\(operation.name): cancelled") }
            let now = start &+ clock.elapsedSeconds
            switch try operation.next(now: now) {
            case .done:
                return try operation.result()
            case .wait(let milliseconds):
                clock.sleep(milliseconds: milliseconds, cancel: cancel)
            case .compute:
                let progress: ProgressHandler? = cancel.map { c in { _, _ in !c() } }
                try operation.compute(now: start &+ clock.elapsedSeconds, progress: progress)
            case .request(let id, let request):
                let answer: HTTPResponse
                do {
                    answer = try transport.perform(request, cancel: cancel)
                } catch let e as EncoreError where TransportFailure.kinds.contains(e.kind) && e.kind != .cancelled {
                    try operation.receive(id, failure: e, now: start &+ clock.elapsedSeconds)
                    continue
                }
                try operation.receive(id, answer: answer, now: start &+ clock.elapsedSeconds)
            }
        }
    }
}
