import EncoreCheck
import EncoreClient
import EncoreExposure
import EncoreKeyFiles
import EncoreKeyFilesFixtures
import EncoreStorage
import EncoreSupport
import EncoreTestSupport
import Foundation
import Testing

func sighting(_ i: Int, time: Int64? = nil, prev: Int64? = nil) -> Sighting {
    Sighting(time: time ?? 1_600_000_000 + Int64(i), rpi: Fixtures.key(i).keyData, aem: UInt32(truncatingIfNeeded: i &* 2654435761),
                rssi: Int8(truncatingIfNeeded: -40 - i % 60), previousScan: prev)
}

@Suite struct StoreTests {
    let rawKey = [UInt8](repeating: 7, count: 32)

    @Test func createsWritesAndReopens() throws {
        let dir = TempDir()
        let path = dir.file("s.db")
        do {
            let store = try Store(path: path, key: .passphrase("secret"))
            #expect(try store.schemaVersion == Store.latestSchemaVersion)
            #expect(try store.addSightings((0 ..< 100).map { sighting($0) }) == 100)
        }
        let again = try Store(path: path, key: .passphrase("secret"), options: StoreOptions(create: false))
        #expect(try again.countSightings() == 100)
        #expect(try again.sightings(from: 1_600_000_010, to: 1_600_000_020).map(\.time) == Array(1_600_000_010 ..< 1_600_000_020))
        #expect(try again.integrityProblems() == nil)
    }

    @Test func rawKeysWork() throws {
        let dir = TempDir()
        let path = dir.file("raw.db")
        _ = try Store(path: path, key: .raw(rawKey)).addSightings([sighting(1)])
        #expect(try Store(path: path, key: .raw(rawKey)).countSightings() == 1)
        #expect(kind { try Store(path: path, key: .raw([UInt8](repeating: 8, count: 32))) } == .storeWrongKey)
        #expect(kind { try Store(path: path, key: .raw([1, 2, 3])) } == EncoreError.Kind.invalidArgument)
    }

    @Test func wrongKeyLeavesTheFileByteIdentical() throws {
        let dir = TempDir()
        let path = dir.file("w.db")
        do {
            let s = try Store(path: path, key: .passphrase("right"))
            try s.addSightings([sighting(1)])
            try s.checkpoint()
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let filesBefore = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(kind { try Store(path: path, key: .passphrase("wrong")) } == .storeWrongKey)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == filesBefore)
    }

    @Test func notADatabase() throws {
        let dir = TempDir()
        let junk = dir.file("junk.db")
        try Data((0 ..< 1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: junk))
        #expect(kind { try Store(path: junk, key: .passphrase("x")) } == .storeNotDatabase)
        let plain = dir.file("plain.db")
        try Data("SQLite format 3\0".utf8 + [UInt8](repeating: 0, count: 4080)).write(to: URL(fileURLWithPath: plain))
        #expect(kind { try Store(path: plain, key: .passphrase("x")) } == .storeNotDatabase)
        #expect(kind { try Store(path: dir.file("missing.db"), key: .passphrase("x"), options: StoreOptions(create: false)) } == .storeMissing)
        #expect(!FileManager.default.fileExists(atPath: dir.file("missing.db")))
    }

    @Test func newerSchemaIsRefusedUntouched() throws {
        let dir = TempDir()
        let path = dir.file("new.db")
        do {
            let s = try Store(path: path, key: .passphrase("k"))
            try s.withConnection { try $0.exec("PRAGMA user_version = 99") }
            try s.checkpoint()
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(kind { try Store(path: path, key: .passphrase("k")) } == .storeTooNew)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func rekeyToPassphraseAndRawKey() throws {
        let dir = TempDir()
        let path = dir.file("rk.db")
        do {
            let s = try Store(path: path, key: .passphrase("old"))
            try s.addSightings((0 ..< 10).map { sighting($0) })
            try s.rekey(to: .passphrase("new"))
            try s.addSightings([sighting(50)])
        }
        #expect(kind { try Store(path: path, key: .passphrase("old")) } == .storeWrongKey)
        do {
            let s = try Store(path: path, key: .passphrase("new"))
            #expect(try s.countSightings() == 11)
            try s.rekey(to: .raw(rawKey))
        }
        #expect(try Store(path: path, key: .raw(rawKey)).countSightings() == 11)
    }

    @Test func bulkInsertIsAllOrNothingAndDeduplicates() throws {
        let dir = TempDir()
        let s = try Store(path: dir.file("b.db"), key: .raw(rawKey))
        #expect(try s.addSightings([sighting(1), sighting(1), sighting(2, prev: 5), sighting(2, prev: 5), sighting(2)]) == 3)
        #expect(try s.addSightings([sighting(1)]) == 0)
        #expect(kind { try s.addSightings([sighting(3), sighting(4, time: -1)]) } == EncoreError.Kind.invalidArgument)
        #expect(try s.countSightings() == 3)
        let back = try s.sightings()
        #expect(back.contains(sighting(2, prev: 5)) && back.contains(sighting(2)))
    }

    @Test func purgeKeepsStateAndRemovesOldRows() throws {
        let dir = TempDir()
        let s = try Store(path: dir.file("p.db"), key: .raw(rawKey))
        let day: Int64 = 86400, now: Int64 = 1_700_000_000
        try s.addSightings([sighting(1, time: now - 20 * day), sighting(2, time: now - day)])
        try s.withConnection { c in
            try c.exec("INSERT INTO tracing_events VALUES (\(now - 30 * day), 1)")
            try c.exec("INSERT INTO risk_results (time, level, document) VALUES (\(now - 20 * day), 1, '{}')")
        }
        let n = try s.purge(now: now)
        #expect(n["sightings"] == 1 && n["tracingEvents"] == 1 && n["riskResults"] == 0)
        #expect(try s.countSightings() == 1)
        let events = try s.withConnection { c -> [Int64] in
            let st = try c.prepare("SELECT time FROM tracing_events WHERE active = 1")
            var t: [Int64] = []
            while try st.step() { t.append(st.int64(0)) }
            return t
        }
        #expect(events == [now - 14 * day])
    }

    @Test func eightThreadsShareOneStore() async throws {
        let dir = TempDir()
        let s = try Store(path: dir.file("t.db"), key: .raw(rawKey))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for t in 0 ..< 8 {
                group.addTask {
                    for b in 0 ..< 20 {
                        try s.addSightings((0 ..< 50).map { sighting(t * 10_000 + b * 50 + $0) })
                        _ = try s.countSightings()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try s.countSightings() == 8 * 20 * 50)
    }
}
