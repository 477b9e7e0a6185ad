import EncoreClient
import EncoreCommandSupport
import EncoreSupport
import EncoreTracing

/// The radio's state, as `State` names it when tracing is wanted.
enum RadioState: String, Sendable {
    case active
    case bluetoothOff = "bluetooth-off"
    case noAdapter = "no-adapter"
    case cannotAdvertise = "cannot-advertise"
}

/// What the service and the radio thread tell each other. The service
/// leaves orders (tracing wanted, a new store, stop) and wakes the radio;
/// the radio hands its state changes (and its end) to `report`, which
/// posts them to the service's loop.
final class RadioControl: @unchecked Sendable {
    struct Orders {
        var wanted = true
        var stop = false
        /// The client of a new store (after DeleteAllData): taken once.
        var client: EncoreClient?
    }

    private let orders = Locked(Orders())
    private let waker: LoopWaker
    private let reporter: @Sendable (RadioState) -> Void

    init(waker: LoopWaker, report: @escaping @Sendable (RadioState) -> Void) {
        self.waker = waker
        self.reporter = report
    }

    /// From the service's loop.
    func order(_ change: (inout Orders) -> Void) {
        orders.withLock { change(&$0) }
        waker.wake()
    }

    /// On the radio's thread: the orders as they stand (a new client taken).
    func take() -> Orders {
        orders.withLock { o in
            defer { o.client = nil }
            return o
        }
    }

    func report(_ state: RadioState) { reporter(state) }
}

/// encored's radio: the tracing loop on its own thread and its own bus
/// connection (BlueZ calls that connection, whose unique name is not the
/// service's), so that a busy BlueZ or a scan never delays an answer of
/// the API, and the API's traffic never delays a scan report.
final class Radio: @unchecked Sendable {
    private let control: RadioControl
    private let thread = WorkerThread(name: "encored-radio")
    private let done = Latch()

    /// Connects to the bus (a failure throws: the service does not start
    /// without its radio) and starts the loop; `report` is called on the
    /// radio's thread with each state change, `failed` once if the
    /// radio's bus connection breaks.
    /// `busAddress`: nil for the system bus (tests: another bus).
    init(client: EncoreClient, wanted: Bool, adapter: String?, busAddress: String?, clockCanJump: Bool,
         makeTracer: @escaping (EncoreClient) throws -> Tracer,
         report: @escaping @Sendable (RadioState) -> Void, failed: @escaping @Sendable () -> Void) throws {
        let bus = try BlueZLink(advertisementPath: Self.advertisementPath, address: busAddress)
        control = RadioControl(waker: bus.waker, report: report)
        control.order { $0.wanted = wanted }
        let loop = Handoff(try TracingLoop(bus: bus, client: client, control: control, clockCanJump: clockCanJump, adapter: adapter,
                                           makeTracer: makeTracer))
        let done = self.done
        thread.async {
            if loop.value.run() != 0 { failed() }
            done.set()
        }
    }

    /// The advertisement's object on the radio's connection.
    static let advertisementPath = "/org/encore/radio/advertisement"

    func setWanted(_ wanted: Bool) { control.order { $0.wanted = wanted } }

    /// Tracing goes on on the new store (after DeleteAllData).
    func replaceClient(_ client: EncoreClient) { control.order { $0.client = client } }

    /// Stops the loop (the advertisement withdrawn, discovery stopped, the
    /// sightings written, tracing off recorded) and waits for it, a few
    /// seconds at most.
    func stop() {
        control.order { $0.stop = true }
        if !done.wait(seconds: 10) { Log.warning("the radio did not stop within 10 s") }
    }
}
