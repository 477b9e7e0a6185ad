import EncoreCrypto
import EncoreExposure
import EncoreFixtures
import EncoreKeyFiles
import EncoreKeyFilesFixtures
import EncoreStorage
import EncoreSupport
import EncoreTestSupport
import EncoreWire
import Testing

@Suite struct MatchingTests {
    static let day: UInt32 = 19_000                    // a UTC day number
    static let midnight = Int64(day) * 86_400
    static let now = midnight + 3 * 86_400             // three days later

    /// Random sightings that match nothing.
    static func noise(_ n: Int) -> [Sighting] {
        (0 ..< n).map { i in Sighting(time: midnight + Int64(i * 37 % 86_400), rpi: Fixtures.key(900_000 + i).keyData,
                                         aem: UInt32(i), rssi: -60) }
    }

    static func match(_ sightings: [Sighting], keys: [ExposureKey], revised: [ExposureKey] = [], threads: Int = 0,
                      now: Int64 = MatchingTests.now, options: (inout MatchingOptions) -> Void = { _ in }) throws -> MatchResult {
        let signer = try PrivateKey()
        let others = (0 ..< 300).map { Fixtures.key(500_000 + $0, dsos: 1) }
        let zip = try ExportWriter.signedKeyFile(metadata: Fixtures.metadata(), keys: others + keys, revisedKeys: revised,
                                                 signer: signer, info: Fixtures.info())
        var o = MatchingOptions()
        options(&o)
        return try Matcher.match(sightings: SightingSet(sightings + noise(500)), files: [.bytes(zip)],
                                 keyFileOptions: KeyFileOptions(trust: Fixtures.trust(signer)), options: o, now: now, threads: threads)
    }

    @Test func anEncounterBecomesOneWindowWithItsScanInstances() throws {
        let c = SimulatedContact(seed: 1, day: Self.day)
        let t0 = Self.midnight + 10 * 3600
        // Five scans 4 minutes apart, each hearing the contact once.
        let sightings = try (0 ..< 5).map { i in
            try c.sighting(sentAt: t0 + Int64(i) * 240, rssi: -70, previousScan: t0 + Int64(i) * 240 - 240)
        }
        let r = try Self.match(sightings, keys: [c.key])
        #expect(r.windows.count == 1)
        let w = try #require(r.windows.first)
        #expect(w.date == Self.midnight)
        #expect(w.reportType == .confirmedTest && w.infectiousness == .standard && w.calibrationConfidence == 1)
        // attenuation = TX power (-10) - RSSI (-70) = 60; 4 minutes since the last scan.
        #expect(w.scanInstances == Array(repeating: ScanInstance(typicalAttenuation: 60, minAttenuation: 60, secondsSinceLastScan: 240), count: 5))
        #expect(r.statistics.matchedKeys == 1)
    }

    @Test func sightingsCloserThan25SecondsFormOneInstance() throws {
        let c = SimulatedContact(seed: 2, day: Self.day)
        let t0 = Self.midnight + 8 * 3600
        let sightings = [try c.sighting(sentAt: t0, rssi: -60), try c.sighting(sentAt: t0 + 10, rssi: -75),
                         try c.sighting(sentAt: t0 + 30, rssi: -71), try c.sighting(sentAt: t0 + 100, rssi: -50)]
        let w = try #require(try Self.match(sightings, keys: [c.key]).windows.first)
        // 50, 65, 61 dB chained (gaps 10 s, 20 s) → typical round(58.67) = 59, min 50; then 40 dB alone.
        #expect(w.scanInstances == [ScanInstance(typicalAttenuation: 59, minAttenuation: 50, secondsSinceLastScan: 120),
                                    ScanInstance(typicalAttenuation: 40, minAttenuation: 40, secondsSinceLastScan: 120)])
    }

    @Test func aLongEncounterSplitsIntoWindowsOf30Minutes() throws {
        let c = SimulatedContact(seed: 3, day: Self.day)
        let t0 = Self.midnight + 12 * 3600
        // A scan every 5 minutes for 50 minutes: instances at 0,5,...,50 min.
        let sightings = try (0 ... 10).map { i in try c.sighting(sentAt: t0 + Int64(i) * 300, rssi: -65, previousScan: t0 + Int64(i) * 300 - 300) }
        let r = try Self.match(sightings, keys: [c.key])
        #expect(r.windows.map(\.scanInstances.count) == [6, 5]) // 0-25 min, then 30-50 min
        #expect(r.windows.allSatisfy { $0.scanInstances.allSatisfy { $0.secondsSinceLastScan == 300 } })
    }

    @Test func clockDriftOfUpToTwoHoursIsTolerated() throws {
        let c = SimulatedContact(seed: 4, day: Self.day)
        let sent = Self.midnight + 9 * 3600
        let inside = try c.sighting(sentAt: sent, heardAt: sent + 7200 - 1, rssi: -70)   // still within ±12 intervals
        let outside = try c.sighting(sentAt: sent + 3600, heardAt: sent + 3600 + 600 + 7200, rssi: -70) // just past
        #expect(try Self.match([inside], keys: [c.key]).windows.count == 1)
        #expect(try Self.match([outside], keys: [c.key]).windows.isEmpty)
    }

    @Test func implausibleTxPowerIsDroppedAndReplaysAreIgnored() throws {
        var c = SimulatedContact(seed: 5, day: Self.day)
        let t0 = Self.midnight + 14 * 3600
        let loud = try c.sighting(sentAt: t0, rssi: -70, metadata: [0x40, UInt8(bitPattern: Int8(30)), 0, 0])
        #expect(try Self.match([loud], keys: [c.key]).windows.isEmpty)
        c.txPower = -60 // the lower bound is allowed
        let quiet = try c.sighting(sentAt: t0, rssi: -90)
        #expect(try Self.match([quiet], keys: [c.key]).windows.first?.scanInstances.first?.minAttenuation == 30)
        // The same RPI heard again 25 minutes later (within the drift) is a replay.
        let first = try c.sighting(sentAt: t0, rssi: -80)
        let replay = try c.sighting(sentAt: t0, heardAt: t0 + 25 * 60, rssi: -80)
        let r = try Self.match([first, replay], keys: [c.key])
        #expect(r.windows.flatMap(\.scanInstances).count == 1)
    }

    @Test func negativeAttenuationIsClampedAtZero() throws {
        let c = SimulatedContact(seed: 6, day: Self.day)
        let s = try c.sighting(sentAt: Self.midnight + 3600, rssi: 5) // -10 - 5 = -15 → 0
        #expect(try Self.match([s], keys: [c.key]).windows.first?.scanInstances.first?.minAttenuation == 0)
    }

    @Test func shortRollingPeriodsEndTheKeysValidity() throws {
        var c = SimulatedContact(seed: 7, day: Self.day)
        c.period = 6 // one hour
        let early = try c.sighting(sentAt: Self.midnight + 1800, rssi: -70)
        let late = try c.sighting(sentAt: Self.midnight + 5 * 3600, rssi: -70) // interval 30: not broadcast by this key
        #expect(try Self.match([early], keys: [c.key]).windows.count == 1)
        #expect(try Self.match([late], keys: [c.key]).windows.isEmpty)
    }

    @Test func infectiousnessReportTypeAndRevisions() throws {
        var standard = SimulatedContact(seed: 8, day: Self.day), high = SimulatedContact(seed: 9, day: Self.day), none = SimulatedContact(seed: 10, day: Self.day)
        high.dsos = 2
        none.dsos = 5
        standard.reportType = .unknown // becomes CONFIRMED_TEST
        let t = Self.midnight + 6 * 3600
        let sightings = try [standard, high, none].enumerated().map { try $1.sighting(sentAt: t + Int64($0) * 60, rssi: -70) }
        let r = try Self.match(sightings, keys: [standard.key, high.key, none.key])
        #expect(r.windows.map(\.infectiousness) == [.standard, .high])
        #expect(r.windows.map(\.reportType) == [.confirmedTest, .confirmedTest])
        #expect(r.statistics.skippedNotInfectious >= 1)

        // A revision replaces the earlier entry: REVOKED removes the key,
        // another report type changes its windows.
        var revoked = standard.key
        revoked.reportType = .revoked
        var recursive = high.key
        recursive.reportType = .recursive
        let revisedResult = try Self.match(sightings, keys: [standard.key, high.key], revised: [revoked, recursive])
        #expect(revisedResult.windows.map(\.reportType) == [.recursive])
    }

    @Test func keysOlderThan14DaysAndKeysWithoutSightingsCostNoCrypto() throws {
        let old = SimulatedContact(seed: 11, day: Self.day - 15)
        let c = SimulatedContact(seed: 12, day: Self.day)
        let s = [try old.sighting(sentAt: Int64(Self.day - 15) * 86_400 + 3600, rssi: -70), try c.sighting(sentAt: Self.midnight + 3600, rssi: -70)]
        // Recent keys of a day on which nothing was heard.
        let quiet = (0 ..< 10).map { SimulatedContact(seed: 200 + $0, day: Self.day - 5).key }
        let r = try Self.match(s, keys: [old.key, c.key] + quiet)
        #expect(r.windows.count == 1)
        // The old contact and the 300 filler keys (of 2020) are too old.
        #expect(r.statistics.skippedOld == 301)
        #expect(r.statistics.skippedNoSightings == 10)
        #expect(r.statistics.derived == 1)
    }

    @Test func resultsDoNotDependOnTheNumberOfThreads() throws {
        let contacts = (0 ..< 40).map { SimulatedContact(seed: 100 + $0, day: Self.day) }
        var sightings: [Sighting] = []
        for (i, c) in contacts.enumerated() {
            for k in 0 ..< 3 {
                let t: Int64 = Self.midnight + Int64(i) * 1800 + Int64(k) * 200
                sightings.append(try c.sighting(sentAt: t, rssi: Int8(-50 - i), previousScan: t - 200))
            }
        }
        let one = try Self.match(sightings, keys: contacts.map(\.key), threads: 1)
        let four = try Self.match(sightings, keys: contacts.map(\.key), threads: 4)
        #expect(one.windows == four.windows)
        #expect(one.windows.count == 40)
        #expect(one.summaryV1 == four.summaryV1)
    }

    @Test func v1SummaryWithCWAValues() throws {
        var c = SimulatedContact(seed: 13, day: Self.day)
        c.trl = 7
        let t0 = Self.midnight + 10 * 3600
        // 4 scans, 5 minutes apart: 20 minutes at 50 dB (≤ 55).
        let sightings = try (0 ..< 4).map { i in try c.sighting(sentAt: t0 + Int64(i) * 300, rssi: -60, previousScan: t0 + Int64(i) * 300 - 300) }
        let r = try Self.match(sightings, keys: [c.key])
        let e = try #require(r.exposuresV1.first)
        #expect(e.durationSeconds == 1200 && e.attenuationValue == 50 && e.attenuationDurations == [1200, 0, 0])
        // attenuation 50 → bucket (33, 51] → 2; days 3 → 5; 20 min → 1; TRL 7 → 7: 2·5·1·7 = 70.
        #expect(e.totalRiskScore == 70)
        var expected = ExposureSummaryV1()
        expected.matchedKeyCount = 1
        expected.daysSinceLastExposure = 3
        expected.maximumRiskScore = 70
        expected.maximumRiskScoreFullRange = 70
        expected.riskScoreSumFullRange = 70
        expected.attenuationDurations = [1200, 0, 0]
        #expect(r.summaryV1 == expected)
    }

    @Test func progressCountsKeysAndCancels() throws {
        let c = SimulatedContact(seed: 14, day: Self.day)
        let signer = try PrivateKey()
        let zip = try ExportWriter.signedKeyFile(metadata: Fixtures.metadata(), keys: (0 ..< 20_000).map { Fixtures.key($0, dsos: 1) } + [c.key],
                                                 signer: signer, info: Fixtures.info())
        let set = try SightingSet([try c.sighting(sentAt: Self.midnight + 600, rssi: -70)])
        var seen: [(UInt64, UInt64)] = []
        _ = try Matcher.match(sightings: set, files: [.bytes(zip)], keyFileOptions: KeyFileOptions(trust: Fixtures.trust(signer)),
                              options: MatchingOptions(), now: Self.now, progress: { seen.append(($0, $1)); return true })
        // Bytes of the files as given: the total is known at once, done only
        // grows, and the last report is the whole.
        #expect(seen.count >= 3 && seen.allSatisfy { $0.1 == UInt64(zip.count) })
        #expect(Swift.zip(seen, seen.dropFirst()).allSatisfy { $0.0 <= $1.0 } && seen.last.map { $0.0 == $0.1 } == true)
        #expect(kind { try Matcher.match(sightings: set, files: [.bytes(zip)], keyFileOptions: KeyFileOptions(trust: Fixtures.trust(signer)),
                                         options: MatchingOptions(), now: Self.now, progress: { _, _ in false }) } == .cancelled)
    }

    /// Thread counts beyond the pool are refused; the largest one allowed works.
    @Test func threadCountsAreBounded() throws {
        for threads in [-1, Matcher.maxThreads + 1, Int(UInt32.max)] {
            #expect(kind { try Self.match([], keys: [], threads: threads) } == .invalidArgument)
        }
        #expect(try Self.match([], keys: [], threads: Matcher.maxThreads).windows.isEmpty)
    }
}

/// Several files: each thread takes whole files; the outcome must not
/// depend on which thread read which file.
@Suite struct MultiFileMatchingTests {
    static func file(_ keys: [ExposureKey], revised: [ExposureKey] = [], signer: PrivateKey) throws -> KeyFileSource {
        .bytes(try ExportWriter.signedKeyFile(metadata: Fixtures.metadata(), keys: keys, revisedKeys: revised, signer: signer, info: Fixtures.info()))
    }

    @Test func revisionsInLaterFilesReplaceEarlierEntriesWhateverTheThreads() throws {
        let signer = try PrivateKey()
        let contacts = (0 ..< 12).map { SimulatedContact(seed: 300 + $0, day: MatchingTests.day) }
        var sightings: [Sighting] = []
        for (i, c) in contacts.enumerated() {
            sightings.append(try c.sighting(sentAt: MatchingTests.midnight + Int64(i) * 1800, rssi: -60, previousScan: MatchingTests.midnight + Int64(i) * 1800 - 240))
        }
        var revoked = contacts[0].key
        revoked.reportType = .revoked
        var recursive = contacts[1].key
        recursive.reportType = .recursive
        // A revision to days without sightings replaces the entry too (so
        // keys that cannot match must still be seen as revisions).
        var moved = contacts[2].key
        moved.rollingStartIntervalNumber -= 3 * 144
        let filler = (0 ..< 500).map { Fixtures.key(700_000 + $0, dsos: 1) }
        let files = [
            try Self.file(Array(contacts.map(\.key)[0 ..< 6]) + filler, signer: signer),
            try Self.file(Array(contacts.map(\.key)[6 ..< 12]), signer: signer),
            try Self.file([], revised: [revoked, recursive, moved], signer: signer),
            try Self.file(filler, signer: signer),
        ]
        let set = try SightingSet(sightings)
        func run(_ threads: Int) throws -> MatchResult {
            try Matcher.match(sightings: set, files: files, keyFileOptions: KeyFileOptions(trust: Fixtures.trust(signer)),
                              options: MatchingOptions(), now: MatchingTests.now, threads: threads)
        }
        let one = try run(1), two = try run(2), four = try run(4)
        #expect(one.windows.count == 10)                                  // contacts 0 revoked, 2 moved
        #expect(one.windows.filter { $0.reportType == .recursive }.count == 1)
        #expect(one.windows == two.windows && two.windows == four.windows)
        #expect(one.summaryV1 == four.summaryV1)
        #expect(one.statistics.files == 4 && four.statistics.files == 4 && one.statistics.keys == four.statistics.keys)
    }

    /// Files with many candidates: their batches queue up beyond the
    /// queue's limit (so readers match some themselves) and threads out of
    /// files match the rest; the result is the same for any thread count.
    @Test func queuedBatchesAreAllMatchedWhateverTheThreads() throws {
        let signer = try PrivateKey()
        let contacts = (0 ..< 6).map { SimulatedContact(seed: 900 + $0, day: MatchingTests.day) }
        var sightings: [Sighting] = []
        for (i, c) in contacts.enumerated() {
            sightings.append(try c.sighting(sentAt: MatchingTests.midnight + Int64(i) * 3600, rssi: -60,
                                            previousScan: MatchingTests.midnight + Int64(i) * 3600 - 240))
        }
        // Strangers valid on the same day: candidates that match nothing.
        func stranger(_ i: Int) -> ExposureKey {
            var k = Fixtures.key(800_000 + i, dsos: 1)
            k.rollingStartIntervalNumber = contacts[0].key.rollingStartIntervalNumber
            return k
        }
        let files = try (0 ..< 6).map { f in
            try Self.file([contacts[f].key] + (0 ..< 5000).map { stranger(5000 * f + $0) }, signer: signer)
        }
        let set = try SightingSet(sightings)
        func run(_ threads: Int) throws -> MatchResult {
            try Matcher.match(sightings: set, files: files, keyFileOptions: KeyFileOptions(trust: Fixtures.trust(signer)),
                              options: MatchingOptions(), now: MatchingTests.now, threads: threads)
        }
        let one = try run(1)
        #expect(one.windows.count == 6 && one.statistics.derived == 6 * 5001)
        for threads in [2, 3, 8] {
            let r = try run(threads)
            #expect(r.windows == one.windows && r.summaryV1 == one.summaryV1 && r.statistics == one.statistics, "\(threads) threads")
        }
    }

    /// A key listed twice in one file resolves as its later entry, even
    /// when its two entries fall in batches that different threads match.
    @Test func theLaterEntryOfAKeyListedTwiceWinsWhateverTheThreads() throws {
        let signer = try PrivateKey()
        let contact = SimulatedContact(seed: 950, day: MatchingTests.day)
        let sightings = [try contact.sighting(sentAt: MatchingTests.midnight + 7200, rssi: -60, previousScan: MatchingTests.midnight + 6960)]
        var later = contact.key
        later.reportType = .recursive
        let strangers = (0 ..< 3000).map { i -> ExposureKey in
            var k = Fixtures.key(850_000 + i, dsos: 1)
            k.rollingStartIntervalNumber = contact.key.rollingStartIntervalNumber
            return k
        }
        let files = [try Self.file([contact.key] + strangers + [later], signer: signer),
                     try Self.file(Array(strangers.prefix(10)), signer: signer)]
        let set = try SightingSet(sightings)
        for threads in [1, 2, 8] {
            let r = try Matcher.match(sightings: set, files: files, keyFileOptions: KeyFileOptions(trust: Fixtures.trust(signer)),
                                      options: MatchingOptions(), now: MatchingTests.now, threads: threads)
            #expect(r.windows.map(\.reportType) == [.recursive], "\(threads) threads")
        }
    }

    /// Matching opens files without decoding their keys, and decodes each
    /// as it reads it: an undecodable key late in a file still fails the
    /// run with EXPORT_MALFORMED, as opening the file would.
    @Test func anUndecodableKeyFailsTheRunAsOpeningWould() throws {
        let good = ExportWriter.exportBin(metadata: Fixtures.metadata(), keys: (0 ..< 300).map { Fixtures.key($0, dsos: 1) })
        let broken = ProtoSamples.raw(.lengthDelimited(7, [0x0a, 0x20, 0x01])) // key_data claims 32 bytes, 1 follows
        let bad = KeyFileSource.bytes(good + broken)
        let options = KeyFileOptions(verify: false)
        #expect(kind { try KeyFile(bytes: good + broken, options: options) } == .exportMalformed)
        let set = try SightingSet([])
        for threads in [1, 2] {
            #expect(kind {
                try Matcher.match(sightings: set, files: [.bytes(good), bad], keyFileOptions: options,
                                  options: MatchingOptions(), now: MatchingTests.now, threads: threads)
            } == .exportMalformed)
        }
    }

    @Test func aBadFileAmongGoodOnesFailsTheRunWithItsOwnError() throws {
        let signer = try PrivateKey()
        let good = try Self.file((0 ..< 100).map { Fixtures.key($0, dsos: 1) }, signer: signer)
        let bad = KeyFileSource.bytes(Array("not a key file".utf8))
        let set = try SightingSet([])
        for threads in [1, 2] {
            #expect(kind {
                try Matcher.match(sightings: set, files: [good, good, bad, good], keyFileOptions: KeyFileOptions(trust: Fixtures.trust(signer)),
                                  options: MatchingOptions(), now: MatchingTests.now, threads: threads)
            } == .zipNotZip)
        }
    }

    @Test func cancellingStopsEveryThread() throws {
        let signer = try PrivateKey()
        let f = try Self.file((0 ..< 20_000).map { Fixtures.key($0, dsos: 1) }, signer: signer)
        var calls = 0
        let result = kind {
            try Matcher.match(sightings: SightingSet([]), files: Array(repeating: f, count: 6),
                              keyFileOptions: KeyFileOptions(trust: Fixtures.trust(signer)), options: MatchingOptions(), now: MatchingTests.now,
                              threads: 2, progress: { _, _ in calls += 1; return calls < 3 })
        }
        #expect(result == .cancelled)
        #expect(calls == 3)
    }
}
