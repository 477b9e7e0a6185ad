import ArgumentParser
import CDeviceClient
import EncoreSupport

/// `encore device ...`: the device service (encored) over the system bus,
/// as a UI drives it: its status and every action of org.encore.Exposure1.
/// polkit decides each (the service asks it with this process's bus name).
struct DeviceCommand: CommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "The device service (encored) over D-Bus: its status, tracing on or off, sync, tests, check-ins, deletion.",
        discussion: """
            Each command is one call of org.encore.Exposure1 (name org.encore.Exposure, object \
            /org/encore/Exposure, the system bus; DBUS_SYSTEM_BUS_ADDRESS is honoured) and needs no store key: the \
            store is the service's. polkit decides who may: reading the status (org.encore.Exposure.read), the \
            actions (.manage), submitting keys (.submit-keys: the user authenticates every time) and deleting all \
            data (.delete-data: an administrator). A refusal or a failure is one line on stderr with the service's \
            error (org.encore.Error.<Kind>, the library's status name and its message) and exit status 1.
            """,
        subcommands: [DeviceStatus.self, DeviceEnable.self, DeviceDisable.self, DeviceSync.self, DeviceRegisterTest.self, DeviceSubmitKeys.self,
                      DeviceCheckIn.self, DeviceCheckOut.self, DeviceDeleteAllData.self]
    )
}

/// One connection to the service for one command.
enum DeviceLink {
    /// SyncNow returns when the sync and the check are done: a whole sync's budget and more.
    static let timeoutSeconds: UInt64 = 600

    static func call<T>(_ what: String, _ body: (OpaquePointer, UnsafeMutablePointer<dc_error>) -> (Int32, T)) throws -> T {
        var error = dc_error()
        var client: OpaquePointer?
        guard dc_open(timeoutSeconds, &client, &error) >= 0, let client else { throw failure(what, &error) }
        defer { dc_close(client) }
        let (r, value) = body(client, &error)
        guard r >= 0 else { throw failure(what, &error) }
        return value
    }

    static func call(_ what: String, _ body: (OpaquePointer, UnsafeMutablePointer<dc_error>) -> Int32) throws {
        try call(what) { (body($0, $1), ()) }
    }

    private static func failure(_ what: String, _ error: inout dc_error) -> ExitCode {
        let name = text(&error.name), message = text(&error.message)
        Output.fail("device \(what)", name.isEmpty ? message : "\(name): \(message)")
        return ExitCode(EncoreExit.failure)
    }

    static func text<T>(_ field: inout T) -> String {
        withUnsafeBytes(of: &field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}

struct DeviceStatus: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the service's state: tracing, the risk, the last and next sync, the test.",
        discussion: """
            The properties of org.encore.Exposure1. --json prints {"enabled": B, "state": S, "riskLevel": S, \
            "lastExposureDay": "YYYY-MM-DD"|null, "lastSync": T|null, "lastCheck": T|null, "nextSync": T|null, \
            "testState": S} (times in Unix seconds, null for never).

            Example:
              encore device status --json
            """
    )

    @OptionGroup var output: JSONFlag

    func run() throws {
        var s = try DeviceLink.call("status") { client, error -> (Int32, dc_status) in
            var s = dc_status()
            return (dc_get_status(client, &s, error), s)
        }
        let state = DeviceLink.text(&s.state), risk = DeviceLink.text(&s.risk_level)
        let day = DeviceLink.text(&s.last_exposure_day), test = DeviceLink.text(&s.test_state)
        func time(_ t: UInt64) -> Int64? { t == 0 ? nil : Int64(clamping: t) }
        if output.json {
            let doc = JSONValue.object([
                ("enabled", .bool(s.enabled != 0)), ("state", .string(state)), ("riskLevel", .string(risk)),
                ("lastExposureDay", .string(day.isEmpty ? nil : day)), ("lastSync", .int(time(s.last_sync))),
                ("lastCheck", .int(time(s.last_check))), ("nextSync", .int(time(s.next_sync))), ("testState", .string(test)),
            ])
            Output.write(doc.rendered(pretty: true) + "\n")
            return
        }
        func when(_ t: UInt64) -> String { time(t).map { UTCTime.iso8601(seconds: $0) ?? "\($0)" } ?? "never" }
        Output.write(LabelledLines.render([
            ("tracing", (s.enabled != 0 ? "on" : "off") + " (\(state))"), ("risk", risk),
            ("last exposure", day.isEmpty ? "none" : day), ("last sync", when(s.last_sync)), ("last check", when(s.last_check)),
            ("next sync", when(s.next_sync)), ("test", test),
        ]))
    }
}

struct DeviceEnable: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "enable", abstract: "Turn tracing on (SetEnabled true).")
    func run() throws { try DeviceLink.call("enable") { dc_set_enabled($0, 1, $1) } }
}

struct DeviceDisable: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "disable", abstract: "Turn tracing off (SetEnabled false).")
    func run() throws { try DeviceLink.call("disable") { dc_set_enabled($0, 0, $1) } }
}

struct DeviceSync: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sync", abstract: "Sync now; returns when the sync and the check are done (SyncNow).")
    func run() throws { try DeviceLink.call("sync") { dc_sync_now($0, $1) } }
}

struct DeviceRegisterTest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register-test", abstract: "Register a test: its QR code's text, a teleTAN or a GUID (RegisterTest).")

    @Argument(help: ArgumentHelp("The test's QR code (https://...), a teleTAN or a GUID.", valueName: "code"))
    var code: String

    func run() throws { try DeviceLink.call("register-test") { dc_register_test($0, code, $1) } }
}

struct DeviceSubmitKeys: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "submit-keys",
        abstract: "Upload the keys of a positive test, with the user's consent (SubmitKeys).",
        discussion: """
            Without an option: no statement on symptoms (CWA's "no answer"). --onset DAY: symptoms began that day; \
            --symptomatic: symptoms at an unknown time; --no-symptoms: none.
            """)

    @Option(help: ArgumentHelp("The day symptoms began.", valueName: "YYYY-MM-DD"))
    var onset: String?

    @Flag(inversion: .prefixedNo, help: "Whether there were symptoms (without --onset: at an unknown time).")
    var symptoms: Bool?

    func validate() throws {
        if onset != nil, symptoms == false { throw ValidationError("--onset and --no-symptoms contradict each other") }
    }

    func run() throws {
        let symptomatic: Int32 = symptoms.map { $0 ? 1 : 0 } ?? -1
        try DeviceLink.call("submit-keys") { dc_submit_keys($0, onset, symptomatic, $1) }
    }
}

struct DeviceCheckIn: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "checkin", abstract: "Check in with a venue's QR code; prints the check-in's id (CheckIn).")

    @Argument(help: ArgumentHelp("The QR code's text.", valueName: "qr"))
    var qr: String

    func run() throws {
        let id = try DeviceLink.call("checkin") { client, error -> (Int32, String) in
            var buffer = [CChar](repeating: 0, count: 64)
            let r = dc_check_in(client, qr, &buffer, buffer.count, error)
            return (r, String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        Output.write(id + "\n")
    }
}

struct DeviceCheckOut: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "checkout", abstract: "Check out of a check-in now (CheckOut).")

    @Argument(help: ArgumentHelp("The id checkin printed.", valueName: "id"))
    var id: String

    func run() throws { try DeviceLink.call("checkout") { dc_check_out($0, id, $1) } }
}

struct DeviceDeleteAllData: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-all-data", abstract: "Delete the service's store and start a new one (DeleteAllData; an administrator's action).")
    func run() throws { try DeviceLink.call("delete-all-data") { dc_delete_all_data($0, $1) } }
}
