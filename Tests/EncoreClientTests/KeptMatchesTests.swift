import EncoreCheck
import EncoreClient
import EncoreCrypto
import EncoreExposure
import EncoreFixtures
import EncoreKeyFiles
import EncoreKeyFilesFixtures
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreSync
import EncoreTestSupport
import EncoreTracing
import Testing

/// Kept matches (issue 49): a check on the cache matches only what is new
/// and gives what a full check gives on the same data.
@Suite struct KeptMatchesTests {
    static let today: Int64 = 20_400
    static let start = today * 86_400 + 9 * 3600

    /// Two stores given the same steps: `kept` is checked as the cache check
    /// runs (only what is new), `full` with every file matched again.
    final class Twin {
        let dir = TempDir()
        var kept: Store
        let full: Store
        var now = KeptMatchesTests.start
        var matching = MatchingOptions()
        var risk = RiskConfiguration.cwa!
        var v1 = V1Configuration.cwa
        var rng: SplitMix64
        /// Contacts of the last 14 days, each with the day of its key.
        var contacts: [SimulatedContact] = []
        var files: [String] = []
        var fileNumber = 0

        init(seed: UInt64) throws {
            rng = SplitMix64(seed: seed)
            kept = try Store(path: dir.file("kept.db"), key: .raw([UInt8](repeating: 1, count: 32)))
            full = try Store(path: dir.file("full.db"), key: .raw([UInt8](repeating: 1, count: 32)))
            for s in [kept, full] { try s.addTracingEvent(time: now - 20 * 86_400, active: true) }
            for i in 0 ..< 10 {
                var c = SimulatedContact(tek: SimulatedKeyFiles.randomKey(&rng), day: UInt32(KeptMatchesTests.today - Int64(i % 12)))
                c.dsos = [1, 2, nil, 1][i % 4]
                c.reportType = [.confirmedTest, .unknown, .selfReport][i % 3]
                contacts.append(c)
            }
        }

        func both(_ body: (Store) throws -> Void) rethrows {
            try body(kept)
            try body(full)
        }

        func random(_ n: Int) -> Int { Int(rng.next() % UInt64(max(n, 1))) }

        /// A file of some contacts' keys among random ones (of their days
        /// and others), with revised keys at times (revoked, or another
        /// report type), cached in both stores under `name`.
        func putFile(_ name: String, everyContact: Bool = false) throws {
            var keys: [ExposureKey] = [], revised: [ExposureKey] = []
            for c in contacts where everyContact || random(3) == 0 { keys.append(c.key) }
            for _ in 0 ..< 5 + random(20) {
                keys.append(ExposureKey(keyData: SimulatedKeyFiles.randomKey(&rng), transmissionRiskLevel: Int32(1 + random(8)),
                                        rollingStartIntervalNumber: Int32((KeptMatchesTests.today - Int64(random(14))) * 144),
                                        reportType: .confirmedTest, daysSinceOnsetOfSymptoms: 1))
            }
            for c in contacts where !everyContact && random(8) == 0 {
                var k = c.key
                k.reportType = random(2) == 0 ? .revoked : .recursive
                revised.append(k)
            }
            var meta = ExportMetadata()
            meta.region = "EUR"
            meta.batchNum = 1
            meta.batchSize = 1
            meta.startTimestamp = UInt64(now - 86_400)
            meta.endTimestamp = UInt64(now - Int64(random(4)) * 3600)
            let bytes = ExportWriter.exportBin(metadata: meta, keys: keys.shuffled(using: &rng), revisedKeys: revised)
            try both { try $0.putCachedKeyFile(region: "EUR", identifier: name, etag: "e\(fileNumber)", content: bytes, downloaded: now) }
            fileNumber += 1
            if !files.contains(name) { files.append(name) }
        }

        /// An encounter with a contact on its key's day (late, when that
        /// day is past), and sightings of nobody.
        func importSightings() throws {
            let c = contacts[random(contacts.count)]
            let dayStart = Int64(c.start) * 600
            let from = min(dayStart + Int64(random(86_400 - 1800)), now - 1800)
            guard from >= dayStart - 7200 else { return }
            var heard = try c.sightings(from: from, scans: 2 + random(12), spacing: Int64(60 + random(240)), rssi: Int8(-50 - random(40)))
            for _ in 0 ..< random(20) {
                var rpi = (rng.next(), rng.next())
                heard.append(try Sighting(time: now - Int64(random(13 * 86_400)), rpi: withUnsafeBytes(of: &rpi) { KeyData($0) },
                                          aemBytes: [0, 0, 0, 0], rssi: -70, previousScan: nil))
            }
            try both { try $0.addSightings(heard) }
        }

        func step() throws -> String {
            switch random(10) {
            case 0, 1:
                try putFile("day-\(KeptMatchesTests.today - Int64(random(14)))")
                return "day file"
            case 2:
                try putFile("hour-\(random(24))")
                return "hour file"
            case 3:
                guard let name = files.randomElement(using: &rng) else { return "nothing to revoke" }
                try both { _ = try $0.removeCachedKeyFile(region: "EUR", identifier: name) }
                files.removeAll { $0 == name }
                return "revoked \(name)"
            case 4, 5:
                try importSightings()
                return "sightings"
            case 6:
                now += Int64(1 + random(30)) * 3600
                try both { _ = try $0.purge(now: now) }
                return "time and purge"
            case 7:
                matching.driftIntervals = [12, 6, 12][random(3)]
                matching.scanInstanceGapSeconds = [25, 25, 90][random(3)]
                matching.txPowerMinimum = [-60, -60, -5][random(3)]
                return "matching parameters"
            case 8:
                matching.windowSeconds = [1800, 900][random(2)]
                matching.reportTypeWhenMissing = [.confirmedTest, .selfReport][random(2)]
                risk.minutesAtAttenuationWeights[0].weight = [0.8, 2.5][random(2)]
                v1.minimumRiskScore = [11, 1][random(2)]
                return "risk and window parameters"
            default:
                now += Int64(random(120)) * 60
                return "time"
            }
        }

        func check() throws -> (kept: CheckResult, full: CheckResult) {
            var options = CheckOptions()
            let a = try CachedCheck(store: kept).run(risk: risk, matching: matching, v1: v1, options: options, now: now)
            options.full = true
            let b = try CachedCheck(store: full).run(risk: risk, matching: matching, v1: v1, options: options, now: now)
            return (a, b)
        }
    }

    /// The stored document without what says how the check ran.
    static func outcome(_ r: CheckResult) -> String {
        guard case .object(let members) = CheckDocument.json(r) else { return "" }
        return JSONValue.object(members.filter { $0.0 != "statistics" && $0.0 != "check" }).rendered
    }

    static func same(_ r: (kept: CheckResult, full: CheckResult)) -> Bool {
        outcome(r.kept) == outcome(r.full) && r.kept.windows == r.full.windows && r.kept.notificationDue == r.full.notificationDue
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func incrementalChecksEqualFullOnes(seed: UInt64) throws {
        let t = try Twin(seed: seed)
        var windows = 0, keptOnly = 0, rematched = 0, fileMatches = 0
        for i in 0 ..< 40 {
            let what = try t.step()
            let r = try t.check()
            #expect(Self.same(r), "seed \(seed), step \(i) (\(what)):\n\(Self.outcome(r.kept))\n\(Self.outcome(r.full))")
            #expect(r.kept.work.kind == .incremental && r.full.work.kind == .full)
            windows += r.full.windowCount
            if r.kept.work.files == 0 { keptOnly += 1 }
            if r.kept.work.files > 0 && r.kept.work.keptFiles > 0 { fileMatches += 1 }
            rematched += r.kept.work.keysRematched
            if !Self.same(r) { break }
        }
        // The sequence went through every path: checks from kept matches
        // alone, new files beside kept ones, keys matched again, windows.
        #expect(windows > 0 && keptOnly > 0 && fileMatches > 0 && rematched > 0, "windows \(windows), kept only \(keptOnly), with kept \(fileMatches), rematched \(rematched)")
    }

    // Each invalidation on its own, on the twin stores: the kept store's
    // check does only the work it names, and gives the full check's result.

    /// Twin stores with every contact's key in one day file and an
    /// encounter with each contact, checked once (all matches kept).
    static func matched() throws -> Twin {
        let t = try Twin(seed: 99)
        for c in t.contacts {
            let day = Int64(c.start) * 600
            try t.both { try $0.addSightings(c.sightings(from: min(day + 10 * 3600, t.now - 3600), scans: 8, spacing: 120, rssi: -60)) }
        }
        try t.putFile("day-a", everyContact: true)
        try t.putFile("day-b")
        let r = try t.check()
        #expect(Self.same(r) && r.kept.windowCount > 0 && r.kept.work.files == 2)
        return t
    }

    @Test func nothingNewMatchesNothing() throws {
        let t = try Self.matched()
        let r = try t.check()
        #expect(Self.same(r) && r.kept.work.files == 0 && r.kept.work.keysRematched == 0 && r.kept.work.keptFiles == 2)
        #expect(r.kept.windowCount == r.full.windowCount && r.kept.windowCount > 0)
    }

    @Test func aRevokedOrReplacedFileTakesItsMatches() throws {
        let t = try Self.matched()
        let before = try t.kept.keptMatchCounts()
        try t.both { _ = try $0.removeCachedKeyFile(region: "EUR", identifier: "day-a") }
        #expect(try t.kept.keptMatchCounts().files == 1) // with the cached file (the foreign key)
        var r = try t.check()
        #expect(Self.same(r) && r.kept.work.files == 0)
        try t.putFile("day-b") // the same name, other bytes
        r = try t.check()
        #expect(Self.same(r) && r.kept.work.files == 1 && r.kept.work.keptFiles == 0)
        #expect(before.files == 2)
    }

    @Test func retentionTakesFilesAndMatchesTogether() throws {
        let t = try Self.matched()
        t.now += 15 * 86_400
        try t.both { _ = try $0.purge(now: t.now) }
        #expect(try t.kept.keptMatchCounts() == (0, 0))
        let r = try t.check()
        #expect(Self.same(r) && r.kept.windowCount == 0)
    }

    @Test func riskParametersApplyToKeptMatchesWithoutMatching() throws {
        let t = try Self.matched()
        let before = try t.check()
        t.risk.minutesAtAttenuationWeights[0].weight = 0
        t.matching.windowSeconds = 600
        t.v1.minimumRiskScore = 200
        let r = try t.check()
        #expect(Self.same(r) && r.kept.work.files == 0 && r.kept.work.keysRematched == 0)
        #expect(Self.outcome(r.kept) != Self.outcome(before.kept)) // the new parameters did apply
    }

    @Test func matchingParametersMatchEverythingAgain() throws {
        let t = try Self.matched()
        t.matching.txPowerMinimum = -5
        var r = try t.check()
        #expect(Self.same(r) && r.kept.work.files == 2 && r.kept.work.keptFiles == 0)
        t.matching.txPowerMinimum = -60
        r = try t.check()
        #expect(Self.same(r) && r.kept.work.files == 2 && r.kept.windowCount > 0)
    }

    @Test func lateSightingsMatchTheirKeysAgain() throws {
        let t = try Self.matched()
        // Sightings of the oldest contact's day, imported now.
        let c = t.contacts.min { $0.start < $1.start }!
        try t.both { try $0.addSightings(c.sightings(from: Int64(c.start) * 600 + 16 * 3600, scans: 6, spacing: 60, rssi: -55)) }
        let r = try t.check()
        #expect(Self.same(r) && r.kept.work.files == 0 && r.kept.work.newSightings == 6 && r.kept.work.keysRematched >= 1)
        #expect(r.kept.work.filesRescanned == 2)
    }

    @Test func purgedSightingsMatchTheirKeysAgain() throws {
        let t = try Self.matched()
        t.now += 2 * 86_400 + 6 * 3600
        // A purge shorter than the check's 14 days: sightings of keys the check still uses go.
        try t.both { _ = try $0.purge(now: t.now, maxAge: 10 * 86_400) }
        let r = try t.check()
        #expect(Self.same(r) && r.kept.work.files == 0 && r.kept.work.keysRematched >= 1)
    }

    @Test func aFullCheckMatchesEverythingAndKeepsItAnew() throws {
        let t = try Self.matched()
        var options = CheckOptions()
        options.full = true
        let r = try CachedCheck(store: t.kept).run(risk: t.risk, matching: t.matching, v1: t.v1, options: options, now: t.now)
        #expect(r.work.kind == .full && r.work.files == 2 && r.work.keptFiles == 0 && r.work.keys > 0)
        let after = try t.check()
        #expect(Self.same(after) && after.kept.work.files == 0)
        // The stored document says which kind ran and what it matched.
        let stored = try #require(try t.kept.riskResults().dropLast().last)
        #expect(stored.document.contains(#""check":{"kind":"full","files":2"#))
    }

    @Test func keptMatchesAreInTheStoreAndSurviveRekey() throws {
        let t = try Self.matched()
        let counts = try t.kept.keptMatchCounts()
        try t.kept.rekey(to: .raw([UInt8](repeating: 2, count: 32)))
        t.kept.close()
        t.kept = try Store(path: t.dir.file("kept.db"), key: .raw([UInt8](repeating: 2, count: 32)))
        #expect(try t.kept.keptMatchCounts() == counts && counts.matches > 0)
        let r = try t.check()
        #expect(Self.same(r) && r.kept.work.files == 0)
        #expect(throws: EncoreError.self) { try Store(path: t.dir.file("kept.db"), key: .raw([UInt8](repeating: 1, count: 32))) }
    }
}
