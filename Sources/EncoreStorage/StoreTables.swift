import EncoreSupport

/// One feature's part of the store: its tables as forward-only migrations,
/// the setting names it keeps for itself, and what a purge removes of it.
/// The engine knows no feature: the client hands it every feature's
/// StoreTables when it opens the store, and the engine records a version
/// per feature (table `store_tables`), so that each feature migrates its
/// own tables and a new feature only adds its own list.
public struct StoreTables: Sendable {
    /// One step of a feature's tables. Never edit a step that has shipped;
    /// add a new one.
    public struct Migration: Sendable {
        public let sql: String
        /// The store-wide schema version (PRAGMA user_version, 1 to 6)
        /// whose migration held this step, before features had versions of
        /// their own (encore 1.0's development); nil for steps made since.
        public let storeVersion: Int?
        public init(_ sql: String, storeVersion: Int? = nil) {
            self.sql = sql
            self.storeVersion = storeVersion
        }

        /// A step that renames a setting the library keeps (a feature
        /// taking over a name it kept under another feature's prefix): the
        /// settings table is the engine's, so its SQL is written here.
        public static func renamingSetting(_ old: String, to new: String) -> Migration {
            func quoted(_ s: String) -> String { "'" + s.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'" }
            return Migration("UPDATE OR REPLACE settings SET name = \(quoted(new)) WHERE name = \(quoted(old))")
        }
    }

    /// What a purge did to one kind of row: its name (as the C struct and
    /// the JSON name it) and how many rows went.
    public typealias Purged = (name: String, rows: Int)
    /// Deletes what is older than the cut-off on the connection, inside the
    /// purge's one transaction; returns what it removed, by kind.
    public typealias Purge = @Sendable (Connection, _ cutoff: Int64) throws -> [Purged]

    /// The feature's name in `store_tables` ("exposure", "checkins"...).
    public let feature: String
    public let migrations: [Migration]
    /// Setting names starting with one of these are the feature's own: a
    /// host's settings API neither reads nor writes them.
    public let settingPrefixes: [String]
    public let purge: Purge?

    public init(feature: String, migrations: [Migration] = [], settingPrefixes: [String] = [], purge: Purge? = nil) {
        self.feature = feature
        self.migrations = migrations
        self.settingPrefixes = settingPrefixes
        self.purge = purge
    }

    public var version: Int { migrations.count }
}

/// How many rows a purge removed, per kind of data (the names the
/// features' purges give).
public struct PurgeCounts: Equatable, Sendable {
    public private(set) var rows: [String: Int] = [:]
    public init() {}
    public subscript(name: String) -> Int {
        get { rows[name] ?? 0 }
        set { rows[name] = newValue }
    }
    public var total: Int { rows.values.reduce(0, +) }
}

/// The engine's own part of the store: its format and the settings.
enum EngineSchema {
    /// PRAGMA user_version of a store whose tables have a version per
    /// feature. 1 to 6 are the store-wide versions before, which opening
    /// turns into per-feature ones (StoreTables.Migration.storeVersion).
    static let version = 7

    static let tables = """
        CREATE TABLE IF NOT EXISTS settings (
            name TEXT PRIMARY KEY,
            value NOT NULL
        );
        CREATE TABLE store_tables (
            feature TEXT PRIMARY KEY,
            version INTEGER NOT NULL CHECK (version >= 0)
        );
        """

    /// The version of each feature's tables, by feature.
    static func featureVersions(_ c: Connection) throws -> [String: Int] {
        var out: [String: Int] = [:]
        let s = try c.prepare("SELECT feature, version FROM store_tables")
        while try s.step() { out[s.text(0) ?? ""] = Int(clamping: s.int64(1)) }
        return out
    }

    /// Brings the store at `version` (its user_version) to the engine's
    /// format and every feature's tables to their latest, a transaction a
    /// step. A feature of a newer encore (a version beyond its list) is
    /// refused before anything is written.
    static func migrate(_ c: Connection, from version: Int, features: [StoreTables], kind: String, path: String) throws {
        if version < Self.version {
            try c.transaction {
                try c.exec(tables)
                let insert = try c.prepare("INSERT INTO store_tables (feature, version) VALUES (?, ?)")
                for f in features {
                    // Steps a store-wide version up to `version` held are done.
                    let done = f.migrations.prefix { ($0.storeVersion ?? Int.max) <= version }.count
                    insert.reset()
                    try insert.bind(1, text: f.feature).bind(2, Int64(done)).run()
                }
                try c.exec("PRAGMA user_version = \(Self.version)")
            }
        }
        let versions = try featureVersions(c)
        for f in features where (versions[f.feature] ?? 0) > f.version {
            throw EncoreError(.storeTooNew, "the \(kind) at \(path) has \(f.feature) tables of version \(versions[f.feature] ?? 0); this encore knows up to \(f.version)")
        }
        for f in features where versions[f.feature] == nil {
            // A feature new to this store starts with none of its tables.
            try c.prepare("INSERT INTO store_tables (feature, version) VALUES (?, 0)").bind(1, text: f.feature).run()
        }
        for f in features {
            var v = versions[f.feature] ?? 0
            while v < f.version {
                try c.transaction {
                    try c.exec(f.migrations[v].sql)
                    try c.prepare("INSERT OR REPLACE INTO store_tables (feature, version) VALUES (?, ?)").bind(1, text: f.feature).bind(2, Int64(v + 1)).run()
                }
                v += 1
            }
        }
    }
}
