import ArgumentParser
import EncoreClient
import EncoreStorage
import EncoreSupport

/// `encore store check --db PATH`
struct StoreCheck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the store for damage.",
        discussion: """
            Reads every table of the store at PATH row by row and walks every index (SQLCipher \
            checks each page as it decrypts it), then runs SQLite's integrity check. Nothing is \
            written. A damaged store can give back what is still readable with \
            `encore store salvage`.

            Exit status: 0 when the store is sound (one line on stdout); 1 when it is damaged \
            (what is damaged, in words, on stderr) or cannot be opened; 2 when the command line \
            or the key variables are wrong.

            Example:
              ENCORE_DB_KEY=secret encore store check --db client.db
            """
    )

    @OptionGroup var store: StoreArguments

    func run() throws {
        let opened = try store.openStore()
        let found: [String]
        do {
            found = try opened.damage()
        } catch {
            throw store.fail(error)
        }
        guard found.isEmpty else {
            throw store.fail(EncoreError(.storeCorrupt, "the store is damaged: " + found.joined(separator: "; ")))
        }
        Output.write("\(Output.oneLine(store.db)): sound: every table reads whole and SQLite's integrity check passes\n")
    }
}
