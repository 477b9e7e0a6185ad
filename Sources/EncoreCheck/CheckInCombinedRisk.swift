import EncoreCheckIns
import EncoreExposure
import EncoreKeyFiles
import EncoreRisk
import EncoreSupport

/// One date's risk of the exposure windows and the check-ins together.
public struct CombinedDayRisk: Sendable, Equatable {
    public var date: Int64
    /// nil: no windows that day, or their time maps to no level.
    public var exposureWindows: RiskLevel?
    /// nil: no check-in matches that day.
    public var checkIns: CheckInRiskLevel?
    public var riskLevel: CheckInRiskLevel
}

/// The exposure-window risk and the check-ins' risk combined as CWA's apps
/// combine them: FAILED if either failed, else HIGH if either is HIGH, else
/// LOW — per date and overall. The windows' side has no FAILED in encore's
/// model: a day whose normalized time maps to no level counts as no risk,
/// as the check always did.
public enum CombinedRisk {
    public static func combine(_ windows: RiskLevel?, _ checkIns: CheckInRiskLevel?) -> CheckInRiskLevel {
        if checkIns == .failed { return .failed }
        return windows == .high || checkIns == .high ? .high : .low
    }

    /// Every date that has windows or check-in matches, newest first.
    public static func days(_ windows: RiskAssessment, _ checkIns: PresenceTracingAssessment) -> [CombinedDayRisk] {
        var byDate: [Int64: CombinedDayRisk] = [:]
        for d in windows.days {
            byDate[d.date] = CombinedDayRisk(date: d.date, exposureWindows: d.riskLevel, checkIns: nil, riskLevel: .low)
        }
        for d in checkIns.days {
            byDate[d.date, default: CombinedDayRisk(date: d.date, exposureWindows: nil, checkIns: nil, riskLevel: .low)].checkIns = d.riskLevel
        }
        return byDate.values.map { d in
            var d = d
            d.riskLevel = combine(d.exposureWindows, d.checkIns)
            return d
        }.sorted { $0.date > $1.date }
    }

    public static func json(_ days: [CombinedDayRisk]) -> JSONValue {
        let total = days.contains { $0.riskLevel == .failed } ? CheckInRiskLevel.failed : days.contains { $0.riskLevel == .high } ? .high : .low
        return .object([
            ("totalRiskLevel", .string(total.name)),
            ("days", .array(days.map { d in
                .object([("date", UTCTime.dayJSON(d.date)), ("riskLevel", .string(d.riskLevel.name)),
                         ("exposureWindows", .string(d.exposureWindows?.name)), ("checkIns", .string(d.checkIns?.name))])
            })),
        ])
    }
}
