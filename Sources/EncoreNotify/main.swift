import ArgumentParser
import CEncoreTypes
import CNotifyBus
import EncoreCommandSupport
import EncoreDevice
import EncoreSupport
#if canImport(Glibc)
import Glibc
#endif

/// encore-notify: the session agent of the device service (docs/device.md).
/// It follows encored on the system bus and turns what changes into desktop
/// notifications on the session bus; it needs no privilege beyond reading
/// the service's properties (polkit's org.encore.Exposure.read) and
/// survives the service restarting and either bus going away.
final class NotifyAgent {
    private let bus: OpaquePointer
    private var notices = DeviceNotices()
    /// The notification shown in each slot (0: none), so that a new one replaces it.
    private var shown: [Int: UInt32] = [:]
    /// Posts waiting for the session bus.
    private var waiting: [DeviceNotices.Notice] = []
    private var reading = false, readAgain = false
    private var systemRetryAt = 0.0, sessionRetryAt = 0.0
    static let retrySeconds = 2.0

    init() throws {
        var bus: OpaquePointer?
        let r = nb_open(&bus)
        guard r >= 0, let bus else { throw AgentError("cannot start: \(String(cString: nb_strerror(r)))") }
        self.bus = bus
    }

    deinit { nb_close(bus) }

    func run() -> Int32 {
        while true {
            connect()
            let disconnected = nb_system_connected(bus) == 0 || nb_session_connected(bus) == 0
            let r = nb_wait(bus, UInt64((disconnected ? 0.5 : 60) * 1_000_000))
            if r == 1 { return 0 }
            if r < 0 {
                Log.error("waiting failed: \(String(cString: nb_strerror(r)))")
                return 1
            }
            var ev = nb_event()
            while nb_next_event(bus, &ev) == 1 { handle(&ev) }
        }
    }

    /// (Re)connects a bus that is not there, every few seconds.
    private func connect() {
        let now = Monotonic.seconds()
        if nb_system_connected(bus) == 0, now >= systemRetryAt {
            let r = nb_connect_system(bus)
            if r < 0 {
                systemRetryAt = now + Self.retrySeconds
            } else {
                Log.info("connected to the system bus")
                reading = false
            }
        }
        if nb_session_connected(bus) == 0, now >= sessionRetryAt {
            let r = nb_connect_session(bus)
            if r < 0 {
                sessionRetryAt = now + Self.retrySeconds
            } else {
                Log.info("connected to the session bus")
                postWaiting()
            }
        }
    }

    private func handle(_ ev: inout nb_event) {
        switch nb_event_kind(rawValue: UInt32(bitPattern: ev.kind)) {
        case NB_EV_SERVICE_UP:
            Log.info("the device service is on the bus")
            read()
        case NB_EV_CHANGED:
            read()
        case NB_EV_SERVICE_GONE:
            Log.info("the device service is not on the bus; waiting for it")
        case NB_EV_PROPERTIES:
            reading = false
            if ev.ok != 0 {
                let found = notices.observe(risk: Self.text(&ev.risk_level), test: Self.text(&ev.test_state), state: Self.text(&ev.state))
                waiting += found
                postWaiting()
            } else {
                Log.warning("the service's properties could not be read (\(Self.text(&ev.error)))")
            }
            if readAgain {
                readAgain = false
                read()
            }
        case NB_EV_NOTIFIED:
            if ev.ok != 0 { shown[Int(ev.tag)] = ev.notification_id } else { Log.warning("a notification was refused (\(Self.text(&ev.error)))") }
        case NB_EV_SYSTEM_LOST:
            Log.warning("the system bus went away; connecting again")
            systemRetryAt = Monotonic.seconds() + Self.retrySeconds
        case NB_EV_SESSION_LOST:
            // The notification server's ids went with it.
            Log.warning("the session bus went away; connecting again")
            shown = [:]
            sessionRetryAt = Monotonic.seconds() + Self.retrySeconds
        default:
            break
        }
    }

    private func read() {
        guard !reading else {
            readAgain = true
            return
        }
        let r = nb_read_properties(bus)
        if r >= 0 { reading = true } else { Log.warning("the service's properties could not be asked for: \(String(cString: nb_strerror(r)))") }
    }

    /// Posts what waits, once the session bus is there.
    private func postWaiting() {
        guard nb_session_connected(bus) != 0 else { return }
        let posts = waiting
        waiting = []
        for notice in posts {
            let slot = notice.slot
            if notice == .tracingBack {
                if let id = shown[slot], id != 0 { _ = nb_close_notification(bus, id) }
                shown[slot] = nil
                continue
            }
            let r = nb_notify(bus, Int32(slot), shown[slot] ?? 0, notice.summary, notice.body, notice.urgency)
            if r < 0 {
                waiting.append(notice)
                Log.warning("a notification could not be sent: \(String(cString: nb_strerror(r)))")
            } else {
                Log.info("notified: \(notice.summary)")
            }
        }
    }

    private static func text<T>(_ field: inout T) -> String {
        withUnsafeBytes(of: &field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}

struct AgentError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The command line: no options (the buses come from the environment).
struct NotifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encore-notify",
        abstract: "The session agent of the Exposure Notification device service: desktop notifications of what encored finds.",
        discussion: """
            It follows org.encore.Exposure (encored) on the system bus and posts desktop notifications \
            (org.freedesktop.Notifications on the session bus): when the risk rises to high (once per rise, critical \
            urgency, one notification replaced rather than stacked, nothing that names a place or a person), when a \
            test result is available (without saying which), and when tracing is off because Bluetooth is off, no \
            adapter is there or it cannot advertise (once per change; closed when tracing is back). It needs no \
            privilege beyond reading the service's properties (polkit: org.encore.Exposure.read, allowed to active \
            local users) and survives the service restarting and either bus going away. The systemd user unit \
            encore-notify.service or the XDG autostart entry starts it with the desktop session.

            Exit status: 0 after SIGTERM or SIGINT; 1 when it cannot run.
            """,
        version: ENCORE_VERSION_STRING)

    func run() throws {
        let code: Int32
        do {
            code = try NotifyAgent().run()
        } catch {
            Log.error("\(error)")
            throw ExitCode.failure
        }
        if code != 0 { throw ExitCode(code) }
    }
}

DaemonMain.run(NotifyCommand.self, arguments: Array(CommandLine.arguments.dropFirst()))
