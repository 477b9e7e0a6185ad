import Foundation
import EncoreCheck
import EncoreCheckIns
import EncoreClient
import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport
import EncoreTestResults
import EncoreTestSupport
import EncoreTracing
import Testing

/// A store made by an earlier encore opens in this one: its schema is
/// migrated forward and what it held stays.
@Suite struct SchemaMigrationTests {
    static let key = StoreKey.raw([UInt8](repeating: 5, count: 32))

    /// Schema 3 (CWA check-ins, before CrowdNotifier) to the latest: the
    /// CWA check-in keeps its fields and becomes kind CWA; CrowdNotifier
    /// visits can be added beside it; warnings stay attached.
    @Test func aSchema3StoreWithCheckInsMigrates() throws {
        let dir = TempDir()
        let path = dir.file("old.db")
        let hash = [UInt8](repeating: 0xab, count: 32), id = [UInt8](repeating: 0xcd, count: 32)
        do {
            let old = try EncryptedDatabase(path: path, key: Self.key, options: StoreOptions(), migrations: Array(LegacySchema.migrations.prefix(3)), kind: "store")
            #expect(try old.schemaVersion == 3)
            try old.withConnection { c in
                try c.exec("""
                    INSERT INTO check_ins (id, location_id, location_id_hash, payload, description, address, start_time, end_time, auto_end_time, submitted, created)
                    VALUES (7, x'\(Hex.encode(id))', x'\(Hex.encode(hash))', x'0102', 'Konzerthaus', 'Nord 1', 1700000000, 1700003600, 1700007200, 0, 1700000000)
                    """)
                try c.exec("INSERT INTO check_in_warnings VALUES (7, x'\(String(repeating: "11", count: 32))', 0, 2833334, 6, 7)")
            }
        }
        let store = try Store(path: path, key: Self.key)
        #expect(try store.schemaVersion == Store.latestSchemaVersion)
        let c = try #require(try store.checkIn(id: 7))
        #expect(c.kind == .cwa && c.description == "Konzerthaus" && c.address == "Nord 1" && c.locationIdHash == hash && c.locationId == id)
        #expect(c.start == 1_700_000_000 && c.end == 1_700_003_600 && c.autoEnd == 1_700_007_200 && !c.submitted)
        #expect(try store.checkInWarnings().map(\.checkIn) == [7])
        #expect(try store.crowdNotifierExposures().isEmpty)
        #expect(try store.integrityProblems() == nil)
        // Opening again changes nothing.
        let again = try Store(path: path, key: Self.key)
        #expect(try again.checkIns().map(\.id) == [7])
    }

    /// Every store-wide version an earlier encore wrote becomes a version
    /// per feature: each feature's steps of that version count as done,
    /// the later ones run, and the store's format is the engine's.
    @Test(arguments: 1 ... 6) func aStoreWideVersionBecomesFeatureVersions(_ legacy: Int) throws {
        let dir = TempDir()
        let path = dir.file("old.db")
        do {
            let old = try EncryptedDatabase(path: path, key: Self.key, options: StoreOptions(), migrations: Array(LegacySchema.migrations.prefix(legacy)), kind: "store")
            #expect(try old.schemaVersion == legacy)
        }
        let store = try Store(path: path, key: Self.key)
        #expect(try store.schemaVersion == Store.latestSchemaVersion)
        let versions = try store.tableVersions()
        for f in StoreTables.all { #expect(versions[f.feature] == f.version, "\(f.feature)") }
        // The renamed tables are there under their new names.
        let (new, gone) = try store.withConnection { c in
            (try c.scalar("SELECT count(*) FROM sqlite_master WHERE name IN ('sightings', 'key_files', 'sightings_identity')"),
             try c.scalar("SELECT count(*) FROM sqlite_master WHERE name IN ('observations', 'key_packages', 'observations_identity')"))
        }
        #expect(new == 3 && gone == 0)
        #expect(try store.integrityProblems() == nil)
    }

    /// Tracing took over the tracing history (issue 47): an old store's
    /// events, in the table exposure's first step made, stay and are
    /// tracing's (its purge, its version); the check-ins' bundle tag, kept
    /// under the sync's prefix before, moves to check-ins' own.
    @Test(arguments: [1, 6]) func tracingTakesOverItsHistoryAndCheckInsTheirTag(_ legacy: Int) throws {
        let dir = TempDir()
        let path = dir.file("old.db")
        do {
            let old = try EncryptedDatabase(path: path, key: Self.key, options: StoreOptions(), migrations: Array(LegacySchema.migrations.prefix(legacy)), kind: "store")
            try old.withConnection { c in
                try c.exec("INSERT INTO tracing_events (time, active) VALUES (100, 1), (200, 0)")
                try c.exec("INSERT INTO settings (name, value) VALUES ('sync.crowdnotifier.bundleTag', '1795633200000')")
            }
        }
        let store = try Store(path: path, key: Self.key)
        #expect(try store.tableVersions()["tracing"] == StoreTables.tracing.version && StoreTables.tracing.version >= 1)
        #expect(try store.tracingEvents() == [TracingEvent(time: 100, active: true), TracingEvent(time: 200, active: false)])
        #expect(try CheckInService(store: store).traceKeyBundleTag() == "1795633200000")
        #expect(try store.setting("sync.crowdnotifier.bundleTag") == nil)
        #expect(store.isLibrarySetting(CheckInService.traceKeyBundleTagSetting))
        // Tracing's purge keeps the state at the cut-off, as exposure's did.
        let purged = try store.purge(now: 300 + Store.defaultRetentionSeconds, maxAge: Store.defaultRetentionSeconds)
        #expect(purged["tracingEvents"] == 2)
        #expect(try store.integrityProblems() == nil)
    }

    /// Issue 46: sightings gain a typical RSSI (exposure's step) and tracing
    /// a count of what its cap dropped (tracing's). An old store's sightings
    /// read with typical = strongest RSSI (so typical = minimum attenuation,
    /// as before); new ones keep both.
    @Test(arguments: [1, 6]) func oldSightingsReadTheirRSSIAsTypical(_ legacy: Int) throws {
        let dir = TempDir()
        let path = dir.file("old.db")
        let rpi = String(repeating: "ab", count: 16)
        do {
            let old = try EncryptedDatabase(path: path, key: Self.key, options: StoreOptions(), migrations: Array(LegacySchema.migrations.prefix(legacy)), kind: "store")
            // The table's name before the rename (a step of its own since).
            try old.withConnection { c in try c.exec("INSERT INTO observations (time, rpi, aem, rssi, prev_scan) VALUES (1000, x'\(rpi)', x'01020304', -61, 700)") }
        }
        let store = try Store(path: path, key: Self.key)
        #expect(try store.tableVersions()["exposure"] == StoreTables.exposure.version)
        #expect(try store.tableVersions()["tracing"] == StoreTables.tracing.version)
        let old = try #require(try store.sightings().first)
        #expect(old.rssi == -61 && old.typicalRSSI == -61 && old.previousScan == 700)
        let key = try #require(KeyData([UInt8](repeating: 0xcd, count: 16)))
        try store.addSightings([Sighting(time: 2000, rpi: key, aem: 5, rssi: -50, typicalRSSI: -58)])
        #expect(try store.sightings().map(\.typicalRSSI) == [-61, -58])
        #expect(try store.droppedSightings().isEmpty)
        #expect(try store.integrityProblems() == nil)
    }

    /// A new store, and one with tracing's tables alone, have the tracing
    /// history: made by exposure's first step, or by tracing's.
    @Test func aNewStoreHasTheTracingHistory() throws {
        let dir = TempDir()
        for features in [StoreTables.all, [.tracing]] {
            let store = try Store(path: dir.file("s\(features.count).db"), key: Self.key, features: features)
            try store.addTracingEvent(time: 100, active: true)
            #expect(try store.lastTracingEvent() == TracingEvent(time: 100, active: true))
            #expect(try store.tableVersions()["tracing"] == StoreTables.tracing.version)
        }
    }

    /// A feature's tables from a newer encore are refused, and the file is
    /// left as it was.
    @Test func aFeatureOfANewerEncoreIsRefused() throws {
        let dir = TempDir()
        let path = dir.file("s.db")
        do {
            let store = try Store(path: path, key: Self.key)
            try store.withConnection { c in try c.exec("UPDATE store_tables SET version = version + 1 WHERE feature = 'checkins'") }
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: EncoreError.self) { try Store(path: path, key: Self.key) }
        do {
            _ = try Store(path: path, key: Self.key)
        } catch let e as EncoreError {
            #expect(e.kind == .storeTooNew && e.message.contains("checkins"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    /// A store opened with some features gains the others' tables when
    /// opened with them; each feature's settings are its own.
    @Test func featuresJoinAStoreLater() throws {
        let dir = TempDir()
        let path = dir.file("s.db")
        do {
            let store = try Store(path: path, key: Self.key, features: [.exposure])
            #expect(try store.tableVersions() == ["exposure": StoreTables.exposure.version])
            #expect(!store.isLibrarySetting("sync.last-success"))
        }
        let store = try Store(path: path, key: Self.key)
        #expect(try store.tableVersions().count == StoreTables.all.count)
        #expect(store.isLibrarySetting("sync.last-success") && store.isLibrarySetting("push.token") && store.isLibrarySetting("tracing.tx"))
        #expect(!store.isLibrarySetting("host.theme"))
        #expect(throws: EncoreError.self) { try store.checkHostSettingName("push.token") }
        #expect(throws: EncoreError.self) { try Store(path: dir.file("t.db"), key: Self.key, features: [.exposure, .exposure]) }
    }
}
