import EncoreSupport

/// Retries of a real request that got no usable answer (no connection, a
/// timeout, 429 or 5xx): `attempts` in all, the delay doubling up to a minute.
public struct RetryPolicy: Sendable, Equatable {
    public var attempts: Int
    public var delayMilliseconds: Int64

    public static let once = RetryPolicy(attempts: 1, delayMilliseconds: 0)

    public init(attempts: Int, delayMilliseconds: Int64) {
        self.attempts = attempts
        self.delayMilliseconds = delayMilliseconds
    }

    public func validate() throws {
        guard (1 ... 10).contains(attempts), (0 ... 60_000).contains(delayMilliseconds) else {
            throw EncoreError(.invalidArgument, "retries: 1 to 10 attempts, a delay of 0 to 60000 ms")
        }
    }

    static let retryable: [EncoreError.Kind] = [.network, .timeout, .serverUnavailable]
}

/// One request of a scripted flow.
public struct ScriptedRequest {
    /// A real request's answer is read and applied; a fake one's answer (or
    /// failure) is ignored: it is there so that every session looks alike.
    public enum Role: Sendable { case real, fake }

    public let role: Role
    /// Made when its turn comes, so it can use what earlier answers stored.
    public let make: () throws -> HTTPRequest
    /// Reads a real request's answer (throwing for a refusal) and stores
    /// what it brings, in one transaction; `now` is the host's clock.
    public let apply: (HTTPResponse, Int64) throws -> Void
    public let retry: RetryPolicy

    public static func real(retry: RetryPolicy = .once, _ make: @escaping () throws -> HTTPRequest,
                            apply: @escaping (HTTPResponse, Int64) throws -> Void) -> ScriptedRequest {
        ScriptedRequest(role: .real, make: make, apply: apply, retry: retry)
    }

    public static func fake(_ make: @escaping () throws -> HTTPRequest) -> ScriptedRequest {
        ScriptedRequest(role: .fake, make: make, apply: { _, _ in }, retry: .once)
    }
}

/// The one general operation behind the flows that are a fixed sequence of
/// requests (test registration, result polls, submission, noise, push
/// registration): the requests in order, one at a time; a real one that
/// fails ends the flow (after its retries), a fake one's outcome is
/// ignored; `finish` makes the result when the last answer is in.
public final class RequestScript<Result>: NetworkOperation {
    public let name: String
    private let steps: [ScriptedRequest]
    private let finish: (Int64) throws -> Result
    private let render: (Result) -> JSONValue

    private var index = 0
    private var nextID: UInt64 = 1
    private var outstanding: UInt64?
    private var attempt = 1
    private var delay: Int64 = 0
    /// A retry's delay, said once by `next` before the request goes again.
    private var pendingWait: Int64?
    public private(set) var failure: EncoreError?
    public private(set) var value: Result?

    public init(_ name: String, _ steps: [ScriptedRequest], render: @escaping (Result) -> JSONValue,
                finish: @escaping (Int64) throws -> Result) {
        self.name = name
        self.steps = steps
        self.render = render
        self.finish = finish
    }

    public var isDone: Bool { failure != nil || value != nil }

    public func next(now: Int64) throws -> OperationStep {
        try checkNow(now)
        if isDone { return .done }
        if let outstanding {
            throw EncoreError(.operationState, "\(name): request \(outstanding) is still waiting for its answer")
        }
        if let wait = pendingWait {
            pendingWait = nil
            if wait > 0 { return .wait(milliseconds: wait) }
        }
        guard index < steps.count else {
            complete(now: now)
            return .done
        }
        do {
            let request = try steps[index].make()
            let id = nextID
            nextID &+= 1
            outstanding = id
            return .request(id: id, request)
        } catch {
            failure = EncoreError.wrapping(error, name)
            return .done
        }
    }

    public func receive(_ id: UInt64, answer: HTTPResponse, now: Int64) throws {
        try take(id, now)
        let step = steps[index]
        guard step.role == .real else { return advance(now: now) }
        do {
            try step.apply(answer, now)
        } catch {
            return retryOrFail(EncoreError.wrapping(error, name), step)
        }
        advance(now: now)
    }

    public func receive(_ id: UInt64, failure error: EncoreError, now: Int64) throws {
        guard TransportFailure.kinds.contains(error.kind) else {
            throw EncoreError(.invalidArgument, "\(name): a request's failure must be a transport failure, not \(error.kind)")
        }
        try take(id, now)
        let step = steps[index]
        guard step.role == .real else { return advance(now: now) }
        retryOrFail(error, step)
    }

    /// The typed result: the flow's error, or the state error before it is done.
    public func outcome() throws -> Result {
        if let failure { throw failure }
        guard let value else { throw EncoreError(.operationState, "\(name) has not finished") }
        return value
    }

    public func resultJSON() throws -> JSONValue {
        guard let value else { throw EncoreError(.operationState, "\(name) has not finished") }
        return render(value)
    }

    // MARK: -

    private func take(_ id: UInt64, _ now: Int64) throws {
        try checkNow(now)
        guard let outstanding, outstanding == id else {
            throw EncoreError(.operationState, "\(name): \(id) is not the request waiting for an answer")
        }
        self.outstanding = nil
    }

    private func advance(now: Int64) {
        index += 1
        attempt = 1
        delay = 0
        if index == steps.count { complete(now: now) }
    }

    private func retryOrFail(_ error: EncoreError, _ step: ScriptedRequest) {
        guard attempt < step.retry.attempts, RetryPolicy.retryable.contains(error.kind) else {
            failure = error
            return
        }
        delay = attempt == 1 ? step.retry.delayMilliseconds : min(delay * 2, 60_000)
        attempt += 1
        pendingWait = delay
    }

    private func checkNow(_ now: Int64) throws {
        guard now >= 0 else { throw EncoreError(.invalidArgument, "\(name): now (\(now)) must not be negative") }
    }

    private func complete(now: Int64) {
        guard !isDone else { return }
        do {
            value = try finish(now)
        } catch {
            failure = EncoreError.wrapping(error, name)
        }
    }
}
