import ArgumentParser
import EncoreCheckIns
import EncoreClient
import EncoreExposure
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
#if canImport(Glibc)
import Glibc
#endif

/// `encore sightings import --db PATH FILE [--json]`
struct SightingsImport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add sightings from a CSV file to the store.",
        discussion: """
            FILE has one sighting a line: time,rpi,aem,rssi[,prev_scan]. time and prev_scan are \
            seconds since 1970-01-01T00:00:00Z, rpi is 32 hex digits, aem 8 hex digits, rssi an \
            integer from -128 to 127; prev_scan may be left out or empty. The first line may be \
            the header time,rpi,aem,rssi[,prev_scan]. Blank lines are skipped. FILE - reads stdin.

            All or nothing: the whole file is read and checked first; a bad line fails the \
            import (its number is given) and nothing is added. Sightings already in the \
            store, or repeated in the file, are kept once.

            \(StoreArguments.keyHelp)

            Exit status: 0 when every row was added or already there; 1 when the file has a bad \
            line or cannot be read, or the store is missing or cannot be opened or written; 2 \
            when the command line or the key variables are wrong.

            Example:
              encore sightings import --db client.db sightings.csv
            """
    )

    @OptionGroup var store: StoreArguments

    @Argument(help: ArgumentHelp("The CSV file (- for stdin).", valueName: "file"))
    var file: String

    @OptionGroup var output: JSONFlag

    func run() throws {
        // The store first: a wrong key or a missing store fails at once,
        // before a large file is read.
        let opened = try store.client().store
        let sightings = try readFile()
        let added: Int
        do {
            added = try opened.addSightings(sightings)
        } catch {
            throw store.fail(error)
        }
        let duplicates = sightings.count - added
        if output.json {
            let report: JSONValue = .object([
                ("rows", .int(sightings.count)),
                ("new", .int(added)),
                ("duplicates", .int(duplicates)),
            ])
            Output.write(report.rendered(pretty: true) + "\n")
        } else {
            Output.write("\(Output.oneLine(file)): \(sightings.count) rows read, \(added) new, \(duplicates) already stored or repeated\n")
        }
    }

    private func readFile() throws -> [Sighting] {
        let fd: Int32
        if file == "-" {
            fd = STDIN_FILENO
        } else {
            fd = open(file, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                Output.fail(file, "cannot open: " + String(cString: strerror(errno)))
                throw ExitCode(EncoreExit.failure)
            }
        }
        defer { if fd != STDIN_FILENO { close(fd) } }
        do {
            return try CSVSightings.read(fd: fd)
        } catch let e as CSVSightings.Failure {
            Output.fail(file, e.description + "; nothing was imported")
            throw ExitCode(EncoreExit.failure)
        }
    }
}
