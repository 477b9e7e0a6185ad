import ArgumentParser
import EncoreClient
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// The one place the tool opens a store and puts a client together: the
/// store a command's --db opens (or the demo's own), the servers and trust
/// list its options name, the transport, and its clock (--now as a fixed
/// clock, the system clock without one). Every command that works on a
/// store goes through a client made here.
enum ToolClient {
    /// Opens the store at `path` with `key` (only `store init` and the demo
    /// create one).
    static func store(path: String, key: StoreKey, create: Bool = false) throws -> Store {
        try Store(path: path, key: key, options: StoreOptions(create: create))
    }

    /// The client of an open store; options no flow can use are a usage error.
    static func client(store: Store, servers: ClientServers = ClientServers(), trust: TrustList? = nil,
                       transport: (any HTTPTransport)? = nil, clock: ClientClock = .system) throws -> EncoreClient {
        do {
            return try EncoreClient(store: store, transport: transport ?? CurlTransport(), trust: trust, servers: servers, clock: clock)
        } catch let e as EncoreError {
            throw ValidationError(e.message)
        }
    }
}

extension StoreArguments {
    /// The client of the command's --db, with --now as its fixed clock.
    func client(create: Bool = false, servers: ClientServers = ClientServers(), trust: TrustList? = nil,
                transport: (any HTTPTransport)? = nil, now: NowArgument? = nil) throws -> EncoreClient {
        let clock: ClientClock = now?.now.map { .fixed($0) } ?? .system
        return try ToolClient.client(store: openStore(create: create), servers: servers, trust: trust, transport: transport, clock: clock)
    }
}
