import EncoreCrowdNotifier
import EncoreCrowdNotifierFixtures
import EncoreSupport
import EncoreTestSupport
import Synchronization
import Testing

/// CrowdNotifier v3 (SwissCovid, NotifyMe): the SDKs' known answers, QR
/// codes, the IBE, trace keys (both layouts, hostile ones) and the matcher
/// (the check-in list's matching by day: the client's
/// CrowdNotifierCheckInTests).
@Suite struct CrowdNotifierTests {
    static let evening = CrowdNotifierSamples.evening
    static let cwaQR = "https://e.coronawarn.app?v=1#CAESJQgBEgpBZ3dheSBJbmMuGhExNTk0IERlZmZlIEF2ZW51ZSgAMAAadggBEmA4xNrp5hKJoO_yVbXfF1gS8Yc5nURhOIVLG3nUcSg8IPsI2e8JSIhg-FrHUymQ3RR80KUKb1lZjLQkfTUINUP16r6-jFDURwUlCQQi6NXCgI0rQw0a4MrVrKMbF4NzhQMaEPXDJZ2XSeO0SY43-KCQlQciBggBEAQYHA"
    static func vectors() throws -> JSONReader { try JSONReader(JSONParser.parse(TestData.bytes("crowdnotifier/sdk-test-vectors.json"))) }
    static func hex(_ r: JSONReader, _ key: String) throws -> [UInt8] { try #require(Hex.decode(try r.member(key).string())) }
    static func kind(_ body: () throws -> Void) -> EncoreError.Kind? {
        do { try body() } catch let e as EncoreError { return e.kind } catch { return nil }
        return nil
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
        #expect(CrowdNotifierCrypto.hours(arrival: 7200, departure: 7200, limit: 25) == [7200])
        #expect(CrowdNotifierCrypto.hours(arrival: 7199, departure: 10800, limit: 25) == [3600, 7200, 10800])
        #expect(CrowdNotifierCrypto.hours(arrival: 100, departure: 99, limit: 25).isEmpty)
        #expect(CrowdNotifierCrypto.hours(arrival: 7199, departure: 10800, limit: 2).isEmpty)
        // Counted before anything is made: Int64's last second is 2 562 047 788 015 216 hours from 0.
        #expect(CrowdNotifierCrypto.hourCount(arrival: 0, departure: .max) == Int64.max / 3600 + 1)
        #expect(CrowdNotifierCrypto.hours(arrival: 0, departure: .max, limit: 25).isEmpty)
        #expect(CrowdNotifierCrypto.hourCount(arrival: -1, departure: 5) == 0)
        #expect(CrowdNotifierCrypto.hours(arrival: -1, departure: 99, limit: 25).isEmpty)
    }

    // MARK: - QR codes

    @Test func qrCodesRoundTripAndHostileOnesFail() throws {
        for kind in CrowdNotifierVenue.Kind.allCases {
            let (qr, keys) = try CrowdNotifierSamples.venue(kind)
            #expect(qr.hasPrefix(kind.prefix))
            let v = try CrowdNotifierQRCode.parse(qr)
            #expect(v.kind == kind && v.publicKey == keys.publicKey && v.location.description == "Café Bahnhof")
            #expect(CrowdNotifierQRCode.kind(of: qr.uppercased()) == kind)
        }
        let (qr, keys) = try CrowdNotifierSamples.venue()
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
            let payload = CrowdNotifierSamples.crowdNotifierPayload(description: "x", publicKey: bad)
            #expect(Self.kind { _ = try CrowdNotifierQRCode.venue(payload: payload, kind: .swissCovid) } == .cnPublicKey, "\(why)")
        }
        // A CWA event code (a real one, the check-ins' tests read it) is none of CrowdNotifier's.
        #expect(CrowdNotifierQRCode.kind(of: Self.cwaQR) == nil)
    }

    // MARK: - IBE

    @Test func encryptionOpensOnlyWithTheHoursKey() throws {
        let (qr, keys) = try CrowdNotifierSamples.venue()
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

    @Test func hostileSecretKeysGiveStatuses() throws {
        let c = CrowdNotifierCiphertext(c1: [UInt8](repeating: 0, count: 96), c2: [UInt8](repeating: 0, count: 32), c3: [UInt8](repeating: 0, count: 40),
                                        nonce: [UInt8](repeating: 0, count: 24))
        for (why, sk) in CrowdNotifierSamples.hostileSecretKeys() {
            #expect(Self.kind { _ = try CrowdNotifierIBE.decrypt(secretKey: sk, identity: [UInt8](repeating: 0, count: 32), c) } == .traceKeyInvalid, "\(why)")
        }
    }

    // MARK: - Trace keys

    @Test func bothLayoutsParseAndHostileBodiesGiveStatuses() throws {
        let (qr, keys) = try CrowdNotifierSamples.venue()
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

    /// Three venues, visits at two (check-ins 1 and 2, their payloads
    /// given), keys of all three for the evening.
    func eveningAtThreeVenues() throws -> (keys: [CrowdNotifierTraceKey], hours: [CrowdNotifierVisitHour], payloads: [Int64: [UInt8]]) {
        var hours: [CrowdNotifierVisitHour] = []
        var keys: [CrowdNotifierTraceKey] = []
        var payloads: [Int64: [UInt8]] = [:]
        for (i, kind) in [CrowdNotifierVenue.Kind.swissCovid, .notifyMe, .swissCovid].enumerated() {
            let (qr, venueKeys) = try CrowdNotifierSamples.venue(kind, name: "Venue \(i)")
            let venue = try CrowdNotifierQRCode.parse(qr)
            if i < 2 {
                hours += try CrowdNotifierMatcher.encryptVisit(venue, checkIn: Int64(i + 1), arrival: Self.evening + 600, departure: Self.evening + 7000)
                payloads[Int64(i + 1)] = venue.payload
            }
            keys += try CrowdNotifierAuthority.traceKeys(masterSecret: venueKeys.masterSecret, payload: venue.payload,
                                                         start: Self.evening, end: Self.evening + 3 * 3600, message: "m\(i)")
        }
        return (keys, hours, payloads)
    }

    /// Matching on several threads gives what one thread gives, in the same
    /// order.
    @Test func matchingOnSeveralThreadsIsMatchingOnOne() throws {
        let (keys, hours, _) = try eveningAtThreeVenues()
        let one = try CrowdNotifierMatcher.match(keys: keys, hours: hours, threads: 1)
        #expect(one.exposures.count == 4 && one.pairings == keys.count * hours.count)
        for threads in [2, 3, 8, 64] {
            #expect(try CrowdNotifierMatcher.match(keys: keys, hours: hours, threads: threads) == one)
        }
    }

    /// With the check-ins' payloads a key is paired only with the hours its
    /// identity can open, and the outcome is the one of pairing every
    /// same-day pair: also for a forged key (one venue's identity, another
    /// venue's hour's secret key), which every pair refuses, and for a
    /// check-in without a payload, whose hours every key tries.
    @Test func theIdentityFilterChangesNothingButThePairings() throws {
        var (keys, hours, payloads) = try eveningAtThreeVenues()
        let secondVenue = try #require(keys.first { CrowdNotifierMatcher.identities(payload: payloads[2] ?? [], day: $0.day).contains($0.identity) })
        var forged = try #require(keys.first { CrowdNotifierMatcher.identities(payload: payloads[1] ?? [], day: $0.day).contains($0.identity) })
        forged.secretKey = secondVenue.secretKey
        keys.append(forged)
        let every = try CrowdNotifierMatcher.match(keys: keys, hours: hours)
        let filtered = try CrowdNotifierMatcher.match(keys: keys, hours: hours, payloads: payloads)
        #expect(every.exposures.count == 4 && filtered.exposures == every.exposures && filtered.rejected == every.rejected)
        #expect(every.pairings == keys.count * hours.count && filtered.pairings < every.pairings / 2)
        payloads[2] = nil
        let partly = try CrowdNotifierMatcher.match(keys: keys, hours: hours, payloads: payloads)
        #expect(partly.exposures == every.exposures && filtered.pairings < partly.pairings && partly.pairings < every.pairings)
    }

    /// Progress counts the keys up to their total, one report at a time
    /// from any thread; refusing a report cancels the match on every thread.
    @Test(arguments: [1, 2, 8]) func progressCountsPairingsAndCancels(threads: Int) throws {
        let (keys, hours, _) = try eveningAtThreeVenues()
        let reports = Mutex<[(UInt64, UInt64)]>([])
        let outcome = try CrowdNotifierMatcher.match(keys: keys, hours: hours, threads: threads) { done, total in
            reports.withLock { $0.append((done, total)) }
            return true
        }
        let seen = reports.withLock { $0 }
        #expect(outcome.exposures.count == 4)
        #expect(seen.count == keys.count)   // one key a chunk here, every key of the evening
        #expect(seen.allSatisfy { $0.1 == UInt64(keys.count) })
        #expect(seen.map(\.0) == seen.map(\.0).sorted() && seen.last?.0 == UInt64(keys.count))
        let calls = Mutex(0)
        #expect(Self.kind {
            _ = try CrowdNotifierMatcher.match(keys: keys, hours: hours, threads: threads) { _, _ in
                calls.withLock { $0 += 1 }
                return false
            }
        } == .cancelled)
        #expect(calls.withLock { $0 } == 1)   // no thread reports after a refusal
    }

}
