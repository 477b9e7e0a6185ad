import EncoreHTTP
import EncoreSupport
import EncoreTestSupport
import Testing

/// RequestScript, the machine behind the scripted flows, and the blocking
/// runner over it: requests in order and one at a time, fakes whose outcome
/// is ignored, real answers applied when fed, retries as waits, failures
/// that end the flow, and every out-of-turn call refused.
@Suite struct OperationTests {
    static let now: Int64 = 1_795_500_000

    /// What the steps did, in order.
    final class Log: @unchecked Sendable {
        var applied: [String] = []
    }

    func request(_ path: String) -> HTTPRequest { HTTPRequest(method: "POST", url: "https://example.org" + path, body: Array(path.utf8)) }

    func script(_ log: Log, retry: RetryPolicy = .once, refuse: Bool = false) -> RequestScript<[String]> {
        RequestScript("test flow", [
            .real(retry: retry, { request("/real") }) { answer, now in
                if refuse || answer.status != 200 { throw ServerAnswer.error(answer, "the real request") }
                log.applied.append("real@\(now)")
            },
            .fake { request("/fake") },
        ], render: { .array($0.map { .string($0) }) }) { _ in log.applied }
    }

    func expectRequest(_ step: OperationStep, _ path: String) -> UInt64? {
        guard case .request(let id, let r) = step else {
            Issue.record("expected a request for \(path), got \(step)")
            return nil
        }
        #expect(r.path == path)
        return id
    }

    @Test func requestsGoInOrderAndAnswersAreAppliedWhenFed() throws {
        let log = Log()
        let op = script(log)
        let real = try #require(expectRequest(try op.next(now: Self.now), "/real"))
        #expect(throws: EncoreError.self) { try op.next(now: Self.now) }
        #expect(throws: EncoreError.self) { try op.receive(real + 1, answer: HTTPResponse(status: 200), now: Self.now) }
        #expect(log.applied.isEmpty)
        try op.receive(real, answer: HTTPResponse(status: 200), now: Self.now + 5)
        #expect(log.applied == ["real@\(Self.now + 5)"])
        let fake = try #require(expectRequest(try op.next(now: Self.now), "/fake"))
        #expect(op.value == nil)
        try op.receive(fake, failure: EncoreError(.timeout, "no answer"), now: Self.now)
        #expect(try op.next(now: Self.now) == .done)
        #expect(try op.outcome() == ["real@\(Self.now + 5)"])
        #expect(try op.result() == .array([.string("real@\(Self.now + 5)")]))
    }

    @Test func aScriptedFlowHasNothingToCompute() throws {
        let op = script(Log(), retry: .once)
        #expect(throws: EncoreError.self) { try op.compute(now: Self.now, progress: nil) }
    }

    @Test func retriesWaitWithADoublingDelayThenFail() throws {
        let op = script(Log(), retry: RetryPolicy(attempts: 3, delayMilliseconds: 1500))
        var waits: [Int64] = []
        var requests = 0
        loop: while true {
            switch try op.next(now: Self.now) {
            case .done: break loop
            case .wait(let ms): waits.append(ms)
            case .request(let id, _):
                requests += 1
                try op.receive(id, answer: HTTPResponse(status: 503), now: Self.now)
            case .compute:
                Issue.record("a scripted flow has nothing to compute")
                break loop
            }
        }
        #expect(requests == 3 && waits == [1500, 3000])
        #expect(op.failure?.kind == .serverUnavailable)
        #expect(throws: EncoreError.self) { try op.outcome() }
    }

    @Test func aRefusalIsFinalAndEndsTheFlowBeforeItsFakes() throws {
        let op = script(Log(), retry: RetryPolicy(attempts: 3, delayMilliseconds: 10))
        let id = try #require(expectRequest(try op.next(now: Self.now), "/real"))
        try op.receive(id, answer: HTTPResponse(status: 400), now: Self.now)
        #expect(try op.next(now: Self.now) == .done)
        #expect(op.failure?.kind == .serverRefused)
    }

    @Test func onlyTransportFailuresAndSaneTimesAreFed() throws {
        let op = script(Log())
        let id = try #require(expectRequest(try op.next(now: Self.now), "/real"))
        #expect(throws: EncoreError.self) { try op.receive(id, failure: EncoreError(.serverRefused, "x"), now: Self.now) }
        #expect(throws: EncoreError.self) { try op.receive(id, answer: HTTPResponse(status: 200), now: -1) }
        #expect(throws: EncoreError.self) { try op.next(now: -1) }
        try op.receive(id, failure: EncoreError(.network, "down"), now: Self.now)
        #expect(try op.next(now: Self.now) == .done && op.failure?.kind == .network)
    }

    /// A transport that answers from a list and counts.
    struct Scripted: HTTPTransport {
        final class Box: @unchecked Sendable { var answers: [Result<HTTPResponse, EncoreError>]; var seen: [String] = []
            init(_ a: [Result<HTTPResponse, EncoreError>]) { answers = a } }
        let box: Box
        func perform(_ request: HTTPRequest, cancel: (@Sendable () -> Bool)?) throws -> HTTPResponse {
            box.seen.append(request.path)
            return try box.answers.removeFirst().get()
        }
    }

    @Test func theBlockingRunnerIsTheSameMachine() throws {
        let log = Log()
        let transport = Scripted(box: .init([.failure(EncoreError(.network, "down")), .success(HTTPResponse(status: 200)),
                                             .failure(EncoreError(.timeout, "slow"))]))
        let op = script(log, retry: RetryPolicy(attempts: 2, delayMilliseconds: 0))
        let json = try OperationRunner.run(op, transport: transport, now: Self.now)
        #expect(transport.box.seen == ["/real", "/real", "/fake"])
        #expect(json == .array([.string("real@\(Self.now)")]))
        #expect(throws: EncoreError.self) {
            _ = try OperationRunner.run(script(Log()), transport: transport, now: Self.now, cancel: { true })
        }
    }

    @Test func aRequestThatCannotBeMadeEndsTheFlow() throws {
        let op = RequestScript<Int>("broken", [.real({ throw EncoreError(.invalidArgument, "no URL") }) { _, _ in }],
                                    render: { .int(Int64($0)) }) { _ in 1 }
        #expect(try op.next(now: Self.now) == .done)
        #expect(op.failure?.kind == .invalidArgument)
    }
}
