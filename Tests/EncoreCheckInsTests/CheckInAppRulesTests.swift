import EncoreCheckIns
import EncoreCheckInsFixtures
import EncoreStorage
import EncoreSupport
import EncoreTestSupport
import EncoreWire
import Testing

/// CWA's check-in rules from ../shared/spec/checkins.md, at every boundary:
/// the default check-in length, the age filter of the risk calculation,
/// signed start intervals (what the app accepts of a QR code's texts, times
/// and seed: the client's CheckInQRRulesTests; own submitted check-ins, a
/// rule of the service: CheckInStoreTests).
@Suite struct CheckInAppRulesTests {
    typealias P = CheckInSamples

    /// The default check-in length, in minutes, the app gives a code's location.
    static func minutes(start: UInt64 = 0, end: UInt64 = 0, vendor: [UInt8]? = nil) throws -> Int64 {
        try CheckInQRCode.parse(P.qr(P.payload(start: start, end: end, vendor: vendor))).defaultCheckInMinutes
    }

    /// proto3 leaves a default of 0 out; one an organizer's tool writes
    /// anyway is written as it is.
    static func vendor(type: UInt32 = 4, minutes: UInt32) -> [UInt8] {
        minutes != 0 ? CheckInSamples.vendor(type: type, minutes: minutes)
            : ProtoSamples.raw(.varint(1, 1), .varint(2, UInt64(type)), .varint(3, 0))
    }

    /// "defaultCheckInLengthInMinutes when present, otherwise the event's end − start; rounded to the
    /// nearest multiple of 15 minutes and clamped to 15 … 1425 (23:45 h); with neither, 15."
    @Test func defaultCheckInLength() throws {
        let cases: [(UInt32, Int64)] = [(1, 15), (7, 15), (8, 15), (15, 15), (22, 15), (23, 30), (28, 30), (50, 45), (52, 45), (53, 60),
                                        (120, 120), (169, 165), (1425, 1425), (1432, 1425), (1433, 1440 - 15), (1440, 1425), (5000, 1425)]
        for (minutes, expected) in cases {
            let l = try CheckInQRCode.parse(P.qr(P.payload(vendor: Self.vendor(minutes: minutes))))
            #expect(l.defaultCheckInMinutes == expected, "default \(minutes)")
            #expect(l.defaultCheckInSeconds == expected * 60)
        }
        // The event's length when there is no default: 22, 23 and 50 minutes, 22.5 (half up), two days.
        let t: UInt64 = 1_700_000_000
        let events: [(UInt64, Int64)] = [(1320, 15), (1380, 30), (3000, 45), (1350, 30), (1349, 15), (172_800, 1425), (0, 15)]
        for (seconds, expected) in events {
            #expect(try Self.minutes(start: t, end: t + seconds) == expected, "event of \(seconds) s")
        }
        // A default of 0 (written or absent) and no event: 15.
        #expect(try Self.minutes(vendor: Self.vendor(minutes: 0)) == 15)
        #expect(try Self.minutes() == 15)
        // The default wins over the event's length.
        #expect(try Self.minutes(start: t, end: t + 86_400, vendor: Self.vendor(minutes: 50)) == 45)
        // The pure rule, and what a check-in without an end gets.
        #expect(CheckInLocationRules.defaultCheckInMinutes(defaultLength: 0, start: 0, end: 0) == 15)
    }

    static let cwa = PresenceTracingRiskConfiguration.cwa!

    /// "keeps a check-in whose end is at or after the start of the UTC day maxCheckInAgeInDays days
    /// before today, whole, not piece by piece".
    @Test func theAgeFilterCutsAtMidnightByTheEnd() throws {
        let now: Int64 = 1_700_006_400 + 12 * 3600 // 2023-11-15T12:00Z
        let cutoff = UnixTime.utcMidnight(now) - 10 * UnixTime.day
        let hash = [UInt8](repeating: 0xab, count: 32)
        func assess(_ visit: TimeSpan, warningFrom: Int64, minutes: Int64) throws -> PresenceTracingAssessment {
            try PresenceTracingRisk.assess(
                visits: [CheckInVisit(id: 1, locationIdHash: hash, span: visit)],
                warnings: [CheckInWarning(checkIn: 1, startInterval: UInt32(warningFrom / 600), period: UInt32(minutes / 10), transmissionRiskLevel: 8)],
                configuration: Self.cwa, now: now)
        }
        // Ending exactly at the cut-off midnight: kept (its match lies on the day before the cut-off).
        let atCutoff = try assess(TimeSpan(start: cutoff - 3600, end: cutoff), warningFrom: cutoff - 3600, minutes: 60)
        #expect(atCutoff.matches.count == 1 && atCutoff.matches.first?.date == cutoff - UnixTime.day)
        #expect(atCutoff.totalRiskLevel == .high)
        // Ending one second before: dropped.
        #expect(try assess(TimeSpan(start: cutoff - 3601, end: cutoff - 1), warningFrom: cutoff - 3600, minutes: 60).matches.isEmpty)
        // Across the cut-off: kept whole, its part before the midnight too.
        let across = try assess(TimeSpan(start: cutoff - 1800, end: cutoff + 1800), warningFrom: cutoff - 1800, minutes: 60)
        #expect(across.matches.map(\.date) == [cutoff, cutoff - UnixTime.day])
        #expect(across.matches.map(\.overlapMinutes) == [30, 30])
    }

    /// "require startIntervalNumber ≥ 0 read as a signed 32-bit number (Java writes −1 as 0xFFFFFFFF; such a warning is invalid)".
    @Test func aNegativeStartIsInvalidNotAMatch() throws {
        let location = CheckInWarningTests.location
        let keys = CheckInCrypto.Keys(locationId: location)
        func report(start: UInt64, period: UInt64 = 3) throws -> WarningPackages.Report {
            // CheckInRecord's fields are uint32: a start that is none (−1
            // sign-extended to ten bytes) is written as it is.
            let record = UInt32(exactly: start).map { CheckInRecordCodec.encode(startInterval: $0, period: UInt32(truncatingIfNeeded: period), transmissionRiskLevel: 6) }
                ?? ProtoSamples.raw(.varint(1, start), .varint(2, period), .varint(3, 6))
            let iv = [UInt8](repeating: 9, count: 16)
            let sealed = try CheckInCrypto.encrypt(record: record, keys: keys, iv: iv)
            return WarningPackages.Report(locationIdHash: WarningPackages.hash(location), iv: iv,
                                                     encryptedCheckInRecord: sealed.ciphertext, mac: sealed.mac)
        }
        let reports = [try report(start: 0xFFFF_FFFF),           // −1 as Java writes a uint32
                       try report(start: UInt64.max),            // −1 sign-extended (ten bytes)
                       try report(start: 0x8000_0000),           // Int32.min
                       try report(start: 0x7FFF_FFFF),           // Int32.max: valid
                       try report(start: 0),                     // 0: valid
                       try report(start: 100, period: 0xFFFF_FFFF)] // period −1: invalid
        let plain = WarningPackages.PlainWarning(locationIdHash: WarningPackages.hash(location), startInterval: 0xFFFF_FFFF,
                                                    period: 2, transmissionRiskLevel: 4)
        let s = try CheckInWarningTests.scan(WarningPackages.package(warnings: [plain], reports: reports))
        #expect(s.matches.map(\.startInterval) == [0x7FFF_FFFF, 0])
        #expect(s.skipped == 5 && s.skippedByMAC == 0)
    }
}
