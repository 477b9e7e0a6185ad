import EncoreWire
import EncoreCore
import EncoreFixtures
import Testing

/// QR codes that are not usable get distinct, clear errors.
@Suite struct CheckInParsingTests {
    static func kind(_ body: () throws -> Void) -> EncoreError.Kind? {
        do { try body() } catch let e as EncoreError { return e.kind } catch { return nil }
        return nil
    }

    /// A QRCodePayload with the given location fields (CWA's numbers: 5 and 6 for the times).
    static func payload(version: UInt64 = 1, description: String = "Café", address: String = "Main Street 1",
                        start: UInt64 = 0, end: UInt64 = 0, seed: [UInt8]? = [UInt8](repeating: 7, count: 16), vendor: [UInt8]? = nil) -> [UInt8] {
        var location = ProtoEncoder()
        location.varint(1, 1)
        location.string(2, description)
        location.string(3, address)
        if start != 0 { location.varint(5, start) }
        if end != 0 { location.varint(6, end) }
        var p = ProtoEncoder()
        p.varint(1, version)
        p.lengthDelimited(2, location.bytes)
        if let seed {
            var cn = ProtoEncoder()
            cn.varint(1, 1)
            cn.lengthDelimited(2, [UInt8](repeating: 4, count: 65))
            cn.lengthDelimited(3, seed)
            p.lengthDelimited(3, cn.bytes)
        }
        if let vendor { p.lengthDelimited(4, vendor) }
        return p.bytes
    }

    static func qr(_ payload: [UInt8]) -> String { CheckInQRCode.text(payload: payload) }

    @Test func distinctErrors() throws {
        let good = Self.qr(Self.payload())
        #expect(try CheckInQRCode.parse(good).description == "Café")
        #expect(Self.kind { _ = try CheckInQRCode.parse("https://example.org?v=1#" + good.split(separator: "#")[1]) } == .qrNotCWA)
        #expect(Self.kind { _ = try CheckInQRCode.parse("http://e.coronawarn.app?v=1#CAES") } == .qrNotCWA)
        #expect(Self.kind { _ = try CheckInQRCode.parse("https://e.coronawarn.app?v=1") } == .qrNotCWA)
        #expect(Self.kind { _ = try CheckInQRCode.parse("https://e.coronawarn.app?x=1#CAES") } == .qrNotCWA)
        #expect(Self.kind { _ = try CheckInQRCode.parse("https://e.coronawarn.app?v=2#" + good.split(separator: "#")[1]) } == .qrVersion)
        #expect(Self.kind { _ = try CheckInQRCode.parse(Self.qr(Self.payload(version: 2))) } == .qrVersion)
        #expect(Self.kind { _ = try CheckInQRCode.parse("https://e.coronawarn.app?v=1#CA+S") } == .qrEncoding)
        #expect(Self.kind { _ = try CheckInQRCode.parse("https://e.coronawarn.app?v=1#C") } == .qrEncoding)
        #expect(Self.kind { _ = try CheckInQRCode.parse("https://e.coronawarn.app?v=1#") } == .qrMalformed)
        #expect(Self.kind { _ = try CheckInQRCode.parse(Self.qr([0x0a, 0xff])) } == .qrMalformed)
        #expect(Self.kind { _ = try CheckInQRCode.parse(Self.qr([0x08, 0x01])) } == .qrMalformed) // no location
        #expect(Self.kind { _ = try CheckInQRCode.parse(Self.qr(Self.payload(vendor: [0xff]))) } == .qrMalformed)
        // The app's text rules: CheckInAppRulesTests.
        #expect(Self.kind { _ = try CheckInQRCode.parse(Self.qr(Self.payload(description: String(repeating: "a", count: 256)))) } == .qrInvalid)
        #expect(Self.kind { _ = try CheckInQRCode.parse(Self.qr(Self.payload(description: ""))) } == .qrInvalid)
        #expect(Self.kind { _ = try CheckInQRCode.parse(Self.qr(Self.payload(start: 2000, end: 1000))) } == .qrInvalid)
        #expect(Self.kind { _ = try CheckInQRCode.parse(Self.qr(Self.payload(seed: [1, 2, 3]))) } == .qrInvalid)
        #expect(Self.kind { _ = try CheckInQRCode.parse(good + String(repeating: "A", count: CheckInQRCode.maxTextBytes)) } == .qrTooLarge)
        #expect(Self.kind { _ = try CheckInQRCode.location(payload: [UInt8](repeating: 0, count: CheckInQRCode.maxPayloadBytes + 1)) } == .qrTooLarge)
    }

    @Test func theAutomaticLength() throws {
        var cwaData = ProtoEncoder()
        cwaData.varint(1, 1)
        cwaData.varint(2, 9)
        cwaData.varint(3, 90)
        let withDefault = try CheckInQRCode.parse(Self.qr(Self.payload(vendor: cwaData.bytes)))
        #expect(withDefault.locationType == 9 && withDefault.defaultCheckInLengthMinutes == 90)
        #expect(withDefault.defaultCheckInSeconds == 90 * 60)
        // The event's length (3 hours), whenever the guest checks in.
        let event = try CheckInQRCode.parse(Self.qr(Self.payload(start: 1_700_000_000, end: 1_700_010_800)))
        #expect(event.defaultCheckInSeconds == 10_800)
        #expect(try CheckInQRCode.parse(Self.qr(Self.payload())).defaultCheckInSeconds == 900)
    }
}
