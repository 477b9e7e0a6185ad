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

/// CrowdNotifier visits in the check-in list: matched once, by day, in the
/// check-ins' risk, and gone with their visit.
@Suite struct CrowdNotifierCheckInTests {
    static let evening = CrowdNotifierSamples.evening

    @Test func checkInMatchOnceAndByDay() throws {
        let dir = TempDir()
        let store = try Store(path: dir.file("s.db"), key: .raw([UInt8](repeating: 5, count: 32)), features: [.checkIns])
        let service = CheckInService(store: store)
        let (qr, keys) = try CrowdNotifierSamples.venue()
        let venue = try CrowdNotifierQRCode.parse(qr)
        let now = Self.evening + 86400
        let visit = try service.checkIn(qrCode: qr, start: Self.evening + 600, end: Self.evening + 5000, now: now)
        let cwa = try service.checkIn(qrCode: CheckInSamples.realQR, start: Self.evening, end: Self.evening + 3600, now: now)
        #expect(visit.kind == .swissCovid && cwa.kind == .cwa)
        #expect(try service.list(now: now).map(\.id) == [cwa.id, visit.id])
        #expect(try store.crowdNotifierHours().count == 2)

        func traceBody(_ start: Int64, _ end: Int64, _ msk: [UInt8] = keys.masterSecret, payload: [UInt8] = venue.payload) throws -> [UInt8] {
            try CrowdNotifierTraceKeys.encode(CrowdNotifierAuthority.traceKeys(masterSecret: msk, payload: payload, start: start, end: end, message: "Bitte testen"))
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
        // Another day: no pairing at all. Another venue's key that day: no
        // pairing either (its identity is none of this venue's that day).
        #expect(try service.matchTraceKeys(try traceBody(Self.evening - 86400, Self.evening - 80000), now: now).pairings == 0)
        let (otherQR, otherKeys) = try CrowdNotifierSamples.venue(name: "Other")
        let other = try service.matchTraceKeys(try traceBody(Self.evening + 600, Self.evening + 700, otherKeys.masterSecret,
                                                        payload: CrowdNotifierQRCode.parse(otherQR).payload), now: now)
        #expect(other.pairings == 0 && other.matches.isEmpty)
        // The right hour but a time that does not overlap the visit (it left at +5000).
        #expect(try service.matchTraceKeys(try traceBody(Self.evening + 5100, Self.evening + 7000), now: now).matches.isEmpty)
        // Checking out earlier: one hour fewer; the second hour no longer matches.
        try service.checkOut(id: visit.id, end: Self.evening + 1200)
        #expect(try store.crowdNotifierHours().count == 1)
        #expect(try service.matchTraceKeys(try traceBody(Self.evening + 3600, Self.evening + 4000), now: now).matches.isEmpty)
        // Hostile keys on the visit's day are counted, never fatal.
        let hostile = CrowdNotifierSamples.hostileSecretKeys().filter { $0.1.count == 48 }.map {
            CrowdNotifierTraceKey(identity: [UInt8](repeating: 9, count: 32), secretKey: $0.1, day: UnixTime.utcMidnight(Self.evening),
                                  encryptedAssociatedData: [1, 2, 3], nonce: [UInt8](repeating: 0, count: 24))
        }
        let h = try service.matchTraceKeys(CrowdNotifierTraceKeys.encode(hostile), now: now)
        #expect(h.invalidKeys == hostile.count && h.pairings == 0 && h.matches.isEmpty)
        #expect(kind { _ = try service.matchTraceKeys(body, contentHash: [UInt8](repeating: 0, count: 32), now: now) } == .traceKeysContentHash)
        // Deleting the visit deletes its hours and matches.
        #expect(try service.delete(id: visit.id))
        #expect(try store.crowdNotifierHours().isEmpty && store.crowdNotifierExposures().isEmpty)
    }
}
