import ArgumentParser
import EncoreClient
import EncoreExposure
import EncoreStorage
#if canImport(Glibc)
import Glibc
#endif

/// `encore store init --db PATH`
struct StoreInit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create an encrypted store.",
        discussion: """
            Creates the store at PATH, encrypted with the key from the environment, readable and \
            writable by its owner only. A store that already exists and opens with the key is \
            left as it is (brought up to the latest schema version if it is older), so running \
            init twice is harmless; a file that is not a store, or a store with another key, is \
            refused and not touched.

            \(StoreArguments.keyHelp)

            Exit status: 0 when the store exists afterwards; 1 when it cannot be created or \
            opened (one line on stderr says why); 2 when the command line or the key variables \
            are wrong.

            Example:
              ENCORE_DB_KEY_HEX=$(openssl rand -hex 32) encore store init --db client.db
            """
    )

    @OptionGroup var store: StoreArguments

    func run() throws {
        let existed = StoreFileSize.of(store.db) > 0
        // The file (and SQLite's -wal and -shm files, which copy its mode)
        // for the owner only: the contents are encrypted, but who uses the
        // app and how much is nobody else's business.
        let previous = umask(0o077)
        defer { umask(previous) }
        let opened = try store.client(create: true).store
        let version: Int
        do {
            version = try opened.schemaVersion
        } catch {
            throw store.fail(error)
        }
        let what = existed ? "store already exists and opens with this key; left as it is" : "created the store"
        Output.write("\(Output.oneLine(store.db)): \(what) (schema version \(version))\n")
    }
}
