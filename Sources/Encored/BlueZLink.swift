import CTracingBus

/// What BlueZ (or the bus) told the radio, in Swift terms. A device's path
/// holds its Bluetooth address: it is kept in memory only, to remove the
/// device again, and never logged or stored.
enum BusEvent {
    case bluezUp
    case bluezGone
    case adapterAdded(path: String, powered: Bool?)
    case adapterRemoved(path: String)
    case adapterPowered(path: String, powered: Bool)
    /// A Device1 report (InterfacesAdded, GetManagedObjects or PropertiesChanged).
    case device(path: String, rssi: Int16?, serviceData: [UInt8]?)
    case deviceRemoved(path: String)
    case advertisementReleased
    case reply(call: BusCall, error: String?)
}

/// The calls whose answers come back as `.reply`.
enum BusCall: Int32 {
    case getObjects = 1, registerAdvertisement, unregisterAdvertisement, setFilter, startDiscovery, stopDiscovery, removeDevice
}

/// The radio's connection to the system bus, through CTracingBus (sd-bus):
/// a connection of its own beside the service's (ExposureLink), used from
/// the radio's one thread (the waker aside).
final class BlueZLink {
    private let bus: OpaquePointer
    /// The radio's wake-up, for the service's threads (tb_wake is thread-safe).
    let waker: LoopWaker

    /// Connects (to the system bus, or for tests to `address`) and exports
    /// the advertisement at `advertisementPath`.
    init(advertisementPath: String, address: String?) throws {
        var bus: OpaquePointer?
        let r = tb_open(advertisementPath, address, &bus)
        guard r >= 0, let bus else { throw LinkError(what: "cannot connect to the D-Bus system bus", code: r) }
        self.bus = bus
        waker = LoopWaker { tb_wake(bus) }
    }

    deinit { tb_close(bus) }

    /// Waits up to `seconds` for traffic or a wake-up; true when woken.
    func wait(seconds: Double) throws -> Bool {
        let usec = UInt64(max(0, min(seconds, 3600)) * 1_000_000)
        let r = tb_wait(bus, usec)
        guard r >= 0 else { throw LinkError(what: "the D-Bus connection failed", code: r) }
        return r == 1
    }

    var pendingCalls: Int { Int(tb_pending_calls(bus)) }

    /// Whether org.bluez has an owner now.
    func bluezPresent() throws -> Bool {
        let r = tb_bluez_present(bus)
        guard r >= 0 else { throw LinkError(what: "cannot ask the bus for org.bluez", code: r) }
        return r == 1
    }

    /// The events so far, oldest first.
    func takeEvents() -> [BusEvent] {
        var out: [BusEvent] = []
        var ev = tb_event()
        while tb_next_event(bus, &ev) == 1 {
            if let e = Self.convert(&ev) { out.append(e) }
        }
        return out
    }

    func setPayload(_ payload: [UInt8]) {
        precondition(payload.count == Int(TB_PAYLOAD_SIZE), "the payload is 20 bytes")
        tb_set_payload(bus, payload)
    }

    // The calls; a call that could not even be sent throws.
    func getObjects() throws { try check(tb_get_objects(bus), "GetManagedObjects") }
    func registerAdvertisement(adapter: String) throws { try check(tb_register_adv(bus, adapter), "RegisterAdvertisement") }
    func unregisterAdvertisement(adapter: String) throws { try check(tb_unregister_adv(bus, adapter), "UnregisterAdvertisement") }
    func setDiscoveryFilter(adapter: String) throws { try check(tb_set_filter(bus, adapter), "SetDiscoveryFilter") }
    func startDiscovery(adapter: String) throws { try check(tb_start_discovery(bus, adapter), "StartDiscovery") }
    func stopDiscovery(adapter: String) throws { try check(tb_stop_discovery(bus, adapter), "StopDiscovery") }
    func removeDevice(adapter: String, device: String) throws { try check(tb_remove_device(bus, adapter, device), "RemoveDevice") }

    private func check(_ r: Int32, _ call: String) throws {
        guard r >= 0 else { throw LinkError(what: "cannot send \(call)", code: r) }
    }

    private static func convert(_ ev: inout tb_event) -> BusEvent? {
        let path = withUnsafeBytes(of: &ev.path) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        switch tb_event_kind(rawValue: UInt32(bitPattern: ev.kind)) {
        case TB_EV_BLUEZ_UP: return .bluezUp
        case TB_EV_BLUEZ_GONE: return .bluezGone
        case TB_EV_ADAPTER_ADDED: return .adapterAdded(path: path, powered: ev.has_powered != 0 ? ev.powered != 0 : nil)
        case TB_EV_ADAPTER_REMOVED: return .adapterRemoved(path: path)
        case TB_EV_ADAPTER_POWERED: return .adapterPowered(path: path, powered: ev.powered != 0)
        case TB_EV_DEVICE:
            var data: [UInt8]?
            if ev.has_service_data != 0 {
                // Longer than the buffer: empty, which no payload is (the daemon counts it invalid).
                let n = ev.service_data_len
                data = n <= Int(TB_SERVICE_DATA_MAX) ? withUnsafeBytes(of: &ev.service_data) { Array($0.prefix(n)) } : []
            }
            return .device(path: path, rssi: ev.has_rssi != 0 ? ev.rssi : nil, serviceData: data)
        case TB_EV_DEVICE_REMOVED: return .deviceRemoved(path: path)
        case TB_EV_ADV_RELEASED: return .advertisementReleased
        case TB_EV_REPLY:
            guard let call = BusCall(rawValue: ev.call) else { return nil }
            let error = ev.ok != 0 ? nil : withUnsafeBytes(of: &ev.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return .reply(call: call, error: error)
        default: return nil
        }
    }
}
