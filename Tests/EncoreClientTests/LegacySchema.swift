import EncoreClient
import EncoreStorage

/// The store-wide schema as encore wrote it before features had tables of
/// their own (versions 1 to 6): what the migration tests make old stores
/// with. Version v's migration held every feature's steps recorded with
/// `storeVersion` v (StoreTables.Migration), and version 1 the settings.
enum LegacySchema {
    static let settings = """
        CREATE TABLE settings (
            name TEXT PRIMARY KEY,
            value NOT NULL
        );
        """

    /// Migration i brings the store-wide schema from version i to i + 1.
    static let migrations: [String] = (1 ... 6).map { version in
        let steps = StoreTables.all.flatMap { $0.migrations.filter { $0.storeVersion == version }.map(\.sql) }
        return (steps + (version == 1 ? [settings] : [])).joined(separator: "\n")
    }
}
