import EncoreStorage
import EncoreSupport
import EncoreTestSupport
import CEncoreSQL
import Testing

/// The statement layer under the store: text and blobs are bound with their
/// lengths, and a bind SQLite refuses fails the step instead of running the
/// statement with that parameter left NULL.
@Suite struct SQLiteBindTests {
    func connection(_ dir: TempDir) throws -> Connection {
        let c = try Connection(path: dir.file("plain.db"), create: true)
        try c.exec("CREATE TABLE t (v)")
        return c
    }

    func values(_ c: Connection) throws -> [String] {
        let s = try c.prepare("SELECT typeof(v) || ':' || length(CAST(v AS BLOB)) FROM t ORDER BY rowid")
        var out: [String] = []
        while try s.step() { out.append(s.text(0) ?? "nil") }
        return out
    }

    @Test func textAndBlobKeepTheirLengths() throws {
        let dir = TempDir()
        let c = try connection(dir)
        let insert = "INSERT INTO t VALUES (?)"
        try c.prepare(insert).bind(1, text: "a\u{0}b").run()
        try c.prepare(insert).bind(1, text: "").run()
        try c.prepare(insert).bind(1, blob: []).run()
        try c.prepare(insert).bind(1, blob: [0, 1, 0]).run()
        try c.prepare(insert).bind(1, text: nil).run()
        // length() of NULL is NULL, and so is the whole row's text.
        #expect(try values(c) == ["text:3", "text:0", "blob:0", "blob:3", "nil"])
        let read = try c.prepare("SELECT v FROM t ORDER BY rowid LIMIT 1")
        #expect(try read.one { $0.text(0) } == "a\u{0}b")
    }

    @Test func aRefusedBindFailsTheStepAndInsertsNothing() throws {
        let dir = TempDir()
        let c = try connection(dir)
        enc_sql_limit(c.db, ENC_SQL_LIMIT_LENGTH, 100)
        let insert = "INSERT INTO t VALUES (?)"
        let blob = #expect(throws: EncoreError.self) { try c.prepare(insert).bind(1, blob: [UInt8](repeating: 7, count: 101)).run() }
        let text = #expect(throws: EncoreError.self) { try c.prepare(insert).bind(1, text: String(repeating: "x", count: 101)).run() }
        for e in [blob, text] {
            #expect(e?.kind == .invalidArgument)
            #expect(e?.message.contains("writing the t table (value 1)") == true)
        }
        #expect(try values(c) == [])
        // The cached statement is usable again: the failure does not linger.
        try c.prepare(insert).bind(1, blob: [UInt8](repeating: 7, count: 50)).run()
        #expect(try values(c) == ["blob:50"])
    }
}
