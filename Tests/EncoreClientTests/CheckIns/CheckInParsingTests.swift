import EncoreCheckIns
import EncoreCheckInsFixtures
import EncoreCrowdNotifier
import EncoreSupport
import EncoreTestSupport
import Testing

/// CWA's check-in QR codes read into the location type the check-ins share
/// with CrowdNotifier: a real one, and codes that are not usable, which get
/// distinct, clear errors.
@Suite struct CheckInParsingTests {
    static func kind(_ body: () throws -> Void) -> EncoreError.Kind? {
        do { try body() } catch let e as EncoreError { return e.kind } catch { return nil }
        return nil
    }

    @Test func distinctErrors() throws {
        let good = CheckInSamples.qr(CheckInSamples.payload())
        #expect(try CheckInQRCode.parse(good).description == "Café")
        #expect(Self.kind { _ = try CheckInQRCode.parse("https://example.org?v=1#" + good.split(separator: "#")[1]) } == .qrNotCWA)
        #expect(Self.kind { _ = try CheckInQRCode.parse("http://e.coronawarn.app?v=1#CAES") } == .qrNotCWA)
        #expect(Self.kind { _ = try CheckInQRCode.parse("https://e.coronawarn.app?v=1") } == .qrNotCWA)
        #expect(Self.kind { _ = try CheckInQRCode.parse("https://e.coronawarn.app?x=1#CAES") } == .qrNotCWA)
        #expect(Self.kind { _ = try CheckInQRCode.parse("https://e.coronawarn.app?v=2#" + good.split(separator: "#")[1]) } == .qrVersion)
        #expect(Self.kind { _ = try CheckInQRCode.parse(CheckInSamples.qr(CheckInSamples.payload(version: 2))) } == .qrVersion)
        #expect(Self.kind { _ = try CheckInQRCode.parse("https://e.coronawarn.app?v=1#CA+S") } == .qrEncoding)
        #expect(Self.kind { _ = try CheckInQRCode.parse("https://e.coronawarn.app?v=1#C") } == .qrEncoding)
        #expect(Self.kind { _ = try CheckInQRCode.parse("https://e.coronawarn.app?v=1#") } == .qrMalformed)
        #expect(Self.kind { _ = try CheckInQRCode.parse(CheckInSamples.qr([0x0a, 0xff])) } == .qrMalformed)
        #expect(Self.kind { _ = try CheckInQRCode.parse(CheckInSamples.qr([0x08, 0x01])) } == .qrMalformed) // no location
        #expect(Self.kind { _ = try CheckInQRCode.parse(CheckInSamples.qr(CheckInSamples.payload(vendor: [0xff]))) } == .qrMalformed)
        // The app's text rules: CheckInQRRulesTests.
        #expect(Self.kind { _ = try CheckInQRCode.parse(CheckInSamples.qr(CheckInSamples.payload(description: String(repeating: "a", count: 256)))) } == .qrInvalid)
        #expect(Self.kind { _ = try CheckInQRCode.parse(CheckInSamples.qr(CheckInSamples.payload(description: ""))) } == .qrInvalid)
        #expect(Self.kind { _ = try CheckInQRCode.parse(CheckInSamples.qr(CheckInSamples.payload(start: 2000, end: 1000))) } == .qrInvalid)
        #expect(Self.kind { _ = try CheckInQRCode.parse(CheckInSamples.qr(CheckInSamples.payload(seed: [1, 2, 3]))) } == .qrInvalid)
        #expect(Self.kind { _ = try CheckInQRCode.parse(good + String(repeating: "A", count: QRCodeLimits.maxTextBytes)) } == .qrTooLarge)
        #expect(Self.kind { _ = try CheckInQRCode.location(payload: [UInt8](repeating: 0, count: QRCodeLimits.maxPayloadBytes + 1)) } == .qrTooLarge)
    }

    @Test func theAutomaticLength() throws {
        let cwaData = CheckInSamples.vendor(type: 9, minutes: 90)
        let withDefault = try CheckInQRCode.parse(CheckInSamples.qr(CheckInSamples.payload(vendor: cwaData)))
        #expect(withDefault.locationType == 9 && withDefault.defaultCheckInLengthMinutes == 90)
        #expect(withDefault.defaultCheckInSeconds == 90 * 60)
        // The event's length (3 hours), whenever the guest checks in.
        let event = try CheckInQRCode.parse(CheckInSamples.qr(CheckInSamples.payload(start: 1_700_000_000, end: 1_700_010_800)))
        #expect(event.defaultCheckInSeconds == 10_800)
        #expect(try CheckInQRCode.parse(CheckInSamples.qr(CheckInSamples.payload())).defaultCheckInSeconds == 900)
    }

    @Test func aRealQRCode() throws {
        let l = try CheckInQRCode.parse(CheckInSamples.realQR)
        // With and without base64 padding.
        let encoded = CheckInSamples.realQR.split(separator: "#")[1]
        let padded = CheckInSamples.realQR + String(repeating: "=", count: (4 - encoded.count % 4) % 4)
        #expect(try CheckInQRCode.parse(padded).locationId == l.locationId)
        #expect(try CheckInQRCode.parse(padded).locationIdHash == TraceLocation.locationIdHash(l.locationId))
        #expect(try CheckInQRCode.parse(CheckInQRCode.text(payload: l.payload)).locationId == l.locationId)
        #expect(l.description == "Agway Inc.")
        #expect(l.address == "1594 Deffe Avenue")
        #expect(l.startTimestamp == 0 && l.endTimestamp == 0)
        #expect(l.locationType == 4 && l.defaultCheckInLengthMinutes == 28)
        #expect(l.defaultCheckInMinutes == 30) // 28 rounded to the nearest 15
        #expect(l.locationId == TraceLocation.locationId(payload: l.payload))
        // Upper-case scheme and host, a slash before "?": still CWA's.
        let upper = "HTTPS://E.CORONAWARN.APP/?v=1#" + CheckInSamples.realQR.split(separator: "#")[1]
        #expect(try CheckInQRCode.parse(upper).locationId == l.locationId)
    }
}
