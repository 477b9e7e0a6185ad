// encore.h section: sync, part 1
import CEncoreTypes
import EncoreCheck
import EncoreCheckIns
import EncoreClient
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncorePush
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreSync

public typealias encore_sync_result_ptr = OpaquePointer

typealias SyncResultHandle = Held<SyncReport>

/// Fills *options with the defaults (a user-triggered sync on an unmetered
/// network, country EUR, the check after new data, a 480 s budget) for a
/// struct of `struct_size` bytes.
@c public func encore_sync_options_init(_ options: UnsafeMutablePointer<encore_sync_options>?, _ struct_size: Int) -> encore_status {
    initOptions(options, "options", struct_size) { o in
        o.trigger = ENCORE_SYNC_USER
        o.network = ENCORE_NETWORK_UNMETERED
        o.run_check = 1
        o.budget_seconds = SyncPlanner.budgetSeconds
        o.trace_warnings = 1
    }
}

/// The sync's options as C gives them (`options` may be NULL: the
/// defaults); its servers and trust list are the client's.
func syncOptions(_ pointer: UnsafePointer<encore_sync_options>?) throws -> SyncOptions {
    guard let p = pointer else { return SyncOptions() }
    let o = try checkedStruct(p, "encore_sync_options_init")
    var s = SyncOptions()
    let triggers: [Int32: SyncTrigger] = [ENCORE_SYNC_PERIODIC: .periodic, ENCORE_SYNC_PUSH: .push, ENCORE_SYNC_APP_START: .appStart, ENCORE_SYNC_USER: .user]
    let networks: [Int32: NetworkKind] = [ENCORE_NETWORK_UNMETERED: .unmetered, ENCORE_NETWORK_METERED: .metered, ENCORE_NETWORK_NONE: .none]
    guard let trigger = triggers[o.trigger] else { throw EncoreError(.invalidArgument, "options->trigger must be ENCORE_SYNC_*, not \(o.trigger)") }
    guard let network = networks[o.network] else { throw EncoreError(.invalidArgument, "options->network must be ENCORE_NETWORK_*, not \(o.network)") }
    guard o.run_check <= 1, o.run_check >= 0 else { throw EncoreError(.invalidArgument, "options->run_check must be 0 or 1") }
    s.trigger = trigger
    s.network = network
    s.runCheck = o.run_check == 1
    s.budgetSeconds = o.budget_seconds
    guard o.trace_warnings == 0 || o.trace_warnings == 1, o.reserved == 0 else {
        throw EncoreError(.invalidArgument, "options->trace_warnings must be 0 or 1 (and options->reserved 0)")
    }
    s.traceWarnings = o.trace_warnings == 1
    s.progress = progressHandler(o.progress, o.progress_context)
    return s
}

/// What a sync would fetch now (the client's time), from the store's state
/// alone: no request is made. info->steps is 0 when nothing is due; then
/// info->next_due_at says when to call again (a scheduler's next run).
/// `options` may be NULL (the defaults).
@c public func encore_sync_plan(_ client: encore_client_ptr?, _ options: UnsafePointer<encore_sync_options>?, _ info: UnsafeMutablePointer<encore_sync_plan_info>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: EncoreClient.self, "client")
        let plan = try c.syncPlan(try syncOptions(options))
        var out = encore_sync_plan_info()
        out.struct_size = UInt32(MemoryLayout<encore_sync_plan_info>.size)
        for step in plan.steps {
            switch step {
            case .appConfig: out.steps |= UInt32(ENCORE_SYNC_STEP_CONFIG)
            case .dayIndex: out.steps |= UInt32(ENCORE_SYNC_STEP_DAYS)
            case .hourIndex: out.steps |= UInt32(ENCORE_SYNC_STEP_HOURS)
            case .dp3t: out.steps |= UInt32(ENCORE_SYNC_STEP_DP3T)
            case .traceWarnings: out.steps |= UInt32(ENCORE_SYNC_STEP_WARNINGS)
            case .traceKeys: out.steps |= UInt32(ENCORE_SYNC_STEP_TRACE_KEYS)
            }
        }
        setOptional(&out.next_due_at, &out.has_next_due, plan.nextDueAt)
        try writeOutput(out, to: info, "info")
    }
}

/// Syncs what is due now through the client's transport, from the
/// client's servers (encore_client_options): the app configuration
/// (revocations applied), day and hour key files of the country, DP-3T
/// exposed keys, CWA's trace warning packages (matched against the
/// check-ins as they arrive) and CrowdNotifier trace keys; each verified before it is kept and stored in one
/// transaction with the state that names it (a sync killed at any moment
/// leaves only verified packages; the next resumes). Old packages are
/// purged. When new data came and options->run_check is 1, the exposure
/// check runs on the cache and its result is stored. A failure is counted
/// for the backoff and returned; what was kept before it stays. One loop
/// over the operation encore_sync_start() makes, which owns the calling
/// thread: a key file is written while the next one is verified (two
/// cores share the work). `options` may be NULL.
@c public func encore_sync_run(_ client: encore_client_ptr?, _ options: UnsafePointer<encore_sync_options>?, _ out: UnsafeMutablePointer<encore_sync_result_ptr?>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: EncoreClient.self, "client")
        let o = try syncOptions(options)
        let out = try required(out, "out")
        let report = try c.sync(o)
        out.pointee = retainedHandle(SyncResultHandle(report))
    }
}

/// The sync as an operation for a host that does its own I/O
/// (encore_operation_next(), _feed_answer(), ..., or encore_operation_run()):
/// the same work as encore_sync_run(), planned now at the client's time (a sync with
/// nothing due is finished at once). Indexes, the configuration and trace
/// warning packages are verified and stored when they are fed, on the
/// calling thread; a key file's answer is kept as it came, and the
/// ENCORE_STEP_COMPUTE that follows it verifies and stores it (about 10 ms
/// for a day of 1.3 MB; the next request comes after it); CrowdNotifier
/// matching and the exposure check are compute steps too
/// (encore_operation_compute(), on any thread). options->budget_seconds
/// counts from the first encore_operation_next()'s `now`;
/// options->progress, when set, is called before each request and may
/// cancel. The options and the client's servers are copied and its trust
/// list kept alive by the operation. encore_operation_get_sync_result()
/// reads the outcome. Release *out with encore_operation_free().
@c public func encore_sync_start(_ client: encore_client_ptr?, _ options: UnsafePointer<encore_sync_options>?, _ out: UnsafeMutablePointer<encore_operation_ptr?>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: EncoreClient.self, "client")
        let o = try syncOptions(options)
        _ = try required(out, "out")
        let op = try c.syncOperation(o)
        try output(out, "out") { retainedHandle(OperationHandle(op)) }
    }
}

/// What a finished sync operation (encore_sync_start()) did, as the
/// result encore_sync_run() gives, for encore_sync_result_free(). The
/// operation's own status when it failed; ENCORE_ERR_OPERATION_STATE
/// before it finished.
@c public func encore_operation_get_sync_result(_ operation: encore_operation_ptr?, _ out: UnsafeMutablePointer<encore_sync_result_ptr?>?) -> encore_status {
    guarded {
        let op = try borrow(operation, as: OperationHandle.self, "operation").operation
        _ = try required(out, "out")
        guard let sync = op as? SyncOperation else { throw EncoreError(.invalidArgument, "\(op.name) is not a sync") }
        let report = try sync.outcome()
        try output(out, "out") { retainedHandle(SyncResultHandle(report)) }
    }
}

/// Releases a sync result; NULL does nothing.
@c public func encore_sync_result_free(_ result: encore_sync_result_ptr?) {
    release(result)
}

/// Writes what the sync did.
@c public func encore_sync_result_get_summary(_ result: encore_sync_result_ptr?, _ summary: UnsafeMutablePointer<encore_sync_summary>?) -> encore_status {
    guarded {
        let r = try borrow(result, as: SyncResultHandle.self, "result").value
        var out = encore_sync_summary()
        out.struct_size = UInt32(MemoryLayout<encore_sync_summary>.size)
        out.fetched = UInt32(clamping: r.fetched.count)
        out.deleted = UInt32(clamping: r.deleted)
        out.revoked = UInt32(clamping: r.revoked)
        out.stopped_early = r.stoppedEarly ? 1 : 0
        out.has_check = r.check == nil ? 0 : 1
        setOptional(&out.next_due_at, &out.has_next_due, r.nextDueAt)
        setOptional(&out.clock_offset, &out.has_clock_offset, r.clockOffset)
        out.configuration = configurationUsed(r.configuration?.source)
        out.config_failures = UInt32(clamping: r.configuration?.failures ?? 0)
        out.item_count = UInt32(clamping: r.items.count)
        try writeOutput(out, to: summary, "summary")
    }
}

/// The sync as JSON (the form `encore sync --json` prints), in library
/// memory for encore_bytes_free().
@c public func encore_sync_result_get_json(_ result: encore_sync_result_ptr?, _ out: UnsafeMutablePointer<encore_bytes>?) -> encore_status {
    guarded {
        let r = try borrow(result, as: SyncResultHandle.self, "result").value
        try output(out, "out") { try LibraryBytes.make(r.json.rendered) }
    }
}

/// The check that ran after the sync, for encore_check_result_free();
/// ENCORE_ERR_NOT_FOUND when none ran (nothing new came).
@c public func encore_sync_result_get_check(_ result: encore_sync_result_ptr?, _ out: UnsafeMutablePointer<encore_check_result_ptr?>?) -> encore_status {
    guarded {
        let r = try borrow(result, as: SyncResultHandle.self, "result").value
        let out = try required(out, "out")
        guard let check = r.check else { throw EncoreError(.notFound, "no check ran after this sync (nothing new came)") }
        out.pointee = retainedHandle(CheckResultHandle(check))
    }
}

/// The exposure check on the client's key file cache (what
/// encore_sync_run() keeps) at the client's time, as encore_exposure_check() does on files. `config` NULL: the
/// risk parameters of the synced app configuration, or CWA's built-in
/// ones. match_options->keyfile_options is not used: cached packages were
/// verified when they were downloaded. Kept matches: what each cached
/// file matched is kept in the store (encrypted with the rest), so the
/// check matches only what is new: files it has not matched (or whose
/// bytes changed), and for the others the sightings added since, whatever
/// their time; a revoked, replaced or purged file takes its matches with
/// it, other matching parameters match everything again, and the risk,
/// window and v1 parameters apply to the kept matches as to new ones. The
/// result is the one a full check gives; check_options->full = 1 matches
/// every file again. The stored document's "check" member says which kind
/// ran and how many files and keys it matched.
@c public func encore_exposure_check_cached(_ client: encore_client_ptr?, _ config: encore_risk_config_ptr?, _ match_options: UnsafePointer<encore_match_options>?, _ check_options: UnsafePointer<encore_check_options>?, _ out: UnsafeMutablePointer<encore_check_result_ptr?>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: EncoreClient.self, "client")
        let s = c.store
        let risk = try config.map { try borrow($0, as: RiskConfigHandle.self, "config").value }
        let out = try required(out, "out")
        let (matching, _, v1, threads, progress) = try matchingParameters(match_options, client: c)
        let now = try c.now()
        let (options, riskV1, checkInRisk) = try checkOptions(check_options)
        let result = try CachedCheck(store: s).run(risk: risk, matching: matching, v1: v1, options: options, riskV1: riskV1,
                                                   checkInRisk: checkInRisk, now: now, threads: threads, progress: progress)
        out.pointee = retainedHandle(CheckResultHandle(result))
    }
}
