import EncorePush
import EncoreSupport
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

public struct SenderConfiguration: Sendable {
    /// Every due token is pushed once per round of this many seconds.
    public var interval: Int64 = 3600
    /// One pass over the tokens due now, unpaced, then return (cron, tests).
    public var once = false
    /// Tokens claimed per batch (the cursor moves a batch at a time; the
    /// table is never read whole).
    public var batchSize = 500
    /// Pushes in flight at once (streams on the HTTP/2 connection).
    public var concurrency = 16
    /// How long a claim holds; a sender that dies leaves its tokens due again after it.
    public var leaseSeconds: Int64 = 300
    public var expiry = ExpiryPolicy()
    /// Who claims (unique per process; written into the lease column).
    public var owner: String

    public init(owner: String) { self.owner = owner }
}

/// What one pass did.
public struct PassReport: Sendable, Equatable {
    public var pushed = 0, rejected = 0, retried = 0, failed = 0, expired = 0
    public init() {}
}

/// Claims due iOS tokens batch by batch, pushes them (spread over the
/// round unless `once`), records each outcome, deletes rejected tokens,
/// backs off on 429/5xx.
public final class Sender: Sendable {
    public let store: any RegistryStore
    public let apns: APNsClient
    public let configuration: SenderConfiguration
    private let schedule: SendSchedule
    private let clock: @Sendable () -> Int64
    /// Set by `stop()`: no new batch is claimed; the current batch is
    /// finished (unpaced) and recorded, so that nothing pushed is pushed
    /// again by another sender and nothing claimed waits for its lease.
    private let stopping = Atomic<Bool>(false)

    public init(store: any RegistryStore, apns: APNsClient, configuration: SenderConfiguration,
                clock: @escaping @Sendable () -> Int64 = { Int64(time(nil)) }) {
        self.store = store
        self.apns = apns
        self.configuration = configuration
        schedule = SendSchedule(interval: configuration.interval)
        self.clock = clock
    }

    /// Ends `run` soon: the current batch is pushed and recorded (graceful
    /// drain on SIGTERM).
    public func stop() { stopping.store(true, ordering: .relaxed) }

    public var isStopping: Bool { stopping.load(ordering: .relaxed) }

    /// Sleeps, waking early when stopped.
    private func pause(_ seconds: Double) async {
        let end = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while !isStopping, ContinuousClock.now < end {
            try? await Task.sleep(for: min(.milliseconds(200), end - ContinuousClock.now))
        }
    }

    /// Passes of a `once` run when APNs asks to slow down.
    static let oncePasses = 6

    /// Runs until cancelled (or, with `once`, until the tokens due now are done).
    public func run(logger: Logger) async throws {
        var backoff = Backoff()
        var passes = 0
        while !isStopping {
            let started = ContinuousClock.now
            let report = try await pass(paced: !configuration.once, backoff: &backoff)
            PushdMetrics.pass(seconds: PushdMetrics.seconds(since: started))
            passes += 1
            logger.info("pass done", metadata: [
                "pushed": "\(report.pushed)", "rejected": "\(report.rejected)", "retry": "\(report.retried)",
                "failed": "\(report.failed)", "expired": "\(report.expired)",
            ])
            // Once: what was throttled is retried (after the back-off) a few times.
            if configuration.once && (report.retried == 0 || passes >= Self.oncePasses) { return }
            // Retries (and tokens registered meanwhile) are taken up by the
            // next pass; otherwise the next round is awaited.
            let now = clock()
            let wait: Int64 = report.retried > 0 ? Int64(max(1, backoff.current)) : min(schedule.roundEnd(now) - now, 60)
            await pause(Double(max(1, wait)))
        }
    }

    /// One pass over the table with a cursor: the due tokens of the
    /// current round, a batch at a time.
    public func pass(paced: Bool, backoff: inout Backoff) async throws -> PassReport {
        var report = PassReport()
        let start = clock()
        report.expired = try await store.expire(renewedBefore: configuration.expiry.cutoff(now: start))
        var delay = 0.0, batch = configuration.batchSize
        let due = try await store.countDue(pushedBefore: schedule.roundStart(start), renewedAfter: configuration.expiry.cutoff(now: start))
        PushdMetrics.queueDepth(due)
        if paced {
            (delay, batch) = schedule.pacing(due: due, now: start, leaseSeconds: configuration.leaseSeconds, batchSize: configuration.batchSize)
        }
        var left = due
        var cursor: Int64 = 0
        while !isStopping {
            let now = clock()
            let claimed = try await store.claim(ClaimRequest(
                after: cursor, pushedBefore: schedule.roundStart(now), renewedAfter: configuration.expiry.cutoff(now: now),
                now: now, leaseUntil: now + configuration.leaseSeconds, owner: configuration.owner, limit: batch))
            guard let last = claimed.last else { break }
            cursor = last.id
            var results = try await push(claimed, delay: delay, backoff: &backoff)
            // Claimed but not pushed (stopped): released, still due.
            let done = Set(results.map(\.token.id))
            results += claimed.filter { !done.contains($0.id) }.map { PushResult(token: $0, action: .retry, outcome: "not sent (sender stopped)", at: now) }
            for r in results {
                switch r.action {
                case .pushed: if r.outcome == "200" { report.pushed += 1 } else { report.failed += 1 }
                case .reject: report.rejected += 1
                case .retry: report.retried += 1
                }
            }
            try await store.finish(results, owner: configuration.owner)
            left = max(0, left - results.count(where: { $0.action != .retry }))
            PushdMetrics.queueDepth(left)
            if let tls = results.first(where: { $0.outcome.hasPrefix("-1 TLS") }) {
                throw EncoreError(.tls, "the APNs server cannot be trusted (\(tls.outcome.dropFirst(3))): nothing more is sent")
            }
        }
        return report
    }

    /// Pushes one batch, at most `concurrency` at a time, one every `delay`
    /// seconds, pausing while backing off.
    private func push(_ tokens: [DueToken], delay: Double, backoff: inout Backoff) async throws -> [PushResult] {
        let apns = self.apns, clock = self.clock
        var results: [PushResult] = []
        results.reserveCapacity(tokens.count)
        try await withThrowingTaskGroup(of: PushResult.self) { group in
            var inFlight = 0
            func collect(_ r: PushResult) {
                inFlight -= 1
                if r.action == .retry { backoff.failed() } else { backoff.succeeded() }
                results.append(r)
            }
            for token in tokens {
                while inFlight >= configuration.concurrency, let r = try await group.next() { collect(r) }
                if backoff.current > 0 {
                    // Let what is in flight finish, then wait before the next one.
                    while let r = try await group.next() { collect(r) }
                    // Stopped while APNs asks to slow down: the rest of the
                    // batch is released below, unpushed, still due.
                    if isStopping { break }
                    if backoff.current > 0 { await pause(backoff.current) }
                }
                // Stopped: the rest of the batch goes out unpaced (`pause`
                // returns at once), so that the drain ends soon.
                if delay > 0 { await pause(delay) }
                inFlight += 1
                group.addTask {
                    let now = clock()
                    var (answer, issuedAt) = await apns.push(token, now: now)
                    if answer.verdict == .refreshProviderToken {
                        answer = await apns.retryWithNewProviderToken(token, rejectedIssuedAt: issuedAt, now: clock())
                    }
                    PushdMetrics.push(status: answer.status, reason: answer.reason)
                    switch answer.verdict {
                    case .delivered: return PushResult(token: token, action: .pushed, outcome: "200", at: now)
                    case .rejectToken: return PushResult(token: token, action: .reject, outcome: answer.outcome, at: now)
                    case .retryLater: return PushResult(token: token, action: .retry, outcome: answer.outcome, at: now)
                    case .failed, .refreshProviderToken: return PushResult(token: token, action: .pushed, outcome: answer.outcome, at: now)
                    case .untrusted: return PushResult(token: token, action: .retry, outcome: answer.outcome, at: now)
                    }
                }
            }
            while let r = try await group.next() { collect(r) }
        }
        return results
    }
}
