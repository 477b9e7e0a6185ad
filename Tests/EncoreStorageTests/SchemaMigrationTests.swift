import EncoreStorage
import EncoreSupport
import EncoreTestSupport
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
            let old = try EncryptedDatabase(path: path, key: Self.key, options: StoreOptions(), migrations: Array(Schema.migrations.prefix(3)), kind: "store")
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
}
