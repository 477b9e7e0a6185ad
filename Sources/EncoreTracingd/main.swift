import ArgumentParser
import EncoreStorage
import EncoreSupport
import EncoreTracing

/// encore-tracingd: Exposure Notification tracing over BlueZ (man 8 encore-tracingd).
struct TracingdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encore-tracingd",
        abstract: "Broadcasts this device's rolling proximity identifiers and records the ones it hears, over BlueZ.",
        discussion: """
            Uses BlueZ's D-Bus API on the system bus (DBUS_SYSTEM_BUS_ADDRESS is honoured): one LE advertisement \
            for service 0xFD6F, registered again at each rotation (10 to 20 minutes, and at the UTC day's end), \
            and discovery in scan windows of 4 seconds every 5 minutes. Sightings and the tracing history go to the \
            store. The store key comes from ENCORE_DB_KEY or ENCORE_DB_KEY_HEX in the environment, or from the \
            systemd credential encore-db-key or encore-db-key-hex. Stops on SIGTERM: the advertisement withdrawn, \
            discovery stopped, the sightings written, tracing off recorded; exit status 0.
            """)

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
            let store = try Store(path: db, key: key.key)
            let tracer = try Tracer(store: store)
            if txPower != nil || rssiCorrection != nil || calibrationConfidence != nil {
                let stored = tracer.calibration
                try tracer.setCalibration(Calibration(txPower: txPower ?? stored.txPower, rssiCorrection: rssiCorrection ?? stored.rssiCorrection,
                                                      confidence: calibrationConfidence ?? stored.confidence))
            }
            if testClockFile != nil { Log.warning("running on a test clock (--test-clock-file): not for use outside tests") }
            let bus = try BlueZLink(advertisementPath: "/org/encore/tracingd/advertisement")
            Log.info("started (store \(db), key from \(key.source))")
            code = TracingDaemon(bus: bus, tracer: tracer, clock: clock, adapter: adapter).run()
        } catch {
            Log.error("\(error)")
            throw ExitCode.failure
        }
        if code != 0 { throw ExitCode(code) }
        Log.info("stopped")
    }
}

TracingdCommand.main()
