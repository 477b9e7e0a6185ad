import ArgumentParser
import CEncoreTypes
import EncoreClient
import EncoreCommandSupport
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport
import EncoreTracing
#if canImport(Glibc)
import Glibc
#endif

/// encore-tracingd: Exposure Notification tracing over BlueZ (man 8 encore-tracingd).
struct TracingdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encore-tracingd",
        abstract: "Broadcasts this device's rolling proximity identifiers and records the ones it hears, over BlueZ.",
        discussion: """
            Exposure Notification tracing for Linux hosts. It talks to BlueZ over the D-Bus system bus \
            (through sd-bus; DBUS_SYSTEM_BUS_ADDRESS is honoured): one LE advertisement for service 0xFD6F \
            (LEAdvertisingManager1: type broadcast, general discoverable, the RPI and its encrypted metadata), \
            registered again at each rotation (a random moment 10 to 20 minutes after the last one, and at the UTC \
            day's end); and discovery (Transport le, the 0xFD6F UUID, DuplicateData) in scan windows of 4 seconds \
            every 5 minutes. Each window's reports become one sighting per RPI in the store, in one transaction, \
            and the devices heard are removed from BlueZ's cache. Whenever tracing stops or resumes (BlueZ leaving \
            or coming back, the adapter powered off or on, removed or added, the daemon stopping) the store's \
            tracing history records it.

            The store key: ENCORE_DB_KEY (a passphrase) or ENCORE_DB_KEY_HEX (64 hex digits) in the environment, \
            as for the encore tool, or else a systemd credential (LoadCredential=) in $CREDENTIALS_DIRECTORY: \
            encore-db-key (a passphrase; one trailing newline is not part of it) or encore-db-key-hex. Never the \
            command line.

            Signals: SIGTERM or SIGINT withdraws the advertisement, stops discovery, writes the pending sightings, \
            records tracing off and exits with status 0. Exit status 1: the bus or the store failed; 2: a wrong \
            command line or no store key.

            Privacy: the log (stderr, read by journald) never holds an RPI, its metadata, a key or a Bluetooth \
            address, and no address is kept: a device's object path lives in memory until the scan's end. The \
            Bluetooth address belongs to the kernel and BlueZ: with Privacy enabled in BlueZ's main.conf the \
            controller uses a resolvable private address on its own timer; each rotation registers a new \
            advertisement instance, which is when a kernel and controller may take a new address, but the daemon \
            cannot make them (see /usr/share/doc/encore-tracingd/tracingd.md).

            The --test-clock-file option is for tests only: it shifts the daemon's clock by the seconds the file holds.
            """,
        version: ENCORE_VERSION_STRING)

    @Option(help: "The store (an encore store, created when missing).")
    var db: String

    @Option(help: "The Bluetooth adapter (hci0, hci1, ...). Default: the first one BlueZ has.")
    var adapter: String?

    @Option(name: .customLong("tx-power"), parsing: .unconditional, help: "The transmit power this device's advertisement announces, in dBm (kept in the store).")
    var txPower: Int8?

    @Option(name: .customLong("rssi-correction"), parsing: .unconditional, help: "The RSSI correction of this device's receiver, in dB (kept in the store).")
    var rssiCorrection: Int8?

    @Option(name: .customLong("calibration-confidence"), help: "The calibration confidence the advertisement announces, 0 to 3 (kept in the store).")
    var calibrationConfidence: UInt8?

    @Option(name: .customLong("test-clock-file"),
            help: ArgumentHelp("Test only: the clock is the system's plus the seconds this file holds, read again as the daemon runs.",
                               valueName: "path"))
    var testClockFile: String?

    func validate() throws {
        if let adapter {
            guard adapter.hasPrefix("hci"), adapter.count > 3, adapter.dropFirst(3).allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw ValidationError("--adapter must name an adapter as hciN (hci0, hci1, ...), not '\(adapter)'")
            }
        }
        if let calibrationConfidence, calibrationConfidence > 3 {
            throw ValidationError("--calibration-confidence must be 0, 1, 2 or 3")
        }
    }

    func run() throws {
        let key = try StoreKeySource.key()
        let clock = try DaemonClock(offsetFile: testClockFile)
        let code: Int32
        do {
            // The client, as every host's: its store and its clock (the
            // daemon needs no server, trust list or transport of its own).
            let client = try EncoreClient(store: Store(path: db, key: key.key), transport: CurlTransport(), clock: clock.clientClock)
            let tracer = try client.tracer()
            if txPower != nil || rssiCorrection != nil || calibrationConfidence != nil {
                let stored = tracer.calibration
                try tracer.setCalibration(Calibration(txPower: txPower ?? stored.txPower, rssiCorrection: rssiCorrection ?? stored.rssiCorrection,
                                                      confidence: calibrationConfidence ?? stored.confidence))
            }
            if testClockFile != nil { Log.warning("running on a test clock (--test-clock-file): not for use outside tests") }
            let bus = try BlueZLink(advertisementPath: "/org/encore/tracingd/advertisement")
            Log.info("started (store \(db), key from \(key.source))")
            code = TracingDaemon(bus: bus, client: client, tracer: tracer, clockCanJump: clock.canJump, adapter: adapter).run()
        } catch {
            Log.error("\(error)")
            throw ExitCode.failure
        }
        if code != 0 { throw ExitCode(code) }
        Log.info("stopped")
    }
}

// Exit statuses as the encore tool's: 0, 1 (a failure), 2 (a usage error).
do {
    var command = try TracingdCommand.parseAsRoot()
    try command.run()
    exit(0)
} catch {
    let code = TracingdCommand.exitCode(for: error)
    let message = TracingdCommand.fullMessage(for: error)
    if code == .success {
        if !message.isEmpty { print(message) }
        exit(0)
    }
    if !message.isEmpty { Log.plain(message) }
    exit(code == .validationFailure ? 2 : code.rawValue)
}
