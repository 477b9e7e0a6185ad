import ArgumentParser
import EncoreCheckIns
import EncoreClient
import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport

/// `encore store info --db PATH [--json]`
struct StoreInfo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe a store: schema version, sizes, what it holds.",
        discussion: """
            Opens the store at PATH (it must exist) and prints its schema version, the size of \
            its files and how many rows each kind of data has.

            \(StoreArguments.keyHelp)

            Exit status: 0 on success; 1 when the store is missing or cannot be opened (wrong key, \
            not a store, made by a newer encore); 2 when the command line or the key variables \
            are wrong.

            Example:
              encore store info --db client.db --json
            """
    )

    @OptionGroup var store: StoreArguments

    @OptionGroup var output: JSONFlag

    func run() throws {
        let opened = try store.client().store
        let version: Int
        let sightings: Int
        let tables: [String: Int]
        do {
            version = try opened.schemaVersion
            sightings = try opened.countSightings()
            tables = try opened.tableVersions()
        } catch {
            throw store.fail(error)
        }
        let fileSize = StoreFileSize.of(store.db)
        let walSize = StoreFileSize.of(store.db + "-wal")
        // Counts per kind of data, in this order; more as the store's
        // tables gain counting APIs.
        let counts: [(name: String, label: String, count: Int)] = [
            ("sightings", "sightings", sightings),
        ]
        if output.json {
            let object: JSONValue = .object([
                ("path", .string(store.db)),
                ("schemaVersion", .int(version)),
                ("latestSchemaVersion", .int(Store.latestSchemaVersion)),
                // Each feature's tables' version (the store's own is schemaVersion).
                ("tables", .object(tables.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })),
                ("fileSize", .int(fileSize)),
                ("walSize", .int(walSize)),
                ("counts", .object(counts.map { ($0.name, .int($0.count)) })),
            ])
            Output.write(object.rendered(pretty: true) + "\n")
            return
        }
        let latest = Store.latestSchemaVersion
        var lines: [(String, String)] = [
            ("store", Output.oneLine(store.db)),
            ("schema version", "\(version)" + (version == latest ? " (latest)" : " (latest is \(latest))")),
            ("tables", tables.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")),
            ("file size", "\(fileSize) bytes" + (walSize > 0 ? " (+ \(walSize) bytes of write-ahead log)" : "")),
        ]
        lines += counts.map { ($0.label, String($0.count)) }
        Output.write(LabelledLines.render(lines))
    }
}
