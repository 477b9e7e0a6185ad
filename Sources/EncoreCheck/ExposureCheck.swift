import EncoreCheckIns
import EncoreExposure
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreTracing

/// What the exposure check tells the user.
public enum CheckStatus: Int32, Sendable {
    case low = 1, high = 2
    /// Less than the minimum active tracing time in the last 14 days (and not HIGH).
    case unknown = 3
    /// The newest keys are too old, or the clock went back before the last result.
    case outdated = 4
    /// The risk could not be calculated: a normalized time of the check-ins
    /// maps to no level of the configuration (CWA's "calculation failed").
    case failed = 5

    public var name: String {
        switch self {
        case .low: return "LOW"
        case .high: return "HIGH"
        case .unknown: return "UNKNOWN"
        case .outdated: return "OUTDATED"
        case .failed: return "FAILED"
        }
    }
}

/// The parameters of the exposure check besides matching and risk.
public struct CheckOptions: Sendable {
    /// Below this much active tracing in the last `tracingDays` days the
    /// result is UNKNOWN unless it is HIGH.
    public var minimumTracingSeconds: Int64 = 24 * 3600
    public var tracingDays: Int64 = 14
    /// Keys older than this (newest package download, or newest file end)
    /// make a LOW or UNKNOWN result OUTDATED.
    public var maximumKeyAgeSeconds: Int64 = 48 * 3600
    /// A check on the key file cache matches every file again instead of
    /// only what is new (ExposureCheck.run(cached:)); checks on given
    /// files always match them all.
    public var full = false
    public init() {}

    package func validate() throws {
        guard minimumTracingSeconds >= 0, tracingDays >= 0, tracingDays <= 3650, maximumKeyAgeSeconds >= 0 else {
            throw EncoreError(.invalidArgument, "check options out of range (tracing days 0...3650, seconds not negative)")
        }
    }
}

/// The outcome of one exposure check.
public struct CheckResult: Sendable {
    public var status: CheckStatus
    /// The v2 assessment (days, encounters); for OUTDATED by clock, empty.
    public var assessment: RiskAssessment
    public var summaryV1: ExposureSummaryV1
    public var riskV1: (score: Double, level: RiskLevel?)
    /// The exposure windows the assessment was made from (no key material).
    public var windows: [ExposureWindow]
    public var windowCount: Int { windows.count }
    public var activeTracingSeconds: Int64
    /// The newest of: the cached packages' download times, the files' end.
    public var newestKeys: Int64?
    /// The level changed since the last LOW or HIGH result (or the first
    /// result is HIGH): the host should tell the user.
    public var notificationDue: Bool
    /// The stored result's id; nil when nothing was stored (clock went back).
    public var storedResultID: Int64?
    public var statistics: MatchStatistics
    public var calculatedAt: Int64
    /// Why the result is UNKNOWN, OUTDATED or FAILED (the tracing time
    /// found, the age of the newest keys, the clock); nil for LOW and HIGH.
    public var reason: String?
    /// What this check matched: which kind of check ran, how many files
    /// and keys it matched (the rest came from its kept matches).
    public var work = CheckWork(kind: .full)
    /// The presence-tracing risk of the stored check-in warnings.
    public var checkIns: PresenceTracingAssessment = .empty
    /// Per date, the exposure windows' and the check-ins' risk combined.
    public var combined: [CombinedDayRisk] = []
}

/// The exposure check, the library's main job, over a store: match the
/// store's sightings against the key files, calculate the risk, apply the
/// tracing-time and freshness rules, store the result, and tell whether a
/// notification is due.
public struct ExposureCheck: Sendable {
    public let store: Store

    public init(store: Store) { self.store = store }

    /// The levels a notification compares: LOW and HIGH (UNKNOWN and
    /// OUTDATED say nothing about exposure).
    static let definitiveLevels = [CheckStatus.low.rawValue, CheckStatus.high.rawValue]

    /// Runs the check at `now`, the one clock of the whole check: matching,
    /// the risk calculation, the tracing and freshness rules and the stored
    /// result all use it. Matching only reads the store, so a cancelled
    /// check (progress returned false) stores nothing.
    public func run(files: [KeyFileSource], keyFileOptions: KeyFileOptions, matching: MatchingOptions,
                    risk: RiskConfiguration, v1: V1Configuration = .cwa, riskV1: RiskV1Configuration = .cwa,
                    options: CheckOptions = CheckOptions(), checkInRisk: PresenceTracingRiskConfiguration? = nil,
                    now: Int64, threads: Int = 0, progress: ProgressHandler? = nil) throws -> CheckResult {
        try check(matching: matching, risk: risk, riskV1: riskV1, options: options, checkInRisk: checkInRisk, now: now, threads: threads) {
            let match = try ExposureDetection(store: store).match(validated: files, keyFileOptions: keyFileOptions, options: matching, now: now,
                                                                  v1: v1, threads: threads, progress: progress)
            var work = CheckWork(kind: .full)
            work.files = match.statistics.files
            work.keys = match.statistics.keys
            return (match, work)
        }
    }

    /// The check on cached key files, matching each once (KeptMatching):
    /// only new files and what new sightings can change are matched, the
    /// rest is read from the kept matches; options.full matches every file
    /// again (and keeps what they match anew). The result is the one a full check
    /// gives on the same data.
    public func run(cached files: [CheckedKeyFile], matching: MatchingOptions,
                    risk: RiskConfiguration, v1: V1Configuration = .cwa, riskV1: RiskV1Configuration = .cwa,
                    options: CheckOptions = CheckOptions(), checkInRisk: PresenceTracingRiskConfiguration? = nil,
                    now: Int64, threads: Int = 0, progress: ProgressHandler? = nil) throws -> CheckResult {
        try check(matching: matching, risk: risk, riskV1: riskV1, options: options, checkInRisk: checkInRisk, now: now, threads: threads) {
            try KeptMatching(store: store, options: matching, now: now, threads: threads).match(files, full: options.full, v1: v1, progress: progress)
        }
    }

    /// The check around a match: the parameters checked, the clock's
    /// plausibility, then the risk, the rules and the stored result.
    private func check(matching: MatchingOptions, risk: RiskConfiguration, riskV1: RiskV1Configuration, options: CheckOptions,
                       checkInRisk: PresenceTracingRiskConfiguration?, now: Int64, threads: Int,
                       match run: () throws -> (MatchResult, CheckWork)) throws -> CheckResult {
        try Matcher.validate(matching, now: now, threads: threads)
        try options.validate()
        try riskV1.validate()
        // A clock before the last result is not plausible: say so, store nothing.
        if let last = try store.lastRiskResult(), last.time > now {
            return CheckResult(status: .outdated, assessment: try RiskCalculation.calculate([], configuration: risk, now: now),
                               summaryV1: ExposureSummaryV1(), riskV1: (0, nil), windows: [], activeTracingSeconds: 0,
                               newestKeys: nil, notificationDue: false, storedResultID: nil, statistics: MatchStatistics(), calculatedAt: now,
                               reason: "the clock (\(CheckReason.time(now))) is before the last stored result (\(CheckReason.time(last.time))): nothing was stored")
        }
        let (match, work) = try run()
        let assessment = try RiskCalculation.calculate(match.windows, configuration: risk, now: now)
        let tracing = try store.activeTracingSeconds(from: now - options.tracingDays * UnixTime.day, to: now)
        let newest = [try store.newestKeyFileDownload(), match.statistics.newestFileEnd].compactMap { $0 }.max()

        guard let ptConfiguration = checkInRisk ?? PresenceTracingRiskConfiguration.cwa else {
            throw EncoreError(.internalError, "the built-in presence-tracing parameters do not parse")
        }
        let checkIns = try CheckInService(store: store).assessment(configuration: ptConfiguration, now: now)

        var status: CheckStatus
        var reason: String?
        switch CombinedRisk.combine(assessment.totalRiskLevel, checkIns.totalRiskLevel) {
        case .failed:
            status = .failed
            reason = CheckReason.checkInsFailed
        case .high: status = .high
        case .low: status = .low
        }
        if status == .low && tracing < options.minimumTracingSeconds {
            status = .unknown
            reason = CheckReason.tracing(tracing, options: options)
        }
        if status != .high && status != .failed && (newest.map { $0 < now - options.maximumKeyAgeSeconds } ?? true) {
            status = .outdated
            reason = CheckReason.keys(newest: newest, now: now, options: options)
        }

        var result = CheckResult(status: status, assessment: assessment, summaryV1: match.summaryV1, riskV1: RiskV1.score(match.summaryV1, riskV1),
                                 windows: match.windows, activeTracingSeconds: tracing, newestKeys: newest,
                                 notificationDue: false, storedResultID: nil, statistics: match.statistics, calculatedAt: now,
                                 reason: reason, work: work, checkIns: checkIns, combined: CombinedRisk.days(assessment, checkIns))
        let previous = try store.lastRiskLevel(among: Self.definitiveLevels)
        if status == .low || status == .high {
            result.notificationDue = previous.map { $0 != status.rawValue } ?? (status == .high)
        }
        result.storedResultID = try store.addRiskResult(time: now, level: status.rawValue, document: CheckDocument.json(result).rendered)
        return result
    }
}

/// Why a check is UNKNOWN or OUTDATED, in words for the user.
public enum CheckReason {
    public static func time(_ t: Int64) -> String { UTCTime.iso8601(seconds: t) ?? "\(t)" }

    /// "26 h" or "5 h 30 min".
    public static func hours(_ seconds: Int64) -> String {
        seconds % 3600 == 0 ? "\(seconds / 3600) h" : "\(seconds / 3600) h \(seconds % 3600 / 60) min"
    }

    static let checkInsFailed = "a normalized time of the check-ins' warnings maps to no risk level of the presence-tracing configuration"

    static func tracing(_ seconds: Int64, options: CheckOptions) -> String {
        "only \(hours(seconds)) of active tracing in the last \(options.tracingDays) days (\(hours(options.minimumTracingSeconds)) needed)"
    }

    static func keys(newest: Int64?, now: Int64, options: CheckOptions) -> String {
        guard let newest else { return "no keys: no key file is cached and no key file gives its end time" }
        return "the newest keys are from \(time(newest)), \(hours(now - newest)) before now (at most \(hours(options.maximumKeyAgeSeconds)))"
    }
}

/// The one JSON form of a check result: stored with it (and read back
/// offline with the last risk result) and printed by `encore check --json`.
public enum CheckDocument {
    public static func json(_ r: CheckResult) -> JSONValue {
        .object([
            ("status", .string(r.status.name)),
            ("reason", .string(r.reason)),
            ("calculatedAt", .int(r.calculatedAt)),
            ("notificationDue", .bool(r.notificationDue)),
            ("activeTracingSeconds", .int(r.activeTracingSeconds)),
            ("newestKeys", .int(r.newestKeys)),
            ("windowCount", .int(r.windowCount)),
            ("assessment", r.assessment.json),
            ("v1", .object([("summary", r.summaryV1.json), ("score", .number(r.riskV1.score)),
                            ("level", .string(r.riskV1.level?.name))])),
            ("statistics", r.statistics.json),
            ("check", r.work.json),
            ("checkIns", r.checkIns.json()),
            ("combined", CombinedRisk.json(r.combined)),
        ])
    }
}
