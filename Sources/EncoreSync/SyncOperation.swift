import EncoreCheck
import EncoreCheckIns
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport

/// One sync as a state machine the host drives (sans-I/O): the planner's
/// steps become work, requests whose answers are verified and applied in
/// one transaction with the state that names them, so that a sync stopped
/// at any point keeps only verified packages and the next one resumes
/// where this one stopped. Heavy work is a `.compute` step: verifying and
/// writing a key file (its answer is fed as bytes and kept until then),
/// CrowdNotifier matching, and after new data the exposure check on the
/// cache. `next` and `receive` do light work on the calling thread (an
/// index, the configuration, a trace warning package) and start no thread.
/// The blocking `SyncService.run` is `OperationRunner` over this.
///
/// The time budget counts from the first `next`'s `now`: once it is spent
/// the sync stops cleanly before its next request. Stored timestamps are
/// the sync's start (the planner's clock).
public final class SyncOperation: NetworkOperation {
    public let name = "sync"
    let store: Store
    let servers: SyncServers
    /// What the sync asks of other features (the next due time's plan).
    let facts: any SyncFacts
    let options: SyncOptions
    /// The sync's start: what it stores as its time.
    let now: Int64
    var report: SyncReport
    /// New keys, configuration or deletions: the check must run again.
    var changed = false
    /// The key files kept by this sync (region → identifier → export.bin
    /// or package), for the check that follows: it need not read them back
    /// from the cache, nor inflate again what verifying them inflated.
    var kept: [String: [String: OwnedBytes]] = [:]

    /// The planner's steps not yet begun, and the work of the one under way.
    private var steps: [SyncStep]
    private var work: [SyncWork] = []
    private var outstanding: (id: UInt64, work: SyncWork)?
    private var nextID: UInt64 = 1
    private var requests: UInt64 = 0
    private var startedAt: Int64?
    /// The end's bookkeeping is done; only its compute step may be left.
    private var concluded = false
    /// The blocking run's form (SyncService.run, which owns its thread): a
    /// verified key file is written while the next one is verified (two
    /// processors share the work), and before anything ends the sync. A
    /// host-driven operation's compute step verifies and writes its package.
    let pipelined: Bool
    var unwritten: (CheckedPackage, PackageTarget)?
    /// The store's WAL checkpoints wait while a host-driven sync writes key
    /// files (each compute step then writes its package once and syncs only
    /// the WAL); the copy into the database file is done in the last
    /// compute step, or at the end.
    private var checkpointsPaused = false
    public private(set) var failure: EncoreError?
    public private(set) var value: SyncReport?

    /// Plans the sync at `now`; a sync with nothing due is done at once.
    public convenience init(store: Store, servers: SyncServers, facts: any SyncFacts, options: SyncOptions, now: Int64) throws {
        try self.init(store: store, servers: servers, facts: facts, options: options, now: now, pipelined: false)
    }

    init(store: Store, servers: SyncServers, facts: any SyncFacts, options: SyncOptions, now: Int64, pipelined: Bool) throws {
        let plan = try SyncService.plan(store: store, servers: servers, facts: facts, options, now: now)
        self.store = store
        self.servers = servers
        self.facts = facts
        self.options = options
        self.now = now
        self.pipelined = pipelined
        report = SyncReport(plan: plan)
        report.nextDueAt = plan.nextDueAt
        steps = plan.steps
        if steps.isEmpty {
            value = report
        } else {
            try store.setSetting(SyncSettings.lastAttempt, to: .integer(now))
        }
    }

    var country: String { servers.country }
    var base: String { servers.distribution ?? "" }
    public var isDone: Bool { failure != nil || value != nil }

    // MARK: - NetworkOperation

    public func next(now clock: Int64) throws -> OperationStep {
        try checkClock(clock)
        if isDone { return .done }
        if let outstanding {
            throw EncoreError(.operationState, "sync: request \(outstanding.id) is still waiting for its answer")
        }
        let started = startedAt ?? clock
        // Pipelined, the checkpoints overlap the verification as the writes do.
        if startedAt == nil && !pipelined {
            checkpointsPaused = (try? store.pauseCheckpoints()) != nil
        }
        startedAt = started
        advance()
        guard !isDone, let head = work.first else { return .done }
        guard case .fetch(let request, _) = head.action else { return .compute }
        // The budget: the sync stops cleanly; the next one resumes.
        if clock &- started >= options.budgetSeconds {
            report.stoppedEarly = true
            report.warnings.append("the sync's time budget (\(options.budgetSeconds) s) ran out; the next sync resumes")
            do { try head.onBudget?(self) } catch { end(EncoreError.wrapping(error, name)) }
            finish()
            return isDone ? .done : .compute
        }
        if let p = options.progress, !p(requests, requests &+ 1) {
            fail(EncoreError(.cancelled, "the sync was cancelled"), head)
            return .done
        }
        work.removeFirst()
        requests &+= 1
        let id = nextID
        nextID &+= 1
        outstanding = (id, head)
        return .request(id: id, request)
    }

    public func receive(_ id: UInt64, answer: HTTPResponse, now clock: Int64) throws {
        let item = try take(id, clock)
        guard case .fetch(_, let apply) = item.action else { return }
        noteClock(answer, at: clock)
        do {
            try apply(self, answer)
        } catch {
            fail(EncoreError.wrapping(error, name), item)
        }
        advance()
    }

    public func receive(_ id: UInt64, failure error: EncoreError, now clock: Int64) throws {
        guard TransportFailure.kinds.contains(error.kind) else {
            throw EncoreError(.invalidArgument, "sync: a request's failure must be a transport failure, not \(error.kind)")
        }
        let item = try take(id, clock)
        fail(error, item)
        advance()
    }

    public func compute(now clock: Int64, progress: ProgressHandler?) throws {
        try checkClock(clock)
        guard !isDone, outstanding == nil, let head = work.first, case .compute(let run) = head.action else {
            throw EncoreError(.operationState, "sync: no computation is due")
        }
        work.removeFirst()
        do { try run(self, progress) } catch { fail(EncoreError.wrapping(error, name), head) }
        advance()
    }

    public func resultJSON() throws -> JSONValue {
        guard let value else { throw EncoreError(.operationState, "the sync has not finished") }
        return value.json
    }

    /// Ends the sync with an error that came from outside the machine (a
    /// transport that refused a request, a cancelled run): a verified
    /// package not yet written (pipelined) is written, and the failure
    /// counts for the backoff like any other. Nothing when the sync is done.
    public func abort(_ error: EncoreError) {
        guard !isDone else { return }
        outstanding = nil
        fail(error)
    }

    /// The report: the sync's error, or the state error before it is done.
    public func outcome() throws -> SyncReport {
        if let failure { throw failure }
        guard let value else { throw EncoreError(.operationState, "the sync has not finished") }
        return value
    }

    // MARK: - work

    /// Work the current request's answer brought: done before the rest of its step.
    func follow(with items: [SyncWork]) {
        work.insert(contentsOf: items, at: 0)
    }

    /// Runs local work until a request or a computation is due, beginning
    /// the next step when one is done; finishes when nothing is left.
    private func advance() {
        while !isDone {
            if let head = work.first {
                guard case .local(let run) = head.action else { return }
                work.removeFirst()
                do { try run(self) } catch { fail(EncoreError.wrapping(error, name), head) }
            } else if !steps.isEmpty {
                let step = steps.removeFirst()
                do { work = try begin(step) } catch { fail(EncoreError.wrapping(error, name)) }
            } else {
                finish()
            }
        }
    }

    /// The work of one of the planner's steps.
    private func begin(_ step: SyncStep) throws -> [SyncWork] {
        switch step {
        case .appConfig: return appConfigWork()
        case .dayIndex: return dayIndexWork()
        case .hourIndex(let day): return try hourIndexWork(day)
        case .dp3t: return try dp3tWork()
        case .traceWarnings: return traceWarningsWork()
        case .traceKeys: return try traceKeysWork()
        }
    }

    /// A revocation is followed by a fresh index look-up.
    func lookUpDaysAgain() {
        if !steps.contains(.dayIndex) { steps.insert(.dayIndex, at: 0) }
    }

    /// A failure ends the sync unless the work's own recovery takes it
    /// (the configuration's outage); a verified package not yet written is
    /// written first.
    private func fail(_ error: EncoreError, _ item: SyncWork? = nil) {
        do {
            if try item?.recover?(self, error) == true { return }
        } catch {
            return end(EncoreError.wrapping(error, name))
        }
        do { try writeUnwritten() } catch { return end(EncoreError.wrapping(error, name)) }
        end(error)
    }

    private func end(_ error: EncoreError) {
        failure = error
        resumeCheckpoints()
        let failures = ((try? store.syncState(country: country).failures) ?? 0).saturatingAdding(1)
        do {
            try store.write { w in
                try w.setSetting(SyncSettings.failures, to: .integer(Int64(failures)))
                try w.setSetting(SyncSettings.lastError, to: .text(error.message))
            }
        } catch {
            failure = EncoreError.wrapping(error, name)
        }
    }

    /// The end of a sync that did not fail: the state, the purge, the next
    /// due time and, after new data, the check on the cache (a compute step).
    private func finish() {
        guard !isDone, !concluded else { return }
        concluded = true
        do {
            try writeUnwritten()
            // Packages synced while the configuration backs off: the check
            // goes on with the last verified one or the built-in one.
            if report.configuration == nil, report.plan.steps.contains(where: { $0 != .appConfig && $0 != .dp3t && $0 != .traceKeys }) {
                let state = try store.syncState(country: country)
                report.configuration = try fallback(
                    "the configuration is backing off after \(state.configFailures) failed fetch\(state.configFailures == 1 ? "" : "es")",
                    failures: state.configFailures)
            }
            if !report.stoppedEarly {
                try store.write { w in
                    if options.sources(servers).cwa { try w.setSetting(SyncSettings.lastSuccess, to: .integer(now)) }
                    try w.setSetting(SyncSettings.failures, to: .integer(0))
                    try w.deleteSetting(SyncSettings.lastError)
                }
            }
            report.deleted += try SyncService.purge(store, servers, now: now)
            var periodic = options
            periodic.trigger = .periodic
            report.nextDueAt = try SyncService.plan(store: store, servers: servers, facts: facts, periodic, now: now).nextDueAt
            // What was written waits in the WAL: its checkpoint, like the
            // check, is heavy work for the compute step.
            guard changed && (options.runCheck || checkpointsPaused) else {
                resumeCheckpoints()
                value = report
                return
            }
            work = [.compute { op, progress in
                op.resumeCheckpoints()
                if op.options.runCheck {
                    op.report.check = try CachedCheck(store: op.store, fresh: op.kept).run(now: op.now, progress: progress)
                }
                op.kept = [:]
                op.value = op.report
            }]
        } catch {
            end(EncoreError.wrapping(error, name))
        }
    }

    /// Automatic checkpoints on again, and the WAL's pages copied into the
    /// database file. A failure is not the sync's: SQLite checkpoints at
    /// the next commits.
    private func resumeCheckpoints() {
        guard checkpointsPaused else { return }
        checkpointsPaused = false
        try? store.resumeCheckpoints()
    }

    deinit { resumeCheckpoints() }

    // MARK: -

    private func take(_ id: UInt64, _ clock: Int64) throws -> SyncWork {
        try checkClock(clock)
        guard let outstanding, outstanding.id == id else {
            throw EncoreError(.operationState, "sync: \(id) is not the request waiting for an answer")
        }
        self.outstanding = nil
        return outstanding.work
    }

    private func checkClock(_ clock: Int64) throws {
        guard clock >= 0 else { throw EncoreError(.invalidArgument, "sync: now (\(clock)) must not be negative") }
    }

    private func noteClock(_ r: HTTPResponse, at clock: Int64) {
        guard let server = DistributionProtocol.serverDate(r) else { return }
        let offset = server &- clock
        report.clockOffset = offset
        if abs(offset) > SyncService.clockWarningSeconds {
            report.warnings.append("this device's clock is \(abs(offset) / 60) minutes \(offset > 0 ? "behind" : "ahead of") the server's")
        }
    }
}

/// One piece of a sync's work: a request whose answer `apply` verifies and
/// stores (and which may bring more work), or a local step between requests.
struct SyncWork {
    enum Action {
        case fetch(HTTPRequest, apply: (SyncOperation, HTTPResponse) throws -> Void)
        case local((SyncOperation) throws -> Void)
        /// Heavy work: run only by the host's `compute`.
        case compute((SyncOperation, ProgressHandler?) throws -> Void)
    }

    var action: Action
    /// Takes a failure of this work (true: the sync goes on), or notes it
    /// (false: the sync fails).
    var recover: ((SyncOperation, EncoreError) throws -> Bool)?
    /// Called when the budget runs out before this request.
    var onBudget: ((SyncOperation) throws -> Void)?

    static func fetch(_ request: HTTPRequest, recover: ((SyncOperation, EncoreError) throws -> Bool)? = nil,
                      onBudget: ((SyncOperation) throws -> Void)? = nil,
                      _ apply: @escaping (SyncOperation, HTTPResponse) throws -> Void) -> SyncWork {
        SyncWork(action: .fetch(request, apply: apply), recover: recover, onBudget: onBudget)
    }

    static func local(recover: ((SyncOperation, EncoreError) throws -> Bool)? = nil, _ run: @escaping (SyncOperation) throws -> Void) -> SyncWork {
        SyncWork(action: .local(run), recover: recover, onBudget: nil)
    }

    static func compute(recover: ((SyncOperation, EncoreError) throws -> Bool)? = nil,
                        _ run: @escaping (SyncOperation, ProgressHandler?) throws -> Void) -> SyncWork {
        SyncWork(action: .compute(run), recover: recover, onBudget: nil)
    }
}
