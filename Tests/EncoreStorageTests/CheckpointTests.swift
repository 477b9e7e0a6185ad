import EncoreStorage
import EncoreTestSupport
import Foundation
import Testing

/// Paused checkpoints (a host-driven sync's key files): resuming copies the
/// WAL into the file and cuts the WAL to nothing, so that the close that
/// deletes it has no large file to free; a reader of the WAL in another
/// connection is not waited for (the busy timeout, 5 s by default): the
/// WAL is then copied as far as the reader allows and left as it is.
@Suite struct CheckpointTests {
    static let key = StoreKey.raw([UInt8](repeating: 0x5a, count: 32))

    func open(_ path: String) throws -> EncryptedDatabase {
        try EncryptedDatabase(path: path, key: Self.key, options: StoreOptions(),
                              migrations: ["CREATE TABLE t (v BLOB)"], kind: "store")
    }

    /// Paused checkpoints, then 2 MB in commits of 256 KiB.
    func writeWithCheckpointsPaused(_ db: EncryptedDatabase) throws {
        try db.pauseCheckpoints()
        for _ in 0 ..< 8 {
            try db.withConnection { try $0.exec("INSERT INTO t VALUES (randomblob(262144))") }
        }
    }

    func walSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? -1
    }

    @Test func resumingCutsTheWAL() throws {
        let dir = TempDir()
        let path = dir.file("s.db")
        let db = try open(path)
        try writeWithCheckpointsPaused(db)
        #expect(walSize(path) > 2_000_000)
        try db.resumeCheckpoints()
        #expect(walSize(path) == 0)
        #expect(try db.withConnection { try $0.scalar("SELECT count(*) FROM t") } == 8)
        db.close()
    }

    @Test func aReaderIsNotWaitedFor() throws {
        let dir = TempDir()
        let path = dir.file("s.db")
        let db = try open(path)
        try writeWithCheckpointsPaused(db)
        let reader = try open(path)
        try reader.withConnection { c in
            try c.exec("BEGIN")
            #expect(try c.scalar("SELECT count(*) FROM t") == 8)
        }
        let started = Date()
        try db.resumeCheckpoints()
        #expect(Date().timeIntervalSince(started) < 2)
        #expect(walSize(path) > 2_000_000)
        try reader.withConnection { try $0.exec("COMMIT") }
        // A later resume (the next sync's end) cuts it.
        try db.resumeCheckpoints()
        #expect(walSize(path) == 0)
        reader.close()
        db.close()
    }
}
