import EncoreCheckIns
import EncoreCheckInsFixtures
import EncoreCrowdNotifier
import EncoreSupport
import Testing

/// What the app accepts of a check-in QR code (CWA's rules from
/// ../shared/spec/checkins.md, at every boundary): its texts, times and
/// seed, refused with CrowdNotifier's QR error kinds on the location type
/// both kinds of code share (the check-ins' other rules: CheckInAppRulesTests).
@Suite struct CheckInQRRulesTests {
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
}
