import CExposureBus
import EncoreCommandSupport
import EncoreDevice

/// A call to answer: a method of org.encore.Exposure1, or a read of its
/// properties (Get, GetAll), with the caller's unique bus name.
struct IncomingCall {
    let id: UInt64
    let member: String
    let sender: String
    /// RegisterTest's code, CheckIn's QR code, CheckOut's id, Get's name.
    let text: String
    let textTruncated: Bool
    let flag: Bool
    let onset: String?
    let symptomatic: Bool?
}

enum LinkEvent {
    case call(IncomingCall)
    case authorization(id: UInt64, allowed: Bool, why: String)
    case nameLost
}

/// A failure of a bus connection itself (the API's or the radio's), not of a call on it.
struct LinkError: Error, CustomStringConvertible {
    let what: String
    let code: Int32
    var description: String { "\(what): \(String(cString: eb_strerror(code)))" }
}

/// What other threads may touch: a loop's wake-up (eb_wake and tb_wake are
/// thread-safe; the connection outlives the threads that wake it).
struct LoopWaker: @unchecked Sendable {
    private let wakeUp: () -> Void
    init(_ wakeUp: @escaping () -> Void) { self.wakeUp = wakeUp }
    func wake() { wakeUp() }
}

/// encored's connection to the system bus, through CExposureBus (sd-bus).
/// One per process, used from the loop's thread (the waker aside).
final class ExposureLink {
    private let bus: OpaquePointer
    let waker: LoopWaker

    /// Connects, exports the object with `properties` and takes the name.
    init(properties: DeviceProperties) throws {
        var bus: OpaquePointer?
        let r = Self.withC(properties) { eb_open($0, &bus) }
        guard r >= 0, let bus else {
            throw LinkError(what: r == -17 ? "org.encore.Exposure is owned by another process on the system bus"
                                           : "cannot serve org.encore.Exposure on the D-Bus system bus", code: r)
        }
        self.bus = bus
        waker = LoopWaker { eb_wake(bus) }
    }

    deinit { eb_close(bus) }

    /// Waits up to `seconds` for traffic, a worker's wake-up or a signal;
    /// true when SIGTERM or SIGINT arrived.
    func wait(seconds: Double) throws -> Bool {
        let r = eb_wait(bus, UInt64(max(0, min(seconds, 3600)) * 1_000_000))
        guard r >= 0 else { throw LinkError(what: "the D-Bus connection failed", code: r) }
        return r == 1
    }

    func takeEvents() -> [LinkEvent] {
        var out: [LinkEvent] = []
        var ev = eb_event()
        while eb_next_event(bus, &ev) == 1 {
            switch eb_event_kind(rawValue: UInt32(bitPattern: ev.kind)) {
            case EB_EV_CALL:
                out.append(.call(IncomingCall(
                    id: ev.id, member: Self.text(&ev.member), sender: Self.text(&ev.sender), text: Self.text(&ev.text),
                    textTruncated: ev.text_truncated != 0, flag: ev.flag != 0,
                    onset: ev.has_onset != 0 ? Self.text(&ev.onset) : nil, symptomatic: ev.has_symptomatic != 0 ? ev.symptomatic != 0 : nil)))
            case EB_EV_AUTH:
                out.append(.authorization(id: ev.id, allowed: ev.allowed != 0, why: Self.text(&ev.error)))
            case EB_EV_NAME_LOST:
                out.append(.nameLost)
            default:
                break
            }
        }
        return out
    }

    /// Asks polkit; the answer comes as `.authorization` with `id`.
    func checkAuthorization(id: UInt64, sender: String, action: DeviceAction) throws {
        let r = eb_check_auth(bus, id, sender, action.rawValue, action.interactive ? 1 : 0)
        guard r >= 0 else { throw LinkError(what: "cannot ask polkit", code: r) }
    }

    // The answers; a call whose caller left is answered into the void.
    func replyEmpty(_ id: UInt64) { report(eb_reply_empty(bus, id), id) }
    func replyString(_ id: UInt64, _ value: String) { report(eb_reply_string(bus, id, value), id) }
    func replyError(_ id: UInt64, _ error: DeviceError) { report(eb_reply_error(bus, id, error.name, error.message), id) }
    func replyProperties(_ id: UInt64) { report(eb_reply_properties(bus, id), id) }

    func setProperties(_ p: DeviceProperties) {
        let r = Self.withC(p) { eb_set_properties(bus, $0) }
        if r < 0 { Log.warning("PropertiesChanged could not be sent: \(String(cString: eb_strerror(r)))") }
    }

    private func report(_ r: Int32, _ id: UInt64) {
        if r < 0 { Log.warning("the answer to call \(id) could not be sent: \(String(cString: eb_strerror(r)))") }
    }

    private static func withC<R>(_ p: DeviceProperties, _ body: (UnsafePointer<eb_properties>) -> R) -> R {
        p.state.withCString { state in
            p.riskLevel.withCString { risk in
                p.lastExposureDay.withCString { day in
                    p.testState.withCString { test in
                        var c = eb_properties(enabled: p.enabled ? 1 : 0, state: state, risk_level: risk, last_exposure_day: day,
                                              last_sync: UInt64(max(0, p.lastSync)), last_check: UInt64(max(0, p.lastCheck)),
                                              next_sync: UInt64(max(0, p.nextSync)), test_state: test)
                        return body(&c)
                    }
                }
            }
        }
    }

    private static func text<T>(_ field: inout T) -> String {
        withUnsafeBytes(of: &field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
