import CEncoreTypes
#if canImport(Glibc)
import Glibc
#endif
import EncoreCheck
import EncoreCheckIns
import EncoreClient
import EncoreCrypto
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncorePush
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreSync
import EncoreTestResults
import EncoreTracing
import EncoreWire

public typealias encore_client_ptr = OpaquePointer

/// The object behind encore_client: an app instance's store with what its
/// flows need besides (servers, trust list, transport, clock). Immutable
/// after init (hence @unchecked): the store serialises its own calls, the
/// trust list and transports are safe to share, the clock is the host's.
final class Client: @unchecked Sendable {
    let store: Store
    let transport: any HTTPTransport
    let trust: TrustList?
    let servers: ClientServers
    /// encore_client_checkin_add()'s default: private check-ins.
    let privateCheckIns: Bool
    private let clock: encore_clock_fn?
    private let clockContext: UncheckedContext

    init(store: Store, transport: any HTTPTransport, trust: TrustList?, servers: ClientServers, privateCheckIns: Bool = false,
         clock: encore_clock_fn?, clockContext: UnsafeMutableRawPointer?) {
        self.store = store
        self.privateCheckIns = privateCheckIns
        self.transport = transport
        self.trust = trust
        self.servers = servers
        self.clock = clock
        self.clockContext = UncheckedContext(clockContext)
    }

    /// The current time from the host's clock, or the system's.
    func now() throws -> Int64 {
        guard let clock else { return Int64(time(nil)) }
        let t = clock(clockContext.pointer)
        guard t >= 0 else { throw EncoreError(.invalidArgument, "the client's clock gave \(t): unix seconds must not be negative") }
        return t
    }

    /// The sync's options with the client's servers and trust list.
    func sync(_ base: SyncOptions) -> SyncOptions {
        var s = base
        s.distribution = servers.distribution
        s.country = servers.country
        s.warningRegion = servers.warningRegion
        s.dp3t = servers.dp3t
        s.dp3tKey = servers.dp3tKey
        s.crowdNotifier = servers.crowdNotifier
        s.crowdNotifierKey = servers.crowdNotifierKey
        s.trust = trust
        return s
    }

    /// The verification server, which test registration, polling and
    /// submission need.
    func verification() throws -> String {
        guard let url = servers.verification else {
            throw EncoreError(.invalidArgument, "the client has no verification server (encore_client_options.verification_url)")
        }
        return url
    }

    func submission() throws -> String {
        guard let url = servers.submission else {
            throw EncoreError(.invalidArgument, "the client has no submission server (encore_client_options.submission_url)")
        }
        return url
    }

    func push() throws -> String {
        guard let url = servers.push else {
            throw EncoreError(.invalidArgument, "the client has no push registry (encore_client_options.push_url)")
        }
        return url
    }
}

/// The servers of a client and what their answers are checked with.
struct ClientServers {
    var distribution: String?
    var country = "EUR"
    var warningRegion = "DE"
    var dp3t: String?
    var dp3tKey: PublicKey?
    var crowdNotifier: String?
    var crowdNotifierKey: PublicKey?
    var verification: String?
    var submission: String?
    var push: String?
    var pushAPI: PushProtocol.API = .swisscovid
}

/// A client's options as C gives them, checked.
func clientServers(_ o: encore_client_options) throws -> ClientServers {
    var s = ClientServers()
    func url(_ p: UnsafePointer<CChar>?, _ name: String) throws -> String? { try p.map { try text($0, "options->\(name)") } }
    func key(_ p: UnsafePointer<UInt8>?, _ length: Int, _ name: String) throws -> PublicKey? {
        let bytes = try buffer(p, length, "options->\(name)")
        return bytes.isEmpty ? nil : try PublicKey(material: Array(bytes))
    }
    s.distribution = try url(o.distribution_url, "distribution_url")
    if let c = try url(o.country, "country") { s.country = c }
    if let r = try url(o.warning_region, "warning_region") { s.warningRegion = r }
    s.dp3t = try url(o.dp3t_url, "dp3t_url")
    s.dp3tKey = try key(o.dp3t_public_key, o.dp3t_public_key_length, "dp3t_public_key")
    s.crowdNotifier = try url(o.crowdnotifier_url, "crowdnotifier_url")
    s.crowdNotifierKey = try key(o.crowdnotifier_public_key, o.crowdnotifier_public_key_length, "crowdnotifier_public_key")
    s.verification = try url(o.verification_url, "verification_url")
    s.submission = try url(o.submission_url, "submission_url")
    if s.submission != nil && s.verification == nil {
        throw EncoreError(.invalidArgument, "options->submission_url goes with a verification_url (the submission's TAN comes from it)")
    }
    s.push = try url(o.push_url, "push_url")
    s.pushAPI = try pushAPI(o.push_api, "options->push_api")
    return s
}

/// Fills *options with the defaults (no servers, the built-in transport,
/// the system clock, SwissCovid's push API) for a struct of `struct_size`
/// bytes.
@c public func encore_client_options_init(_ options: UnsafeMutablePointer<encore_client_options>?, _ struct_size: Int) -> encore_status {
    guarded {
        try initOptions(options, "options", struct_size) { o in o.push_api = ENCORE_PUSH_API_SWISSCOVID }
    }
}

/// Makes a client of the open `store` (kept by the client: the host may
/// close its own handle) and `options` (may be NULL: no servers). The
/// options' strings and keys are copied, their transport and trust list
/// kept. A server key that is not a usable EC public key gives
/// ENCORE_ERR_KEY_FORMAT, a NULL key with a length ENCORE_ERR_INVALID_ARGUMENT. Release
/// it with encore_client_free().
@c public func encore_client_new(_ store: encore_store_ptr?, _ options: UnsafePointer<encore_client_options>?, _ out: UnsafeMutablePointer<encore_client_ptr?>?) -> encore_status {
    guarded {
        let s = try borrow(store, as: Store.self, "store")
        _ = try required(out, "out")
        var o = encore_client_options()
        o.push_api = ENCORE_PUSH_API_SWISSCOVID
        // A struct of before checkin_mode reads it as 0: DEFAULT, i.e. DIARY.
        if let options { o = try readInput(UnsafeRawPointer(options), "options") }
        let transport: any HTTPTransport = try o.transport.map { try borrow($0, as: TransportHandle.self, "options->transport").value }
            ?? CurlTransport(options: TransportOptions())
        let trust = try o.trust.map { try borrow($0, as: TrustList.self, "options->trust") }
        let privateCheckIns = try checkInMode(o.checkin_mode) ?? false
        let client = Client(store: s, transport: transport, trust: trust, servers: try clientServers(o), privateCheckIns: privateCheckIns,
                            clock: o.clock, clockContext: o.clock_context)
        try output(out, "out") { retainedHandle(client) }
    }
}

/// Checks in at the place of a QR code (CWA, SwissCovid, NotifyMe) from
/// `start` at the client's time, as encore_checkin_add_with_mode() does;
/// `mode` ENCORE_CHECKIN_MODE_DEFAULT takes the client's
/// encore_client_options.checkin_mode. A client whose default is PRIVATE
/// still keeps a CWA check-in as a diary one (it cannot be private) when
/// `mode` is DEFAULT; asking PRIVATE for one is ENCORE_ERR_INVALID_ARGUMENT.
/// Thread-safe as the client is. `id` (may be NULL) gets the check-in's id.
@c public func encore_client_checkin_add(_ client: encore_client_ptr?, _ qr_code: UnsafePointer<CChar>?, _ start: Int64, _ end: Int64, _ mode: Int32, _ id: UnsafeMutablePointer<Int64>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: Client.self, "client")
        let text = try text(qr_code, "qr_code")
        guard end >= -1 else { throw EncoreError(.checkInTimes, "end must be a time or -1 (checked in), not \(end)") }
        let isPrivate = try checkInMode(mode) ?? (c.privateCheckIns && CrowdNotifierQRCode.kind(of: text) != nil)
        let made = try CheckInService(store: c.store).checkIn(qrCode: text, start: start, end: end == -1 ? nil : end, now: try c.now(),
                                                             isPrivate: isPrivate)
        id?.pointee = made.id
    }
}

/// Releases a client; NULL does nothing. Its store stays open while the
/// host holds its own handle.
@c public func encore_client_free(_ client: encore_client_ptr?) {
    release(client)
}

/// The client's current time (its clock's, or the system's) in *now: the
/// time its flows start at.
@c public func encore_client_get_time(_ client: encore_client_ptr?, _ now: UnsafeMutablePointer<Int64>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: Client.self, "client")
        try output(now, "now") { try c.now() }
    }
}
