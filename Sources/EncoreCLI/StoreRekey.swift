import ArgumentParser
import EncoreCheck
import EncoreClient
import EncoreCommandSupport
import EncoreStorage

/// `encore store rekey --db PATH`
struct StoreRekey: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Re-encrypt a store under a new key.",
        discussion: """
            Opens the store at PATH with its current key (ENCORE_DB_KEY or ENCORE_DB_KEY_HEX) and \
            re-encrypts it under the new key: ENCORE_NEW_DB_KEY (a passphrase) or \
            ENCORE_NEW_DB_KEY_HEX (64 hex digits); set exactly one of them. Either kind of key \
            can replace either kind. The store is then opened again with the new key to check it.

            Keys come from the environment, never from the command line.

            Exit status: 0 when the store now opens with the new key; 1 when it cannot be opened \
            or re-encrypted; 2 when the command line or the key variables are wrong.

            Example:
              ENCORE_DB_KEY=old ENCORE_NEW_DB_KEY=new encore store rekey --db client.db
            """
    )

    @OptionGroup var store: StoreArguments

    func validate() throws {
        _ = try StoreKeyEnvironment.new.key()
    }

    func run() throws {
        let newKey = try StoreKeyEnvironment.new.key()
        do {
            let opened = try store.client().store
            do {
                try opened.rekey(to: newKey.key)
            } catch {
                throw store.fail(error)
            }
        } // the store is closed here
        let reopened: Store
        do {
            reopened = try ToolClient.store(path: store.db, key: newKey.key)
            _ = try reopened.schemaVersion
        } catch {
            throw store.fail(error, keyVariable: newKey.variable)
        }
        Output.write("\(Output.oneLine(store.db)): re-encrypted with the key from \(newKey.variable)\n")
    }
}
