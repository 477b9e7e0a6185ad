import EncoreCheck
import EncoreClient
import EncoreExposure
import EncoreKeyFiles
import EncoreKeyFilesFixtures
import EncoreStorage
import EncoreSupport
import EncoreTestSupport
import EncoreTracing
import Foundation
import Testing

/// The store's other tables: own keys, key files, tracing history, risk
/// results and settings.
@Suite struct StoreTablesTests {
    let rawKey = [UInt8](repeating: 9, count: 32)

    func store(_ dir: TempDir, _ name: String = "t.db") throws -> Store {
        try Store(path: dir.file(name), key: .raw(rawKey))
    }

    func ownKey(_ i: Int, start: Int32, period: Int32 = 144, created: Int64 = 1_600_000_000) -> OwnKey {
        OwnKey(keyData: Fixtures.key(i).keyData, rollingStartIntervalNumber: start, rollingPeriod: period, created: created)
    }

    // MARK: own keys

    @Test func ownKeysAreOrderedFilteredAndReplaced() throws {
        let dir = TempDir()
        let s = try store(dir)
        #expect(try s.latestOwnKey() == nil)
        #expect(try s.ownKeys().isEmpty)
        try s.putOwnKey(ownKey(1, start: 2_650_288))
        try s.putOwnKey(ownKey(2, start: 2_650_000))
        try s.putOwnKey(ownKey(3, start: 2_650_144, period: 100))
        #expect(try s.ownKeys().map(\.rollingStartIntervalNumber) == [2_650_000, 2_650_144, 2_650_288])
        #expect(try s.ownKeys(since: 2_650_144).map(\.keyData) == [Fixtures.key(3).keyData, Fixtures.key(1).keyData])
        #expect(try s.countOwnKeys() == 3 && s.countOwnKeys(since: 2_650_145) == 1 && s.countOwnKeys(since: .max) == 0)
        #expect(try s.ownKeys(offset: 1, limit: 1).map(\.rollingStartIntervalNumber) == [2_650_144])
        #expect(try s.latestOwnKey() == ownKey(1, start: 2_650_288))

        // Same key bytes: replaced, not added.
        try s.putOwnKey(ownKey(2, start: 2_650_432, period: 10, created: 1_600_000_500))
        #expect(try s.countOwnKeys() == 3)
        #expect(try s.latestOwnKey() == ownKey(2, start: 2_650_432, period: 10, created: 1_600_000_500))

        // Equal rolling starts: the newest made is the latest.
        try s.putOwnKey(ownKey(4, start: 2_650_432, created: 1_600_000_900))
        #expect(try s.latestOwnKey()?.keyData == Fixtures.key(4).keyData)

        // From an exposure key: only the key fields are kept.
        let e = Fixtures.key(5)
        try s.putOwnKey(e, created: 7)
        let back = try #require(try s.ownKeys().first { $0.keyData == e.keyData })
        #expect(back.created == 7 && back.exposureKey.rollingStartIntervalNumber == e.rollingStartIntervalNumber)
        #expect(back.exposureKey.rollingPeriod == e.rollingPeriod)
    }

    @Test func badOwnKeysAreRefused() throws {
        let dir = TempDir()
        let s = try store(dir)
        #expect(kind { try s.putOwnKey(ownKey(1, start: -1)) } == .invalidArgument)
        #expect(kind { try s.putOwnKey(ownKey(1, start: 0, period: 0)) } == .invalidArgument)
        #expect(kind { try s.putOwnKey(ownKey(1, start: 0, period: 145)) } == .invalidArgument)
        #expect(kind { try s.putOwnKey(ownKey(1, start: 0, created: -5)) } == .invalidArgument)
        #expect(kind { try s.ownKeys(offset: -1) } == .invalidArgument)
        #expect(try s.countOwnKeys() == 0)
        try s.putOwnKey(ownKey(1, start: 0, period: 1, created: 0))
        try s.putOwnKey(ownKey(2, start: .max, period: 144))
        #expect(try s.countOwnKeys() == 2)
    }

    @Test func ownKeysSurviveReopeningAndPurge() throws {
        let dir = TempDir()
        let day: Int64 = 86400, now: Int64 = 1_700_000_000
        let nowInterval = Int32(now / 600)
        do {
            let s = try store(dir)
            try s.putOwnKey(ownKey(1, start: nowInterval - 20 * 144))
            try s.putOwnKey(ownKey(2, start: nowInterval - 144))
        }
        let s = try store(dir)
        #expect(try s.countOwnKeys() == 2)
        #expect(try s.purge(now: now, maxAge: 14 * day)["ownKeys"] == 1)
        #expect(try s.ownKeys().map(\.keyData) == [Fixtures.key(2).keyData])
    }

    // MARK: key files

    @Test func packagesAreCachedByRegionAndIdentifier() throws {
        let dir = TempDir()
        let s = try store(dir)
        let abc = Array("abc".utf8)
        try s.putCachedKeyFile(region: "DE", identifier: "2020-06-01", etag: "\"e1\"", content: abc, downloaded: 1_591_000_000)
        #expect(try s.hasCachedKeyFile(region: "DE", identifier: "2020-06-01"))
        #expect(try s.hasCachedKeyFile(region: "DE", identifier: "2020-06-01", etag: "\"e1\""))
        #expect(try !s.hasCachedKeyFile(region: "DE", identifier: "2020-06-01", etag: "\"e2\""))
        #expect(try !s.hasCachedKeyFile(region: "AT", identifier: "2020-06-01"))

        let info = try #require(try s.cachedKeyFileInfo(region: "DE", identifier: "2020-06-01"))
        // SHA-256("abc") from FIPS 180-2.
        #expect(Hex.encode(info.sha256) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(info.etag == "\"e1\"" && info.size == 3 && info.downloaded == 1_591_000_000)
        #expect(try s.cachedKeyFileContent(region: "DE", identifier: "2020-06-01").map { $0.bytes } == abc)
        #expect(try s.withCachedKeyFileContent(region: "DE", identifier: "2020-06-01") { Array($0) } == abc)

        // Re-published with a new ETag: replaced.
        let v2 = [UInt8](repeating: 0x5a, count: 100_000)
        try s.putCachedKeyFile(region: "DE", identifier: "2020-06-01", etag: "\"e2\"", content: v2, downloaded: 1_591_100_000)
        #expect(try s.hasCachedKeyFile(region: "DE", identifier: "2020-06-01", etag: "\"e2\""))
        #expect(try !s.hasCachedKeyFile(region: "DE", identifier: "2020-06-01", etag: "\"e1\""))
        #expect(try s.cachedKeyFileContent(region: "DE", identifier: "2020-06-01").map { $0.bytes } == v2)
        #expect(try s.cachedKeyFileIdentifiers(region: "DE") == ["2020-06-01"])

        // No ETag: matches no required ETag, empty content is fine.
        try s.putCachedKeyFile(region: "DE", identifier: "2020-06-01/hour/13", etag: nil, content: [], downloaded: 1_591_000_000)
        #expect(try s.hasCachedKeyFile(region: "DE", identifier: "2020-06-01/hour/13"))
        #expect(try !s.hasCachedKeyFile(region: "DE", identifier: "2020-06-01/hour/13", etag: ""))
        #expect(try s.cachedKeyFileInfo(region: "DE", identifier: "2020-06-01/hour/13")?.etag == nil)
        #expect(try s.cachedKeyFileContent(region: "DE", identifier: "2020-06-01/hour/13")?.count == 0)
        #expect(Hex.encode(try #require(try s.cachedKeyFileInfo(region: "DE", identifier: "2020-06-01/hour/13")).sha256)
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func listingRemovingAndMissing() throws {
        let dir = TempDir()
        let s = try store(dir)
        for id in ["2020-06-02", "2020-06-01", "2020-06-01/hour/9", "2020-06-01/hour/13"] {
            try s.putCachedKeyFile(region: "DE", identifier: id, etag: nil, content: Array(id.utf8), downloaded: 1)
        }
        try s.putCachedKeyFile(region: "EUR", identifier: "2020-06-03", etag: nil, content: [1], downloaded: 1)
        #expect(try s.cachedKeyFileIdentifiers(region: "DE") == ["2020-06-01", "2020-06-01/hour/13", "2020-06-01/hour/9", "2020-06-02"])
        #expect(try s.cachedKeyFileIdentifiers(region: "EUR") == ["2020-06-03"])
        #expect(try s.cachedKeyFileIdentifiers(region: "FR") == [])

        let available = ["2020-06-04", "2020-06-01", "2020-06-03", "2020-06-04", "2020-06-02"]
        #expect(try s.missingKeyFiles(region: "DE", available: available) == ["2020-06-04", "2020-06-03"])
        #expect(try s.missingKeyFiles(region: "EUR", available: available) == ["2020-06-04", "2020-06-01", "2020-06-02"])
        #expect(try s.missingKeyFiles(region: "DE", available: []) == [])

        #expect(try s.removeCachedKeyFile(region: "DE", identifier: "2020-06-02"))
        #expect(try !s.removeCachedKeyFile(region: "DE", identifier: "2020-06-02"))
        #expect(try !s.removeCachedKeyFile(region: "AT", identifier: "2020-06-01"))
        #expect(try s.cachedKeyFileIdentifiers(region: "DE").count == 3)
        #expect(try s.cachedKeyFileContent(region: "DE", identifier: "2020-06-02") == nil)
        #expect(try s.cachedKeyFileInfo(region: "DE", identifier: "2020-06-02") == nil)
        #expect(kind { try s.withCachedKeyFileContent(region: "DE", identifier: "2020-06-02") { _ in 0 } } == .notFound)

        // Retention: packages downloaded before the cut-off go.
        #expect(try s.purge(now: 2_000_000_000)["keyFiles"] == 4)
        #expect(try s.cachedKeyFileIdentifiers(region: "DE").isEmpty)
    }

    @Test func badPackageArgumentsAreRefused() throws {
        let dir = TempDir()
        let s = try store(dir)
        let long = String(repeating: "x", count: StoreText.maxNameBytes + 1)
        let put: (String, String, String?, Int64) -> EncoreError.Kind? = { r, i, e, d in
            kind { try s.putCachedKeyFile(region: r, identifier: i, etag: e, content: [1], downloaded: d) }
        }
        #expect(put("", "2020-06-01", nil, 0) == .invalidArgument)
        #expect(put("DE", "", nil, 0) == .invalidArgument)
        #expect(put("DE", "2020\0-06-01", nil, 0) == .invalidArgument)
        #expect(put("DE", long, nil, 0) == .invalidArgument)
        #expect(put("DE", "2020-06-01", "a\0b", 0) == .invalidArgument)
        #expect(put("DE", "2020-06-01", nil, -1) == .invalidArgument)
        #expect(put("DE", String(repeating: "é", count: 512), "", 0) == nil) // 1024 bytes: the limit
        #expect(kind { try s.hasCachedKeyFile(region: "DE", identifier: "") } == .invalidArgument)
        #expect(kind { try s.missingKeyFiles(region: "DE", available: ["ok", ""]) } == .invalidArgument)
        #expect(kind { try s.cachedKeyFileIdentifiers(region: "") } == .invalidArgument)
    }

    @Test func damagedContentIsDetected() throws {
        let dir = TempDir()
        let s = try store(dir)
        try s.putCachedKeyFile(region: "DE", identifier: "2020-06-01", etag: "x", content: [1, 2, 3], downloaded: 5)
        try s.withConnection { try $0.exec("UPDATE key_files SET content = x'010204'") }
        #expect(kind { try s.cachedKeyFileContent(region: "DE", identifier: "2020-06-01") } == .storeCorrupt)
        do {
            _ = try s.withCachedKeyFileContent(region: "DE", identifier: "2020-06-01") { _ in 0 }
            Issue.record("damaged content was handed out")
        } catch let e as EncoreError {
            #expect(e.kind == .storeCorrupt && e.message.contains("SHA-256"))
        }
        // The metadata is still readable, and a fresh download repairs it.
        #expect(try s.hasCachedKeyFile(region: "DE", identifier: "2020-06-01"))
        try s.putCachedKeyFile(region: "DE", identifier: "2020-06-01", etag: "y", content: [1, 2, 3], downloaded: 6)
        #expect(try s.cachedKeyFileContent(region: "DE", identifier: "2020-06-01").map { $0.bytes } == [1, 2, 3])
    }

    // MARK: tracing history

    @Test func activeTracingTime() throws {
        let dir = TempDir()
        let s = try store(dir)
        #expect(try s.activeTracingSeconds(from: 0, to: 1000) == 0)
        try s.addTracingEvent(time: 100, active: true)
        try s.addTracingEvent(time: 200, active: false)
        try s.addTracingEvent(time: 300, active: true)
        try s.addTracingEvent(time: 350, active: true)   // repeated on: no change
        try s.addTracingEvent(time: 400, active: false)
        try s.addTracingEvent(time: 450, active: false)  // repeated off: no change
        try s.addTracingEvent(time: 500, active: true)   // never switched off
        #expect(try s.activeTracingSeconds(from: 0, to: 1000) == 100 + 100 + 500)
        #expect(try s.activeTracingSeconds(from: 150, to: 1000) == 50 + 100 + 500)   // on before from
        #expect(try s.activeTracingSeconds(from: 200, to: 1000) == 100 + 500)        // off exactly at from
        #expect(try s.activeTracingSeconds(from: 300, to: 301) == 1)                 // on exactly at from
        #expect(try s.activeTracingSeconds(from: 420, to: 480) == 0)
        #expect(try s.activeTracingSeconds(from: 600, to: 700) == 100)                // only the state before
        #expect(try s.activeTracingSeconds(from: 150, to: 150) == 0)
        #expect(try s.activeTracingSeconds(from: 0, to: 100) == 0)
        #expect(kind { try s.activeTracingSeconds(from: 10, to: 5) } == .invalidArgument)

        #expect(try s.tracingEvents().count == 7)
        #expect(try s.tracingEvents(from: 300, to: 450) == [TracingEvent(time: 300, active: true), TracingEvent(time: 350, active: true),
                                                            TracingEvent(time: 400, active: false)])
        #expect(try s.countTracingEvents(from: 400) == 3)
        #expect(try s.tracingEvents(offset: 5, limit: 10).map(\.time) == [450, 500])
    }

    @Test func tracingEdgeCases() throws {
        let dir = TempDir()
        let s = try store(dir)
        #expect(kind { try s.addTracingEvent(time: -1, active: true) } == .invalidArgument)
        // On and off at the same time, in the order added: nothing counted.
        try s.addTracingEvent(time: 10, active: true)
        try s.addTracingEvent(time: 10, active: false)
        #expect(try s.activeTracingSeconds(from: 0, to: 100) == 0)
        #expect(try s.activeTracingSeconds(from: 11, to: 100) == 0)
        // Off then on at the same time: on from then.
        try s.addTracingEvent(time: 20, active: false)
        try s.addTracingEvent(TracingEvent(time: 20, active: true))
        #expect(try s.activeTracingSeconds(from: 0, to: 100) == 80)
        #expect(try s.activeTracingSeconds(from: 0, to: .max) == .max - 20)
        // Spans beyond Int64 saturate instead of trapping (a purge with a
        // small `now` can leave an event before 1970).
        let t = try store(dir, "saturate.db")
        try t.withConnection { try $0.exec("INSERT INTO tracing_events VALUES (-10, 1)") }
        #expect(try t.activeTracingSeconds(from: .min, to: .max) == .max)
        #expect(try t.activeTracingSeconds(from: -20, to: 0) == 10)
    }

    @Test func purgeKeepsTheTracingStateAtTheCutoff() throws {
        let dir = TempDir()
        let s = try store(dir)
        let day: Int64 = 86400, now: Int64 = 1_700_000_000
        try s.addTracingEvent(time: now - 20 * day, active: true)
        try s.addTracingEvent(time: now - 2 * day, active: false)
        let before = try s.activeTracingSeconds(from: now - 14 * day, to: now)
        #expect(before == 12 * day)
        try s.purge(now: now)
        #expect(try s.activeTracingSeconds(from: now - 14 * day, to: now) == before)
    }

    // MARK: risk results

    @Test func riskResultHistory() throws {
        let dir = TempDir()
        let s = try store(dir)
        #expect(try s.lastRiskResult() == nil)
        let a = try s.addRiskResult(time: 2000, level: 1, document: #"{"level":"low"}"#)
        let b = try s.addRiskResult(time: 1000, level: 2, document: "älter – ✓")
        #expect(b > a)
        let last = try #require(try s.lastRiskResult())
        #expect(last.id == a && last.time == 2000 && last.level == 1 && last.document == #"{"level":"low"}"#)
        let c = try s.addRiskResult(time: 2000, level: -3, document: "")
        #expect(try s.lastRiskResult()?.id == c)     // equal times: the last added
        #expect(try s.riskResult(id: b)?.document == "älter – ✓")
        #expect(try s.riskResult(id: 999) == nil)
        #expect(try s.riskResults().map(\.id) == [b, a, c])
        #expect(try s.riskResults(from: 1500, to: 3000).map(\.level) == [1, -3])
        #expect(try s.riskResults(offset: 1, limit: 1).map(\.id) == [a])
        #expect(try s.countRiskResults() == 3 && s.countRiskResults(from: 0, to: 1000) == 0)
        #expect(kind { try s.addRiskResult(time: -1, level: 0, document: "") } == .invalidArgument)
        #expect(kind { try s.addRiskResult(time: 1, level: 0, document: "a\0b") } == .invalidArgument)
        #expect(try s.countRiskResults() == 3)
        // Retention keeps the newest result even when it is old.
        #expect(try s.purge(now: 10_000_000)["riskResults"] == 2)
        #expect(try s.riskResults().map(\.id) == [c])
    }

    // MARK: settings

    @Test func settingsRoundTripEveryType() throws {
        let dir = TempDir()
        let s = try store(dir)
        let values: [String: SettingValue] = [
            "int": .integer(.min), "big": .integer(.max), "pi": .double(3.25), "inf": .double(-.infinity),
            "text": .text("grüß dich"), "empty text": .text(""), "blob": .blob([0, 1, 255]), "empty blob": .blob([]),
        ]
        for (n, v) in values { try s.setSetting(n, to: v) }
        for (n, v) in values {
            #expect(try s.setting(n) == v)
            #expect(try s.settingType(n) == v.type)
        }
        #expect(try s.integerSetting("int") == .min)
        #expect(try s.doubleSetting("pi") == 3.25)
        #expect(try s.textSetting("text") == "grüß dich")
        #expect(try s.blobSetting("empty blob") == [])
        #expect(try s.withSettingBytes("text", .text) { Array($0) } == Array("grüß dich".utf8))
        #expect(try s.settingNames() == values.keys.sorted())

        // Setting again replaces the value and its type.
        try s.setSetting("int", to: .text("now text"))
        #expect(try s.settingType("int") == .text)
        #expect(try s.settingNames().count == values.count)
        #expect(try s.deleteSetting("int"))
        #expect(try !s.deleteSetting("int"))
        #expect(try s.setting("int") == nil && s.settingType("int") == nil)
    }

    @Test func settingErrorsAreDistinct() throws {
        let dir = TempDir()
        let s = try store(dir)
        try s.setSetting("n", to: .integer(5))
        try s.setSetting("t", to: .text("x"))
        do {
            _ = try s.textSetting("n")
            Issue.record("a type mismatch was not reported")
        } catch let e as EncoreError {
            #expect(e.kind == .invalidArgument && e.message.contains("integer"))
        }
        #expect(kind { try s.integerSetting("t") } == .invalidArgument)
        #expect(kind { try s.blobSetting("t") } == .invalidArgument)
        #expect(kind { try s.doubleSetting("n") } == .invalidArgument)  // no conversion
        #expect(kind { try s.withSettingBytes("n", .integer) { _ in 0 } } == .invalidArgument)
        #expect(kind { try s.integerSetting("missing") } == .notFound)
        #expect(kind { try s.withSettingBytes("missing", .blob) { _ in 0 } } == .notFound)
        #expect(kind { try s.setSetting("d", to: .double(.nan)) } == .invalidArgument)
        #expect(kind { try s.setSetting("", to: .integer(1)) } == .invalidArgument)
        #expect(kind { try s.setSetting("a\0b", to: .integer(1)) } == .invalidArgument)
        #expect(kind { try s.setSetting("t", to: .text("a\0b")) } == .invalidArgument)
        #expect(kind { try s.setting(String(repeating: "n", count: 1025)) } == .invalidArgument)
        #expect(try s.textSetting("t") == "x") // failed sets changed nothing
        #expect(try s.settingNames() == ["n", "t"])
    }

    @Test func settingsSurvivePurgeAndRekey() throws {
        let dir = TempDir()
        do {
            let s = try store(dir)
            try s.setSetting("onboarded", to: .integer(1))
            try s.purge(now: 2_000_000_000, maxAge: 0)
            try s.rekey(to: .passphrase("new"))
        }
        let s = try Store(path: dir.file("t.db"), key: .passphrase("new"))
        #expect(try s.integerSetting("onboarded") == 1)
    }

    // MARK: threads

    @Test func tablesAreSafeFromSeveralThreads() async throws {
        let dir = TempDir()
        let s = try store(dir)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for t in 0 ..< 6 {
                group.addTask {
                    for i in 0 ..< 25 {
                        let n = t * 100 + i
                        try s.putOwnKey(OwnKey(keyData: Fixtures.key(n).keyData, rollingStartIntervalNumber: Int32(n), created: 1))
                        try s.putCachedKeyFile(region: "R\(t)", identifier: "id-\(i)", etag: nil, content: [UInt8(i)], downloaded: 1)
                        try s.addTracingEvent(time: Int64(n), active: i % 2 == 0)
                        try s.addRiskResult(time: Int64(n), level: Int32(i), document: "\(n)")
                        try s.setSetting("k\(t)", to: .integer(Int64(i)))
                        _ = try s.activeTracingSeconds(from: 0, to: 1000)
                        _ = try s.cachedKeyFileContent(region: "R\(t)", identifier: "id-\(i)")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try s.countOwnKeys() == 150 && s.countTracingEvents() == 150 && s.countRiskResults() == 150)
        #expect(try (0 ..< 6).allSatisfy { try s.cachedKeyFileIdentifiers(region: "R\($0)").count == 25 && s.integerSetting("k\($0)") == 24 })
        #expect(try s.integrityProblems() == nil)
    }
}
