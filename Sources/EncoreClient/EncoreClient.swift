import EncoreCheckIns
import EncoreCrypto
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncorePush
import EncoreStorage
import EncoreSupport
import EncoreSync
import EncoreTestResults
import EncoreTracing
#if canImport(Glibc)
import Glibc
#endif

/// Where a client's time comes from: the system clock, a fixed time (the
/// CLI's `--now`, tests) or the host's own function.
public enum ClientClock: Sendable {
    case system
    case fixed(Int64)
    case host(@Sendable () -> Int64)

    /// The time now, in unix seconds; a negative one is refused.
    public func now() throws -> Int64 {
        let t: Int64
        switch self {
        case .system: t = Int64(time(nil))
        case .fixed(let fixed): t = fixed
        case .host(let read): t = read()
        }
        guard t >= 0 else { throw EncoreError(.invalidArgument, "the client's clock gave \(t): unix seconds must not be negative") }
        return t
    }
}

/// The servers of a client and the keys their answers are checked with
/// (the trust list is the client's own, beside them).
public struct ClientServers: Sendable {
    public var distribution: String?
    public var country = "EUR"
    public var warningRegion = "DE"
    public var dp3t: String?
    public var dp3tKey: PublicKey?
    public var crowdNotifier: String?
    public var crowdNotifierKey: PublicKey?
    public var verification: String?
    public var submission: String?
    public var push: String?
    public var pushAPI: PushProtocol.API = .swisscovid

    public init() {}

    /// Refuses a combination no flow can use.
    public func validate() throws {
        if submission != nil && verification == nil {
            throw EncoreError(.invalidArgument, "a submission server (submission_url) goes with a verification server (verification_url): the submission's TAN comes from it")
        }
    }
}

/// One app instance: its store, its servers, the trust list their packages
/// are verified with, its clock and its transport, put together here and
/// nowhere else. The C `encore_client`, the CLI and (through C) Python all
/// hold one of these, and every feature is reached through it.
///
/// Thread safety: immutable after init; the store serialises its own calls
/// and the trust list and transports are safe to share, so one client may
/// be used from several threads at once (an operation it made is not: one
/// thread at a time drives an operation).
public final class EncoreClient: Sendable {
    public let store: Store
    public let transport: any HTTPTransport
    public let trust: TrustList?
    public let servers: ClientServers
    public let clock: ClientClock
    /// Check-ins of SwissCovid and NotifyMe kept private by default.
    public let privateCheckIns: Bool

    public init(store: Store, transport: any HTTPTransport, trust: TrustList? = nil, servers: ClientServers = ClientServers(),
                clock: ClientClock = .system, privateCheckIns: Bool = false) throws {
        try servers.validate()
        self.store = store
        self.transport = transport
        self.trust = trust
        self.servers = servers
        self.clock = clock
        self.privateCheckIns = privateCheckIns
    }

    /// The current time from the client's clock.
    public func now() throws -> Int64 { try clock.now() }

    // MARK: - sync

    /// What a sync fetches from and verifies with.
    public var syncServers: SyncServers {
        SyncServers(distribution: servers.distribution, country: servers.country, dp3t: servers.dp3t, dp3tKey: servers.dp3tKey,
                    warningRegion: servers.warningRegion, crowdNotifier: servers.crowdNotifier,
                    crowdNotifierKey: servers.crowdNotifierKey, trust: trust)
    }

    /// What a sync would do now.
    public func syncPlan(_ options: SyncOptions = SyncOptions()) throws -> SyncPlan {
        try SyncService.plan(store: store, servers: syncServers, facts: StoreSyncFacts(store: store), options, now: try now())
    }

    /// The blocking sync through the client's transport.
    public func sync(_ options: SyncOptions = SyncOptions()) throws -> SyncReport {
        try SyncService(store: store, transport: transport).run(servers: syncServers, facts: StoreSyncFacts(store: store), options, now: try now())
    }

    /// A sync as an operation the host drives.
    public func syncOperation(_ options: SyncOptions = SyncOptions()) throws -> SyncOperation {
        try SyncOperation(store: store, servers: syncServers, facts: StoreSyncFacts(store: store), options: options, now: try now())
    }

    // MARK: - the features' services

    /// Test registration, polling and submission: needs a verification server.
    public func testResults() throws -> TestResultService {
        try TestResultService(store: store, transport: transport, verification: verification(), submission: servers.submission)
    }

    /// The verification server, which test registration, polling and submission need.
    public func verification() throws -> String {
        try required(servers.verification, "verification server", "verification_url")
    }

    /// The submission server, which noise sessions need.
    public func submission() throws -> String {
        try required(servers.submission, "submission server", "submission_url")
    }

    /// The push registry's base URL.
    public func pushURL() throws -> String {
        try required(servers.push, "push registry", "push_url")
    }

    private func required(_ url: String?, _ what: String, _ option: String) throws -> String {
        guard let url else { throw EncoreError(.invalidArgument, "the client has no \(what) (encore_client_options.\(option))") }
        return url
    }

    /// A tracer of the store (the radio host's state machine, which takes
    /// the time as a value: the host reads it from `now()`), keeping at most
    /// `sightingCap` sightings a day.
    public func tracer(sightingCap: SightingCap = .default) throws -> Tracer { try Tracer(store: store, sightingCap: sightingCap) }

    public var push: PushService { PushService(store: store) }
    public var checkIns: CheckInService { CheckInService(store: store) }
}
