import EncoreCheck
import EncoreCheckIns
import EncoreClient
import EncoreCrypto
import EncoreExposure
import EncoreFixtures
import EncoreKeyFiles
import EncoreKeyFilesFixtures
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreTestSupport
import EncoreTracing
import Testing

@Suite struct ExposureCheckTests {
    static let day: UInt32 = 19_000
    static let midnight = Int64(day) * 86_400
    static let now = midnight + 86_400 + 12 * 3600

    static func risk() throws -> RiskConfiguration {
        try RiskConfiguration(JSONReader(JSONParser.parse(TestData.bytes("cwa/android-exposure-windows-risk-calculation.json")))
            .member("defaultRiskCalculationConfiguration"))
    }

    /// A store with `tracingHours` of active tracing and, when `encounter`,
    /// 20 minutes near a contact with HIGH infectiousness; the contact's key
    /// is in a signed file that ends `fileAge` seconds before now.
    struct Setup {
        let dir = TempDir()
        let store: Store
        let file: [UInt8]
        let trust: TrustList

        /// `typicalRSSI`: each sighting's typical RSSI (a scan's reports
        /// folded, as the tracing stores them); nil: one report each.
        init(tracingHours: Int64 = 72, encounter: Bool = true, fileAge: Int64 = 3600, typicalRSSI: Int8? = nil) throws {
            store = try Store(path: dir.file("c.db"), key: .raw([UInt8](repeating: 9, count: 32)))
            try store.addTracingEvent(time: ExposureCheckTests.now - tracingHours * 3600, active: true)
            var contact = SimulatedContact(seed: 77, day: ExposureCheckTests.day)
            contact.dsos = 2
            if encounter {
                let t0 = ExposureCheckTests.midnight + 10 * 3600
                try store.addSightings((0 ..< 5).map { i in
                    var o = try contact.sighting(sentAt: t0 + Int64(i) * 240, rssi: -65, previousScan: t0 + Int64(i) * 240 - 240)
                    o.typicalRSSI = typicalRSSI ?? o.rssi
                    return o
                })
            }
            let signer = try PrivateKey()
            var meta = Fixtures.metadata()
            meta.endTimestamp = UInt64(ExposureCheckTests.now - fileAge)
            file = try ExportWriter.signedKeyFile(metadata: meta, keys: [contact.key], signer: signer, info: Fixtures.info())
            trust = try Fixtures.trust(signer)
        }

        func check(at now: Int64 = ExposureCheckTests.now, progress: ProgressHandler? = nil) throws -> CheckResult {
            try ExposureCheck(store: store).run(files: [.bytes(file)], keyFileOptions: KeyFileOptions(trust: trust),
                                                matching: MatchingOptions(), risk: ExposureCheckTests.risk(), now: now, progress: progress)
        }
    }

    @Test func anEncounterIsHighAndNotifiesOnce() throws {
        let s = try Setup()
        let first = try s.check()
        #expect(first.status == .high && first.notificationDue && first.windowCount == 1)
        #expect(first.assessment.mostRecentDateWithHighRisk == Self.midnight)
        #expect(try s.store.lastRiskResult()?.level == CheckStatus.high.rawValue)
        let again = try s.check(at: Self.now + 600)
        #expect(again.status == .high && !again.notificationDue)
    }

    /// Sightings with a typical RSSI below the strongest (a scan's reports
    /// folded) give windows whose typical attenuation is above the minimum
    /// (issue 46: it was the minimum); the v2 risk reads the minimum.
    @Test func windowsCarryTheTypicalAndTheMinimumAttenuation() throws {
        let folded = try Setup(typicalRSSI: -71).check()
        let single = try Setup().check()
        let w = try #require(folded.windows.first)
        #expect(w.scanInstances.count == 5)
        for i in w.scanInstances { #expect(i.typicalAttenuation == i.minAttenuation + 6) }
        #expect(try #require(single.windows.first).scanInstances.allSatisfy { $0.typicalAttenuation == $0.minAttenuation })
        #expect(w.scanInstances.map(\.minAttenuation) == single.windows.first?.scanInstances.map(\.minAttenuation))
        #expect(folded.status == .high && single.status == .high)
    }

    @Test func tooLittleTracingIsUnknownUnlessHigh() throws {
        let quiet = try Setup(tracingHours: 10, encounter: false)
        let r = try quiet.check()
        #expect(r.status == .unknown && r.activeTracingSeconds == 10 * 3600 && !r.notificationDue)
        let exposed = try Setup(tracingHours: 10)
        #expect(try exposed.check().status == .high)
        let enough = try Setup(tracingHours: 30, encounter: false)
        #expect(try enough.check().status == .low)
    }

    @Test func levelChangesNotify() throws {
        let s = try Setup()
        #expect(try s.check().notificationDue)                       // first HIGH
        // Fifteen days later the encounter has aged out: LOW, a change.
        try s.store.addTracingEvent(time: Self.now, active: true)
        let later = Self.now + 15 * 86_400
        let s2 = try ExposureCheck(store: s.store).run(files: [.bytes(s.file)], keyFileOptions: KeyFileOptions(trust: s.trust),
                                                       matching: MatchingOptions(), risk: Self.risk(), options: {
                                                           var o = CheckOptions(); o.maximumKeyAgeSeconds = 30 * 86_400; return o }(),
                                                       now: later)
        #expect(s2.status == .low && s2.notificationDue)
    }

    @Test func staleKeysMakeLowOutdatedButHighStays() throws {
        let stale = try Setup(encounter: false, fileAge: 3 * 86_400)
        #expect(try stale.check().status == .outdated)
        let staleButExposed = try Setup(fileAge: 3 * 86_400)
        #expect(try staleButExposed.check().status == .high)
        // A freshly cached package counts as fresh keys.
        let cached = try Setup(encounter: false, fileAge: 3 * 86_400)
        try cached.store.putCachedKeyFile(region: "DE", identifier: "2022-01-10", etag: nil, content: [1], downloaded: Self.now - 600)
        #expect(try cached.check().status == .low)
    }

    @Test func aClockBeforeTheLastResultIsOutdatedAndStoresNothing() throws {
        let s = try Setup()
        _ = try s.check()
        let count = try s.store.countRiskResults()
        let back = try s.check(at: Self.now - 3600)
        #expect(back.status == .outdated && back.storedResultID == nil)
        #expect(try s.store.countRiskResults() == count)
    }

    @Test func aCancelledCheckStoresNothing() throws {
        let s = try Setup()
        #expect(kind { try s.check(progress: { _, _ in false }) } == .cancelled)
        #expect(try s.store.countRiskResults() == 0)
    }

    @Test func theLastResultIsReadableOffline() throws {
        let s = try Setup()
        let r = try s.check()
        let stored = try #require(try s.store.lastRiskResult())
        #expect(stored.id == r.storedResultID && stored.time == Self.now)
        let doc = try JSONParser.parse(stored.document)
        #expect(doc["status"] == .string("HIGH"))
        #expect(doc["assessment"]?["numberOfDaysWithHighRisk"] == .number(1))
        #expect(doc["notificationDue"] == .bool(true))
    }
}
