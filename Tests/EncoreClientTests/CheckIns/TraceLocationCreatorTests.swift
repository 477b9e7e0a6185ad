import EncoreCheckIns
import EncoreCrowdNotifier
import EncoreStorage
import EncoreSupport
import EncoreTestSupport
import Testing

/// The organizer side (../shared/spec/checkins.md, "Organizer side"): the
/// payload byte for byte against CWA Android's known answer, the app's
/// rules for what an organizer enters, and the printable code's modules.
@Suite struct TraceLocationCreatorTests {
    static func refusal(_ body: () throws -> Void) -> EncoreError? {
        do { try body() } catch let e as EncoreError { return e } catch { return nil }
        return nil
    }

    /// Android's TraceLocationIdTest "mock server test data - 1", from the spec.
    @Test func androidsKnownAnswer() throws {
        let spec = TraceLocationSpec(description: "Apple Computer, Inc.", address: "1958 Fohe Road", locationType: 4, defaultCheckInLengthMinutes: 169)
        let seed = try #require(Base64.decode("1eJViR7ldjQd12QOaP7cdg==".utf8))
        let key = try #require(Base64.decode("OMTa6eYSiaDv8lW13xdYEvGHOZ1EYTiFSxt51HEoPCD7CNnvCUiIYPhax1MpkN0UfNClCm9ZWYy0JH01CDVD9eq+voxQ1EcFJQkEIujVwoCNK0MNGuDK1ayjGxeDc4UD".utf8))
        let payload = try TraceLocationCreator.payload(spec, seed: seed, publicKey: key)
        #expect(Base64.encodeURL(payload) == "CAESKAgBEhRBcHBsZSBDb21wdXRlciwgSW5jLhoOMTk1OCBGb2hlIFJvYWQadggBEmA4xNrp5hKJoO_yVbXfF1gS8Yc5nURhOIVLG3nUcSg8IPsI2e8JSIhg-FrHUymQ3RR80KUKb1lZjLQkfTUINUP16r6-jFDURwUlCQQi6NXCgI0rQw0a4MrVrKMbF4NzhQMaENXiVYke5XY0HddkDmj-3HYiBwgBEAQYqQE")
        let l = try CheckInQRCode.location(payload: payload)
        #expect(Hex.encode(l.locationId) == "fc925439f45417a14403b25c95fdc6d8711653f8aa08c0d0967bd30a6348c7fc")
        #expect(Hex.encode(l.locationIdHash) == "348142698636c70fb4c3a66275e03ecc1b92042ad6e20aa19c0a1f59a00f812f")
        #expect(CheckInQRCode.text(payload: payload).hasPrefix("https://e.coronawarn.app?v=1#CAESKAgB"))
    }

    @Test func createdLocationsParseBackWithTheAppsDefaults() throws {
        #expect(TraceLocationCreator.cwaPublicKey.count == 96)
        #expect(Hex.encode(Array(TraceLocationCreator.cwaPublicKey.prefix(6))) == "8302cccc4d79")
        let place = try TraceLocationCreator.create(TraceLocationSpec(description: "Café Müller", address: "Main Street 1", locationType: 4))
        let again = try CheckInQRCode.parse(CheckInQRCode.text(payload: place.payload))
        #expect(again == place)
        #expect(place.description == "Café Müller" && place.locationType == 4 && place.startTimestamp == 0)
        #expect(place.defaultCheckInLengthMinutes == 120 && place.defaultCheckInMinutes == 120)
        // A fresh seed each time: a new location.
        #expect(try TraceLocationCreator.create(TraceLocationSpec(description: "Café Müller", address: "Main Street 1", locationType: 4)).locationId != place.locationId)
        let t: UInt64 = 1_764_000_000
        let event = try TraceLocationCreator.create(TraceLocationSpec(description: "Party", address: "Home", startTimestamp: t, endTimestamp: t + 3600, locationType: 11))
        #expect(event.defaultCheckInLengthMinutes == 15 && event.startTimestamp == t && event.endTimestamp == t + 3600)
        let zero = try TraceLocationCreator.create(TraceLocationSpec(description: "Shop", address: "High Street", locationType: 3, defaultCheckInLengthMinutes: 0))
        #expect(zero.defaultCheckInLengthMinutes == 15)
        let longest = try TraceLocationCreator.create(TraceLocationSpec(description: String(repeating: "d", count: 255), address: String(repeating: "ä", count: 255),
                                                                       locationType: 1, defaultCheckInLengthMinutes: 1425))
        #expect(longest.defaultCheckInMinutes == 1425 && longest.address.count == 255)
        // Every type the app offers, with the kind's times.
        for type in UInt32(1) ... 12 {
            let isEvent = TraceLocationKind(type: type) == .event
            let l = try TraceLocationCreator.create(TraceLocationSpec(description: "x", address: "y", startTimestamp: isEvent ? t : 0,
                                                                     endTimestamp: isEvent ? t + 60 : 0, locationType: type))
            #expect(l.locationType == type)
        }
        #expect(TraceLocationKind(type: 0) == nil && TraceLocationKind(type: 13) == nil)
    }

    @Test func whatTheAppRefusesNamesTheFieldAndTheRule() throws {
        let t: UInt64 = 1_764_000_000
        func refused(_ spec: TraceLocationSpec) -> String? {
            let e = Self.refusal { _ = try TraceLocationCreator.create(spec) }
            #expect(e?.kind == .locationInvalid)
            return e?.message
        }
        #expect(refused(TraceLocationSpec(description: "a", address: "b", locationType: 0))?.contains("location type 0 is not one the app offers") == true)
        #expect(refused(TraceLocationSpec(description: "a", address: "b", locationType: 13))?.contains("location type 13") == true)
        #expect(refused(TraceLocationSpec(description: " \t", address: "b", locationType: 1)) == "the location's description is blank; the app requires one")
        #expect(refused(TraceLocationSpec(description: "a", address: "", locationType: 1)) == "the location's address is blank; the app requires one")
        #expect(refused(TraceLocationSpec(description: String(repeating: "a", count: 256), address: "b", locationType: 1))
            == "the location's description has 256 characters; the app allows at most 255")
        #expect(refused(TraceLocationSpec(description: "a", address: "b\nc", locationType: 1)) == "the location's address spans several lines; the app allows a single line")
        #expect(refused(TraceLocationSpec(description: "a", address: "b", startTimestamp: t, endTimestamp: t + 60, locationType: 1))?.contains("a place (type 1) has no start or end") == true)
        #expect(refused(TraceLocationSpec(description: "a", address: "b", locationType: 2)) == "an event (type 2) needs a start and an end")
        #expect(refused(TraceLocationSpec(description: "a", address: "b", startTimestamp: t, locationType: 9)) == "an event (type 9) needs a start and an end")
        #expect(refused(TraceLocationSpec(description: "a", address: "b", startTimestamp: t, endTimestamp: t, locationType: 9))?.contains("is not after its start") == true)
        #expect(refused(TraceLocationSpec(description: "a", address: "b", locationType: 1, defaultCheckInLengthMinutes: 1426))?.contains("1426 minutes") == true)
        #expect(Self.refusal { _ = try TraceLocationCreator.payload(TraceLocationSpec(description: "a", address: "b", locationType: 1), seed: [1, 2]) }?.kind == .invalidArgument)
    }

    /// The modules libqrencode draws: the size of the version, the three
    /// finder patterns, the timing pattern; images of them.
    @Test func theQRCodesModules() throws {
        let l = try TraceLocationCreator.create(TraceLocationSpec(description: "Café Müller", address: "Main Street 1", locationType: 4))
        let m = try QRCodeMatrix.encode(CheckInQRCode.text(payload: l.payload))
        #expect(m.size == 17 + 4 * m.version && m.version >= 5)
        #expect(m.modules.count == m.size * m.size)
        for (r0, c0) in [(0, 0), (0, m.size - 7), (m.size - 7, 0)] {
            for r in 0 ..< 7 {
                for c in 0 ..< 7 {
                    let ring = max(abs(r - 3), abs(c - 3))
                    #expect(m.isDark(row: r0 + r, column: c0 + c) == (ring != 2), "finder at \(r0),\(c0)")
                }
            }
        }
        for i in 8 ..< m.size - 8 { #expect(m.isDark(row: 6, column: i) == (i % 2 == 0)) }
        let png = try m.png(scale: 2)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let side = UInt32((m.size + 8) * 2)
        #expect(Array(png[16 ..< 24]) == [UInt8(side >> 24), UInt8(side >> 16 & 255), UInt8(side >> 8 & 255), UInt8(side & 255),
                                          UInt8(side >> 24), UInt8(side >> 16 & 255), UInt8(side >> 8 & 255), UInt8(side & 255)])
        #expect(Array(png.suffix(12)) == [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]) // IEND and its CRC
        #expect(Self.refusal { _ = try m.png(scale: 0) }?.kind == .invalidArgument)
        #expect(Self.refusal { _ = try m.png(scale: 17) }?.kind == .invalidArgument)
        let svg = m.svg()
        #expect(svg.contains("viewBox=\"0 0 \(m.size + 8) \(m.size + 8)\""))
        // One unit of path for each dark module.
        let darkInSVG = svg.split(separator: "M").dropFirst().reduce(0) { n, run in
            n + (Int(run.split(separator: "h")[1].split(separator: "v")[0]) ?? 0)
        }
        #expect(darkInSVG == m.modules.filter { $0 }.count)
        // Too long for any QR code: its own status.
        #expect(Self.refusal { _ = try QRCodeMatrix.encode(String(repeating: "é", count: 2000)) }?.kind == .qrTooLarge)
    }
}
