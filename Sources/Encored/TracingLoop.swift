import EncoreClient
import EncoreCommandSupport
import EncoreSupport
import EncoreTracing

/// encored's radio loop (what encore-tracingd was): it follows BlueZ
/// (present or not, its adapters and their power), and while tracing is
/// wanted and its adapter usable it broadcasts the tracer's advertisement
/// (registered again at each rotation) and scans in the tracer's windows,
/// handing each scan's reports to the tracer. Each time tracing stops or
/// resumes, for whatever reason, the tracer records it in the tracing
/// history, and the radio's state (`State` of the API) goes to the
/// service. Its own thread and bus connection: the bus's events, the clock
/// and the service's orders (RadioControl) drive it.
final class TracingLoop {
    private let bus: BlueZLink
    private var client: EncoreClient
    private var tracer: Tracer
    private let control: RadioControl
    /// Makes the tracer of a client (the calibration options applied).
    private let makeTracer: (EncoreClient) throws -> Tracer
    /// Whether the client's clock can jump (a test clock): the loop then looks often.
    private let clockCanJump: Bool
    /// The adapter asked for ("hci1"), nil for the first one BlueZ has.
    private let wantedAdapter: String?

    // What BlueZ has, as its signals said.
    private var bluezUp = false
    private var adapters: [String: Bool] = [:]    // path → powered
    private var adapter: String?                  // the one in use
    /// Why tracing is off (for the log), set where it happened.
    private var offReason = "starting"
    /// Tracing is wanted (the service's `Enabled`).
    private var wanted = true
    /// BlueZ's objects have been read since it (re)appeared, or BlueZ is
    /// absent: until then the radio's state is not known and not reported.
    private var objectsKnown = false
    /// The last RegisterAdvertisement failed (no LEAdvertisingManager1, or
    /// BlueZ refused): `cannot-advertise` until one succeeds.
    private var advertisingFailed = false
    private var reportedState: RadioState?

    private enum AdvertisingState { case none, registering, registered, unregistering }
    private var advertising = AdvertisingState.none
    /// `since` of the payload registered: another one means a rotation.
    private var advertisedSince: Int64?
    private var advertisingRetryAt: Int64 = .min
    /// BlueZ dropped the advertisement: the next registration carries a new
    /// payload, since it may come with a new address.
    private var advertisementDropped = false

    private enum ScanState { case idle, filtering, starting, scanning, stopping }
    private var scan = ScanState.idle
    private var window: ScanWindow?
    private var reports: [ScanReport] = []
    private var invalidReports = 0
    private var scanRetryAt: Int64 = .min
    /// Scans the store could not take yet (written before the next one).
    private var unwritten: [(ScanWindow, [ScanReport])] = []

    /// The devices heard in this window, by object path (which holds an
    /// address), with their last service data and RSSI: in memory only, to
    /// pair a PropertiesChanged of one with the other and to remove the
    /// devices when the window ends.
    private var heard: [String: (serviceData: [UInt8]?, rssi: Int16?)] = [:]

    /// Reports kept per window at most: a bound on memory however crowded.
    static let maxReportsPerWindow = 100_000
    /// Devices followed per window at most (each is removed at its end).
    static let maxDevicesPerWindow = 10_000
    /// Seconds before a failed registration or discovery is tried again.
    static let retrySeconds: Int64 = 5

    init(bus: BlueZLink, client: EncoreClient, control: RadioControl, clockCanJump: Bool, adapter: String?,
         makeTracer: @escaping (EncoreClient) throws -> Tracer) throws {
        self.bus = bus
        self.client = client
        self.tracer = try makeTracer(client)
        self.makeTracer = makeTracer
        self.control = control
        self.clockCanJump = clockCanJump
        self.wantedAdapter = adapter
    }

    /// The time: the client's clock. One before 1970, which the client
    /// refuses, stands at 1970 here (the loop must go on; the tracer's
    /// state machine takes the time as a value).
    private func now() -> Int64 { (try? client.now()) ?? 0 }

    /// Runs until the service says stop (then 0) or the bus breaks (then 1).
    func run() -> Int32 {
        do {
            // A run that ended without its "off" (a crash, a power cut) is
            // closed now, at its last scan: the time until BlueZ and the
            // adapter are usable must not count as tracing.
            try tracer.stop(now: now())
            // Whether tracing is wanted, before anything starts.
            if takeOrders() { return 0 }
            if try bus.bluezPresent() {
                bluezUp = true
                try bus.getObjects()
            } else {
                offReason = "BlueZ (org.bluez) is not on the bus"
                objectsKnown = true
                Log.info("waiting for BlueZ (org.bluez) to appear on the system bus")
            }
            while true {
                let woken = try bus.wait(seconds: waitSeconds())
                for event in bus.takeEvents() { handle(event) }
                if woken, takeOrders() {
                    shutdown()
                    return 0
                }
                step()
                reportState()
            }
        } catch {
            Log.error("\(error)")
            shutdown()
            return 1
        }
    }

    // MARK: the bus's events

    private func handle(_ event: BusEvent) {
        switch event {
        case .bluezUp:
            Log.info("BlueZ appeared on the bus")
            bluezUp = true
            objectsKnown = false
            adapters = [:]
            send { try bus.getObjects() }
        case .bluezGone:
            offReason = "BlueZ left the bus"
            bluezUp = false
            adapters = [:]
            adapter = nil
            stopTracing(bluezReachable: false)
        case .adapterAdded(let path, let powered):
            guard Self.isAdapterPath(path) else { return }
            adapters[path] = powered ?? false
            chooseAdapter()
        case .adapterRemoved(let path):
            adapters[path] = nil
            if path == adapter {
                offReason = "adapter \(Self.name(path)) was removed"
                adapter = nil
                stopTracing(bluezReachable: false)
                chooseAdapter()
            }
        case .adapterPowered(let path, let powered):
            guard adapters[path] != nil else { return }
            adapters[path] = powered
            if path == adapter, !powered { offReason = "adapter \(Self.name(path)) was powered off" }
        case .device(let path, let rssi, let serviceData):
            heardDevice(path: path, rssi: rssi, serviceData: serviceData)
        case .deviceRemoved(let path):
            heard[path] = nil
        case .advertisementReleased:
            // BlueZ dropped it (the adapter went off, or BlueZ decided so):
            // registered again by the next step while tracing is on.
            if advertising == .registered {
                advertising = .none
                advertisementDropped = true
            }
        case .reply(let call, let error):
            reply(call, error: error)
        }
    }

    private func reply(_ call: BusCall, error: String?) {
        switch call {
        case .getObjects:
            if let error { Log.warning("BlueZ's objects could not be read (\(error))") }
            objectsKnown = true
            chooseAdapter()
        case .registerAdvertisement:
            guard advertising == .registering else {
                // Registered after all, though no longer wanted (tracing
                // stopped meanwhile, and BlueZ took the withdrawal before the
                // registration had completed): withdrawn again.
                if error == nil, let adapter { send { try bus.unregisterAdvertisement(adapter: adapter) } }
                return
            }
            if error == "org.bluez.Error.AlreadyExists", let adapter {
                // One of ours left over: withdrawn, then registered again.
                advertising = .unregistering
                send { try bus.unregisterAdvertisement(adapter: adapter) }
            } else if let error {
                Log.warning("RegisterAdvertisement failed (\(error)); trying again in \(Self.retrySeconds) s")
                advertising = .none
                advertisingFailed = true
                advertisingRetryAt = now().saturatingAdding(Self.retrySeconds)
            } else {
                advertising = .registered
                advertisingFailed = false
            }
        case .unregisterAdvertisement:
            if advertising == .unregistering { advertising = .none }
        case .setFilter:
            guard scan == .filtering, let adapter else { return }
            if let error {
                scanFailed("SetDiscoveryFilter", error)
            } else {
                scan = .starting
                send { try bus.startDiscovery(adapter: adapter) }
            }
        case .startDiscovery:
            guard scan == .starting else { return }
            // InProgress: discovery runs already (for this client): scanning.
            if let error, error != "org.bluez.Error.InProgress" {
                scanFailed("StartDiscovery", error)
            } else {
                scan = .scanning
            }
        case .stopDiscovery:
            if scan == .stopping { scan = .idle }
        case .removeDevice:
            break   // gone already, or BlueZ went away: nothing to do
        }
    }

    private func scanFailed(_ call: String, _ error: String) {
        Log.warning("\(call) failed (\(error)); scanning again in \(Self.retrySeconds) s")
        // What was heard before the failure is still a scan.
        finishWindow(now: now())
        scan = .idle
        scanRetryAt = now().saturatingAdding(Self.retrySeconds)
    }

    /// A Device1 report under our adapter while we scan: paired with the
    /// last service data or RSSI of the same device, it is a report of the
    /// scan. Reports outside a window, or of other adapters, are not ours.
    private func heardDevice(path: String, rssi: Int16?, serviceData: [UInt8]?) {
        guard let adapter, path.hasPrefix(adapter + "/"), scan == .starting || scan == .scanning else { return }
        guard heard[path] != nil || heard.count < Self.maxDevicesPerWindow else { return }
        var entry = heard[path] ?? (serviceData: nil, rssi: nil)
        if let serviceData { entry.serviceData = serviceData }
        if let rssi { entry.rssi = rssi }
        guard entry.serviceData != nil || heard[path] != nil else { return }   // not an EN advertiser
        heard[path] = entry
        guard let data = entry.serviceData, let rssi = entry.rssi else { return }
        guard let report = ScanReport(serviceData: data, rssi: rssi, time: now()) else {
            invalidReports += 1
            return
        }
        if reports.count < Self.maxReportsPerWindow { reports.append(report) }
    }

    // MARK: the schedule

    /// Does what the time and the state call for: starts or stops tracing,
    /// (re)registers the advertisement, opens and closes scan windows.
    private func step() {
        let now = now()
        guard wanted, let adapter, bluezUp, adapters[adapter] == true else {
            stopTracing(bluezReachable: bluezUp && adapter != nil)
            return
        }
        do {
            if !tracer.isActive {
                try tracer.start(now: now)
                try tracer.store.setTracingAdapter(Self.name(adapter))
                Log.info("tracing on (adapter \(Self.name(adapter)))")
            }
            try writeUnwritten()
            try advertise(now: now, adapter: adapter)
            try scanStep(now: now, adapter: adapter)
        } catch {
            Log.error("tracing: \(error)")
        }
    }

    private func advertise(now: Int64, adapter: String) throws {
        var ad = try tracer.advertisement(now: now)
        switch advertising {
        case .none where now >= advertisingRetryAt:
            if advertisementDropped {
                ad = try tracer.rotate(now: now)
                advertisementDropped = false
            }
            bus.setPayload(ad.payload)
            advertisedSince = ad.since
            advertising = .registering
            send { try bus.registerAdvertisement(adapter: adapter) }
        case .registered where ad.since != advertisedSince:
            // A rotation: withdrawn, then registered with the new payload
            // (a new instance, which is when BlueZ may take a new address).
            advertising = .unregistering
            send { try bus.unregisterAdvertisement(adapter: adapter) }
        default:
            break
        }
    }

    private func scanStep(now: Int64, adapter: String) throws {
        switch scan {
        case .idle where now >= scanRetryAt:
            let next = try tracer.nextScan(now: now)
            guard next.start <= now else { return }
            window = next
            reports = []
            invalidReports = 0
            scan = .filtering
            send { try bus.setDiscoveryFilter(adapter: adapter) }
        case .scanning, .starting, .filtering:
            // (A clock set back before the window's start ends it too.)
            guard let window, now >= window.end || now < window.start else { return }
            if scan != .filtering { send { try bus.stopDiscovery(adapter: adapter) } }
            scan = scan == .filtering ? .idle : .stopping
            finishWindow(now: now)
        default:
            break
        }
    }

    /// The window's reports to the tracer (one transaction), and the
    /// devices heard removed from BlueZ's cache.
    private func finishWindow(now: Int64) {
        guard let w = window else { return }
        window = nil
        let closed = ScanWindow(start: w.start, end: max(w.start, min(now, w.end)))
        unwritten.append((closed, reports))
        reports = []
        if invalidReports > 0 { Log.warning("\(invalidReports) reports with malformed service data ignored") }
        invalidReports = 0
        do { try writeUnwritten() } catch { Log.error("sightings not written yet (\(error)); trying again") }
        removeHeardDevices()
    }

    private func writeUnwritten() throws {
        while let (w, r) = unwritten.first {
            let result = try tracer.ingestScan(window: w, reports: r)
            unwritten.removeFirst()
            Log.info("scan: \(result.reports) reports, \(result.sightingsAdded) sightings written"
                + (result.ownReports > 0 ? ", \(result.ownReports) own" : ""))
        }
    }

    private func removeHeardDevices() {
        if let adapter {
            for path in heard.keys { send { try bus.removeDevice(adapter: adapter, device: path) } }
        }
        heard = [:]
    }

    /// Tracing off (BlueZ gone, adapter off or removed, shutdown): the open
    /// window written, discovery stopped and the advertisement withdrawn
    /// when BlueZ is still there to hear it, and "off" in the history.
    private func stopTracing(bluezReachable: Bool) {
        let now = now()
        if bluezReachable, let adapter {
            if scan == .starting || scan == .scanning { send { try bus.stopDiscovery(adapter: adapter) } }
            if advertising == .registering || advertising == .registered { send { try bus.unregisterAdvertisement(adapter: adapter) } }
        }
        if window != nil { finishWindow(now: now) }
        if !bluezReachable { heard = [:] }
        scan = .idle
        advertising = .none
        advertisedSince = nil
        advertisingFailed = false   // known again at the next registration
        guard tracer.isActive else { return }
        do {
            try writeUnwritten()
            try tracer.stop(now: now)
            Log.info("tracing off: \(offReason)")
        } catch {
            Log.error("tracing off (\(offReason)), but the store failed: \(error)")
        }
    }

    /// On SIGTERM: the advertisement withdrawn, discovery stopped, the
    /// sightings written, tracing off recorded; then the calls' answers
    /// awaited a moment, so that BlueZ has them before the connection ends.
    private func shutdown() {
        offReason = "encored stopped"
        stopTracing(bluezReachable: bluezUp)
        var waited = 0.0
        while bus.pendingCalls > 0, waited < 3, (try? bus.wait(seconds: 0.1)) != nil {
            _ = bus.takeEvents()
            waited += 0.1
        }
        if !unwritten.isEmpty { Log.error("\(unwritten.count) scans could not be written to the store") }
    }

    /// Seconds until the next thing due (a window's start or end, a
    /// rotation, a retry); the bus's traffic wakes the loop earlier.
    private func waitSeconds() -> Double {
        let cap = clockCanJump ? 0.2 : 30
        guard tracer.isActive else { return cap }
        let now = now()
        var due: [Int64] = [advertisingRetryAt, scanRetryAt]
        if let window { due.append(window.end) }
        if scan == .idle, let next = try? tracer.nextScan(now: now) { due.append(next.start) }
        if let ad = try? tracer.advertisement(now: now) { due.append(ad.validUntil) }
        let next = due.filter { $0 > now }.min().map { Double($0 - now) } ?? cap
        // Whole seconds on the clock: a little after the second turns.
        return min(cap, max(0.05, next + 0.05))
    }

    // MARK: the service's orders, the radio's state

    /// Takes what the service asked since the last look: whether tracing
    /// is wanted, a new store (after DeleteAllData), stop. True for stop.
    private func takeOrders() -> Bool {
        let orders = control.take()
        if let fresh = orders.client {
            // The old store is gone: what it had pending is not written
            // anywhere, and tracing starts again on the new one.
            heard = [:]
            unwritten = []
            window = nil
            reports = []
            if scan == .starting || scan == .scanning, let adapter { send { try bus.stopDiscovery(adapter: adapter) } }
            scan = .idle
            if advertising == .registering || advertising == .registered, let adapter { send { try bus.unregisterAdvertisement(adapter: adapter) } }
            advertising = .none
            advertisedSince = nil
            do {
                tracer = try makeTracer(fresh)
                client = fresh
                Log.info("tracing: on the new store")
            } catch {
                Log.error("tracing: the new store cannot be traced on (\(error))")
            }
        }
        if orders.wanted != wanted {
            wanted = orders.wanted
            if !wanted { offReason = "turned off (Enabled false)" }
        }
        return orders.stop
    }

    /// The radio's state as `State` says it, sent to the service when it changed.
    private func reportState() {
        guard objectsKnown else { return }
        let state: RadioState
        if !bluezUp || adapter == nil {
            state = .noAdapter
        } else if let adapter, adapters[adapter] != true {
            state = .bluetoothOff
        } else if advertisingFailed {
            state = .cannotAdvertise
        } else {
            state = .active
        }
        guard state != reportedState else { return }
        reportedState = state
        control.report(state)
    }

    // MARK: adapters

    /// The adapter to use: the one asked for, or the first BlueZ lists.
    private func chooseAdapter() {
        guard adapter == nil else { return }
        if let wantedAdapter {
            let path = "/org/bluez/\(wantedAdapter)"
            if adapters[path] != nil { adapter = path }
        } else {
            adapter = adapters.keys.sorted { $0.count != $1.count ? $0.count < $1.count : $0 < $1 }.first
        }
        if let adapter { Log.info("using adapter \(Self.name(adapter))") }
    }

    /// An adapter's object: /org/bluez/<name>, no deeper.
    static func isAdapterPath(_ path: String) -> Bool {
        path.hasPrefix("/org/bluez/") && !path.dropFirst("/org/bluez/".count).contains("/")
    }

    static func name(_ adapterPath: String) -> String { String(adapterPath.split(separator: "/").last ?? "") }

    /// A call sent, or its failure to be sent logged (the next step retries).
    private func send(_ call: () throws -> Void) {
        do { try call() } catch { Log.warning("\(error)") }
    }
}
