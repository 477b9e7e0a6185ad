import EncoreSupport
import CEncoreSQL
#if canImport(Glibc)
import Glibc
#endif

/// What opening a store may be told.
public struct StoreOptions: Sendable {
    /// Create the file when it is missing (default); when false a missing
    /// file is `.storeMissing`.
    public var create: Bool = true
    /// How long to wait for another process's lock before `.storeBusy`.
    public var busyTimeoutMilliseconds: Int32 = 5000

    public init(create: Bool = true, busyTimeoutMilliseconds: Int32 = 5000) {
        self.create = create
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
    }
}

/// One encrypted SQLCipher database file (plus its WAL while open) with
/// forward-only migrations: what the client's Store and the push registry
/// are built on. Every method is safe to call from several threads: calls
/// are serialised on the one connection. Two processes on one file wait
/// for each other up to the busy timeout.
public final class EncryptedDatabase: @unchecked Sendable {
    // @unchecked: Connection is not Sendable; it is reached only through its lock.
    public let path: String
    /// What the file holds, for messages ("store", "push registry").
    public let kind: String
    /// The one connection, behind its lock (not a lock of nothing beside it:
    /// ThreadSanitizer took the empty value's accesses for races); nil once
    /// close() closed it.
    private let connection: Locked<Connection?>
    /// The connection's busy timeout (StoreOptions), restored after a
    /// checkpoint that must not wait.
    private let busyTimeoutMilliseconds: Int32

    /// Opens (or creates) the database at `path` and brings its schema up to
    /// `migrations.count` (migration i takes version i to i + 1). A wrong
    /// key, a file that is not such a database, and a file of a newer
    /// schema are refused without writing a byte to the file.
    public convenience init(path: String, key: StoreKey, options: StoreOptions, migrations: [String], kind: String) throws {
        try self.init(path: path, key: key, options: options, kind: kind, latestVersion: migrations.count) { c, version in
            var v = version
            while v < migrations.count {
                try c.transaction {
                    try c.exec(migrations[v])
                    try c.exec("PRAGMA user_version = \(v + 1)")
                }
                v += 1
            }
        }
    }

    /// Opens (or creates) the database at `path`; `migrate` brings it from
    /// the version it has (PRAGMA user_version, at most `latestVersion`) to
    /// the latest. Refusals as above.
    public init(path: String, key: StoreKey, options: StoreOptions, kind: String, latestVersion latest: Int,
                migrate: (Connection, Int) throws -> Void) throws {
        let keyBytes = try key.sqlcipherKey()
        let existing = try StoreFile.inspect(path)
        if !existing.exists && !options.create {
            throw EncoreError(.storeMissing, "no \(kind) at \(path) (creating one was not allowed)")
        }
        // An empty file is no store, whatever the options say: a store lost
        // on disk must not come back as a store with nothing in it. (With
        // a WAL beside it the store is being created by another connection.)
        if existing.exists && existing.size == 0 && !StoreFile.hasWAL(path) {
            throw EncoreError(.storeMissing, "\(path) is an empty file, not an encore \(kind): a \(kind) lost on disk, or a file made by another program; it was left as it is (remove it to create a new \(kind) there)")
        }
        if existing.isPlaintextSQLite {
            throw EncoreError(.storeNotDatabase, "\(path) is an unencrypted SQLite database, not an encore \(kind)")
        }
        // SQLCipher writes whole pages: a file cut anywhere else is damaged
        // when the key opens its first page, and is not a store otherwise.
        if existing.size % Int64(StoreFile.legacyPageSize) != 0 {
            let cut = "its length is not a whole number of pages: it was cut short or written to by something else"
            do {
                _ = try Self.open(path: path, create: false, readOnly: true, key: keyBytes, pageSizes: [StoreFile.pageSize, StoreFile.legacyPageSize],
                                  latest: Int.max, kind: kind)
            } catch let e as EncoreError where e.kind == .storeWrongKey {
                throw EncoreError(.storeNotDatabase, "\(path) is not an encore \(kind), or its first page is damaged (\(cut))")
            } catch let e as EncoreError where e.kind == .storeCorrupt {
                throw EncoreError(.storeCorrupt, "the \(kind) at \(path) is damaged: \(cut)")
            }
            throw EncoreError(.storeCorrupt, "the \(kind) at \(path) is damaged: \(cut)")
        }
        // New files get StoreFile.pageSize; a file written before has
        // either size, which only the key proof tells apart.
        var pageSizes = existing.size > 0 ? [StoreFile.pageSize, StoreFile.legacyPageSize] : [StoreFile.pageSize]
        // A crash leaves a WAL behind, and the last connection to close
        // checkpoints it into the file. A refused open must not be that
        // connection, so with a WAL present the key, page size and version
        // are proven on a read-only connection first (it cannot checkpoint).
        if existing.exists && StoreFile.hasWAL(path) {
            let probe = try Self.open(path: path, create: false, readOnly: true, key: keyBytes, pageSizes: pageSizes, latest: latest, kind: kind)
            pageSizes = [probe.pageSize]
        }
        let (c, version, _) = try Self.open(path: path, create: options.create, readOnly: false, key: keyBytes, pageSizes: pageSizes,
                                            latest: latest, kind: kind)
        enc_sql_busy_timeout(c.db, options.busyTimeoutMilliseconds)
        busyTimeoutMilliseconds = options.busyTimeoutMilliseconds
        // Durable commits, zeroed deletions, WAL for concurrent readers.
        try c.exec("PRAGMA secure_delete = ON")
        try c.exec("PRAGMA journal_mode = WAL")
        try c.exec("PRAGMA synchronous = FULL")
        try c.exec("PRAGMA foreign_keys = ON")
        try migrate(c, Int(version))
        self.path = path
        self.kind = kind
        self.connection = Locked(c)
    }

    /// Runs `body` with the connection, one caller at a time; `.storeClosed`
    /// after close().
    public func withConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        try connection.withLock { c in
            guard let c else { throw EncoreError(.storeClosed, "the \(kind) at \(path) is closed") }
            return try body(c)
        }
    }

    /// Closes the database file: waits for the call under way, then every
    /// later call fails with `.storeClosed`, whoever holds the object.
    /// Closing again does nothing.
    public func close() {
        connection.withLock { $0 = nil }
    }

    public var schemaVersion: Int {
        get throws { try withConnection { Int(try $0.scalar("PRAGMA user_version") ?? 0) } }
    }

    /// Re-encrypts the database under a new key. WAL is left for the
    /// rewrite (SQLCipher cannot rekey in WAL mode) and resumed afterwards.
    public func rekey(to key: StoreKey) throws {
        let keyBytes = try key.sqlcipherKey()
        try withConnection { c in
            try c.exec("PRAGMA wal_checkpoint(TRUNCATE)")
            try c.exec("PRAGMA journal_mode = DELETE")
            let rc = keyBytes.withUnsafeBytes { enc_sql_rekey(c.db, $0.baseAddress, Int32($0.count)) }
            let restored = enc_sql_exec(c.db, "PRAGMA journal_mode = WAL")
            guard rc == ENC_SQL_OK else { throw c.error(rc, operation: "re-encrypting the \(kind)") }
            guard restored == ENC_SQL_OK else { throw c.error(restored, "PRAGMA journal_mode = WAL") }
        }
    }

    /// The integrity check (damage()): nil when the database is sound, else its findings.
    public func integrityProblems() throws -> [String]? {
        let found = try damage()
        return found.isEmpty ? nil : found
    }

    /// Moves everything in the WAL into the database file and empties the WAL.
    public func checkpoint() throws {
        try withConnection { try $0.exec("PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    /// Turns the WAL's automatic checkpoints off until resumeCheckpoints():
    /// a run of large commits (a sync's key files) is then written once, to
    /// the WAL, and its copy into the database file (with the file's sync)
    /// waits for a moment the caller chooses, off a host's event loop. The
    /// WAL grows meanwhile; the setting is the connection's, not the file's.
    public func pauseCheckpoints() throws {
        try withConnection { try $0.exec("PRAGMA wal_autocheckpoint = 0") }
    }

    /// Turns automatic checkpoints on again (SQLite's default: every 1000
    /// pages) and checkpoints what the WAL holds, without waiting for
    /// readers; when no reader holds the WAL, the file is cut to nothing.
    /// SQLite reuses a WAL without shrinking it, and the last connection
    /// deletes it when it closes: a sync's paused WAL (27 MB for 14 days
    /// of 1 000 000 keys) left at its size made that close, often on a
    /// host's event loop, wait some 20-30 ms for the file system to free
    /// it (make bench-sync). Cut here, in the caller's compute step, it is
    /// freed off the loop.
    public func resumeCheckpoints() throws {
        try withConnection { c in
            try c.exec("PRAGMA wal_autocheckpoint = 1000")
            // TRUNCATE waits for readers through the busy handler; without
            // one it does what PASSIVE does and truncates only when no
            // reader is in the way (then it returns busy in its row, not an error).
            enc_sql_busy_timeout(c.db, 0)
            defer { enc_sql_busy_timeout(c.db, busyTimeoutMilliseconds) }
            try c.exec("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    /// A connection keyed with the first of `pageSizes` the file opens
    /// with, and the schema version. A wrong key fails with every size.
    /// `salvaging`: the connection is for reading what is left of a
    /// damaged file (StoreSalvage): SQLite is told to read a file shorter
    /// than its first page says (writable_schema, on a read-only connection).
    static func open(path: String, create: Bool, readOnly: Bool, key: [UInt8], pageSizes: [Int32], latest: Int,
                     kind: String, salvaging: Bool = false) throws -> (Connection, version: Int64, pageSize: Int32) {
        // A read-only look at a file without a WAL leaves none behind
        // (SQLite makes an empty -wal for a WAL-mode file otherwise).
        let immutable = readOnly && !StoreFile.hasWAL(path)
        for (i, size) in pageSizes.enumerated() {
            let c = try Connection(path: path, create: create, readOnly: readOnly, immutable: immutable)
            do {
                return (c, try prove(key, pageSize: size, on: c, path: path, latest: latest, kind: kind, salvaging: salvaging), size)
            } catch let e as EncoreError where e.kind == .storeWrongKey && i + 1 < pageSizes.count {
                continue
            }
        }
        throw EncoreError(.internalError, "no page size to open the \(kind) at \(path) with")
    }

    /// Keys a connection and reads the schema version: the first read
    /// proves the key (and the page size) before anything is written.
    /// Returns the version.
    ///
    /// Only the first page tells a wrong key: SQLCipher checks each page's
    /// MAC when it reads it, and PRAGMA user_version reads the first page
    /// alone. Once that page opened, the key is right, and a page read
    /// after it that fails its check (the list of tables, on a store cut
    /// short or overwritten) is damage, not a wrong key. A damaged first
    /// page cannot be told from a wrong key (its MAC fails either way).
    private static func prove(_ key: [UInt8], pageSize: Int32, on c: Connection, path: String, latest: Int, kind: String,
                              salvaging: Bool) throws -> Int64 {
        let rc = key.withUnsafeBytes { enc_sql_key(c.db, $0.baseAddress, Int32($0.count)) }
        guard rc == ENC_SQL_OK else { throw c.error(rc, operation: "setting the key of the \(kind)") }
        try c.exec("PRAGMA cipher_page_size = \(pageSize)")
        if salvaging { try c.exec("PRAGMA writable_schema = ON") }
        // SQLITE_NOTADB: the first page fails its MAC (a wrong key or page
        // size). SQLITE_CORRUPT: it opened, but what it says is broken (the
        // file is shorter than the page count it records: a store cut short).
        let first = enc_sql_exec(c.db, "PRAGMA user_version")
        switch first & 0xff {
        case ENC_SQL_OK: break
        case ENC_SQL_NOTADB:
            throw EncoreError(.storeWrongKey, "wrong key for the \(kind) at \(path) (or the file is not an encore \(kind), or its first page is damaged)")
        case ENC_SQL_CORRUPT:
            throw EncoreError(.storeCorrupt, "the \(kind) at \(path) is damaged: the key opens its first page, but the file is shorter than that page says (cut short?)")
        default: throw c.error(first, "PRAGMA user_version")
        }
        let version = try c.scalar("PRAGMA user_version") ?? 0
        do {
            _ = try c.scalar("SELECT count(*) FROM sqlite_master")
        } catch let e as EncoreError where e.kind == .storeCorrupt {
            throw EncoreError(.storeCorrupt, "the \(kind) at \(path) is damaged: the key opens its first page, but its list of tables cannot be read")
        }
        guard version <= Int64(latest) else {
            throw EncoreError(.storeTooNew, "the \(kind) at \(path) has schema version \(version); this encore knows up to \(latest)")
        }
        return version
    }
}

/// The client's encrypted state: every feature's tables (StoreTables) and
/// the settings in one EncryptedDatabase. Safe to use from several threads.
public final class Store: Sendable {
    package let database: EncryptedDatabase
    public var path: String { database.path }
    /// The features whose tables the store was opened with.
    public let tables: [StoreTables]

    /// The store's format (PRAGMA user_version): the engine's, whose
    /// features' tables have versions of their own.
    public static var latestSchemaVersion: Int { EngineSchema.version }

    /// Opens (or creates) the store at `path` with the tables of
    /// `features`, each migrated to its latest. A wrong key, a file that is
    /// not a store, and a file from a newer encore (or with a feature's
    /// newer tables) are refused without writing a byte to the file.
    public init(path: String, key: StoreKey, options: StoreOptions = StoreOptions(), features: [StoreTables]) throws {
        let names = features.map(\.feature)
        guard Set(names).count == names.count else { throw EncoreError(.invalidArgument, "a feature's tables were given twice") }
        tables = features
        database = try EncryptedDatabase(path: path, key: key, options: options, kind: "store", latestVersion: EngineSchema.version) { c, version in
            try EngineSchema.migrate(c, from: version, features: features, kind: "store", path: path)
        }
    }

    /// The version of each feature's tables, by feature.
    public func tableVersions() throws -> [String: Int] {
        try withConnection(EngineSchema.featureVersions)
    }

    /// The prefixes of the setting names the library keeps for itself:
    /// the engine's "encore." and every feature's settingPrefixes.
    public var librarySettingPrefixes: [String] { ["encore."] + tables.flatMap(\.settingPrefixes) }

    /// Whether `name` is a setting the library keeps for itself.
    public func isLibrarySetting(_ name: String) -> Bool {
        librarySettingPrefixes.contains { name.hasPrefix($0) }
    }

    /// Throws for a setting name the library keeps for itself.
    public func checkHostSettingName(_ name: String) throws {
        guard !isLibrarySetting(name) else {
            let prefixes = librarySettingPrefixes
            throw EncoreError(.invalidArgument, "the setting '\(name)' is the library's own (names starting \(prefixes.map { "'\($0)'" }.joined(separator: ", ")) are): choose another name")
        }
    }

    /// Runs `body` with the connection, one caller at a time.
    package func withConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        try database.withConnection(body)
    }

    public var schemaVersion: Int { get throws { try database.schemaVersion } }

    /// Re-encrypts the store under a new key.
    public func rekey(to key: StoreKey) throws { try database.rekey(to: key) }

    /// Closes the database (EncryptedDatabase.close): later calls, through
    /// any holder, fail with `.storeClosed`.
    public func close() { database.close() }

    /// The integrity check (damage()): nil when the store is sound, else its findings.
    public func integrityProblems() throws -> [String]? { try database.integrityProblems() }

    /// Moves everything in the WAL into the database file and empties the WAL.
    public func checkpoint() throws { try database.checkpoint() }

    /// The WAL's automatic checkpoints off (EncryptedDatabase.pauseCheckpoints).
    public func pauseCheckpoints() throws { try database.pauseCheckpoints() }

    /// The WAL's automatic checkpoints on again, and what waits checkpointed.
    public func resumeCheckpoints() throws { try database.resumeCheckpoints() }
}

/// What a store's file looks like before SQLCipher touches it.
package enum StoreFile {
    /// The page size of new files: SQLite's and SQLCipher 4's default.
    /// SQLCipher 3 (what Debian ships) encrypts, authenticates and writes
    /// each page on its own, with a fresh cipher context each time: with
    /// its default of 1 KiB that per-page work was most of the cost of
    /// storing key files and reading them back (a sync's cache writes
    /// took 1.8x as long).
    package static let pageSize: Int32 = 4096
    /// SQLCipher 3's default, which the stores of earlier encore builds use
    /// (they keep it); every store's size is a multiple of it.
    package static let legacyPageSize: Int32 = 1024
    package static let plaintextMagic = Array("SQLite format 3\0".utf8)

    /// Whether a non-empty WAL lies beside the store (left by a crash, or
    /// by another connection that has the store open).
    package static func hasWAL(_ path: String) -> Bool {
        var st = stat()
        return stat(path + "-wal", &st) == 0 && st.st_size > 0
    }

    package static func inspect(_ path: String) throws -> (exists: Bool, size: Int64, isPlaintextSQLite: Bool) {
        var st = stat()
        guard stat(path, &st) == 0 else { return (false, 0, false) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw EncoreError(.io, "\(path) is not a regular file") }
        var head = [UInt8](repeating: 0, count: 16)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw EncoreError(.io, "cannot read \(path)") }
        defer { close(fd) }
        let n = read(fd, &head, 16)
        return (true, Int64(st.st_size), n == 16 && head == plaintextMagic)
    }
}
