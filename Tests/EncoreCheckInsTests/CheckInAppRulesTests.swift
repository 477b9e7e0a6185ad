import EncoreCheckIns
import EncoreCrowdNotifier
import EncoreFixtures
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreTestResults
import EncoreFeatureTestSupport
import EncoreTestSupport
import EncoreWire
import Testing

/// CWA's check-in rules from ../shared/spec/checkins.md, at every boundary:
/// what the app accepts of a QR code, the default check-in length, the age
/// filter of the risk calculation, signed start intervals (own submitted
/// check-ins, a rule of the service: CheckInStoreTests).
@Suite struct CheckInAppRulesTests {
    typealias P = CheckInSamples

    static func refusal(_ body: () throws -> Void) -> EncoreError? {
        do { try body() } catch let e as EncoreError { return e } catch { return nil }
        return nil
    }

    static func parse(description: String = "Café", address: String = "Main Street 1", start: UInt64 = 0, end: UInt64 = 0,
                      seed: [UInt8]? = [UInt8](repeating: 7, count: 16), vendor: [UInt8]? = nil) throws -> TraceLocation {
        try CheckInQRCode.parse(P.qr(P.payload(description: description, address: address, start: start, end: end, seed: seed, vendor: vendor)))
    }

    /// "description and address each non-empty, at most 255 characters and a single line".
    @Test func textsUpTo255CharactersOnOneLine() throws {
        for field in ["description", "address"] {
            func with(_ text: String) throws -> TraceLocation {
                field == "description" ? try Self.parse(description: text) : try Self.parse(address: text)
            }
            // 255 accepted (also counted in UTF-16 units: é is one), 256 refused, naming the field and the rule.
            #expect(try with(String(repeating: "a", count: 255)).payload.count > 255)
            #expect(try with(String(repeating: "é", count: 255)).payload.count > 255)
            let long = Self.refusal { _ = try with(String(repeating: "a", count: 256)) }
            #expect(long?.kind == .qrInvalid)
            #expect(long?.message == "the location's \(field) has 256 characters; the app allows at most 255")
            // A character outside the BMP counts twice, as the apps count it.
            #expect(Self.refusal { _ = try with(String(repeating: "a", count: 254) + "😀") }?.kind == .qrInvalid)
            // Empty: refused (an empty address too).
            let empty = Self.refusal { _ = try with("") }
            #expect(empty?.kind == .qrInvalid && empty?.message == "the location's \(field) is empty; the app requires one")
            // One line yes, two (LF, CRLF, CR) no.
            #expect(try with("One line, with spaces\tand a tab").description.isEmpty == false)
            for text in ["Line one\nline two", "Line one\r\nline two", "Line one\rline two", "trailing\n"] {
                let e = Self.refusal { _ = try with(text) }
                #expect(e?.kind == .qrInvalid && e?.message == "the location's \(field) spans several lines; the app allows a single line", "\(text.debugDescription)")
            }
        }
    }

    /// "the start and end timestamps either both 0 (a permanent place) or start ≤ end (a start without an end is refused)".
    @Test func startAndEnd() throws {
        #expect(try Self.parse().startTimestamp == 0)
        #expect(try Self.parse(start: 1_700_000_000, end: 1_700_000_000).endTimestamp == 1_700_000_000)
        #expect(try Self.parse(start: 1_700_000_000, end: 1_700_003_600).endTimestamp == 1_700_003_600)
        #expect(try Self.parse(start: 0, end: 1_700_003_600).endTimestamp == 1_700_003_600)
        let noEnd = Self.refusal { _ = try Self.parse(start: 1_700_000_000, end: 0) }
        #expect(noEnd?.kind == .qrInvalid)
        #expect(noEnd?.message == "the location has a startTimestamp (1700000000) but no endTimestamp; the app requires both or neither")
        let backwards = Self.refusal { _ = try Self.parse(start: 1_700_000_001, end: 1_700_000_000) }
        #expect(backwards?.kind == .qrInvalid && backwards?.message.contains("endTimestamp (1700000000) is before its startTimestamp") == true)
    }

    /// "cryptographicSeed exactly 16 bytes".
    @Test func seedOf16Bytes() throws {
        #expect(try Self.parse(seed: [UInt8](repeating: 1, count: 16)).locationId.count == 32)
        for n in [0, 15, 17, 32] {
            let e = Self.refusal { _ = try Self.parse(seed: [UInt8](repeating: 1, count: n)) }
            #expect(e?.kind == .qrInvalid && e?.message == "the location's cryptographicSeed has \(n) bytes; the app requires exactly 16")
        }
        #expect(Self.refusal { _ = try Self.parse(seed: nil) }?.message == "the location's cryptographicSeed has 0 bytes; the app requires exactly 16")
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
            let l = try Self.parse(vendor: Self.vendor(minutes: minutes))
            #expect(l.defaultCheckInMinutes == expected, "default \(minutes)")
            #expect(l.defaultCheckInSeconds == expected * 60)
        }
        // The event's length when there is no default: 22, 23 and 50 minutes, 22.5 (half up), two days.
        let t: UInt64 = 1_700_000_000
        let events: [(UInt64, Int64)] = [(1320, 15), (1380, 30), (3000, 45), (1350, 30), (1349, 15), (172_800, 1425), (0, 15)]
        for (seconds, expected) in events {
            #expect(try Self.parse(start: t, end: t + seconds).defaultCheckInMinutes == expected, "event of \(seconds) s")
        }
        // A default of 0 (written or absent) and no event: 15.
        #expect(try Self.parse(vendor: Self.vendor(minutes: 0)).defaultCheckInMinutes == 15)
        #expect(try Self.parse().defaultCheckInMinutes == 15)
        // The default wins over the event's length.
        #expect(try Self.parse(start: t, end: t + 86_400, vendor: Self.vendor(minutes: 50)).defaultCheckInMinutes == 45)
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
        func report(start: UInt64, period: UInt64 = 3) throws -> SubmissionPayload.ProtectedReport {
            // CheckInRecord's fields are uint32: a start that is none (−1
            // sign-extended to ten bytes) is written as it is.
            let record = UInt32(exactly: start).map { CheckInRecordCodec.encode(startInterval: $0, period: UInt32(truncatingIfNeeded: period), transmissionRiskLevel: 6) }
                ?? ProtoSamples.raw(.varint(1, start), .varint(2, period), .varint(3, 6))
            let iv = [UInt8](repeating: 9, count: 16)
            let sealed = try CheckInCrypto.encrypt(record: record, keys: keys, iv: iv)
            return SubmissionPayload.ProtectedReport(locationIdHash: TraceLocation.locationIdHash(location), iv: iv,
                                                     encryptedCheckInRecord: sealed.ciphertext, mac: sealed.mac)
        }
        let reports = [try report(start: 0xFFFF_FFFF),           // −1 as Java writes a uint32
                       try report(start: UInt64.max),            // −1 sign-extended (ten bytes)
                       try report(start: 0x8000_0000),           // Int32.min
                       try report(start: 0x7FFF_FFFF),           // Int32.max: valid
                       try report(start: 0),                     // 0: valid
                       try report(start: 100, period: 0xFFFF_FFFF)] // period −1: invalid
        let plain = TraceWarningWriter.PlainWarning(locationIdHash: TraceLocation.locationIdHash(location), startInterval: 0xFFFF_FFFF,
                                                    period: 2, transmissionRiskLevel: 4)
        let s = try CheckInWarningTests.scan(TraceWarningWriter.package(warnings: [plain], reports: reports))
        #expect(s.matches.map(\.startInterval) == [0x7FFF_FFFF, 0])
        #expect(s.skipped == 5 && s.skippedByMAC == 0)
    }

}
