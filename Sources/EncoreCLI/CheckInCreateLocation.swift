import ArgumentParser
import EncoreCheck
import EncoreCheckIns
import EncoreCrowdNotifier
import EncoreExposure
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport

/// `encore checkin create-location --description D --address A [--start T --end T]
/// [--type N] [--default-minutes M] [--png FILE] [--svg FILE] [--json]`: the
/// organizer side (the QR code of one's own event or place).
struct CheckInCreateLocation: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-location",
        abstract: "Create the CWA QR code of an event or place: prints its URL and location id.",
        discussion: """
            As the Corona-Warn-App makes it on the phone: nothing is sent or stored, and each call \
            makes a new location (a fresh random seed). Types (CWA's TraceLocationType): places 1 \
            other, 3 retail, 4 food service, 5 craft, 6 workplace, 7 educational institution, 8 \
            public building; events 2 other, 9 cultural event, 10 club activity, 11 private event, 12 \
            worship service. Default type: 2 with --start/--end, else 1. An event needs --start and \
            a later --end, a place neither. Description and address: not blank, at most 255 \
            characters, one line. --default-minutes (how long a guest's check-in lasts without a \
            check-out): at most 1425, 0 means 15; default 120 for places, 15 for events. A \
            refused input exits 1 with one line on stderr saying which field broke which rule.

            --png and --svg write the printable QR code (drawn by libqrencode, error correction M).

            Example:
              encore checkin create-location --description 'Café Müller' --address 'Main Street 1' --type 4 --png cafe.png --json
            """
    )

    @Option(name: .long, help: ArgumentHelp("What guests see: the event's or place's name.", valueName: "text"))
    var description: String

    @Option(name: .long, help: ArgumentHelp("Where it is.", valueName: "text"))
    var address: String

    @Option(name: .long, help: ArgumentHelp("An event's start: unix seconds or YYYY-MM-DDTHH:MM:SSZ.", valueName: "time"))
    var start: CheckInTime?

    @Option(name: .long, help: ArgumentHelp("An event's end.", valueName: "time"))
    var end: CheckInTime?

    @Option(name: .long, help: ArgumentHelp("CWA's location type, 1-12 (default: 2 for an event, 1 for a place).", valueName: "n"))
    var type: UInt32?

    @Option(name: .customLong("default-minutes"), help: ArgumentHelp("A check-in's length without a check-out (default: 120 for places, 15 for events).", valueName: "minutes"))
    var defaultMinutes: UInt32?

    @Option(name: .long, help: ArgumentHelp("Write the QR code as a PNG image here.", valueName: "file"))
    var png: String?

    @Option(name: .long, help: ArgumentHelp("Write the QR code as an SVG image here.", valueName: "file"))
    var svg: String?

    @Option(name: .long, help: ArgumentHelp("PNG pixels a module, 1-16.", valueName: "n"))
    var scale: Int = QRCodeMatrix.defaultScale

    @Flag(name: .long, help: "Print one JSON object (url, locationId, locationIdHash, location) instead of text.")
    var json = false

    func run() throws {
        let times = try talking("create-location") { () throws -> (UInt64, UInt64) in
            func unsigned(_ t: CheckInTime?, _ name: String) throws -> UInt64 {
                guard let t else { return 0 }
                guard let v = UInt64(exactly: t.value), v > 0 else { throw EncoreError(.locationInvalid, "--\(name) must be after 1970-01-01T00:00:00Z") }
                return v
            }
            return (try unsigned(start, "start"), try unsigned(end, "end"))
        }
        let spec = TraceLocationSpec(description: description, address: address, startTimestamp: times.0, endTimestamp: times.1,
                                     locationType: type ?? (start != nil || end != nil ? 2 : 1), defaultCheckInLengthMinutes: defaultMinutes)
        let location = try talking("create-location") { try TraceLocationCreator.create(spec) }
        let url = CheckInQRCode.text(payload: location.payload)
        if png != nil || svg != nil {
            let matrix = try talking("QR code") { try QRCodeMatrix.encode(url) }
            if let png { try talking(png) { try DemoFiles.write(try matrix.png(scale: scale), to: png) } }
            if let svg { try talking(svg) { try DemoFiles.write(Array(matrix.svg().utf8), to: svg) } }
        }
        guard json else {
            Output.write("\(url)\nlocation id: \(Hex.encode(location.locationId))\n")
            return
        }
        Output.write(JSONValue.object([
            ("url", .string(url)),
            ("locationId", .string(Hex.encode(location.locationId))),
            ("locationIdHash", .string(Hex.encode(location.locationIdHash))),
            ("location", location.json),
        ]).rendered(pretty: true) + "\n")
    }
}
