// encore.h section: client
import CEncoreTypes
#if canImport(Glibc)
import Glibc
#endif
import EncoreClient
import EncoreCrypto
import EncoreHTTP
import EncoreKeyFiles
import EncorePush
import EncoreStorage

public typealias encore_client_ptr = OpaquePointer

// The object behind encore_client is the core's EncoreClient: the one place
// where a store, its servers, trust list, clock and transport are put
// together. Every feature function takes it and reaches the store through it.

/// The store of a client, for the feature functions: ENCORE_ERR_STORE_CLOSED
/// once encore_store_close() closed it (the store's own calls say so).
func clientStore(_ client: encore_client_ptr?) throws -> Store {
    try borrow(client, as: EncoreClient.self, "client").store
}

/// The store of a client and the time of its clock: what a feature function
/// that works "now" runs on (the clock is the client's, never a parameter).
func clientStoreNow(_ client: encore_client_ptr?) throws -> (store: Store, now: Int64) {
    let c = try borrow(client, as: EncoreClient.self, "client")
    return (c.store, try c.now())
}

/// The client's clock as the core keeps it: the host's function (with its
/// context), or the system's.
func clientClock(_ clock: encore_clock_fn?, _ context: UnsafeMutableRawPointer?) -> ClientClock {
    guard let clock else { return .system }
    let box = UncheckedContext(context)
    return .host { clock(box.pointer) }
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
    s.push = try url(o.push_url, "push_url")
    s.pushAPI = try pushAPI(o.push_api, "options->push_api")
    return s
}

/// Fills *options with the defaults (no servers, the built-in transport,
/// the system clock, SwissCovid's push API) for a struct of `struct_size`
/// bytes.
@c public func encore_client_options_init(_ options: UnsafeMutablePointer<encore_client_options>?, _ struct_size: Int) -> encore_status {
    initOptions(options, "options", struct_size) { o in o.push_api = ENCORE_PUSH_API_SWISSCOVID }
}

/// Makes a client of the open `store` and `options` (may be NULL: no
/// servers). The client refers to the store: encore_store_close() closes
/// it for every client made on it, whose calls then fail with
/// ENCORE_ERR_STORE_CLOSED (free them as ever). A submission_url without a
/// verification_url is ENCORE_ERR_INVALID_ARGUMENT. The
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
        let client = try EncoreClient(store: s, transport: transport, trust: trust, servers: try clientServers(o),
                                      clock: clientClock(o.clock, o.clock_context), privateCheckIns: privateCheckIns)
        try output(out, "out") { retainedHandle(client) }
    }
}

/// Releases a client; NULL does nothing. It closes nothing: the store is
/// closed by encore_store_close().
@c public func encore_client_free(_ client: encore_client_ptr?) {
    release(client)
}

/// The client's current time (its clock's, or the system's) in *now: the
/// time its flows start at.
@c public func encore_client_get_time(_ client: encore_client_ptr?, _ now: UnsafeMutablePointer<Int64>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: EncoreClient.self, "client")
        try output(now, "now") { try c.now() }
    }
}
