import EncoreCrowdNotifier
import EncoreKeyFiles
import EncoreRisk
import EncoreSupport

/// A check-in as the risk calculation sees it.
public struct CheckInVisit: Sendable, Equatable {
    public var id: Int64
    public var locationIdHash: [UInt8]
    public var span: TimeSpan

    public init(id: Int64, locationIdHash: [UInt8], span: TimeSpan) {
        self.id = id
        self.locationIdHash = locationIdHash
        self.span = span
    }
}

extension CheckInWarning {
    /// The warning's time: [start, start + period) intervals of 600 s.
    public var span: TimeSpan {
        TimeSpan(start: Int64(startInterval) * UTCTime.intervalSeconds, end: (Int64(startInterval) + Int64(period)) * UTCTime.intervalSeconds)
    }
}

/// One warning that overlaps one check-in on one UTC day.
public struct CheckInMatch: Sendable, Equatable {
    public var checkIn: Int64
    public var locationIdHash: [UInt8]
    /// The UTC midnight of the day.
    public var date: Int64
    public var overlapSeconds: Int64
    /// Rounded half up, as CWA rounds.
    public var overlapMinutes: Int64 { (overlapSeconds + 30) / 60 }
    public var transmissionRiskLevel: UInt32
    /// transmissionRiskValue(TRL) × overlapMinutes.
    public var normalizedTime: Double
}

public struct PresenceTracingDay: Sendable, Equatable {
    public var date: Int64
    public var normalizedTime: Double
    public var riskLevel: CheckInRiskLevel
}

/// The risk of the user's check-ins: CWA's presence-tracing model.
public struct PresenceTracingAssessment: Sendable, Equatable {
    public var matches: [CheckInMatch]
    /// Per check-in and day: its normalized time and level.
    public var checkInDays: [(checkIn: Int64, date: Int64, normalizedTime: Double, riskLevel: CheckInRiskLevel)]
    /// Days with matches, newest first.
    public var days: [PresenceTracingDay]
    public var totalRiskLevel: CheckInRiskLevel
    /// CrowdNotifier visits that trace keys matched (CrowdNotifierAssessment.swift).
    public var crowdNotifierExposures: [CrowdNotifierExposure] = []

    public static let empty = PresenceTracingAssessment(matches: [], checkInDays: [], days: [], totalRiskLevel: .low)

    public static func == (a: Self, b: Self) -> Bool {
        a.matches == b.matches && a.days == b.days && a.totalRiskLevel == b.totalRiskLevel && a.crowdNotifierExposures == b.crowdNotifierExposures
            && a.checkInDays.elementsEqual(b.checkInDays) { $0.checkIn == $1.checkIn && $0.date == $1.date && $0.normalizedTime == $1.normalizedTime && $0.riskLevel == $1.riskLevel }
    }

    /// Normalized times as shown: rounded to 6 decimals, so that 1.4 × 28 reads 39.2.
    public static func rounded(_ x: Double) -> Double { (x * 1e6).rounded() / 1e6 }
    static func number(_ x: Double) -> JSONValue { .number(rounded(x)) }

    /// The one JSON form (`encore checkin match --json`, and in the check's document).
    public func json(skippedReports: Int? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("matches", .array(matches.map { m in
                .object([("checkin", .int(m.checkIn)), ("locationIdHash", .string(Hex.encode(m.locationIdHash))),
                         ("overlapMinutes", .int(m.overlapMinutes)), ("transmissionRiskLevel", .int(Int64(m.transmissionRiskLevel))),
                         ("normalizedTime", Self.number(m.normalizedTime)), ("date", UTCTime.dayJSON(m.date))])
            })),
            ("days", .array(days.map { d in
                .object([("date", UTCTime.dayJSON(d.date)), ("normalizedTime", Self.number(d.normalizedTime)), ("riskLevel", .string(d.riskLevel.name))])
            })),
            ("totalRiskLevel", .string(totalRiskLevel.name)),
        ]
        if !crowdNotifierExposures.isEmpty { members.append(("crowdNotifierMatches", .array(crowdNotifierExposures.map(\.json)))) }
        if let skippedReports { members.append(("skippedReports", .int(Int64(skippedReports)))) }
        return .object(members)
    }
}

/// CWA's presence-tracing risk (../shared/spec/checkins.md, "Matching and
/// risk"), pure: check-ins, their stored warnings and a configuration in.
/// Check-ins that ended before the UTC midnight maxCheckInAgeInDays days
/// before today are left out whole; the others are split at UTC midnight and each part overlapped with each
/// warning: overlap = min(check-in end, warning end) − max(starts), a match
/// when above 0. Per check-in and day Σ transmissionRiskValue(TRL) ×
/// round(overlap minutes) is mapped by the per-check-in mapping; per day
/// the check-ins' sum by the per-day mapping; a value mapped to no level is
/// FAILED, as in CWA's apps. The total is HIGH when a check-in is HIGH,
/// else LOW when one is LOW, else FAILED (LOW without matches). So a user
/// whose only match has TRL 1 or 2 (value 0: the production mappings start
/// at 0 exclusive) gets FAILED: CWA Android's PresenceTracingRiskMapper and
/// PresenceTracingRiskCalculator.calculateTotalRisk do the same.
public enum PresenceTracingRisk {
    public static func assess(visits: [CheckInVisit], warnings: [CheckInWarning], configuration c: PresenceTracingRiskConfiguration,
                              now: Int64) throws -> PresenceTracingAssessment {
        try UnixTime.checkNow(now, "presence-tracing risk")
        let oldest = UnixTime.utcMidnight(now) - Int64(c.maxCheckInAgeInDays) * UnixTime.day
        var byID: [Int64: CheckInVisit] = [:]
        // CWA Android's CheckInAgeFilter: a check-in is kept whole when it
        // ends at or after the cut-off midnight (even exactly at it), and
        // dropped whole when it ends before; its parts are not filtered.
        for v in visits where v.span.end >= oldest { byID[v.id] = v }
        var matches: [CheckInMatch] = []
        for w in warnings {
            guard let visit = byID[w.checkIn] else { continue }
            for part in visit.span.splitAtUTCMidnight() {
                let overlap = part.overlap(w.span)
                guard overlap > 0 else { continue }
                var m = CheckInMatch(checkIn: visit.id, locationIdHash: visit.locationIdHash, date: UnixTime.utcMidnight(part.start),
                                     overlapSeconds: overlap, transmissionRiskLevel: w.transmissionRiskLevel, normalizedTime: 0)
                m.normalizedTime = c.transmissionRiskValue(w.transmissionRiskLevel) * Double(m.overlapMinutes)
                matches.append(m)
            }
        }
        matches.sort { ($0.date, $0.checkIn, $0.overlapSeconds) > ($1.date, $1.checkIn, $1.overlapSeconds) }

        struct Key: Hashable { var checkIn: Int64; var date: Int64 }
        var perCheckIn: [Key: Double] = [:]
        for m in matches { perCheckIn[Key(checkIn: m.checkIn, date: m.date), default: 0] += m.normalizedTime }
        let checkInDays = perCheckIn.map { (checkIn: $0.key.checkIn, date: $0.key.date, normalizedTime: $0.value,
                                            riskLevel: c.level(c.normalizedTimePerCheckInToRiskLevelMapping, $0.value)) }
            .sorted { ($0.date, $0.checkIn) > ($1.date, $1.checkIn) }
        var perDay: [Int64: Double] = [:]
        for d in checkInDays { perDay[d.date, default: 0] += d.normalizedTime }
        let days = perDay.map { PresenceTracingDay(date: $0.key, normalizedTime: $0.value, riskLevel: c.level(c.normalizedTimePerDayToRiskLevelMapping, $0.value)) }
            .sorted { $0.date > $1.date }
        let total: CheckInRiskLevel
        if checkInDays.isEmpty || checkInDays.contains(where: { $0.riskLevel == .low }) { total = .low } else { total = .failed }
        return PresenceTracingAssessment(matches: matches, checkInDays: checkInDays, days: days,
                                         totalRiskLevel: checkInDays.contains { $0.riskLevel == .high } ? .high : total)
    }
}
