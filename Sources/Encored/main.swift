import ArgumentParser
import CEncoreTypes
import EncoreClient
import EncoreCommandSupport
import EncoreDevice
import EncoreHTTP
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport
import EncoreSync
import EncoreTracing
#if canImport(Glibc)
import Glibc
#endif

/// encored: the device service (man 8 encored, docs/device.md).
struct EncoredCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encored",
        abstract: "The Exposure Notification device service: tracing over BlueZ, background sync and checks, the org.encore.Exposure1 D-Bus API, on one store.",
        discussion: """
            encored owns the device's store and is the library's host: it traces over BlueZ, syncs in the \
            background on the library's planner (due times and backoff; after a suspend or a clock jump, one \
            sync), runs the exposure check after new data and before the risk would turn outdated, polls a \
            registered test's result, and serves org.encore.Exposure1 at /org/encore/Exposure under the name \
            org.encore.Exposure on the system bus (DBUS_SYSTEM_BUS_ADDRESS is honoured). polkit decides every \
            call and every read of the properties (org.encore.Exposure.read, .manage, .submit-keys, .delete-data).

            Tracing (what encore-tracingd did, folded into the service): while Enabled is true and the adapter \
            is usable, one LE advertisement for service 0xFD6F (LEAdvertisingManager1: type broadcast, general \
            discoverable, the RPI and its encrypted metadata), registered again at each rotation (a random \
            moment 10 to 20 minutes after the last one, and at the UTC day's end); and discovery (Transport le, \
            the 0xFD6F UUID, DuplicateData) in scan windows of 4 seconds every 5 minutes, each window's \
            reports one sighting per RPI in the store (at most --max-sightings-per-day a UTC day: past 90 % \
            of it only RPIs already kept that day, the rest dropped and counted, see encore tracing status). \
            The radio has a bus connection of its own and takes \
            BlueZ's signals and calls from org.bluez's owner alone. State follows it: active, disabled, \
            bluetooth-off, no-adapter (the adapter --adapter names, or any, is absent), cannot-advertise. \
            The log never holds an RPI, its metadata, a key or a Bluetooth address. The Bluetooth address \
            belongs to the kernel and BlueZ: with Privacy enabled in BlueZ's main.conf the controller uses a \
            resolvable private address on its own timer, which the service cannot tie to its rotations \
            (see /usr/share/doc/encored/radio.md).

            The store key: ENCORE_DB_KEY (a passphrase) or ENCORE_DB_KEY_HEX (64 hex digits) in the environment, \
            or a systemd credential encore-db-key or encore-db-key-hex in $CREDENTIALS_DIRECTORY. A missing store \
            is created.

            --config FILE: the same options as a file (one `option value` a line, without the dashes; # comments); \
            the command line's come after it and win.

            The --test-clock-file option is for tests only: the clock is the system's plus the seconds the file holds; \
            so is --test-radio-bus (the radio on another bus than the service's, for several services on one BlueZ).

            Exit status: 0 after SIGTERM or SIGINT; 1 the bus, the name or the store failed; 2 a wrong command line \
            or no store key.
            """,
        version: ENCORE_VERSION_STRING)

    @Option(help: "The store (an encore store, created when missing).")
    var db: String

    @Option(help: ArgumentHelp("A file of options, one `option value` a line.", valueName: "file"))
    var config: String?

    @OptionGroup var radio: RadioOptions

    @OptionGroup var sync: SyncServerOptions

    @Option(name: .long, help: ArgumentHelp("The verification server's base URL (test registration, results, TANs).", valueName: "url"))
    var verification: String?

    @Option(name: .long, help: ArgumentHelp("The submission server's base URL (the keys of a positive test).", valueName: "url"))
    var submission: String?

    @Option(name: .customLong("ca-file"), help: ArgumentHelp("Also trust the CA certificates in this PEM file.", valueName: "pem-file"))
    var caFile: String?

    @Option(name: .customLong("test-clock-file"),
            help: ArgumentHelp("Test only: the clock is the system's plus the seconds this file holds, read again at every look.", valueName: "path"))
    var testClockFile: String?

    func validate() throws {
        try radio.validate()
        do {
            for url in [sync.distribution, sync.dp3t, sync.crowdnotifier, verification, submission].compactMap({ $0 }) { try URLPolicy.check(url) }
        } catch let e as EncoreError { throw ValidationError(e.message) }
    }

    func servers() throws -> ClientServers {
        var s = try sync.servers()
        s.verification = verification
        s.submission = submission
        do { try s.validate() } catch let e as EncoreError { throw ValidationError(e.message) }
        return s
    }

    /// The client's clock: the system's, or on a test clock the system's
    /// plus the file's seconds, read at every look (a file that cannot be
    /// read counts as no offset).
    func clock() throws -> ClientClock {
        guard let file = testClockFile else { return .system }
        _ = try DaemonClock(offsetFile: file)
        return .host { Int64(time(nil)).saturatingAdding((try? DaemonClock.readOffset(file)) ?? 0) }
    }

    func run() throws {
        let key = try StoreKeySource.key()
        let servers = try servers()
        let trust = try sync.trustList()
        let clock = try clock()
        var transportOptions = TransportOptions()
        transportOptions.caFile = caFile
        if sync.noWarnings { Log.info("trace warnings off (--no-warnings)") }
        if testClockFile != nil { Log.warning("running on a test clock (--test-clock-file): not for use outside tests") }
        if radio.testRadioBus != nil { Log.warning("the radio on another bus (--test-radio-bus): not for use outside tests") }
        let db = self.db
        let code: Int32
        do {
            let transport = try CurlTransport(options: transportOptions)
            let makeClient: @Sendable () throws -> EncoreClient = {
                try EncoreClient(store: Store(path: db, key: key.key), transport: transport, trust: trust, servers: servers, clock: clock)
            }
            let client = try makeClient()
            let (properties, agenda) = try DeviceAgenda.snapshot(client, syncOptions: DeviceService.syncOptions(.periodic, traceWarnings: !sync.noWarnings))
            let calibrate = radio.calibrate
            _ = try calibrate(client)   // a wrong calibration fails here, before the name is taken
            let link = try ExposureLink(properties: properties)
            Log.info("serving org.encore.Exposure (store \(db), key from \(key.source))")
            let service = DeviceService(link: link, client: client, agenda: agenda, clockFile: testClockFile, makeClient: makeClient,
                                        traceWarnings: !sync.noWarnings)
            let handed = Handoff(service)
            service.attach(try Radio(client: client, wanted: properties.enabled, adapter: radio.adapter, busAddress: radio.testRadioBus, clockCanJump: testClockFile != nil,
                                     makeTracer: calibrate, report: { handed.value.radioReported($0) }, failed: { handed.value.radioFailed() }))
            code = service.run()
        } catch {
            Log.error("\(error)")
            throw ExitCode.failure
        }
        if code != 0 { throw ExitCode(code) }
        Log.info("stopped")
    }
}

// --config's file first, then the command line (which wins).
do {
    DaemonMain.run(EncoredCommand.self, arguments: try ConfigFile.expand(Array(CommandLine.arguments.dropFirst())))
} catch {
    Log.plain("encored: \(EncoredCommand.message(for: error))")
    exit(2)
}

/// The radio's options, as encore-tracingd took them.
struct RadioOptions: ParsableArguments {
    @Option(help: "The Bluetooth adapter (hci0, hci1, ...). Default: the first one BlueZ has.")
    var adapter: String?

    @Option(name: .customLong("tx-power"), parsing: .unconditional, help: "The transmit power this device's advertisement announces, in dBm (kept in the store).")
    var txPower: Int8?

    @Option(name: .customLong("rssi-correction"), parsing: .unconditional, help: "The RSSI correction of this device's receiver, in dB (kept in the store).")
    var rssiCorrection: Int8?

    @Option(name: .customLong("calibration-confidence"), help: "The calibration confidence the advertisement announces, 0 to 3 (kept in the store).")
    var calibrationConfidence: UInt8?

    @Option(name: .customLong("max-sightings-per-day"),
            help: ArgumentHelp("The sightings kept per UTC day at most, 10 or more (default \(SightingCap.defaultPerDay)): new RPIs only up to 90 % of it.",
                               valueName: "n"))
    var maxSightingsPerDay: Int?

    @Option(name: .customLong("test-radio-bus"),
            help: ArgumentHelp("Test only: the radio talks to BlueZ on this D-Bus address rather than the system bus.", valueName: "address"))
    var testRadioBus: String?

    func validate() throws {
        if let adapter {
            guard adapter.hasPrefix("hci"), adapter.count > 3, adapter.dropFirst(3).allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw ValidationError("--adapter must name an adapter as hciN (hci0, hci1, ...), not '\(adapter)'")
            }
        }
        if let calibrationConfidence, calibrationConfidence > 3 {
            throw ValidationError("--calibration-confidence must be 0, 1, 2 or 3")
        }
        _ = try sightingCap()
    }

    /// The cap --max-sightings-per-day sets (the library's rule: 10 to 2³¹ − 1).
    func sightingCap() throws -> SightingCap {
        guard let maxSightingsPerDay else { return .default }
        do { return try SightingCap(perDay: maxSightingsPerDay) } catch {
            throw ValidationError("--max-sightings-per-day must be 10 to \(Int32.max), not \(maxSightingsPerDay)")
        }
    }

    /// The tracer of a client with the cap on a day's sightings, the
    /// calibration options kept in its store (again on the new store after
    /// DeleteAllData).
    var calibrate: (EncoreClient) throws -> Tracer {
        let (tx, rssi, confidence) = (txPower, rssiCorrection, calibrationConfidence)
        let cap = Result { try sightingCap() }
        return { client in
            let tracer = try client.tracer(sightingCap: try cap.get())
            if tx != nil || rssi != nil || confidence != nil {
                let stored = tracer.calibration
                try tracer.setCalibration(Calibration(txPower: tx ?? stored.txPower, rssiCorrection: rssi ?? stored.rssiCorrection,
                                                      confidence: confidence ?? stored.confidence))
            }
            return tracer
        }
    }
}
