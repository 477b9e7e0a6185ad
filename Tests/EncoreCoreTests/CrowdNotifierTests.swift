@testable import EncoreCheckIns
import EncoreWire
import EncoreCore
import Foundation
import Testing

/// CrowdNotifier v3 (SwissCovid, NotifyMe): the SDKs' known answers, QR
/// codes, the IBE, trace keys (both layouts, hostile ones) and the check-in
/// list with matching by day.
@Suite struct CrowdNotifierTests {
    static func vectors() throws -> JSONReader { try JSONReader(JSONParser.parse(TestData.bytes("crowdnotifier/sdk-test-vectors.json"))) }
    static func hex(_ r: JSONReader, _ key: String) throws -> [UInt8] { try #require(Hex.decode(try r.member(key).string())) }
    static func kind(_ body: () throws -> Void) -> EncoreError.Kind? {
        do { try body() } catch let e as EncoreError { return e.kind } catch { return nil }
        return nil
    }

    // 2026-11-25T18:00:00Z
    static let evening: Int64 = 1_795_629_600

    static func venue(_ kind: CrowdNotifierVenue.Kind = .swissCovid, name: String = "Café Bahnhof") throws -> (qr: String, keys: CrowdNotifierAuthority.VenueKeys) {
        let keys = try CrowdNotifierAuthority.generateKeys()
        let payload = try CrowdNotifierAuthority.payload(description: name, address: "Bahnhofplatz 1, Bern", publicKey: keys.publicKey, kind: kind)
        return (CrowdNotifierQRCode.text(payload: payload, kind: kind), keys)
    }

    // MARK: - Known answers

    @Test func hkdfMatchesTheSDKVectors() throws {
        let cases = try Self.vectors().member("hkdf").array("vectors")
        #expect(cases.count == 2)
        for c in cases {
            let n = CrowdNotifierCrypto.nonces(payload: try Self.hex(c, "qrCodePayload"))
            #expect(n.preId == (try Self.hex(c, "noncePreId")))
            #expect(n.timeKey == (try Self.hex(c, "nonceTimekey")))
            #expect(n.notificationKey == (try Self.hex(c, "notificationKey")))
        }
    }

    @Test func identitiesMatchTheSDKVectors() throws {
        let v = try Self.vectors()
        let current = try v.member("identity").array("vectors")
        #expect(current.count == 2)
        for c in current {
            let payload = try Self.hex(c, "qrCodePayload"), start = Int64(try c.integer("startOfInterval"))
            #expect(CrowdNotifierCrypto.identity(payload: payload, intervalStart: start) == (try Self.hex(c, "identity")))
        }
        // The earlier release's derivation uses the same preid (and nonces):
        // matching its vectors checks preid on its own.
        for c in try v.member("identityWithoutTimekey").array("vectors") {
            let payload = try Self.hex(c, "qrCodePayload"), start = Int64(try c.integer("startOfInterval"))
            let n = CrowdNotifierCrypto.nonces(payload: payload)
            let old = CrowdNotifierCrypto.identity(preId: CrowdNotifierCrypto.preId(payload: payload, nonces: n), intervalStart: start, timeKey: n.timeKey)
            #expect(old == (try Self.hex(c, "identity")))
            #expect(old != CrowdNotifierCrypto.identity(payload: payload, intervalStart: start))
        }
    }

    @Test func hoursOfAVisit() {
        #expect(CrowdNotifierCrypto.hours(arrival: 7200, departure: 7200) == [7200])
        #expect(CrowdNotifierCrypto.hours(arrival: 7199, departure: 10800) == [3600, 7200, 10800])
        #expect(CrowdNotifierCrypto.hours(arrival: 100, departure: 99).isEmpty)
        #expect(CrowdNotifierCrypto.hours(arrival: -1, departure: 99).isEmpty)
    }

    // MARK: - QR codes

    @Test func qrCodesRoundTripAndHostileOnesFail() throws {
        for kind in CrowdNotifierVenue.Kind.allCases {
            let (qr, keys) = try Self.venue(kind)
            #expect(qr.hasPrefix(kind.prefix))
            let v = try CrowdNotifierQRCode.parse(qr)
            #expect(v.kind == kind && v.publicKey == keys.publicKey && v.location.description == "Café Bahnhof")
            #expect(CrowdNotifierQRCode.kind(of: qr.uppercased()) == kind)
        }
        let (qr, keys) = try Self.venue()
        let encoded = String(qr.split(separator: "#")[1])
        #expect(Self.kind { _ = try CrowdNotifierQRCode.parse("https://qr.swisscovid.ch?v=3#" + encoded) } == .qrVersion)
        #expect(Self.kind { _ = try CrowdNotifierQRCode.parse("https://qr.swisscovid.ch?v=4#***") } == .qrEncoding)
        #expect(Self.kind { _ = try CrowdNotifierQRCode.parse("https://qr.swisscovid.ch?v=4#") } == .qrMalformed)
        #expect(Self.kind { _ = try CrowdNotifierQRCode.parse("https://qr.swisscovid.ch?v=4#AAAA") } == .qrMalformed)
        #expect(Self.kind { _ = try CrowdNotifierQRCode.parse("https://example.org?v=4#" + encoded) } == .qrNotCWA)
        #expect(Self.kind { _ = try CrowdNotifierQRCode.parse("https://qr.swisscovid.ch?v=4#" + String(repeating: "A", count: 5000)) } == .qrTooLarge)
        // Public keys that are not usable points of G2.
        for (bad, why) in [([UInt8](repeating: 0, count: 96), "identity"), (Array(keys.publicKey.prefix(95)), "short"),
                           ([UInt8](repeating: 0xff, count: 96), "not a field element")] {
            var w = ProtoEncoder()
            w.varint(1, 4)
            var l = ProtoEncoder()
            l.string(2, "x")
            w.lengthDelimited(2, l.bytes)
            var cn = ProtoEncoder()
            cn.lengthDelimited(2, bad)
            w.lengthDelimited(3, cn.bytes)
            #expect(Self.kind { _ = try CrowdNotifierQRCode.venue(payload: w.bytes, kind: .swissCovid) } == .cnPublicKey, "\(why)")
        }
        // The same venue through the generic check-in path.
        #expect(CrowdNotifierQRCode.kind(of: CheckInVectorTests.realQR) == nil)
    }

    // MARK: - IBE

    @Test func encryptionOpensOnlyWithTheHoursKey() throws {
        let (qr, keys) = try Self.venue()
        let venue = try CrowdNotifierQRCode.parse(qr)
        let hours = try CrowdNotifierMatcher.encryptVisit(venue, arrival: Self.evening + 600, departure: Self.evening + 4000)
        #expect(hours.count == 2 && hours.allSatisfy { $0.day == UnixTime.utcMidnight(Self.evening) })
        let traced = try CrowdNotifierAuthority.traceKeys(masterSecret: keys.masterSecret, payload: venue.payload, start: Self.evening,
                                                          end: Self.evening + 1800, message: "m")
        #expect(traced.count == 1)
        let m = try CrowdNotifierIBE.decrypt(secretKey: traced[0].secretKey, identity: traced[0].identity, hours[0].ciphertext)
        #expect(CrowdNotifierVisitRecord(decoding: m)?.arrival == Self.evening + 600)
        // The next hour's ciphertext does not open with this hour's key.
        #expect(Self.kind { _ = try CrowdNotifierIBE.decrypt(secretKey: traced[0].secretKey, identity: traced[0].identity, hours[1].ciphertext) } == .cnNoMatch)
        // The right key, a c2 altered: x' differs, the box does not open.
        var altered = hours[0].ciphertext
        altered.c2[0] ^= 1
        #expect(Self.kind { _ = try CrowdNotifierIBE.decrypt(secretKey: traced[0].secretKey, identity: traced[0].identity, altered) } == .cnNoMatch)
        // Another identity with the right key: the c1 re-check refuses (or the box).
        var other = traced[0].identity
        other[31] ^= 1
        #expect(Self.kind { _ = try CrowdNotifierIBE.decrypt(secretKey: traced[0].secretKey, identity: other, hours[0].ciphertext) } == .cnNoMatch)
        // A c1 that is some other point of G2 (the public key): re-check or box fails.
        var c1 = hours[0].ciphertext
        c1.c1 = keys.publicKey
        #expect(Self.kind { _ = try CrowdNotifierIBE.decrypt(secretKey: traced[0].secretKey, identity: traced[0].identity, c1) } == .cnNoMatch)
    }

    /// Secret keys that are not usable points: the identity, off the curve,
    /// on the curve outside G1, not a field element, the wrong length.
    static func hostileSecretKeys() -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = [("identity", [UInt8](repeating: 0, count: 48)), ("47 bytes", [UInt8](repeating: 1, count: 47)),
                                        ("x >= p", [UInt8](repeating: 0xff, count: 47) + [0x1f])]
        var offCurve: [UInt8]?, outside: [UInt8]?
        var x: UInt8 = 1
        while offCurve == nil || outside == nil {
            let b = [x] + [UInt8](repeating: 0, count: 47)
            switch BLS.g1Nonzero(b) {
            case .failure(.notOnCurve): offCurve = offCurve ?? b
            case .failure(.notInSubgroup): outside = outside ?? b
            default: break
            }
            x += 1
        }
        if let offCurve { out.append(("off the curve", offCurve)) }
        if let outside { out.append(("outside the subgroup", outside)) }
        return out
    }

    @Test func hostileSecretKeysGiveStatuses() throws {
        let c = CrowdNotifierCiphertext(c1: [UInt8](repeating: 0, count: 96), c2: [UInt8](repeating: 0, count: 32), c3: [UInt8](repeating: 0, count: 40),
                                        nonce: [UInt8](repeating: 0, count: 24))
        for (why, sk) in Self.hostileSecretKeys() {
            #expect(Self.kind { _ = try CrowdNotifierIBE.decrypt(secretKey: sk, identity: [UInt8](repeating: 0, count: 32), c) } == .traceKeyInvalid, "\(why)")
        }
    }

    // MARK: - Trace keys

    @Test func bothLayoutsParseAndHostileBodiesGiveStatuses() throws {
        let (qr, keys) = try Self.venue()
        let venue = try CrowdNotifierQRCode.parse(qr)
        for layout in [CrowdNotifierTraceKey.Layout.swissCovid, .notifyMe] {
            let traced = try CrowdNotifierAuthority.traceKeys(masterSecret: keys.masterSecret, payload: venue.payload, start: Self.evening + 1000,
                                                              end: Self.evening + 8000, message: "m", layout: layout)
            let batch = try CrowdNotifierTraceKeys.parse(CrowdNotifierTraceKeys.encode(traced))
            #expect(batch.version == 3 && batch.events == 3 && batch.skipped == 0)
            #expect(batch.keys == traced)
        }
        // Malformed wrappers, a field of the wrong type, too many events.
        #expect(Self.kind { _ = try CrowdNotifierTraceKeys.parse([0x12, 0x05, 0x00]) } == .traceKeysMalformed)
        #expect(Self.kind { _ = try CrowdNotifierTraceKeys.parse([0x10, 0x01]) } == .traceKeysMalformed)
        #expect(Self.kind { _ = try CrowdNotifierTraceKeys.parse([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]) } == .traceKeysMalformed)
        let million = (0 ..< 2_000_000).map { UInt8($0 % 2 == 0 ? 0x12 : 0x00) }
        #expect(Self.kind { _ = try CrowdNotifierTraceKeys.parse(million) } == .traceKeysTooLarge)
        // Empty events and events of the wrong shape are skipped and counted.
        let empty = try CrowdNotifierTraceKeys.parse([0x08, 0x03, 0x12, 0x00, 0x12, 0x02, 0x10, 0x01])
        #expect(empty.events == 2 && empty.skipped == 2 && empty.keys.isEmpty)
        #expect(try CrowdNotifierTraceKeys.parse([]).events == 0)
    }

    /// Matching on several threads gives what one thread gives, in the same
    /// order: three venues, visits at two, keys of all three for the evening.
    @Test func matchingOnSeveralThreadsIsMatchingOnOne() throws {
        var hours: [CrowdNotifierVisitHour] = []
        var keys: [CrowdNotifierTraceKey] = []
        for (i, kind) in [CrowdNotifierVenue.Kind.swissCovid, .notifyMe, .swissCovid].enumerated() {
            let (qr, venueKeys) = try Self.venue(kind, name: "Venue \(i)")
            let venue = try CrowdNotifierQRCode.parse(qr)
            if i < 2 {
                hours += try CrowdNotifierMatcher.encryptVisit(venue, checkIn: Int64(i + 1), arrival: Self.evening + 600, departure: Self.evening + 7000)
            }
            keys += try CrowdNotifierAuthority.traceKeys(masterSecret: venueKeys.masterSecret, payload: venue.payload,
                                                         start: Self.evening, end: Self.evening + 3 * 3600, message: "m\(i)")
        }
        let one = CrowdNotifierMatcher.match(keys: keys, hours: hours, threads: 1)
        #expect(one.exposures.count == 4 && one.pairings == keys.count * hours.count)
        for threads in [2, 3, 8, 64] {
            #expect(CrowdNotifierMatcher.match(keys: keys, hours: hours, threads: threads) == one)
        }
    }

    // MARK: - The check-in list

    @Test func checkInMatchOnceAndByDay() throws {
        let dir = TempDir()
        let store = try Store(path: dir.file("s.db"), key: .raw([UInt8](repeating: 5, count: 32)))
        let service = CheckInService(store: store)
        let (qr, keys) = try Self.venue()
        let venue = try CrowdNotifierQRCode.parse(qr)
        let now = Self.evening + 86400
        let visit = try service.checkIn(qrCode: qr, start: Self.evening + 600, end: Self.evening + 5000, now: now)
        let cwa = try service.checkIn(qrCode: CheckInVectorTests.realQR, start: Self.evening, end: Self.evening + 3600, now: now)
        #expect(visit.kind == .swissCovid && cwa.kind == .cwa)
        #expect(try service.list(now: now).map(\.id) == [cwa.id, visit.id])
        #expect(try store.crowdNotifierHours().count == 2)

        func traceBody(_ start: Int64, _ end: Int64, _ msk: [UInt8] = keys.masterSecret, payload: [UInt8] = venue.payload) throws -> [UInt8] {
            CrowdNotifierTraceKeys.encode(try CrowdNotifierAuthority.traceKeys(masterSecret: msk, payload: payload, start: start, end: end, message: "Bitte testen"))
        }
        // The visit's second hour; matched once, the second time nothing is new.
        let body = try traceBody(Self.evening + 3600, Self.evening + 4000)
        let first = try service.matchTraceKeys(body, now: now)
        #expect(first.matches.count == 1 && first.new.count == 1 && first.pairings == 2)
        #expect(first.new[0].message == "Bitte testen" && first.new[0].criticality == 1 && first.new[0].checkIn == visit.id)
        let again = try service.matchTraceKeys(body, bundleTag: "1795633200000", now: now)
        #expect(again.matches.count == 1 && again.new.isEmpty)
        #expect(try service.traceKeyBundleTag() == "1795633200000")
        // In the check-ins' risk: the day HIGH.
        let a = try service.assessment(configuration: try #require(PresenceTracingRiskConfiguration.cwa), now: now)
        #expect(a.totalRiskLevel == .high && a.crowdNotifierExposures.count == 1 && a.days.first?.date == UnixTime.utcMidnight(Self.evening))
        // Another day: no pairing at all. Another venue's key that day: no match.
        #expect(try service.matchTraceKeys(try traceBody(Self.evening - 86400, Self.evening - 80000), now: now).pairings == 0)
        let (otherQR, otherKeys) = try Self.venue(name: "Other")
        let other = try service.matchTraceKeys(try traceBody(Self.evening + 600, Self.evening + 700, otherKeys.masterSecret,
                                                        payload: CrowdNotifierQRCode.parse(otherQR).payload), now: now)
        #expect(other.pairings == 2 && other.matches.isEmpty)
        // The right hour but a time that does not overlap the visit (it left at +5000).
        #expect(try service.matchTraceKeys(try traceBody(Self.evening + 5100, Self.evening + 7000), now: now).matches.isEmpty)
        // Checking out earlier: one hour fewer; the second hour no longer matches.
        try service.checkOut(id: visit.id, end: Self.evening + 1200)
        #expect(try store.crowdNotifierHours().count == 1)
        #expect(try service.matchTraceKeys(try traceBody(Self.evening + 3600, Self.evening + 4000), now: now).matches.isEmpty)
        // Hostile keys on the visit's day are counted, never fatal.
        let hostile = Self.hostileSecretKeys().filter { $0.1.count == 48 }.map {
            CrowdNotifierTraceKey(identity: [UInt8](repeating: 9, count: 32), secretKey: $0.1, day: UnixTime.utcMidnight(Self.evening),
                                  encryptedAssociatedData: [1, 2, 3], nonce: [UInt8](repeating: 0, count: 24))
        }
        let h = try service.matchTraceKeys(CrowdNotifierTraceKeys.encode(hostile), now: now)
        #expect(h.invalidKeys == hostile.count && h.pairings == 0 && h.matches.isEmpty)
        #expect(Self.kind { _ = try service.matchTraceKeys(body, contentHash: [UInt8](repeating: 0, count: 32), now: now) } == .traceKeysContentHash)
        // Deleting the visit deletes its hours and matches.
        #expect(try service.delete(id: visit.id))
        #expect(try store.crowdNotifierHours().isEmpty && store.crowdNotifierExposures().isEmpty)
    }
}
