import EncoreCheck
import EncoreCheckIns
import EncoreCrypto
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreWire

/// What the sync asks of other features, as push asks its PushFacts: the
/// client answers (EncoreClient's StoreSyncFacts), so that the sync
/// depends on no feature for a fact.
public protocol SyncFacts: Sendable {
    /// Whether the user is in isolation (push's state): periodic syncs
    /// then wait.
    func isolated() throws -> Bool
}

/// Where a sync fetches from and what it checks the answers with: the
/// client's servers and trust list (EncoreClient supplies them; a sync's
/// own options say only how this one sync runs).
public struct SyncServers: Sendable {
    /// CWA's distribution server (nil: no CWA sync) and the country of its packages.
    public var distribution: String?
    public var country = "EUR"
    /// A DP-3T backend (nil: none) and the key its answers' JWTs are signed with.
    public var dp3t: String?
    public var dp3tKey: PublicKey?
    /// The region of CWA's trace warning packages (check-in warnings; CWA
    /// publishes them for "DE").
    public var warningRegion = "DE"
    /// A CrowdNotifier backend (SwissCovid, NotifyMe: `GET /v3/traceKeys`;
    /// nil: none) and the key its answers' JWTs are signed with.
    public var crowdNotifier: String?
    public var crowdNotifierKey: PublicKey?
    /// The trusted keys of the packages and the configuration (verification
    /// is always required: nothing unverified is kept).
    public var trust: TrustList?

    public init(distribution: String? = nil, country: String = "EUR", dp3t: String? = nil, dp3tKey: PublicKey? = nil,
                warningRegion: String = "DE", crowdNotifier: String? = nil, crowdNotifierKey: PublicKey? = nil, trust: TrustList? = nil) {
        (self.distribution, self.country, self.dp3t, self.dp3tKey) = (distribution, country, dp3t, dp3tKey)
        (self.warningRegion, self.crowdNotifier, self.crowdNotifierKey, self.trust) = (warningRegion, crowdNotifier, crowdNotifierKey, trust)
    }
}

/// How one sync runs (its servers are the client's: SyncServers).
public struct SyncOptions {
    /// With the CWA sync, also CWA's trace warning packages (check-in warnings).
    public var traceWarnings = true
    public var limits: ZipLimits = .default
    public var trigger: SyncTrigger = .user
    public var network: NetworkKind = .unmetered
    /// Run the exposure check on the cache when something new arrived.
    public var runCheck = true
    /// The whole sync stops cleanly after this long; the next one resumes.
    public var budgetSeconds = SyncPlanner.budgetSeconds
    /// Called after each request (requests done, of at least that many); may cancel.
    public var progress: ProgressHandler?

    public init() {}

    func sources(_ servers: SyncServers) -> SyncSources {
        SyncSources(cwa: servers.distribution != nil, dp3t: servers.dp3t != nil, traceWarnings: traceWarnings,
                    traceKeys: servers.crowdNotifier != nil)
    }
}

/// Which app configuration a CWA sync went on with, and why.
public struct SyncConfigurationUse: Sendable, Equatable {
    public enum Source: String, Sendable {
        /// A new one, fetched and verified; the stored one, current (304).
        case fetched, unchanged
        /// Not fetched (the reason says why): the last verified one, or,
        /// with none stored, the built-in values.
        case lastVerified = "last-verified", builtIn = "built-in"
    }

    public var source: Source
    /// Why the configuration was not fetched (nil when it was).
    public var reason: String?
    /// Failed fetches of the configuration in a row (its own backoff).
    public var failures: Int

    var json: JSONValue {
        .object([("used", .string(source.rawValue)), ("reason", .string(reason)), ("failures", .int(failures))])
    }
}

/// What a sync did.
public struct SyncReport {
    public var plan: SyncPlan
    /// Every package and configuration the sync asked for, in order, with
    /// what became of it (the C struct list and the JSON's "items").
    public var items: [SyncItem] = []
    /// The items kept (fetched, verified, stored).
    public var fetched: [SyncItem] { items.filter { $0.outcome == .fetched } }
    /// Cached packages deleted: no longer listed, covered by a day, too old.
    public var deleted = 0
    /// Cached packages deleted because the configuration revoked them.
    public var revoked = 0
    /// The server's clock minus ours (its Date header), when it sent one.
    public var clockOffset: Int64?
    /// New check-in matches: warnings of trace warning packages, CrowdNotifier trace keys.
    public var checkInMatches = 0
    /// The sync ran out of its time budget; the next one resumes.
    public var stoppedEarly = false
    /// The check run on the cache after new data; nil when nothing new came.
    public var check: CheckResult?
    public var nextDueAt: Int64?
    public var warnings: [String] = []
    /// The configuration the CWA sync went on with (nil without one).
    public var configuration: SyncConfigurationUse?

    /// `encore sync --json`: "items" is every item; "fetched" the kept
    /// ones in their first form (kept for readers of 0.x).
    public var json: JSONValue {
        .object([("items", .array(items.map(\.json))), ("fetched", .array(fetched.map(\.fetchedJSON))), ("deleted", .int(deleted)), ("revoked", .int(revoked)),
                 ("checkInMatches", .int(checkInMatches)),
                 ("check", check.map(CheckDocument.json) ?? .null), ("nextDueAt", .int(nextDueAt)),
                 ("clockOffset", .int(clockOffset)), ("stoppedEarly", .bool(stoppedEarly)),
                 ("warnings", .array(warnings.map { .string($0) })), ("reason", .string(plan.reason)),
                 ("configuration", configuration?.json ?? .null)])
    }
}

/// Background sync (../shared/spec/sync.md): the planner says what is due,
/// `SyncOperation` does it. Each answer is verified before it is kept and
/// applied in one transaction with the state that names it, so a sync
/// killed at any moment leaves a cache of verified packages and the next
/// one resumes. After new data the exposure check runs on the cache.
public struct SyncService {
    public let store: Store
    public let transport: any HTTPTransport
    /// A clock offset beyond this is reported (risk results and key ages depend on the clock).
    public static let clockWarningSeconds: Int64 = 2 * 3600
    /// Days of packages kept (the server keeps 14).
    public static let retentionDays: Int64 = 14

    public init(store: Store, transport: any HTTPTransport) {
        self.store = store
        self.transport = transport
    }

    /// What a sync would do now, from the store's state alone.
    public static func plan(store: Store, servers: SyncServers, facts: any SyncFacts, _ options: SyncOptions, now: Int64) throws -> SyncPlan {
        try validate(servers, options, now: now)
        var state = try store.syncState(country: servers.country)
        state.isolated = try facts.isolated()
        return SyncPlanner.plan(state, now: now, trigger: options.trigger,
                                network: options.network, sources: options.sources(servers))
    }

    /// The blocking sync: the operation driven through the transport on the
    /// calling thread (`options.progress` may cancel it), pipelined: it owns
    /// the thread, so a package is written while the next is verified.
    public func run(servers: SyncServers, facts: any SyncFacts, _ options: SyncOptions, now: Int64) throws -> SyncReport {
        let operation = try SyncOperation(store: store, servers: servers, facts: facts, options: options, now: now, pipelined: true)
        do {
            _ = try OperationRunner.run(operation, transport: transport, now: now)
        } catch let e as EncoreError {
            operation.abort(e)
            throw e
        }
        return try operation.outcome()
    }

    /// Deletes packages older than the retention: CWA days and hours by
    /// their date, DP-3T bundles by their download.
    static func purge(_ store: Store, _ servers: SyncServers, now: Int64) throws -> Int {
        guard let oldest = UTCTime.day(seconds: now - Self.retentionDays * UnixTime.day) else { return 0 }
        var stale: [(String, String)] = []
        for id in try store.cachedKeyFileIdentifiers(region: servers.country) {
            if let (day, _) = CachedKeyFileName.parse(id), day < oldest { stale.append((servers.country, id)) }
        }
        let warnings = CachedKeyFileName.warningRegion(servers.warningRegion)
        let oldestHour = (now - Self.retentionDays * UnixTime.day) / 3600
        for id in try store.cachedKeyFileIdentifiers(region: warnings) where (Int64(id) ?? 0) < oldestHour {
            stale.append((warnings, id))
        }
        for id in try store.cachedKeyFileIdentifiers(region: CachedKeyFileName.dp3tRegion) {
            if let info = try store.cachedKeyFileInfo(region: CachedKeyFileName.dp3tRegion, identifier: id),
               info.downloaded < now - Self.retentionDays * UnixTime.day { stale.append((CachedKeyFileName.dp3tRegion, id)) }
        }
        guard !stale.isEmpty else { return 0 }
        return try store.write { w in try stale.reduce(0) { n, p in n + (try w.removeCachedKeyFile(region: p.0, identifier: p.1) ? 1 : 0) } }
    }

    static func validate(_ s: SyncServers, _ o: SyncOptions, now: Int64) throws {
        guard (0 ... UTCTime.maxSeconds).contains(now) else { throw EncoreError(.invalidArgument, "now must be a time between 1970 and 9999") }
        guard s.distribution != nil || s.dp3t != nil || s.crowdNotifier != nil else {
            throw EncoreError(.invalidArgument, "nothing to sync: give a distribution server, a DP-3T backend, a CrowdNotifier backend or several")
        }
        try DistributionProtocol.checkCountry(s.country)
        try DistributionProtocol.checkCountry(s.warningRegion)
        if s.dp3t != nil && s.dp3tKey == nil { throw EncoreError(.invalidArgument, "a DP-3T backend needs the public key its answers are signed with") }
        if s.crowdNotifier != nil && s.crowdNotifierKey == nil {
            throw EncoreError(.invalidArgument, "a CrowdNotifier backend needs the public key its answers are signed with")
        }
        guard (1 ... 86400).contains(o.budgetSeconds) else { throw EncoreError(.invalidArgument, "the time budget must be 1 s to 1 day") }
    }
}
