import EncoreCrypto
import EncoreKeyFiles
import EncoreMatching
import EncoreModel
import EncoreRisk
import EncoreStorage
import EncoreSupport

/// What the exposure check tells the user.
public enum CheckStatus: Int32, Sendable {
    case low = 1, high = 2
    /// Less than the minimum active tracing time in the last 14 days (and not HIGH).
    case unknown = 3
    /// The newest keys are too old, or the clock went back before the last result.
    case outdated = 4

    public var name: String {
        switch self {
        case .low: return "LOW"
        case .high: return "HIGH"
        case .unknown: return "UNKNOWN"
        case .outdated: return "OUTDATED"
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
}

extension Store {
    /// The exposure check, the library's main job: match the store's
    /// sightings against the key files, calculate the risk, apply the
    /// tracing-time and freshness rules, store the result, and tell whether
    /// a notification is due. Matching only reads the store, so a cancelled
    /// check (progress returned false) stores nothing.
    public func exposureCheck(files: [KeyFileSource], keyFileOptions: KeyFileOptions, matching: MatchingOptions,
                              risk: RiskConfiguration, v1: V1Configuration = .cwa, riskV1: RiskV1Configuration = .cwa,
                              options: CheckOptions = CheckOptions(), threads: Int = 0,
                              progress: ProgressHandler? = nil) throws -> CheckResult {
        try matching.validate()
        try options.validate()
        let now = matching.now
        // A clock before the last result is not plausible: say so, store nothing.
        if let last = try lastRiskResult(), last.time > now {
            return CheckResult(status: .outdated, assessment: try RiskCalculation.calculate([], configuration: risk, now: now),
                               summaryV1: ExposureSummaryV1(), riskV1: (0, nil), windows: [], activeTracingSeconds: 0,
                               newestKeys: nil, notificationDue: false, storedResultID: nil, statistics: MatchStatistics(), calculatedAt: now)
        }
        let match = try Matcher.match(observations: observationSet(for: matching), files: files, keyFileOptions: keyFileOptions,
                                      options: matching, v1: v1, threads: threads, progress: progress)
        let assessment = try RiskCalculation.calculate(match.windows, configuration: risk, now: now)
        let tracing = try activeTracingSeconds(from: now - options.tracingDays * UnixTime.day, to: now)
        let newest = [try newestKeyPackageDownload(), match.statistics.newestFileEnd].compactMap { $0 }.max()

        var status: CheckStatus = assessment.totalRiskLevel == .high ? .high : .low
        if status == .low && tracing < options.minimumTracingSeconds { status = .unknown }
        if status != .high && (newest.map { $0 < now - options.maximumKeyAgeSeconds } ?? true) { status = .outdated }

        var result = CheckResult(status: status, assessment: assessment, summaryV1: match.summaryV1, riskV1: RiskV1.score(match.summaryV1, riskV1),
                                 windows: match.windows, activeTracingSeconds: tracing, newestKeys: newest,
                                 notificationDue: false, storedResultID: nil, statistics: match.statistics, calculatedAt: now)
        let previous = try lastDefinitiveLevel()
        if status == .low || status == .high {
            result.notificationDue = previous.map { $0 != status.rawValue } ?? (status == .high)
        }
        result.storedResultID = try addRiskResult(time: now, level: status.rawValue, document: CheckDocument.json(result).rendered)
        return result
    }

    /// The level of the last stored LOW or HIGH result.
    package func lastDefinitiveLevel() throws -> Int32? {
        try withConnection { c in
            try c.prepare("SELECT level FROM risk_results WHERE level IN (1, 2) ORDER BY time DESC, id DESC LIMIT 1")
                .one { Int32(clamping: $0.int64(0)) }
        }
    }
}

/// The document stored with each check result (and read back offline).
public enum CheckDocument {
    public static func json(_ r: CheckResult) -> JSONValue {
        let a = r.assessment
        return .object([
            ("status", .string(r.status.name)),
            ("calculatedAt", .int(r.calculatedAt)),
            ("notificationDue", .bool(r.notificationDue)),
            ("activeTracingSeconds", .int(r.activeTracingSeconds)),
            ("newestKeys", .optional(r.newestKeys)),
            ("totalRiskLevel", .string(a.totalRiskLevel.name)),
            ("mostRecentDateWithLowRisk", .optional(a.mostRecentDateWithLowRisk)),
            ("mostRecentDateWithHighRisk", .optional(a.mostRecentDateWithHighRisk)),
            ("numberOfDaysWithLowRisk", .int(a.numberOfDaysWithLowRisk)),
            ("numberOfDaysWithHighRisk", .int(a.numberOfDaysWithHighRisk)),
            ("totalMinimumDistinctEncountersWithLowRisk", .int(a.totalMinimumDistinctEncountersWithLowRisk)),
            ("totalMinimumDistinctEncountersWithHighRisk", .int(a.totalMinimumDistinctEncountersWithHighRisk)),
            ("days", .array(a.days.map { d in
                .object([("date", .int(d.date)), ("riskLevel", d.riskLevel.map { .string($0.name) } ?? .null),
                         ("normalizedTime", .number(d.normalizedTime)),
                         ("minimumDistinctEncountersWithLowRisk", .int(d.minimumDistinctEncountersWithLowRisk)),
                         ("minimumDistinctEncountersWithHighRisk", .int(d.minimumDistinctEncountersWithHighRisk))])
            })),
            ("windowCount", .int(r.windowCount)),
            ("v1", .object([("matchedKeyCount", .int(r.summaryV1.matchedKeyCount)),
                            ("maximumRiskScore", .int(r.summaryV1.maximumRiskScore)),
                            ("score", .number(r.riskV1.score)),
                            ("level", r.riskV1.level.map { .string($0.name) } ?? .null)])),
        ])
    }
}
