import EncoreCheck
import EncoreCheckIns
import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport

/// The exposure check on the key file cache, with the risk parameters
/// of the synced app configuration when there is one (CWA's built-in
/// values otherwise). The packages were verified when they were
/// downloaded; the cache is encrypted and each package is checked against
/// its SHA-256 when read, so they are not verified again.
public struct CachedCheck {
    public let store: Store
    /// Packages a sync has just kept, by region and identifier (export.bin
    /// once verified, or the package): their bytes are used as they are
    /// instead of being read back (and decrypted) from the cache. Only
    /// packages the cache still lists are used.
    var fresh: [String: [String: OwnedBytes]] = [:]

    public init(store: Store) { self.store = store }

    init(store: Store, fresh: [String: [String: OwnedBytes]]) {
        self.store = store
        self.fresh = fresh
    }

    /// The cached key files, every region, as the check's files: each
    /// read (and decrypted) only when the check must match it.
    public func files() throws -> [CheckedKeyFile] {
        try store.cachedKeyFileDigests().filter { !$0.region.hasPrefix(CachedKeyFileName.warningPrefix) }.map { f in
            let (store, fresh) = (store, fresh[f.region]?[f.identifier])
            return CheckedKeyFile(region: f.region, identifier: f.identifier, sha256: f.sha256) {
                if let fresh { return .buffer(fresh) }
                return .bytes(try store.withCachedKeyFileContent(region: f.region, identifier: f.identifier) { Array($0) })
            }
        }
    }

    /// The synced configuration, nil before the first sync brought one.
    public func configuration() throws -> AppConfiguration? {
        guard case .blob(let payload)? = try store.setting(SyncSettings.config) else { return nil }
        return try AppConfiguration(payload: payload)
    }

    /// Runs the check; `risk` and `checkInRisk` (nil) come from the synced
    /// configuration or the built-in values.
    /// options.full: every file matched again, not only what is new (see
    /// ExposureCheck.run(cached:)).
    public func run(risk: RiskConfiguration? = nil, matching: MatchingOptions = MatchingOptions(), v1: V1Configuration = .cwa, options: CheckOptions = CheckOptions(),
                    riskV1: RiskV1Configuration = .cwa, checkInRisk: PresenceTracingRiskConfiguration? = nil, now: Int64,
                    threads: Int = 0, progress: ProgressHandler? = nil) throws -> CheckResult {
        let config = try configuration()
        guard let risk = risk ?? config?.risk ?? RiskConfiguration.cwa else {
            throw EncoreError(.internalError, "the built-in risk parameters do not parse")
        }
        let synced = try config?.presenceTracingRisk.map { try PresenceTracingRiskConfiguration(JSONReader($0, path: "presenceTracingRisk")) }
        return try ExposureCheck(store: store).run(cached: files(), matching: matching,
                                                   risk: risk, v1: v1, riskV1: riskV1, options: options, checkInRisk: checkInRisk ?? synced,
                                                   now: now, threads: threads, progress: progress)
    }
}
