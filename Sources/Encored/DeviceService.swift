import EncoreCheck
import EncoreCheckIns
import EncoreClient
import EncoreCommandSupport
import EncoreDevice
import EncoreHTTP
import EncoreStorage
import EncoreSupport
import EncoreSync
import EncoreTestResults
#if canImport(Glibc)
import Glibc
#endif

/// encored's loop: it answers the bus, asks polkit about every call, and
/// drives the library's operations (sync, test registration, polls,
/// submission) one at a time. The loop's thread never waits on the
/// network or on a long computation: each HTTP request is performed on the
/// network thread (the client's transport) and its answer fed back here;
/// each compute step (the exposure check, CrowdNotifier matching) runs on
/// the work thread; the short store jobs (check-ins, the settings, reading
/// the properties) on the store thread. Their results come back through
/// the mailbox, and only this thread touches the service's state. The
/// properties are answered from memory, refreshed after each job.
final class DeviceService {
    private let link: ExposureLink
    private var client: EncoreClient
    /// A new client on a new store, after DeleteAllData.
    private let makeClient: @Sendable () throws -> EncoreClient
    private let mailbox: Mailbox
    private let clockFile: String?

    private let network = WorkerThread(name: "encored-network")
    private let work = WorkerThread(name: "encored-work")
    private let storeQueue = WorkerThread(name: "encored-store")

    /// Calls waiting for polkit's answer, by id.
    private var awaitingAuthorization: [UInt64: IncomingCall] = [:]

    /// The work that holds the store's flows, one at a time.
    private enum JobKind: Equatable {
        case sync(SyncTrigger), check, poll, register, submit, deleteAll
        var name: String {
            switch self {
            case .sync(let t): return "sync (\(t.rawValue))"
            case .check: return "exposure check"
            case .poll: return "test result poll"
            case .register: return "test registration"
            case .submit: return "key submission"
            case .deleteAll: return "deletion of all data"
            }
        }
    }

    private final class Job {
        let kind: JobKind
        /// Calls answered when it ends.
        var waiters: [UInt64]
        /// Makes the operation (on the loop) or, nil, runs `local` on the work thread.
        let operation: ((EncoreClient, Int64) throws -> any NetworkOperation)?
        let local: (@Sendable (EncoreClient, Int64) throws -> EncoreClient?)?
        /// What the call answers on success (CheckIn's id is not a job's).
        var started: (any NetworkOperation)?
        var busy = false
        var resumeAt: Double?

        init(_ kind: JobKind, waiters: [UInt64], operation: ((EncoreClient, Int64) throws -> any NetworkOperation)? = nil,
             local: (@Sendable (EncoreClient, Int64) throws -> EncoreClient?)? = nil) {
            self.kind = kind
            self.waiters = waiters
            self.operation = operation
            self.local = local
        }
    }

    private var queue: [Job] = []
    private var current: Job?

    /// When the background work is due (the last refresh's), and whether a refresh is under way.
    private var agenda = DeviceAgenda()
    private var refreshing = false
    private var refreshAgain = false
    /// Background work that could not even start is not tried again before this.
    private var backgroundRetryAt: Int64 = .min
    static let backgroundRetrySeconds: Int64 = 60
    /// --no-warnings: CWA's trace warning packages are not fetched.
    private let traceWarnings: Bool

    /// The radio (tracing over BlueZ on its own thread), once attached.
    private var radio: Radio?
    /// What the radio said last (nil: nothing yet), and the properties the
    /// store gave last: `State` is the radio's while tracing is wanted.
    private var radioState: RadioState?
    private var stored: DeviceProperties?
    private var radioBroke = false

    /// `agenda`: what the store said before the name was taken (the link
    /// holds the properties of that moment: a client's first read must not
    /// see defaults).
    init(link: ExposureLink, client: EncoreClient, agenda: DeviceAgenda, clockFile: String?,
         makeClient: @escaping @Sendable () throws -> EncoreClient, traceWarnings: Bool) {
        self.agenda = agenda
        self.link = link
        self.traceWarnings = traceWarnings
        self.client = client
        self.clockFile = clockFile
        self.makeClient = makeClient
        mailbox = Mailbox(waker: link.waker)
    }

    /// The radio whose state `State` follows; its reports come through the
    /// mailbox. Before run().
    func attach(_ radio: Radio) { self.radio = radio }

    /// From the radio's thread: its state changed, or its bus broke.
    func radioReported(_ state: RadioState) {
        let me = Handoff(self)
        mailbox.post { me.value.radioChanged(state) }
    }

    func radioFailed() {
        let me = Handoff(self)
        mailbox.post { me.value.radioBroke = true }
    }

    /// Runs until SIGTERM or SIGINT (0), or the bus or the name is lost (1);
    /// the radio is stopped first (its advertisement withdrawn, tracing off
    /// recorded).
    func run() -> Int32 {
        let code = loop()
        radio?.stop()
        return code
    }

    private func loop() -> Int32 {
        refresh()
        do {
            while true {
                let signalled = try link.wait(seconds: waitSeconds())
                if signalled {
                    Log.info("stopping")
                    return 0
                }
                mailbox.drain()
                if radioBroke {
                    Log.error("the radio's bus connection failed: stopping")
                    return 1
                }
                for event in link.takeEvents() {
                    switch event {
                    case .call(let call): received(call)
                    case .authorization(let id, let allowed, let why): authorized(id, allowed, why)
                    case .nameLost:
                        Log.error("the bus took org.encore.Exposure away: stopping")
                        return 1
                    }
                }
                schedule()
                pump()
            }
        } catch {
            Log.error("\(error)")
            return 1
        }
    }

    private func now() -> Int64 { (try? client.now()) ?? Int64(time(nil)) }

    // MARK: calls and polkit

    private func received(_ call: IncomingCall) {
        guard let action = DeviceAction.of(member: call.member) else {
            link.replyError(call.id, DeviceError(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "no member \(call.member)"))
            return
        }
        do {
            awaitingAuthorization[call.id] = call
            try link.checkAuthorization(id: call.id, sender: call.sender, action: action)
        } catch {
            awaitingAuthorization[call.id] = nil
            link.replyError(call.id, .notAuthorized(action, "polkit could not be asked (\(error))"))
        }
    }

    private func authorized(_ id: UInt64, _ allowed: Bool, _ why: String) {
        guard let call = awaitingAuthorization.removeValue(forKey: id), let action = DeviceAction.of(member: call.member) else { return }
        guard allowed else {
            Log.info("\(call.member) refused: polkit said no to \(action.rawValue) (\(why))")
            link.replyError(id, .notAuthorized(action, why.isEmpty ? "not authorized" : why))
            return
        }
        do {
            try dispatch(call)
        } catch {
            link.replyError(id, DeviceError(error))
        }
    }

    private func dispatch(_ call: IncomingCall) throws {
        if call.textTruncated { throw EncoreError(.invalidArgument, "\(call.member): the argument is too long") }
        switch call.member {
        case "Get", "GetAll":
            link.replyProperties(call.id)
        case "SetEnabled":
            let enabled = call.flag
            storeJob(call.id) { client, _ in
                var s = try DeviceSettings.read(client.store)
                s.enabled = enabled
                try s.write(client.store)
                return nil
            }
        case "SyncNow":
            if let queued = queue.first(where: { $0.kind == .sync(.user) }) {
                queued.waiters.append(call.id)
            } else {
                enqueue(syncJob(.user, waiters: [call.id]))
            }
        case "RegisterTest":
            let key = try DeviceArguments.testKey(call.text)
            enqueue(Job(.register, waiters: [call.id], operation: { client, now in
                let verification = try client.verification()
                return try TestResultService.registerOperation(store: client.store, verification: verification, submission: client.servers.submission,
                                                               key: key, dateOfBirth: nil, rapid: false, now: now)
            }))
        case "SubmitKeys":
            let symptoms = try DeviceArguments.symptoms(onset: call.onset, symptomatic: call.symptomatic)
            enqueue(Job(.submit, waiters: [call.id], operation: { client, now in
                try TestResultService.submitOperation(store: client.store, verification: try client.verification(),
                                                      submission: client.servers.submission, options: SubmissionOptions(symptoms: symptoms), now: now)
            }))
        case "CheckIn":
            let qr = call.text
            storeJob(call.id) { client, now in
                let checkIn = try client.checkIns.checkIn(qrCode: qr, start: now, end: nil, now: now, isPrivate: client.privateCheckIns)
                return String(checkIn.id)
            }
        case "CheckOut":
            let id = try DeviceArguments.checkInID(call.text)
            storeJob(call.id) { client, now in
                try client.checkIns.checkOut(id: id, end: now)
                return nil
            }
        case "DeleteAllData":
            let make = makeClient
            enqueue(Job(.deleteAll, waiters: [call.id], local: { client, _ in
                let path = client.store.path
                client.store.close()
                for suffix in ["", "-wal", "-shm", "-journal"] where unlink(path + suffix) != 0 && errno != ENOENT {
                    throw EncoreError(.io, "\(path)\(suffix) could not be deleted (errno \(errno))")
                }
                return try make()
            }))
        default:
            throw EncoreError(.invalidArgument, "no member \(call.member)")
        }
    }

    /// A short store job on the store thread; its answer (nil: none) to `id`.
    private func storeJob(_ id: UInt64, _ body: @escaping @Sendable (EncoreClient, Int64) throws -> String?) {
        let client = Handoff(client), now = now(), me = Handoff(self)
        storeQueue.async {
            let outcome: Result<String?, DeviceError>
            do { outcome = .success(try body(client.value, now)) } catch { outcome = .failure(DeviceError(error)) }
            me.value.mailbox.post {
                switch outcome {
                case .success(let text?): me.value.link.replyString(id, text)
                case .success(nil): me.value.link.replyEmpty(id)
                case .failure(let e): me.value.link.replyError(id, e)
                }
                me.value.refresh()
            }
        }
    }

    // MARK: jobs

    private func syncOptions(_ trigger: SyncTrigger) -> SyncOptions { Self.syncOptions(trigger, traceWarnings: traceWarnings) }

    static func syncOptions(_ trigger: SyncTrigger, traceWarnings: Bool) -> SyncOptions {
        var options = SyncOptions()
        options.trigger = trigger
        options.traceWarnings = traceWarnings
        return options
    }

    private func syncJob(_ trigger: SyncTrigger, waiters: [UInt64]) -> Job {
        let options = syncOptions(trigger)
        return Job(.sync(trigger), waiters: waiters, operation: { client, _ in try client.syncOperation(options) })
    }

    private func enqueue(_ job: Job) {
        queue.append(job)
        pump()
    }

    /// The background work that is due, once nothing else is queued and
    /// the agenda is fresh: one sync however long the clock jumped (the
    /// planner gives a due time, not a count), the test's poll, the check
    /// before the risk would turn outdated.
    private func schedule() {
        guard current == nil, queue.isEmpty, !refreshing else { return }
        let now = now()
        guard now >= backgroundRetryAt else { return }
        if let t = agenda.syncAt, t <= now {
            agenda.syncAt = nil
            enqueue(syncJob(.periodic, waiters: []))
        } else if let t = agenda.pollAt, t <= now {
            agenda.pollAt = nil
            enqueue(Job(.poll, waiters: [], operation: { client, now in
                try TestResultService.pollOperation(store: client.store, verification: try client.verification(),
                                                    submission: client.servers.submission, now: now)
            }))
        } else if let t = agenda.checkAt, t <= now {
            agenda.checkAt = nil
            enqueue(Job(.check, waiters: [], local: { client, now in
                _ = try CachedCheck(store: client.store).run(now: now)
                return nil
            }))
        }
    }

    /// Drives the current job one step: a request to the network thread, a
    /// compute step or a local job to the work thread, a wait, or its end.
    private func pump() {
        if current == nil, !queue.isEmpty { start(queue.removeFirst()) }
        guard let job = current, !job.busy else { return }
        if let r = job.resumeAt, Monotonic.seconds() < r { return }
        job.resumeAt = nil
        guard let op = job.started else { return }
        let me = Handoff(self), handed = Handoff(op)
        do {
            switch try op.next(now: now()) {
            case .request(let id, let request):
                job.busy = true
                let transport = client.transport
                network.async {
                    let outcome: Result<HTTPResponse, EncoreError>
                    do { outcome = .success(try transport.perform(request)) } catch { outcome = .failure(EncoreError.wrapping(error, "request")) }
                    me.value.mailbox.post { me.value.answered(id, outcome) }
                }
            case .compute:
                job.busy = true
                let clock = Handoff(client)
                work.async {
                    let failure: EncoreError?
                    do {
                        try handed.value.compute(now: (try? clock.value.now()) ?? 0, progress: nil)
                        failure = nil
                    } catch {
                        failure = EncoreError.wrapping(error, "compute")
                    }
                    me.value.mailbox.post {
                        guard let job = me.value.current else { return }
                        job.busy = false
                        if let failure { me.value.finish(job, failure) } else { me.value.pump() }
                    }
                }
            case .wait(let milliseconds):
                job.resumeAt = Monotonic.seconds() + Double(max(0, milliseconds)) / 1000
            case .done:
                finish(job, nil)
            }
        } catch {
            finish(job, error)
        }
    }

    private func start(_ job: Job) {
        current = job
        Log.info("\(job.kind.name): started")
        if let make = job.operation {
            do { job.started = try make(client, now()) } catch { finish(job, error) }
            return
        }
        guard let local = job.local else { return finish(job, nil) }
        job.busy = true
        let client = Handoff(client), now = now(), me = Handoff(self), name = job.kind.name
        work.async {
            let outcome: Result<EncoreClient?, EncoreError>
            do { outcome = .success(try local(client.value, now)) } catch { outcome = .failure(EncoreError.wrapping(error, name)) }
            me.value.mailbox.post {
                guard let job = me.value.current else { return }
                job.busy = false
                switch outcome {
                case .success(let replacement):
                    if let replacement {
                        me.value.client = replacement
                        me.value.radio?.replaceClient(replacement)
                    }
                    me.value.finish(job, nil)
                case .failure(let e):
                    me.value.finish(job, e)
                }
            }
        }
    }

    /// A request's answer, or why there was none, fed to the operation here.
    private func answered(_ id: UInt64, _ outcome: Result<HTTPResponse, EncoreError>) {
        guard let job = current, let op = job.started else { return }
        job.busy = false
        do {
            switch outcome {
            case .success(let answer):
                try op.receive(id, answer: answer, now: now())
            case .failure(let e) where TransportFailure.kinds.contains(e.kind):
                try op.receive(id, failure: e, now: now())
            case .failure(let e):
                // The transport refused the request itself (a URL it does not allow).
                (op as? SyncOperation)?.abort(e)
                return finish(job, e)
            }
        } catch {
            return finish(job, error)
        }
        pump()
    }

    /// The job's end: its calls answered, the log told, the properties read again.
    private func finish(_ job: Job, _ error: (any Error)?) {
        current = nil
        var failure = error.map { EncoreError.wrapping($0, job.kind.name) }
        var answer: String?
        if failure == nil, let op = job.started {
            do { answer = try Self.summary(op) } catch { failure = EncoreError.wrapping(error, job.kind.name) }
        }
        if let failure {
            Log.warning("\(job.kind.name): failed (\(failure.message))")
            if job.waiters.isEmpty { backgroundRetryAt = now().saturatingAdding(Self.backgroundRetrySeconds) }
            for id in job.waiters { link.replyError(id, DeviceError(failure)) }
        } else {
            Log.info("\(job.kind.name): done" + (answer.map { " (\($0))" } ?? ""))
            for id in job.waiters { link.replyEmpty(id) }
        }
        refresh()
        pump()
    }

    /// What the log says of a finished operation (no health data: counts).
    private static func summary(_ op: any NetworkOperation) throws -> String? {
        if let sync = op as? SyncOperation {
            let r = try sync.outcome()
            return "\(r.fetched.count) fetched" + (r.check.map { _ in ", checked" } ?? "")
        }
        _ = try op.result()
        return nil
    }

    // MARK: the properties and the agenda

    /// Reads the properties and the agenda on the store thread; the loop
    /// then publishes what changed (PropertiesChanged).
    private func refresh() {
        guard !refreshing else {
            refreshAgain = true
            return
        }
        refreshing = true
        let client = Handoff(client), me = Handoff(self), options = Handoff(syncOptions(.periodic))
        storeQueue.async {
            let outcome: Result<(DeviceProperties, DeviceAgenda), EncoreError>
            do {
                outcome = .success(try DeviceAgenda.snapshot(client.value, syncOptions: options.value))
            } catch {
                outcome = .failure(EncoreError.wrapping(error, "the properties"))
            }
            me.value.mailbox.post { me.value.refreshed(outcome) }
        }
    }

    private func refreshed(_ outcome: Result<(DeviceProperties, DeviceAgenda), EncoreError>) {
        refreshing = false
        switch outcome {
        case .success(let (p, a)):
            agenda = a
            stored = p
            radio?.setWanted(p.enabled)
            publish()
        case .failure(let e):
            Log.error("the store could not be read: \(e.message)")
            backgroundRetryAt = now().saturatingAdding(Self.backgroundRetrySeconds)
        }
        if refreshAgain {
            refreshAgain = false
            refresh()
        }
    }

    private func radioChanged(_ state: RadioState) {
        if state != radioState { Log.info("radio: \(state.rawValue)") }
        radioState = state
        publish()
    }

    /// The properties to the link (which signals what changed): the
    /// store's, with `State` the radio's while tracing is wanted.
    private func publish() {
        guard var p = stored else { return }
        if p.enabled, let radioState { p.state = radioState.rawValue }
        link.setProperties(p)
    }

    /// Until the next due time, or a moment when the clock can jump (tests).
    private func waitSeconds() -> Double {
        let cap: Double = clockFile != nil ? 0.2 : 60
        var wait = cap
        if let r = current?.resumeAt { wait = min(wait, max(0, r - Monotonic.seconds())) }
        if current == nil, let next = agenda.next { wait = min(wait, max(0.05, Double(max(next, backgroundRetryAt) - now()) + 0.05)) }
        return wait
    }
}
