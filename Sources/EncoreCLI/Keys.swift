import ArgumentParser
import EncoreClient
import EncoreExposure
import EncoreStorage
import EncoreSupport
#if canImport(Glibc)
import Glibc
#endif

/// `encore keys ...`: the device's own temporary exposure keys.
struct KeysCommand: CommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "The device's own keys: what to broadcast and what to submit.",
        discussion: StoreArguments.keyHelp,
        subcommands: [KeysAdvertise.self, KeysHistory.self]
    )
}

/// `encore keys advertise --db PATH [--now T] [--tx-power DBM]`: the 20
/// bytes to broadcast (RPI ‖ AEM) as hex; makes today's key when needed.
struct KeysAdvertise: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "advertise",
        abstract: "Print the current advertisement payload (RPI ‖ AEM) as 40 hex digits.",
        discussion: "Makes and stores today's key when the store has none yet. " + StoreArguments.keyHelp
            + "\n\nExample:\n  encore keys advertise --db client.db --tx-power -8"
    )

    @OptionGroup var store: StoreArguments

    @OptionGroup var clock: NowArgument

    @Option(name: .customLong("tx-power"), parsing: .unconditional, help: ArgumentHelp("The transmit power in dBm put in the metadata (default 0).", valueName: "dbm"))
    var txPower: Int8 = 0

    func run() throws {
        let client = try store.client(now: clock)
        do {
            Output.write(Hex.encode(try OwnKeySchedule(store: client.store).advertisement(now: client.now(), txPower: txPower)) + "\n")
        } catch {
            throw store.fail(error)
        }
    }
}
