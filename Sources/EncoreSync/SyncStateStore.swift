import EncoreCheck
import EncoreCheckIns
import EncoreCrypto
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage

/// Where the sync keeps what it knows between runs: settings named
/// "sync.*" (written in the same transactions as the packages they
/// describe) and the key file cache itself.
enum SyncSettings {
    static let lastSuccess = "sync.last-success"
    static let lastAttempt = "sync.last-attempt"
    static let failures = "sync.failures"
    static let daySyncFailed = "sync.day-sync-failed"
    static let revocationPending = "sync.revocation-pending"
    static let dp3tSyncs = "sync.dp3t.syncs"
    static let dp3tTag = "sync.dp3t.tag"
    static let jitterSeed = "sync.jitter-seed"
    /// The verified app configuration's payload (its protobuf) and ETag.
    static let config = "sync.config"
    static let configETag = "sync.config.etag"
    static let lastError = "sync.last-error"
    /// The configuration's own failures in a row, the last attempt to
    /// fetch it and its error (a failed configuration does not fail the sync).
    static let configFailures = "sync.config.failures"
    static let configLastAttempt = "sync.config.last-attempt"
    static let configLastError = "sync.config.last-error"
    /// The last trace-key sync that completed (the tag itself is the
    /// check-ins', stored with the matches: CheckInService.traceKeyBundleTagSetting).
    static let traceKeysLast = "sync.crowdnotifier.last"

    /// Writes the DP-3T bundle tag (nil: forgets it).
    static func storeDP3TTag(_ w: StoreWriter, _ tag: String?) throws {
        if let tag { try w.setSetting(dp3tTag, to: .text(tag)) } else { try w.deleteSetting(dp3tTag) }
    }
}

extension Store {
    func syncState(country: String) throws -> SyncState {
        var s = SyncState()
        s.lastSuccess = try optionalInteger(SyncSettings.lastSuccess)
        s.lastAttempt = try optionalInteger(SyncSettings.lastAttempt)
        s.failures = max(0, Int(clamping: try optionalInteger(SyncSettings.failures) ?? 0))
        s.configFailures = max(0, Int(clamping: try optionalInteger(SyncSettings.configFailures) ?? 0))
        s.configLastAttempt = try optionalInteger(SyncSettings.configLastAttempt)
        s.lastDaySyncFailed = (try optionalInteger(SyncSettings.daySyncFailed) ?? 0) != 0
        s.revocationPending = (try optionalInteger(SyncSettings.revocationPending) ?? 0) != 0
        if case .text(let list)? = try setting(SyncSettings.dp3tSyncs) {
            s.dp3tSyncs = list.split(separator: ",").compactMap { Int64($0) }
        }
        if let seed = try optionalInteger(SyncSettings.jitterSeed) {
            s.jitterSeed = UInt64(bitPattern: seed)
        } else {
            let seed = try SecureRandom.bytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            try setSetting(SyncSettings.jitterSeed, to: .integer(Int64(bitPattern: seed)))
            s.jitterSeed = seed
        }
        s.newestCachedDay = try cachedKeyFileIdentifiers(region: country).filter { !$0.contains("/") }.max()
        s.lastTraceKeySync = try optionalInteger(SyncSettings.traceKeysLast)
        s.crowdNotifierVisits = try checkIns().contains { $0.kind != .cwa }
        return s
    }

    /// When the last CWA sync completed (nil: never): a host's "last sync".
    public func lastSyncSuccess() throws -> Int64? { try optionalInteger(SyncSettings.lastSuccess) }

    private func optionalInteger(_ name: String) throws -> Int64? {
        if case .integer(let v)? = try setting(name) { return v }
        return nil
    }
}
