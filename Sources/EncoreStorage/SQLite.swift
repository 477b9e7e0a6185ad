import EncoreSupport
import CEncoreSQL

/// One SQLCipher connection with a cache of prepared statements. Not
/// thread-safe by itself: `Store` serialises access to it. Public (with
/// `Statement` and `EncryptedDatabase`) for the push registry service, a
/// package of its own (server/) that keeps its schema on this layer.
public final class Connection {
    public let db: OpaquePointer
    private var statements: [String: Statement] = [:]

    /// `immutable`: read-only, and SQLite is told the file cannot change
    /// (no locks, no -wal or -shm made beside it): for looking into a file
    /// that is refused or damaged without leaving anything next to it.
    public init(path: String, create: Bool, readOnly: Bool = false, immutable: Bool = false) throws {
        // SQLCipher is loaded privately, once (CEncoreSQL explains why).
        guard enc_sql_load() == 0 else {
            throw EncoreError(.storeFailed, enc_sql_load_error().map { String(cString: $0) } ?? "cannot load SQLCipher")
        }
        var handle: OpaquePointer?
        let access = readOnly || immutable ? ENC_SQL_OPEN_READONLY : ENC_SQL_OPEN_READWRITE | (create ? ENC_SQL_OPEN_CREATE : 0)
        let flags = access | ENC_SQL_OPEN_NOMUTEX | (immutable ? ENC_SQL_OPEN_URI : 0)
        let rc = enc_sql_open(immutable ? Self.immutableURI(path) : path, flags, &handle)
        guard rc == ENC_SQL_OK, let handle else {
            let message = handle.map { String(cString: enc_sql_errmsg($0)) } ?? "error \(rc)"
            enc_sql_close(handle)
            throw EncoreError(.io, "cannot open the store at \(path): \(message)")
        }
        db = handle
        enc_sql_extended_result_codes(db, 1)
    }

    /// file:PATH?immutable=1, the path percent-encoded but for unreserved
    /// characters and "/" (SQLite's URI filenames).
    static func immutableURI(_ path: String) -> String {
        var uri = "file:"
        for b in path.utf8 {
            let c = Character(Unicode.Scalar(b))
            if b < 0x80 && (c.isLetter || c.isNumber || "-._~/".contains(c)) {
                uri.append(c)
            } else {
                let digits = Array("0123456789ABCDEF")
                uri += "%" + String(digits[Int(b >> 4)]) + String(digits[Int(b & 0x0f)])
            }
        }
        return uri + "?immutable=1"
    }

    deinit {
        statements.removeAll() // finalise before closing
        enc_sql_close(db)
    }

    public func exec(_ sql: String) throws {
        let rc = enc_sql_exec(db, sql)
        guard rc == ENC_SQL_OK else { throw error(rc, sql) }
    }

    /// A prepared statement, reset and with its bindings cleared.
    public func prepare(_ sql: String) throws -> Statement {
        if let s = statements[sql] {
            s.reset()
            return s
        }
        var stmt: OpaquePointer?
        let rc = enc_sql_prepare(db, sql, &stmt)
        guard rc == ENC_SQL_OK, let stmt else { throw error(rc, sql) }
        let s = Statement(stmt, connection: self)
        statements[sql] = s
        return s
    }

    /// The first column of the first row of a query, as an integer.
    public func scalar(_ sql: String) throws -> Int64? {
        try prepare(sql).one { $0.int64(0) }
    }

    /// Runs `body` in an immediate transaction: all of it or none of it.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try exec("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try exec("COMMIT")
            return result
        } catch {
            _ = enc_sql_exec(db, "ROLLBACK")
            throw error
        }
    }

    public var changes: Int { Int(enc_sql_changes(db)) }

    /// The error for a SQLite result code on `sql` (or an operation named
    /// in words): the message says what failed in words (SQLOperation), and
    /// SQLite's own text and code follow in brackets, for a bug report.
    public func error(_ rc: Int32, _ sql: String) -> EncoreError {
        error(rc, operation: SQLOperation.describe(sql))
    }

    /// The error for a SQLite result code while doing `operation` ("re-encrypting the store").
    public func error(_ rc: Int32, operation: String) -> EncoreError {
        let detail = "(SQLite \(rc & 0xff): \(String(cString: enc_sql_errmsg(db))))"
        switch rc & 0xff {
        case ENC_SQL_BUSY, ENC_SQL_LOCKED:
            return EncoreError(.storeBusy, "the store is busy: another process held it while \(operation) \(detail)")
        case ENC_SQL_NOTADB, ENC_SQL_CORRUPT:
            // Only after the key proved right on the first page (prove()
            // turns a first page that fails into a wrong key).
            return EncoreError(.storeCorrupt, "the store is damaged: \(operation) failed \(detail)")
        case ENC_SQL_NOMEM: return EncoreError(.outOfMemory, "out of memory while \(operation) \(detail)")
        case ENC_SQL_CONSTRAINT, ENC_SQL_MISMATCH, ENC_SQL_RANGE, ENC_SQL_TOOBIG:
            return EncoreError(.invalidArgument, "the store refused a value while \(operation) \(detail)")
        default: return EncoreError(.storeFailed, "the store failed while \(operation) \(detail)")
        }
    }
}

/// A prepared statement: bind by 1-based index, step, read columns.
/// Binding does not throw, so that binds chain; a bind SQLite refuses (a
/// value over its length limit) is kept and thrown by the next step(), so
/// that no statement runs with a parameter silently left NULL or cut short.
public final class Statement {
    public let handle: OpaquePointer
    private unowned let connection: Connection
    private var bindFailure: EncoreError?

    public init(_ handle: OpaquePointer, connection: Connection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { enc_sql_finalize(handle) }

    public func reset() {
        enc_sql_reset(handle)
        enc_sql_clear_bindings(handle)
        bindFailure = nil
    }

    private func bound(_ rc: Int32, _ i: Int32) {
        if rc != ENC_SQL_OK, bindFailure == nil {
            bindFailure = connection.error(rc, operation: SQLOperation.describe(String(cString: enc_sql_sql(handle))) + " (value \(i))")
        }
    }

    @discardableResult
    public func bind(_ i: Int32, _ v: Int64) -> Statement { bound(enc_sql_bind_int64(handle, i, v), i); return self }
    @discardableResult
    public func bind(_ i: Int32, _ v: Double) -> Statement { bound(enc_sql_bind_double(handle, i, v), i); return self }
    @discardableResult
    public func bind(_ i: Int32, _ v: Int64?) -> Statement {
        guard let v else { bound(enc_sql_bind_null(handle, i), i); return self }
        return bind(i, v)
    }
    /// Text with its length, so that a NUL inside is stored, not an end.
    @discardableResult
    public func bind(_ i: Int32, text: String?) -> Statement {
        guard var text else { bound(enc_sql_bind_null(handle, i), i); return self }
        text.withUTF8 { utf8 in
            // A zero-length text, not NULL, for an empty string.
            let p = UnsafeRawPointer(utf8.baseAddress) ?? UnsafeRawPointer(bitPattern: 1)
            bound(enc_sql_bind_text(handle, i, p?.assumingMemoryBound(to: CChar.self), UInt64(utf8.count)), i)
        }
        return self
    }
    @discardableResult
    public func bind(_ i: Int32, blob: UnsafeRawBufferPointer) -> Statement {
        // A zero-length blob, not NULL, for an empty buffer.
        let p = blob.baseAddress ?? UnsafeRawPointer(bitPattern: 1)
        bound(enc_sql_bind_blob(handle, i, p, UInt64(blob.count)), i)
        return self
    }
    @discardableResult
    public func bind(_ i: Int32, blob: [UInt8]) -> Statement { blob.withUnsafeBytes { bind(i, blob: $0) } }

    /// Steps once: true when a row is ready, false when done.
    public func step() throws -> Bool {
        if let bindFailure {
            reset()
            throw bindFailure
        }
        let rc = enc_sql_step(handle)
        switch rc {
        case ENC_SQL_ROW: return true
        case ENC_SQL_DONE: return false
        default:
            let e = connection.error(rc, String(cString: enc_sql_sql(handle)))
            enc_sql_reset(handle)
            throw e
        }
    }

    /// Steps a statement that returns no rows.
    public func run() throws {
        defer { enc_sql_reset(handle) }
        _ = try step()
    }

    /// Reads the first row, if any, and resets: a statement left on a row
    /// would keep its read transaction (and other processes) waiting.
    public func one<T>(_ read: (Statement) throws -> T) throws -> T? {
        defer { enc_sql_reset(handle) }
        return try step() ? read(self) : nil
    }

    public func isNull(_ c: Int32) -> Bool { enc_sql_column_type(handle, c) == ENC_SQL_NULL }
    public func int64(_ c: Int32) -> Int64 { enc_sql_column_int64(handle, c) }
    public func double(_ c: Int32) -> Double { enc_sql_column_double(handle, c) }
    public func optionalInt64(_ c: Int32) -> Int64? { isNull(c) ? nil : int64(c) }

    public func text(_ c: Int32) -> String? {
        guard let p = enc_sql_column_text(handle, c) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: p, count: Int(enc_sql_column_bytes(handle, c))), as: UTF8.self)
    }

    public func blob(_ c: Int32) -> [UInt8] {
        let n = Int(enc_sql_column_bytes(handle, c))
        guard n > 0, let p = enc_sql_column_blob(handle, c) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }

    /// The bytes of a blob or text column without a copy, valid until the
    /// statement steps or resets. column_blob first, then column_bytes: a
    /// stored blob or text read as a blob is not converted.
    public func columnBytes(_ c: Int32) throws -> UnsafeRawBufferPointer {
        let p = enc_sql_column_blob(handle, c)
        let n = Int(enc_sql_column_bytes(handle, c))
        guard n > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        guard let p else { throw EncoreError(.outOfMemory, "store: SQLite could not hand out a value of \(n) bytes") }
        return UnsafeRawBufferPointer(start: p, count: n)
    }
}
