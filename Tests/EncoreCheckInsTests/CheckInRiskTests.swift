import EncoreCheckIns
import EncoreStorage
import EncoreSupport
import Testing

/// The overlap rule at every boundary, and CWA's presence-tracing risk.
@Suite struct CheckInRiskTests {
    static let day: Int64 = 1_700_006_400 // a UTC midnight (2023-11-15)
    static let hash = [UInt8](repeating: 0xab, count: 32)
    static let cwa = PresenceTracingRiskConfiguration.cwa!

    static func assess(_ visit: TimeSpan, _ warnings: [(UInt32, UInt32, UInt32)], now: Int64? = nil) throws -> PresenceTracingAssessment {
        try PresenceTracingRisk.assess(visits: [CheckInVisit(id: 1, locationIdHash: hash, span: visit)],
                                       warnings: warnings.map { CheckInWarning(checkIn: 1, startInterval: $0.0, period: $0.1, transmissionRiskLevel: $0.2) },
                                       configuration: cwa, now: now ?? visit.end + 3600)
    }

    /// Overlap = min(ends) − max(starts), a match only above 0: for a
    /// warning of one interval, slide the visit over it second by second
    /// around each edge.
    @Test func theOverlapRuleAtEveryBoundary() throws {
        let interval = UInt32(Self.day / 600) + 60 // 10:00 UTC
        let wStart = Int64(interval) * 600, wEnd = wStart + 600
        for edge in [wStart, wEnd] {
            for offset in Int64(-90) ... 90 {
                for length in [Int64(0), 1, 59, 60, 61, 600, 1200] {
                    let visit = TimeSpan(start: edge + offset, end: edge + offset + length)
                    let expected = max(0, min(visit.end, wEnd) - max(visit.start, wStart))
                    let a = try Self.assess(visit, [(interval, 1, 8)])
                    if expected > 0 {
                        #expect(a.matches.count == 1)
                        #expect(a.matches.first?.overlapSeconds == expected)
                        #expect(a.matches.first?.overlapMinutes == (expected + 30) / 60)
                    } else {
                        #expect(a.matches.isEmpty, "visit \(visit) against [\(wStart), \(wEnd))")
                    }
                }
            }
        }
    }

    @Test func minutesRoundHalfUpAndTheLevelFollows() throws {
        let interval = UInt32(Self.day / 600) + 60
        let start = Int64(interval) * 600
        // TRL 5 (value 1.0): 9 min 29 s → 9 (LOW); 9 min 30 s → 10 (HIGH).
        let low = try Self.assess(TimeSpan(start: start, end: start + 569), [(interval, 6, 5)])
        #expect(low.matches.first?.overlapMinutes == 9 && low.totalRiskLevel == .low && low.days.first?.riskLevel == .low)
        let high = try Self.assess(TimeSpan(start: start, end: start + 570), [(interval, 6, 5)])
        #expect(high.matches.first?.overlapMinutes == 10 && high.totalRiskLevel == .high && high.days.first?.riskLevel == .high)
        // TRL 7 for 28 minutes: 1.4 × 28 = 39.2.
        let v = try Self.assess(TimeSpan(start: start, end: start + 28 * 60), [(interval, 6, 7)])
        #expect(abs((v.matches.first?.normalizedTime ?? 0) - 39.2) < 1e-9)
        // TRL 1 and 2 are worth 0: CWA's mappings give no level → FAILED.
        let zero = try Self.assess(TimeSpan(start: start, end: start + 3600), [(interval, 6, 2)])
        #expect(zero.totalRiskLevel == .failed && zero.days.first?.riskLevel == .failed)
        // Two warnings of one check-in add up; two LOW check-ins make a HIGH day.
        let sum = try Self.assess(TimeSpan(start: start, end: start + 360), [(interval, 1, 5), (interval, 1, 5)])
        #expect(sum.matches.count == 2 && sum.totalRiskLevel == .high)
        let twoVisits = try PresenceTracingRisk.assess(
            visits: [CheckInVisit(id: 1, locationIdHash: Self.hash, span: TimeSpan(start: start, end: start + 360)),
                     CheckInVisit(id: 2, locationIdHash: Self.hash, span: TimeSpan(start: start, end: start + 360))],
            warnings: [CheckInWarning(checkIn: 1, startInterval: interval, period: 1, transmissionRiskLevel: 5),
                       CheckInWarning(checkIn: 2, startInterval: interval, period: 1, transmissionRiskLevel: 5)],
            configuration: Self.cwa, now: start + 3600)
        let day = try #require(twoVisits.days.first)
        #expect(twoVisits.totalRiskLevel == .low && twoVisits.days.count == 1)
        #expect(day.date == Self.day && day.normalizedTime == 12 && day.riskLevel == .high)
    }

    @Test func visitsAreSplitAtUTCMidnight() throws {
        let midnight = Self.day + UnixTime.day
        let visit = TimeSpan(start: midnight - 1800, end: midnight + 1200)
        #expect(visit.splitAtUTCMidnight() == [TimeSpan(start: midnight - 1800, end: midnight), TimeSpan(start: midnight, end: midnight + 1200)])
        #expect(TimeSpan(start: midnight - 60, end: midnight).splitAtUTCMidnight().count == 1)
        let a = try Self.assess(visit, [(UInt32((midnight - 3600) / 600), 12, 6)])
        #expect(a.matches.map(\.date) == [midnight, midnight - UnixTime.day])
        #expect(a.matches.map(\.overlapMinutes) == [20, 30])
        // Older than maxCheckInAgeInDays: not assessed.
        #expect(try Self.assess(visit, [(UInt32((midnight - 3600) / 600), 12, 6)], now: midnight + 12 * UnixTime.day).matches.isEmpty)
    }

    @Test func configurationFromJSON() throws {
        let json = #"{"transmissionRiskValueMapping":[{"transmissionRiskLevel":1,"transmissionRiskValue":2}],"normalizedTimePerCheckInToRiskLevelMapping":[{"normalizedTimeRange":{"min":0,"max":5},"riskLevel":2}],"normalizedTimePerDayToRiskLevelMapping":[{"normalizedTimeRange":{"min":0,"max":100},"riskLevel":2}]}"#
        let c = try PresenceTracingRiskConfiguration(json: Array(json.utf8))
        #expect(c.transmissionRiskValue(1) == 2 && c.maxCheckInAgeInDays == 10)
        #expect(throws: EncoreError.self) { try PresenceTracingRiskConfiguration(json: Array(#"{"transmissionRiskValueMapping":[]}"#.utf8)) }
        #expect(throws: EncoreError.self) {
            try PresenceTracingRiskConfiguration(json: Array(json.replacing("\"riskLevel\":2", with: "\"riskLevel\":7").utf8))
        }
    }
}
