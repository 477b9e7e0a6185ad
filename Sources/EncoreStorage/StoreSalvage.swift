import CEncoreSQL
import EncoreSupport
#if canImport(Glibc)
import Glibc
#endif

/// What a salvage copied and what it could not, per table.
public struct SalvageReport: Sendable {
    public struct Table: Sendable {
        public let name: String
        /// Rows read from the damaged store and written to the new one.
        public var copied = 0
        /// Rows read but refused by the new store (a value its tables do not take).
        public var refused = 0
        /// The stretches of rowids that could not be read: from `from` up
        /// to (not including) `to`, the next row that could; `to` nil: to the end.
        public var unreadable: [(from: Int64, to: Int64?)] = []
        /// Why the table could not be read at all, or was not in the damaged store.
        public var note: String?

        public init(name: String) { self.name = name }

        /// Whether every row of the table came across.
        public var complete: Bool { unreadable.isEmpty && refused == 0 && note == nil }

        /// At most this many rows were lost (rowids skipped, plus rows
        /// refused); nil when a stretch runs to the end or the table could
        /// not be read at all, so that nothing bounds the loss.
        public var lostAtMost: Int64? {
            guard note == nil || note == SalvageReport.notInDamagedStore else { return nil }
            var sum = Int64(refused)
            for stretch in unreadable {
                guard let to = stretch.to else { return nil }
                let (n, over) = sum.addingReportingOverflow(to &- stretch.from)
                if over { return nil }
                sum = n
            }
            return sum
        }
    }

    public var tables: [Table] = []
    public var rowsCopied: Int { tables.reduce(0) { $0 + $1.copied } }
    public var complete: Bool { tables.allSatisfy(\.complete) }
    static let notInDamagedStore = "not in the damaged store"

    /// One line per table, in words.
    public var text: String {
        tables.map { t in
            var line = "\(t.name): \(t.copied) rows copied"
            if let note = t.note { line += "; \(note)" }
            if t.refused > 0 { line += "; \(t.refused) rows refused by the new store" }
            for s in t.unreadable {
                line += s.to.map { "; rowids \(s.from) to \($0 - 1) unreadable" } ?? "; rowids from \(s.from) on unreadable"
            }
            if !t.complete { line += t.lostAtMost.map { "; at most \($0) rows lost" } ?? "; an unknown number of rows lost" }
            return line + "\n"
        }.joined()
    }

    /// {"complete", "rowsCopied", "tables": [{"name", "copied", "refused",
    /// "unreadable": [{"from", "to"}], "lostAtMost" (null: unknown), "note", "complete"}]}.
    public var json: JSONValue {
        .object([
            ("complete", .bool(complete)),
            ("rowsCopied", .int(Int64(rowsCopied))),
            ("tables", .array(tables.map { t in
                .object([
                    ("name", .string(t.name)), ("complete", .bool(t.complete)), ("copied", .int(Int64(t.copied))),
                    ("refused", .int(Int64(t.refused))),
                    ("unreadable", .array(t.unreadable.map { .object([("from", .int($0.from)), ("to", .int($0.to))]) })),
                    ("lostAtMost", .int(t.lostAtMost)),
                    ("note", t.note.map { .string($0) } ?? .null),
                ])
            })),
        ])
    }
}

/// Copies what can still be read of a damaged store into a new one.
///
/// SQLite's recovery extension (.recover) is not in Debian's SQLCipher, so
/// this is a copy of its own: for every table of the new store (made with
/// every feature's tables at their current version), the damaged store's
/// rows are read in rowid order, a batch at a time; where a read fails
/// (a page that does not decrypt, a broken tree), the next rowid that can
/// be read is searched for (doubling steps, then halving), the stretch in
/// between is recorded as lost, and the copy goes on from there. The
/// damaged file is opened read-only and never written.
public enum StoreSalvage {
    static let batch = 256

    /// Salvages the store at `path` (key `key`) into a new store at
    /// `newPath` (key `newKey`) with the tables of `features`. `newPath`
    /// must not exist; on failure nothing is left there.
    public static func salvage(from path: String, key: StoreKey, to newPath: String, newKey: StoreKey,
                               features: [StoreTables]) throws -> SalvageReport {
        let keyBytes = try key.sqlcipherKey()
        _ = try newKey.sqlcipherKey()
        let damaged = try StoreFile.inspect(path)
        guard damaged.exists else { throw EncoreError(.storeMissing, "no store at \(path)") }
        guard damaged.size > 0 else { throw EncoreError(.storeMissing, "\(path) is an empty file: nothing to salvage") }
        guard !(try StoreFile.inspect(newPath).exists) else {
            throw EncoreError(.invalidArgument, "\(newPath) exists: a salvage writes a new store; name a file that does not exist")
        }
        let (source, _, _) = try EncryptedDatabase.open(path: path, create: false, readOnly: true, key: keyBytes,
                                                        pageSizes: [StoreFile.pageSize, StoreFile.legacyPageSize],
                                                        latest: Int.max, kind: "store", salvaging: true)
        do {
            let target = try Store(path: newPath, key: newKey, options: StoreOptions(create: true), features: features)
            defer { target.close() }
            return try target.withConnection { try copy(from: source, to: $0) }
        } catch {
            for suffix in ["", "-wal", "-shm", "-journal"] { _ = unlink(newPath + suffix) }
            throw error
        }
    }

    private static func copy(from source: Connection, to target: Connection) throws -> SalvageReport {
        let targetTables = try tables(target)
        var sourceTables: [String: String] = [:]
        do {
            for (name, sql) in try tables(source) { sourceTables[name] = sql }
        } catch let e as EncoreError where readFailure(e) {
            throw EncoreError(.storeCorrupt, "the damaged store's list of tables cannot be read: nothing can be salvaged")
        }
        // Rows come in table by table, not in the order their references need.
        try target.exec("PRAGMA foreign_keys = OFF")
        defer { _ = enc_sql_exec(target.db, "PRAGMA foreign_keys = ON") }
        var report = SalvageReport()
        for (name, sql) in targetTables where name != "store_tables" {
            var table = SalvageReport.Table(name: name)
            if sourceTables[name] == nil {
                table.note = SalvageReport.notInDamagedStore
            } else {
                let theirs = Set(try columns(source, name))
                let columns = try Self.columns(target, name).filter(theirs.contains)
                let withoutRowid = sql.uppercased().contains("WITHOUT ROWID")
                try target.transaction {
                    try copyRows(of: name, columns: columns, byRowid: !withoutRowid, from: source, to: target, into: &table)
                }
            }
            report.tables.append(table)
        }
        return report
    }

    /// A read of the damaged store that failed on damage (or on SQLite's I/O).
    private static func readFailure(_ e: EncoreError) -> Bool { e.kind == .storeCorrupt || e.kind == .storeFailed }

    private static func copyRows(of name: String, columns: [String], byRowid: Bool, from source: Connection, to target: Connection,
                                 into table: inout SalvageReport.Table) throws {
        let list = columns.map(quotedName).joined(separator: ", ")
        let lead = byRowid ? "rowid, " : ""
        let insert = try target.prepare("INSERT OR REPLACE INTO \(quotedName(name)) (\(lead)\(list)) VALUES (\(Array(repeating: "?", count: columns.count + (byRowid ? 1 : 0)).joined(separator: ", ")))")
        let width = Int32(columns.count + (byRowid ? 1 : 0))
        func store(_ row: Statement) throws {
            insert.reset()
            for i in 0..<width { insert.bind(i + 1, valueOf: row, column: i) }
            do {
                try insert.run()
                table.copied += 1
            } catch let e as EncoreError where e.kind == .invalidArgument {
                table.refused += 1
            }
        }
        guard byRowid else {
            // No rowids to step over damage with: everything up to it.
            let all = try source.prepare("SELECT \(list) FROM \(quotedName(name))")
            do {
                while try all.step() { try store(all) }
            } catch let e as EncoreError where readFailure(e) {
                table.note = "the rows after the first \(table.copied + table.refused) cannot be read (the table has no rowids to skip the damage by)"
            }
            return
        }
        let select = try source.prepare("SELECT \(lead)\(list) FROM \(quotedName(name)) WHERE rowid >= ? ORDER BY rowid LIMIT \(batch)")
        let probe = try source.prepare("SELECT \(lead)\(list) FROM \(quotedName(name)) WHERE rowid >= ? ORDER BY rowid LIMIT 1")
        var next: Int64? = Int64.min
        while let start = next {
            select.reset()
            select.bind(1, start)
            var read = 0
            var last: Int64?
            do {
                while try select.step() {
                    last = select.int64(0)
                    read += 1
                    try store(select)
                }
                next = read < batch ? nil : last.flatMap { $0 == Int64.max ? nil : $0 + 1 }
            } catch let e as EncoreError where readFailure(e) {
                let from = last.map { $0 + 1 } ?? start
                let resume = firstReadable(from: from, probe)
                if from == Int64.min && resume == nil && table.copied == 0 {
                    table.note = "the table cannot be read at all"
                } else {
                    table.unreadable.append((from, resume))
                }
                next = resume
            }
        }
    }

    /// The rowid of the first row at or after `from` that reads whole, when
    /// the row at `from` does not: doubling steps until one reads, then
    /// halving back to the first that does. nil: none after it.
    private static func firstReadable(from: Int64, _ probe: Statement) -> Int64? {
        enum Outcome { case fails, row(Int64), end }
        func read(_ at: Int64) -> Outcome {
            probe.reset()
            probe.bind(1, at)
            do {
                return try probe.one { $0.int64(0) }.map(Outcome.row) ?? .end
            } catch {
                return .fails
            }
        }
        var failing = from
        var step: Int64 = 1
        var reads = from
        while true {
            let (at, over) = from.addingReportingOverflow(step)
            if over { return nil }
            if case .fails = read(at) {
                failing = at
                let (doubled, tooFar) = step.multipliedReportingOverflow(by: 2)
                if tooFar { return nil }
                step = doubled
                continue
            }
            reads = at
            break
        }
        while reads - failing > 1 {
            let middle = failing + (reads - failing) / 2
            if case .fails = read(middle) { failing = middle } else { reads = middle }
        }
        if case .row(let rowid) = read(reads) { return rowid }
        return nil
    }

    /// The tables (name, CREATE statement) of a database, but SQLite's own.
    private static func tables(_ c: Connection) throws -> [(String, String)] {
        var out: [(String, String)] = []
        let s = try c.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid")
        while try s.step() { out.append((s.text(0) ?? "", s.text(1) ?? "")) }
        return out
    }

    private static func columns(_ c: Connection, _ table: String) throws -> [String] {
        var out: [String] = []
        let s = try c.prepare("PRAGMA table_info(\(quotedName(table)))")
        while try s.step() { out.append(s.text(1) ?? "") }
        return out
    }
}

extension Statement {
    /// Binds parameter `i` to column `c` of `row` as it is stored (integer,
    /// real, text, blob or NULL).
    @discardableResult
    public func bind(_ i: Int32, valueOf row: Statement, column c: Int32) -> Statement {
        switch enc_sql_column_type(row.handle, c) {
        case ENC_SQL_INTEGER: return bind(i, row.int64(c))
        case ENC_SQL_FLOAT: return bind(i, row.double(c))
        case ENC_SQL_TEXT: return bind(i, text: row.text(c))
        case ENC_SQL_BLOB: return bind(i, blob: row.blob(c))
        default: return bind(i, nil as Int64?)
        }
    }
}
