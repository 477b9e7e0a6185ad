import ArgumentParser
import EncoreCheckIns
import EncoreClient
import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreTracing

/// `encore sightings list --db PATH [--since T] [--json]`: the sightings
/// kept in the store, RPIs and AEMs in hex (the one place the tool prints
/// them: the user asked for the listing).
struct SightingsList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the sightings in the store, oldest first.",
        discussion: """
            One line a sighting: its time (UTC), RPI and AEM in hex, RSSI in dBm (with this \
            device's RSSI correction added, as tracing stores it) and the \
            previous scan's time when known. With --json an array of \
            {time, rpi, aem, rssi, typicalRssi, prevScan} (times in unix seconds, bytes in hex; \
            rssi the strongest report of the scan, typicalRssi their mean: the minimum and the \
            typical attenuation's).

            These are the identifiers other devices broadcast near this one: print them only \
            where you mean to.

            \(StoreArguments.keyHelp)

            Example:
              encore sightings list --db client.db --since 2026-11-25 --json
            """
    )

    @OptionGroup var store: StoreArguments

    @Option(name: .long, help: ArgumentHelp("Only sightings at or after this time: unix seconds or a UTC time YYYY-MM-DDTHH:MM:SSZ.", valueName: "time"),
            transform: NowArgument.parse)
    var since: Int64?

    @OptionGroup var output: JSONFlag

    func run() throws {
        let s = try store.client().store
        var out = output.json ? "[" : ""
        var first = true
        do {
            try s.forEachSighting(from: since ?? .min) { o in
                if output.json {
                    let row: JSONValue = .object([("time", .int(o.time)), ("rpi", .string(o.rpi.hex)), ("aem", .string(Hex.encode(o.aemBytes))),
                                                  ("rssi", .int(o.rssi)), ("typicalRssi", .int(o.typicalRSSI)), ("prevScan", .int(o.previousScan))])
                    out += (first ? "\n  " : ",\n  ") + row.rendered(pretty: false)
                } else {
                    out += "\(UTCTime.iso8601(seconds: o.time) ?? String(o.time))  \(o.rpi.hex)  \(Hex.encode(o.aemBytes))  \(o.rssi) dBm"
                        + (o.previousScan.map { "  prev \(UTCTime.iso8601(seconds: $0) ?? String($0))" } ?? "") + "\n"
                }
                first = false
                if out.utf8.count >= 1 << 16 { Output.write(out); out = "" }
            }
        } catch {
            throw store.fail(error)
        }
        if output.json { out += first ? "]\n" : "\n]\n" }
        Output.write(out)
    }
}
