import ArgumentParser
import EncoreCheckIns
import EncoreClient
import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport

/// `encore keys history --db PATH [--days 14] [--now T] [--json]`: the
/// device's own keys of the last days, as a positive user would submit them.
struct KeysHistory: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List the device's own keys of the last days (today's included), oldest first.",
        discussion: """
            One line a key: its key data in hex, its first interval (and that interval's UTC \
            time) and its rolling period. With --json an array of {keyData, \
            rollingStartIntervalNumber, rollingPeriod}, key data in hex. These keys are secret \
            until a positive test is reported: print them only where you mean to. Makes no key.

            \(StoreArguments.keyHelp)

            Example:
              encore keys history --db client.db --days 14 --json
            """
    )

    @OptionGroup var store: StoreArguments

    @OptionGroup var clock: NowArgument

    @Option(name: .long, help: ArgumentHelp("How many UTC days back from today (default 14).", valueName: "n"))
    var days: Int = 14

    @OptionGroup var output: JSONFlag

    func validate() throws {
        guard (0 ... 3650).contains(days) else { throw ValidationError("--days must be 0...3650") }
    }

    func run() throws {
        let client = try store.client(now: clock)
        let keys: [ExposureKey]
        do {
            keys = try OwnKeySchedule(store: client.store).keyHistory(now: client.now(), days: days)
        } catch {
            throw store.fail(error)
        }
        if output.json {
            let list: JSONValue = .array(keys.map {
                .object([("keyData", .string($0.keyData.hex)), ("rollingStartIntervalNumber", .int($0.rollingStartIntervalNumber)),
                         ("rollingPeriod", .int($0.rollingPeriod))])
            })
            Output.write(list.rendered(pretty: true) + "\n")
        } else {
            Output.write(keys.map {
                "\($0.keyData.hex)  \($0.rollingStartIntervalNumber) (\(UTCTime.iso8601(interval: $0.rollingStartIntervalNumber) ?? "?"))  \($0.rollingPeriod)\n"
            }.joined())
        }
    }
}
