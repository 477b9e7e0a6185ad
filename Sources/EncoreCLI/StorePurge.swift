import ArgumentParser
import EncoreCheck
import EncoreCheckIns
import EncoreClient
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreSync
import EncoreTracing
#if canImport(Glibc)
import Glibc
#endif

/// `encore store purge --db PATH [--now UNIX_SECONDS] [--max-age-days N] [--json]`
struct StorePurge: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge",
        abstract: "Delete what is older than the retention period.",
        discussion: """
            Deletes, in one transaction, every sighting, own key, cached key file, tracing event \
            and risk result older than the cut-off (--now minus --max-age-days), zeroing the \
            freed space. Kept whatever their age: settings, the newest risk result, and whether \
            tracing was on at the cut-off. Prints how many rows of each kind were deleted.

            \(StoreArguments.keyHelp)

            Exit status: 0 on success; 1 when the store is missing or cannot be opened or \
            purged; 2 when the command line or the key variables are wrong.

            Example:
              encore store purge --db client.db --max-age-days 14
            """
    )

    static let secondsPerDay: Int64 = 86_400

    @OptionGroup var store: StoreArguments

    @OptionGroup var clock: NowArgument

    @Option(name: .customLong("max-age-days"), help: ArgumentHelp("Keep what is at most this many days old.", valueName: "n"))
    var maxAgeDays: Int64 = 14

    @OptionGroup var output: JSONFlag

    func validate() throws {
        guard maxAgeDays >= 0 else { throw ValidationError("--max-age-days must not be negative") }
        // --now is not negative, so the cut-off (now - age) cannot overflow once the age fits.
        guard !maxAgeDays.multipliedReportingOverflow(by: Self.secondsPerDay).overflow else {
            throw ValidationError("--max-age-days \(maxAgeDays) is too large")
        }
    }

    func run() throws {
        let maxAge = maxAgeDays * Self.secondsPerDay
        let client = try store.client(now: clock)
        let opened = client.store
        let now = try client.now()
        let counts: PurgeCounts
        do {
            counts = try opened.purge(now: now, maxAge: maxAge)
        } catch {
            throw store.fail(error)
        }
        let cutoff = now - maxAge
        let rows: [(name: String, label: String, count: Int)] = [
            ("sightings", "sightings", counts["sightings"]),
            ("ownKeys", "own keys", counts["ownKeys"]),
            ("keyfiles", "key files", counts["keyFiles"]),
            ("tracingEvents", "tracing events", counts["tracingEvents"]),
            ("riskResults", "risk results", counts["riskResults"]),
        ]
        if output.json {
            let object: JSONValue = .object([
                ("now", .int(now)),
                ("maxAgeSeconds", .int(maxAge)),
                ("cutoff", .int(cutoff)),
                ("deleted", .object(rows.map { ($0.name, .int($0.count)) })),
                ("total", .int(counts.total)),
            ])
            Output.write(object.rendered(pretty: true) + "\n")
            return
        }
        let when = UTCTime.iso8601(seconds: cutoff) ?? "\(cutoff)"
        var out = "\(Output.oneLine(store.db)): deleted \(counts.total) \(counts.total == 1 ? "row" : "rows") from before \(when) (\(maxAgeDays) days before \(UTCTime.iso8601(seconds: now) ?? "\(now)"))\n"
        out += LabelledLines.render(rows.map { ($0.label, String($0.count)) }, indent: "  ")
        Output.write(out)
    }
}
