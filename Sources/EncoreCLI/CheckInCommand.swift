import ArgumentParser
import EncoreCheck
import EncoreCheckIns
import EncoreClient
import EncoreCrowdNotifier
import EncoreExposure
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport

/// `encore checkin ...`: check-ins at events and places (CWA event registration).
struct CheckInCommand: CommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "checkin",
        abstract: "Check in to events and places, and match published warnings.",
        discussion: """
            Check-ins are kept in the encrypted store and deleted 10 days after they end. A QR code \
            that cannot be used (not a CWA event code, a wrong version, bad base64, a malformed \
            payload, or what the Corona-Warn-App refuses: an empty description or address, one over \
            255 characters or of several lines, a start without an end, an end before the start, a \
            seed not of 16 bytes) exits 1 with one line on stderr saying which field broke which rule. \
            create-location makes the QR code of one's own event or place.

            """ + StoreArguments.keyHelp,
        subcommands: [CheckInAdd.self, CheckInCreateLocation.self, CheckInEnd.self, CheckInDelete.self, CheckInList.self, CheckInMatchCommand.self, CheckInReport.self]
    )
}

/// A time on the command line: unix seconds or a UTC time, as --now takes.
struct CheckInTime: ExpressibleByArgument {
    let value: Int64
    init?(argument: String) {
        guard let v = try? NowArgument.parse(argument) else { return nil }
        value = v
    }
}

/// `encore checkin add --db DB --qr URL --start T [--end T] [--json]`.
struct CheckInAdd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Check in at the place of a CWA, SwissCovid or NotifyMe QR code; prints the check-in's id.",
        discussion: """
            Without --end the check-in stays open until the location's default length has passed, \
            then closes by itself: as the Corona-Warn-App computes it, the QR code's default length, \
            else the event's length, rounded to the nearest 15 minutes and kept within 15 minutes \
            and 23:45 h (15 minutes with neither). SwissCovid and NotifyMe venues: their automatic \
            check-out delay, else until the validity ends, else two hours.

            --private (SwissCovid and NotifyMe only) keeps what the CrowdNotifier SDKs keep: the \
            day and each hour's ciphertext, nothing of the venue (no QR code, name, address or \
            location id), so that holding the venue's QR code does not let anyone test the store for \
            the visit. `encore checkin list` then shows a private visit (its times), and checking out \
            needs the QR code again: `encore checkin end ID --end T --qr URL`. Without --private \
            the venue is kept readable in the store, as the apps' diaries keep it.

            Example:
              encore checkin add --db client.db --qr 'https://e.coronawarn.app?v=1#CAESJQgB…' --start 2026-11-25T18:00:00Z
            """
    )

    @OptionGroup var store: StoreArguments

    @Option(name: .long, help: ArgumentHelp("The QR code's text.", valueName: "url"))
    var qr: String

    @Option(name: .long, help: ArgumentHelp("When the visit began: unix seconds or YYYY-MM-DDTHH:MM:SSZ.", valueName: "time"))
    var start: CheckInTime

    @Option(name: .long, help: ArgumentHelp("When it ended (default: still there).", valueName: "time"))
    var end: CheckInTime?

    @Flag(name: .customLong("private"), help: "Keep nothing of the venue, only the visit's ciphertexts (SwissCovid and NotifyMe).")
    var isPrivate = false

    @OptionGroup var clock: NowArgument

    @Flag(name: .long, help: "Print one JSON object (the check-in and its location) instead of the id.")
    var json = false

    func run() throws {
        let client = try store.client(now: clock)
        let c = try talking("check-in") {
            try client.checkIns.checkIn(qrCode: qr, start: start.value, end: end?.value, now: client.now(), isPrivate: isPrivate)
        }
        guard json else {
            Output.write("\(c.id)\n")
            return
        }
        // The location as the QR code on the command line says (a private
        // check-in kept none of it).
        let location = try talking("check-in") {
            c.kind == .cwa ? try CheckInQRCode.parse(qr).json : try CrowdNotifierQRCode.parse(qr).json
        }
        Output.write(JSONValue.object([("checkin", c.json), ("location", location)]).rendered(pretty: true) + "\n")
    }
}

/// `encore checkin end --db DB ID --end T`.
struct CheckInEnd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "end", abstract: "Check out: set when a visit ended.",
        discussion: """
            A private check-in (checkin add --private) kept nothing of its venue: its check-out needs \
            the venue's QR code again (--qr); without it the command fails and the check-in is unchanged.
            """)

    @OptionGroup var store: StoreArguments

    @Argument(help: ArgumentHelp("The check-in's id.", valueName: "id"))
    var id: Int64

    @Option(name: .long, help: ArgumentHelp("When the visit ended: unix seconds or YYYY-MM-DDTHH:MM:SSZ.", valueName: "time"))
    var end: CheckInTime

    @Option(name: .long, help: ArgumentHelp("The venue's QR code (needed for a private check-in).", valueName: "url"))
    var qr: String?

    func run() throws {
        let client = try store.client()
        try talking("check-in \(id)") { try client.checkIns.checkOut(id: id, end: end.value, qrCode: qr) }
    }
}

/// `encore checkin delete --db DB ID`.
struct CheckInDelete: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a check-in and its warnings.")

    @OptionGroup var store: StoreArguments

    @Argument(help: ArgumentHelp("The check-in's id.", valueName: "id"))
    var id: Int64

    func run() throws {
        let client = try store.client()
        let existed = try talking("check-in \(id)") { try client.checkIns.delete(id: id) }
        guard existed else {
            Output.fail("check-in \(id)", "no such check-in")
            throw ExitCode(EncoreExit.failure)
        }
    }
}

/// `encore checkin list --db DB [--now T] [--json]`.
struct CheckInList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the check-ins (closing those whose time is up, deleting those over 10 days old).")

    @OptionGroup var store: StoreArguments
    @OptionGroup var clock: NowArgument

    @OptionGroup var output: JSONFlag

    func run() throws {
        let client = try store.client(now: clock)
        let list = try talking("check-ins") { try client.checkIns.list(now: client.now()) }
        if output.json {
            Output.write(JSONValue.object([("checkins", .array(list.map(\.json)))]).rendered(pretty: true) + "\n")
            return
        }
        if list.isEmpty { Output.write("no check-ins\n") }
        for c in list {
            let end = c.end.map { CheckReason.time($0) } ?? "open (closes \(CheckReason.time(c.autoEnd)))"
            if c.isPrivate {
                Output.write("\(c.id)  \(CheckReason.time(c.start)) – \(end)  private visit (\(c.kind.name))" + (c.submitted ? "  [submitted]" : "") + "\n")
                continue
            }
            Output.write("\(c.id)  \(CheckReason.time(c.start)) – \(end)  \(Output.oneLine(c.description))"
                + (c.address.isEmpty ? "" : ", \(Output.oneLine(c.address))") + (c.submitted ? "  [submitted]" : "") + "\n")
        }
    }
}
