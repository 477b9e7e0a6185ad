import ArgumentParser
import EncoreCheck
import EncoreCheckIns
import EncoreClient
import EncoreExposure
import EncoreFixtures
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

/// The one place the tool puts a client together: the store the command's
/// --db opens, the servers and trust list its options name, the transport,
/// and its --now as a fixed clock (the system clock without one). Every
/// command that works on a store goes through the client made here.
extension StoreArguments {
    func client(create: Bool = false, servers: ClientServers = ClientServers(), trust: TrustList? = nil,
                transport: (any HTTPTransport)? = nil, now: NowArgument? = nil) throws -> EncoreClient {
        let store = try openStore(create: create)
        let clock: ClientClock = now?.now.map { .fixed($0) } ?? .system
        do {
            return try EncoreClient(store: store, transport: transport ?? CurlTransport(), trust: trust, servers: servers, clock: clock)
        } catch let e as EncoreError {
            throw ValidationError(e.message)
        }
    }
}
