import ArgumentParser
import EncoreCheckIns
import EncoreClient
import EncoreCommandSupport
import EncoreExposure
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport

/// `encore store salvage --db DAMAGED --to NEW`
struct StoreSalvageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "salvage",
        abstract: "Copy what can still be read of a damaged store into a new store.",
        discussion: """
            Opens the damaged store at PATH read-only (it is never written) and copies every row \
            that can still be read into a new store at --to, made with every table of this encore: \
            table by table, in rowid order, stepping over the stretches of rows that cannot be \
            read. Then says, per table, how many rows were copied and what was lost (the rowids \
            that could not be read, and at most how many rows that is).

            The new store's key is ENCORE_NEW_DB_KEY or ENCORE_NEW_DB_KEY_HEX when one is set, \
            else the damaged store's own key. --to must name a file that does not exist; when the \
            salvage fails nothing is left there.

            Exit status: 0 when the new store was written (even when rows were lost: the report \
            says which); 1 when nothing could be salvaged (a wrong key, the list of tables \
            damaged, --to exists); 2 when the command line or the key variables are wrong.

            Example:
              ENCORE_DB_KEY=secret encore store salvage --db client.db --to rescued.db
            """
    )

    @OptionGroup var store: StoreArguments

    @Option(name: .long, help: ArgumentHelp("The new store to write (must not exist).", valueName: "path"))
    var to: String

    @OptionGroup var output: JSONFlag

    func validate() throws {
        guard !to.isEmpty else { throw ValidationError("--to must name a file") }
        if StoreKeyEnvironment.new.isSet { _ = try StoreKeyEnvironment.new.key() }
    }

    func run() throws {
        let key = try StoreKeyEnvironment.current.key()
        let newKey = StoreKeyEnvironment.new.isSet ? try StoreKeyEnvironment.new.key() : key
        let report: SalvageReport
        do {
            report = try StoreSalvage.salvage(from: store.db, key: key.key, to: to, newKey: newKey.key)
        } catch let e as EncoreError where e.message.contains(to) && !e.message.contains(store.db) {
            Output.fail(to, e.message)
            throw ExitCode(EncoreExit.failure)
        } catch {
            throw store.fail(error, keyVariable: key.variable)
        }
        if output.json {
            Output.write(report.json.rendered(pretty: true) + "\n")
            return
        }
        let outcome = report.complete ? "every row copied" : "some rows could not be read"
        Output.write("\(Output.oneLine(store.db)) -> \(Output.oneLine(to)): \(report.rowsCopied) rows copied, \(outcome) (key from \(newKey.variable))\n")
        Output.write(report.text.split(separator: "\n").map { "  " + Output.oneLine(String($0)) + "\n" }.joined())
    }
}
