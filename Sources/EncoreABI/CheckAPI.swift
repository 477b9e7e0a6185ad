// encore.h section: check
import CEncoreTypes
import EncoreCheck
import EncoreCheckIns
import EncoreClient
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreSync
import EncoreTracing

public typealias encore_check_result_ptr = OpaquePointer

typealias CheckResultHandle = Held<CheckResult>

/// Writes the default check options to *options (pass sizeof *options):
/// 24 h of tracing in 14 days, keys at most 48 h old, CWA's v1 risk model
/// (risk_v1 NULL).
@c public func encore_check_options_init(_ options: UnsafeMutablePointer<encore_check_options>?, _ struct_size: Int) -> encore_status {
    initOptions(options, "options", struct_size) { o in
        let d = CheckOptions()
        o.minimum_tracing_seconds = d.minimumTracingSeconds
        o.tracing_days = d.tracingDays
        o.maximum_key_age_seconds = d.maximumKeyAgeSeconds
    }
}

/// The core's check options and v1 risk model from the C options (NULL:
/// the defaults).
func checkOptions(_ pointer: UnsafePointer<encore_check_options>?) throws -> (CheckOptions, RiskV1Configuration, PresenceTracingRiskConfiguration?) {
    guard let o = try readInput(pointer, "check_options") else { return (CheckOptions(), .cwa, nil) }
    guard o.reserved == 0, o.reserved2 == 0 else { throw EncoreError(.invalidArgument, "check options: reserved fields must be 0") }
    guard o.full == 0 || o.full == 1 else { throw EncoreError(.invalidArgument, "check options: full must be 0 or 1, not \(o.full)") }
    var c = CheckOptions()
    c.minimumTracingSeconds = o.minimum_tracing_seconds
    c.tracingDays = o.tracing_days
    c.maximumKeyAgeSeconds = o.maximum_key_age_seconds
    c.full = o.full == 1
    return (c, try readInput(o.risk_v1, "options->risk_v1").map(riskV1Configuration) ?? .cwa,
            try o.checkin_risk.map { try borrow($0, as: CheckInRiskConfigHandle.self, "options.checkin_risk").value })
}

/// CWA's v1 risk model from C; the core validates its values.
func riskV1Configuration(_ c: encore_risk_v1_config) throws -> RiskV1Configuration {
    guard c.reserved == 0 else { throw EncoreError(.invalidArgument, "risk_v1: reserved must be 0") }
    guard c.class_count <= 64 else { throw EncoreError(.invalidArgument, "risk_v1: class_count \(c.class_count) is above 64") }
    var classes: [(min: Double, max: Double, level: RiskLevel)] = []
    let given: [encore_risk_v1_class] = try readInputs(c.classes, elementSize: Int(c.class_size), count: Int(c.class_count), "risk_v1->classes")
    for (i, k) in given.enumerated() {
        guard let level = RiskLevel(rawValue: k.level) else {
            throw EncoreError(.invalidArgument, "risk_v1->classes[\(i)]: level must be ENCORE_RISK_LOW or _HIGH")
        }
        classes.append((k.min, k.max, level))
    }
    return RiskV1Configuration(normalizationDivisor: c.normalization_divisor, weights: (c.weights.0, c.weights.1, c.weights.2),
                               defaultBucketOffset: c.default_bucket_offset, classes: classes)
}

/// The exposure check, the library's main job: matches the store's
/// sightings against the key files at the client's time (as encore_match_run() does,
/// with the same `sources`, `source_size` and `count`, and
/// `match_options`, which also carry key file options and progress),
/// calculates the risk with `config`, applies the tracing-time and
/// freshness rules (`check_options`, NULL for the defaults), combines the
/// risk with the check-ins' (ENCORE_CHECK_FAILED when theirs failed), stores the
/// result and tells whether a notification is due. A cancelled check stores
/// nothing. On success *out is a result for encore_check_result_free(); the
/// last stored result can later be read with
/// encore_risk_result_get_last() without computing anything.
@c public func encore_exposure_check(_ client: encore_client_ptr?, _ sources: UnsafePointer<encore_key_source>?, _ source_size: Int, _ count: Int, _ config: encore_risk_config_ptr?, _ match_options: UnsafePointer<encore_match_options>?, _ check_options: UnsafePointer<encore_check_options>?, _ out: UnsafeMutablePointer<encore_check_result_ptr?>?) -> encore_status {
    guarded {
        let client = try borrow(client, as: EncoreClient.self, "client")
        let s = client.store
        let c = try borrow(config, as: RiskConfigHandle.self, "config").value
        let out = try required(out, "out")
        let files = try keySources(sources, source_size, count)
        let (matching, keyFiles, v1, threads, progress) = try matchingParameters(match_options, client: client)
        let now = try client.now()
        let (options, riskV1, checkInRisk) = try checkOptions(check_options)
        let result = try ExposureCheck(store: s).run(files: files, keyFileOptions: keyFiles, matching: matching, risk: c,
                                                     v1: v1, riskV1: riskV1, options: options, checkInRisk: checkInRisk, now: now,
                                                     threads: threads, progress: progress)
        out.pointee = retainedHandle(CheckResultHandle(result))
    }
}

/// Releases a check result; NULL does nothing.
@c public func encore_check_result_free(_ result: encore_check_result_ptr?) {
    release(result)
}

/// Writes the check's outcome.
@c public func encore_check_result_get_summary(_ result: encore_check_result_ptr?, _ summary: UnsafeMutablePointer<encore_check_summary>?) -> encore_status {
    writeHeld(result, as: CheckResultHandle.self, "result", summary, "summary") { encore_check_summary($0.value) }
}

/// Writes a new handle to the check's v2 risk assessment (per-day risks);
/// release it with encore_risk_assessment_free().
@c public func encore_check_result_get_assessment(_ result: encore_check_result_ptr?, _ out: UnsafeMutablePointer<encore_risk_assessment_ptr?>?) -> encore_status {
    guarded {
        let r = try borrow(result, as: CheckResultHandle.self, "result").value
        try required(out, "out").pointee = retainedHandle(RiskAssessmentHandle(r.assessment))
    }
}

extension encore_check_summary {
    init(_ r: CheckResult) {
        self.init()
        status = r.status.rawValue
        notification_due = r.notificationDue ? 1 : 0
        calculated_at = r.calculatedAt
        active_tracing_seconds = r.activeTracingSeconds
        setOptional(&newest_keys, &has_newest_keys, r.newestKeys)
        setOptional(&stored_result_id, &has_stored_result, r.storedResultID)
        window_count = UInt64(r.windowCount)
        v1_score = r.riskV1.score
        v1_level = r.riskV1.level?.rawValue ?? ENCORE_RISK_NONE
    }
}
