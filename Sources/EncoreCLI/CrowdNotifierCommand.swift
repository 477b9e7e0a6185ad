import ArgumentParser
import EncoreCheckIns
import EncoreCommandSupport
import EncoreCrowdNotifier
import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
#if canImport(Glibc)
import Glibc
#endif

/// `encore crowdnotifier ...`: the authority's side of CrowdNotifier
/// (SwissCovid, NotifyMe) — venue keys and QR codes, trace keys — so that
/// a full loop runs without an outside system.
struct CrowdNotifierCommand: CommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "crowdnotifier",
        abstract: "Make CrowdNotifier venues (QR codes) and trace keys, as the SwissCovid backend does.",
        discussion: """
            The venue's master secret is written to a file (64 hex digits, mode 0600); the trace \
            keys of a (venue, interval, message) are a ProblematicEventWrapper, the body \
            GET /v3/traceKeys answers, which `encore checkin match --trace-keys FILE` reads.
            """,
        subcommands: [CrowdNotifierVenueCommand.self, CrowdNotifierTraceCommand.self]
    )

    /// Writes a file with the given mode (created or truncated).
    static func write(_ bytes: [UInt8], to path: String, mode: mode_t) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw EncoreError(.io, "cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        if mode == 0o600 { fchmod(fd, mode) }
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw EncoreError(.io, "cannot write \(path): \(String(cString: strerror(errno)))") }
            done += n
        }
    }

    /// A master secret file: 64 hex digits (surrounding white space ignored).
    static func readSecret(_ path: String) throws -> [UInt8] {
        let text = String(decoding: try FileReader.read(path: path, maxSize: 4096).bytes, as: UTF8.self)
        let hex = text.filter { !$0.isWhitespace }
        guard let bytes = Hex.decode(hex) else { throw EncoreError(.cnSecret, "\(path) does not hold a venue master secret (64 hex digits)") }
        return bytes
    }
}

/// `encore crowdnotifier venue --name N --address A [--start T --end T] [--kind K] --out-secret FILE [--json]`.
struct CrowdNotifierVenueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "venue",
        abstract: "Make a venue: its master secret (to a file) and its QR code (printed).",
        discussion: """
            Example:
              encore crowdnotifier venue --name 'Café Bahnhof' --address 'Bahnhofplatz 1, Bern' --out-secret cafe.msk
            """
    )

    @Option(name: .long, help: "The venue's name (at most 100 characters).")
    var name: String

    @Option(name: .long, help: "Its address.")
    var address = ""

    @Option(name: .long, help: ArgumentHelp("When the event starts (default: a permanent place).", valueName: "time"))
    var start: CheckInTime?

    @Option(name: .long, help: ArgumentHelp("When it ends.", valueName: "time"))
    var end: CheckInTime?

    @Option(name: .long, help: ArgumentHelp("swisscovid or notifyme: the QR code's host.", valueName: "kind"))
    var kind = "swisscovid"

    @Option(name: .customLong("out-secret"), help: ArgumentHelp("Where the master secret goes (mode 0600).", valueName: "file"))
    var outSecret: String

    @Flag(name: .long, help: "Print one JSON object (qr, publicKey, venue) instead of the QR code's URL.")
    var json = false

    func validate() throws {
        guard CrowdNotifierVenue.Kind(rawValue: kind) != nil else { throw ValidationError("--kind is swisscovid or notifyme, not \(kind)") }
        guard (start == nil) == (end == nil) else { throw ValidationError("give --start and --end together") }
    }

    func run() throws {
        let k = CrowdNotifierVenue.Kind(rawValue: kind) ?? .swissCovid
        let (qr, keys) = try talking("venue") {
            let keys = try CrowdNotifierAuthority.generateKeys()
            let payload = try CrowdNotifierAuthority.payload(description: name, address: address, start: start?.value ?? 0, end: end?.value ?? 0,
                                                             publicKey: keys.publicKey, kind: k)
            return (CrowdNotifierQRCode.text(payload: payload, kind: k), keys)
        }
        try talking(outSecret) { try CrowdNotifierCommand.write(Array((Hex.encode(keys.masterSecret) + "\n").utf8), to: outSecret, mode: 0o600) }
        guard json else {
            Output.write(qr + "\n")
            return
        }
        let venue = try talking("venue") { try CrowdNotifierQRCode.parse(qr) }
        Output.write(JSONValue.object([("qr", .string(qr)), ("publicKey", .string(Hex.encode(keys.publicKey))), ("venue", venue.json)]).rendered(pretty: true) + "\n")
    }
}

/// `encore crowdnotifier trace --secret FILE --qr URL --start T --end T [--message TEXT] --out FILE`.
struct CrowdNotifierTraceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Make the trace keys of a venue for an interval (a ProblematicEventWrapper).",
        discussion: """
            One trace key per hour the interval touches, each with the message (and SwissCovid's \
            criticality) encrypted for the venue's visitors.

            Example:
              encore crowdnotifier trace --secret cafe.msk --qr 'https://qr.swisscovid.ch?v=4#…' \\
                  --start 2026-11-25T18:00:00Z --end 2026-11-25T20:00:00Z --message 'Please get tested' --out keys.pb
            """
    )

    @Option(name: .long, help: ArgumentHelp("The venue's master secret file.", valueName: "file"))
    var secret: String

    @Option(name: .long, help: ArgumentHelp("The venue's QR code.", valueName: "url"))
    var qr: String

    @Option(name: .long, help: ArgumentHelp("Start of the interval.", valueName: "time"))
    var start: CheckInTime

    @Option(name: .long, help: ArgumentHelp("End of the interval.", valueName: "time"))
    var end: CheckInTime

    @Option(name: .long, help: "The message for the visitors.")
    var message = ""

    @Option(name: .long, help: ArgumentHelp("swisscovid or notifyme: the ProblematicEvent layout.", valueName: "layout"))
    var layout = "swisscovid"

    @Option(name: .long, help: ArgumentHelp("Where the ProblematicEventWrapper goes.", valueName: "file"))
    var out: String

    func validate() throws {
        guard CrowdNotifierTraceKey.Layout(rawValue: layout) != nil else { throw ValidationError("--layout is swisscovid or notifyme, not \(layout)") }
    }

    func run() throws {
        let msk = try talking(secret) { try CrowdNotifierCommand.readSecret(secret) }
        let body = try talking("trace keys") {
            let venue = try CrowdNotifierQRCode.parse(qr)
            guard try CrowdNotifierAuthority.publicKey(masterSecret: msk) == venue.publicKey else {
                throw EncoreError(.cnSecret, "the master secret is not the one of this venue's public key")
            }
            return try CrowdNotifierTraceKeys.encode(CrowdNotifierAuthority.traceKeys(
                masterSecret: msk, payload: venue.payload, start: start.value, end: end.value, message: message,
                criticality: venue.kind == .swissCovid ? 1 : nil, layout: CrowdNotifierTraceKey.Layout(rawValue: layout) ?? .swissCovid))
        }
        try talking(out) { try CrowdNotifierCommand.write(body, to: out, mode: 0o644) }
    }
}
