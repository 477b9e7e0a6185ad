import EncoreCheckIns
import EncoreCheckInsFixtures
import EncoreCrowdNotifier
import EncoreCrowdNotifierFixtures
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreTestSupport
import Testing

/// Private CrowdNotifier check-ins (issue 41): nothing of the venue kept,
/// no check-out without the QR code, the same matches as diary check-ins.
@Suite struct PrivateCheckInTests {
    static let evening = CrowdNotifierSamples.evening

    static func store(_ dir: TempDir, _ name: String) throws -> Store {
        try Store(path: dir.file(name), key: .raw([UInt8](repeating: 7, count: 32)), features: [.checkIns])
    }

    @Test func keepsNothingOfTheVenueAndNeedsItsQRCode() throws {
        let dir = TempDir()
        let store = try Self.store(dir, "p.db")
        let service = CheckInService(store: store)
        let (qr, keys) = try CrowdNotifierSamples.venue()
        let (otherQR, _) = try CrowdNotifierSamples.venue(.notifyMe, name: "Elsewhere")
        let now = Self.evening + 86400
        let visit = try service.checkIn(qrCode: qr, start: Self.evening + 600, end: Self.evening + 5000, now: now, isPrivate: true)
        let listed = try #require(try service.list(now: now).first)
        #expect(listed.isPrivate && listed.kind == .swissCovid && listed.start == Self.evening + 600 && listed.end == Self.evening + 5000)
        #expect(listed.payload.isEmpty && listed.locationId.isEmpty && listed.locationIdHash.isEmpty && listed.description.isEmpty && listed.address.isEmpty)
        #expect(try store.crowdNotifierPayloads().isEmpty)
        guard case .object(let members) = listed.json else { Issue.record("not an object"); return }
        #expect(Set(members.map(\.0)) == ["id", "start", "end", "autoEnd", "submitted", "kind", "private"])

        // No check-out or edit without the QR code: the check-in and its hours unchanged.
        let hours = try store.crowdNotifierHours()
        #expect(hours.count == 2)
        #expect(kind { try service.checkOut(id: visit.id, end: Self.evening + 1200) } == .checkInQRRequired)
        #expect(kind { try service.edit(id: visit.id, start: Self.evening, end: nil) } == .checkInQRRequired)
        #expect(kind { try service.checkOut(id: visit.id, end: Self.evening + 1200, qrCode: otherQR) } == .checkInQRMismatch)
        #expect(try store.crowdNotifierHours() == hours && store.checkIn(id: visit.id) == listed)
        // With it: the hours made again for the new times.
        try service.checkOut(id: visit.id, end: Self.evening + 1200, qrCode: qr)
        #expect(try store.crowdNotifierHours().count == 1 && store.checkIn(id: visit.id)?.end == Self.evening + 1200)

        // A CWA check-in cannot be private; a diary one refuses another venue's code.
        #expect(kind { _ = try service.checkIn(qrCode: CheckInSamples.realQR, start: Self.evening, now: now, isPrivate: true) } == .invalidArgument)
        let diary = try service.checkIn(qrCode: otherQR, start: Self.evening, end: Self.evening + 60, now: now)
        #expect(kind { try service.checkOut(id: diary.id, end: Self.evening + 120, qrCode: try CrowdNotifierSamples.venue(.notifyMe).qr) } == .checkInQRMismatch)
        try service.checkOut(id: diary.id, end: Self.evening + 120, qrCode: otherQR)

        // Matched; the match keeps the times and message, under the trace key's tag, not the venue's identity.
        let traceKeys = try CrowdNotifierAuthority.traceKeys(masterSecret: keys.masterSecret, payload: CrowdNotifierQRCode.parse(qr).payload,
                                                              start: Self.evening, end: Self.evening + 900, message: "Bitte testen")
        let outcome = try service.matchTraceKeys(CrowdNotifierTraceKeys.encode(traceKeys), now: now)
        #expect(outcome.matches.count == 1 && outcome.new.count == 1)
        let stored = try #require(try store.crowdNotifierExposures().first)
        #expect(stored.checkIn == visit.id && stored.message == "Bitte testen" && stored.start == Self.evening && stored.end == Self.evening + 900)
        #expect(stored.identity == CrowdNotifierMatcher.traceKeyTag(traceKeys[0]) && stored.identity != traceKeys[0].identity)
        #expect(try service.matchTraceKeys(CrowdNotifierTraceKeys.encode(traceKeys), now: now).new.isEmpty)
    }

    /// A visit of the property test: its venue and times, and its edit.
    struct Visit {
        var venue: Int
        var start: Int64
        var end: Int64
        var edited: (start: Int64, end: Int64)?
        var final: (start: Int64, end: Int64) { edited ?? (start, end) }
    }

    /// A match without any store id: the visit's index, the key's day and the times.
    struct Match: Hashable, Comparable {
        let visit: Int, day: Int64, arrival: Int64, departure: Int64, start: Int64, end: Int64, message: String
        static func < (a: Match, b: Match) -> Bool {
            (a.visit, a.day, a.start, a.message) < (b.visit, b.day, b.start, b.message)
        }
    }

    /// Random visits, some across UTC midnight and some edited, stored as
    /// diary and as private check-ins, and trace keys for random windows at
    /// the venues: the identity filter, every same-day pair (the SDKs' way)
    /// and the private store all find exactly the matches the times say.
    @Test(arguments: [UInt64(41), 4141, 414_141])
    func sameMatchesInEveryMode(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let dir = TempDir()
        let venues = try (0 ..< 3).map { i in try CrowdNotifierSamples.venue(i == 2 ? .notifyMe : .swissCovid, name: "Venue \(i)") }
        let midnight = UnixTime.utcMidnight(Self.evening) + 86400
        var visits: [Visit] = []
        for i in 0 ..< 9 {
            // A third of them cross midnight; the others lie within the evening before it or the morning after.
            let start = i % 3 == 0 ? midnight - Int64.random(in: 600 ... 7200, using: &rng)
                : i % 3 == 1 ? midnight - Int64.random(in: 8 * 3600 ... 12 * 3600, using: &rng) : midnight + Int64.random(in: 0 ... 10 * 3600, using: &rng)
            let crossing = i % 3 == 0
            let length = crossing ? midnight - start + Int64.random(in: 60 ... 3 * 3600, using: &rng) : Int64.random(in: 300 ... 3 * 3600, using: &rng)
            var v = Visit(venue: Int.random(in: 0 ..< 3, using: &rng), start: start, end: start + length)
            if Bool.random(using: &rng) {
                // Edited: a crossing visit still crosses midnight.
                let s = crossing ? midnight - Int64.random(in: 60 ... 3600, using: &rng) : v.start + Int64.random(in: -3600 ... 3600, using: &rng)
                v.edited = (s, crossing ? midnight + Int64.random(in: 60 ... 3600, using: &rng) : s + Int64.random(in: 60 ... 4 * 3600, using: &rng))
            }
            visits.append(v)
        }
        #expect(visits.filter { UnixTime.utcMidnight($0.final.start) != UnixTime.utcMidnight($0.final.end) }.count >= 3)
        #expect(visits.contains { $0.edited != nil })
        let now = midnight + 2 * 86400
        let diaryStore = try Self.store(dir, "diary.db"), privateStore = try Self.store(dir, "private.db")
        let diary = CheckInService(store: diaryStore), hidden = CheckInService(store: privateStore)
        var diaryIds: [Int64: Int] = [:], privateIds: [Int64: Int] = [:]
        for (i, v) in visits.enumerated() {
            let qr = venues[v.venue].qr
            let d = try diary.checkIn(qrCode: qr, start: v.start, end: v.end, now: now)
            let p = try hidden.checkIn(qrCode: qr, start: v.start, end: v.end, now: now, isPrivate: true)
            if let e = v.edited {
                try diary.edit(id: d.id, start: e.start, end: e.end)
                try hidden.edit(id: p.id, start: e.start, end: e.end, qrCode: qr)
            }
            diaryIds[d.id] = i
            privateIds[p.id] = i
        }
        // Published windows: at each venue, one around midnight and one at random.
        var keys: [CrowdNotifierTraceKey] = []
        for (n, venue) in venues.enumerated() {
            let payload = try CrowdNotifierQRCode.parse(venue.qr).payload
            for start in [midnight - Int64.random(in: 0 ... 5400, using: &rng), midnight - 43200 + Int64.random(in: 0 ... 20 * 3600, using: &rng)] {
                keys += try CrowdNotifierAuthority.traceKeys(masterSecret: venue.keys.masterSecret, payload: payload, start: start,
                                                             end: start + Int64.random(in: 600 ... 3 * 3600, using: &rng), message: "venue \(n)")
            }
        }
        // What the times say: a visit matches each key of its venue for an
        // hour it touched whose window overlaps its stay.
        var expected: [Match] = []
        for (i, v) in visits.enumerated() {
            let payload = try CrowdNotifierQRCode.parse(venues[v.venue].qr).payload
            let ids = Set(CrowdNotifierCrypto.hours(arrival: v.final.start, departure: v.final.end, limit: 48).map {
                CrowdNotifierCrypto.identity(payload: payload, intervalStart: $0)
            })
            for k in keys where ids.contains(k.identity) {
                guard let window = try? keyWindow(k, venues[v.venue].qr), v.final.start < window.end, window.start < v.final.end else { continue }
                expected.append(Match(visit: i, day: k.day, arrival: v.final.start, departure: v.final.end, start: window.start, end: window.end,
                                      message: window.message))
            }
        }
        // Some matches are of visits across midnight, on the day after their start.
        #expect(expected.contains { m in
            let v = visits[m.visit].final
            return UnixTime.utcMidnight(v.start) != UnixTime.utcMidnight(v.end) && m.day == UnixTime.utcMidnight(v.end)
        })
        func matches(_ exposures: [CrowdNotifierExposure], _ ids: [Int64: Int]) -> [Match] {
            exposures.map { Match(visit: ids[$0.checkIn] ?? -1, day: $0.day, arrival: $0.arrival, departure: $0.departure, start: $0.start,
                                  end: $0.end, message: $0.message) }.sorted()
        }
        let hours = try diaryStore.crowdNotifierHours()
        let filtered = try CrowdNotifierMatcher.match(keys: keys, hours: hours, payloads: diaryStore.crowdNotifierPayloads())
        let everyPair = try CrowdNotifierMatcher.match(keys: keys, hours: hours)
        #expect(filtered.exposures == everyPair.exposures && filtered.pairings <= everyPair.pairings)
        let body = try CrowdNotifierTraceKeys.encode(keys)
        let viaDiary = try diary.matchTraceKeys(body, now: now), viaPrivate = try hidden.matchTraceKeys(body, now: now)
        #expect(matches(everyPair.exposures, diaryIds) == expected.sorted())
        #expect(matches(viaDiary.matches, diaryIds) == expected.sorted())
        #expect(matches(viaPrivate.matches, privateIds) == expected.sorted())
        #expect(matches(try privateStore.crowdNotifierExposures(), privateIds) == expected.sorted())
        // The private store pairs every same-day pair, as the SDKs do.
        #expect(viaPrivate.pairings == everyPair.pairings)
    }

    /// A trace key's published window and message, opened with its venue's notification key.
    func keyWindow(_ k: CrowdNotifierTraceKey, _ qr: String) throws -> (start: Int64, end: Int64, message: String) {
        let payload = try CrowdNotifierQRCode.parse(qr).payload
        let plain = try #require(CrowdNotifierCrypto.open(k.encryptedAssociatedData, nonce: k.nonce,
                                                          key: CrowdNotifierCrypto.nonces(payload: payload).notificationKey))
        let ad = try #require(CrowdNotifierAssociatedData(decoding: plain))
        return (k.start ?? ad.start, k.end ?? ad.end, ad.message)
    }
}
