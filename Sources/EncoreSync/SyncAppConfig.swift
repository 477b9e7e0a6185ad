import EncoreCheck
import EncoreCheckIns
import EncoreCrypto
import EncoreHTTP
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// CWA's app configuration: fetched unless unchanged, verified, kept with
/// its ETag; the cached packages it revokes go in the same transaction.
/// When it cannot be fetched or verified (404, 5xx, no answer, a bad
/// signature, a payload that does not parse) the packages are synced and
/// checked all the same, with the last verified configuration or the
/// built-in one: the failure counts for the configuration's own backoff,
/// not for the sync's.
extension SyncOperation {
    func appConfigWork() -> [SyncWork] {
        [.local { op in try op.store.setSetting(SyncSettings.configLastAttempt, to: .integer(op.now)) },
         .local { op in op.follow(with: [try op.appConfigFetch()]) }]
    }

    /// Made once the attempt is recorded: the ETag is the stored configuration's.
    private func appConfigFetch() throws -> SyncWork {
        let etag: String? = if case .text(let t)? = try store.setting(SyncSettings.configETag), try store.setting(SyncSettings.config) != nil { t } else { nil }
        return .fetch(DistributionProtocol.appConfig(base: base, etag: etag), recover: { op, e in try op.configurationFailed(e) },
                      onBudget: { op in op.report.configuration = try op.fallback("the sync's time budget ran out before the configuration", failures: 0) }) { op, r in
            try op.applyAppConfig(r, storedETag: etag)
            try op.store.write { w in
                try w.setSetting(SyncSettings.configFailures, to: .integer(0))
                try w.deleteSetting(SyncSettings.configLastError)
            }
        }
    }

    /// A failure of the configuration alone is recorded and the sync goes
    /// on; the rest (a cancellation, the store, memory, a bug) fails it.
    private func configurationFailed(_ e: EncoreError) throws -> Bool {
        guard Self.degradable(e.kind) else { return false }
        let failures = (try store.syncState(country: country).configFailures).saturatingAdding(1)
        try store.write { w in
            try w.setSetting(SyncSettings.configFailures, to: .integer(Int64(failures)))
            try w.setSetting(SyncSettings.configLastError, to: .text(e.message))
        }
        // Said once, in report.configuration (not also as a warning), and its item.
        report.items.append(SyncItem(kind: .config, day: nil, hour: nil, etag: "", keys: 0, outcome: .failed, failure: e))
        report.configuration = try fallback("the configuration could not be fetched or verified: \(e.message)", failures: failures)
        return true
    }

    static func degradable(_ kind: EncoreError.Kind) -> Bool {
        switch kind {
        case .cancelled, .outOfMemory, .internalError, .invalidArgument,
             .storeWrongKey, .storeNotDatabase, .storeTooNew, .storeFailed, .storeBusy, .storeMissing, .storeClosed, .storeCorrupt: return false
        default: return true
        }
    }

    /// The configuration the check goes on with when none was fetched: the
    /// stored (verified when it was fetched) one, else the built-in values.
    func fallback(_ reason: String, failures: Int) throws -> SyncConfigurationUse {
        let stored: Bool = if case .blob? = try store.setting(SyncSettings.config) { true } else { false }
        return SyncConfigurationUse(source: stored ? .lastVerified : .builtIn, reason: reason, failures: failures)
    }

    /// Keeps a new configuration with its ETag and deletes the cached
    /// packages it revokes, in one transaction; a revocation is followed by
    /// a fresh look at the day index.
    private func applyAppConfig(_ r: HTTPResponse, storedETag: String?) throws {
        if r.status == 304 {
            report.configuration = SyncConfigurationUse(source: .unchanged, reason: nil, failures: 0)
            report.items.append(SyncItem(kind: .config, day: nil, hour: nil, etag: storedETag ?? "", keys: 0, outcome: .cached))
            return
        }
        let (bytes, newTag) = try DistributionProtocol.package(from: r, "the app configuration")
        let package = try SignedPackage(bytes: bytes, trust: servers.trust, verify: true, limits: options.limits)
        let config = try AppConfiguration(payload: package.payload)
        let cached = try cachedETags()
        let revoked = config.revoked.filter { $0.region == country }.compactMap { p -> String? in
            let id = p.hour.map { CachedKeyFileName.hour(p.date, $0) } ?? p.date
            return cached[id] == p.etag ? id : nil
        }
        let revokedWarnings = try revokedWarningPackages(config)
        try store.write { w in
            try w.setSetting(SyncSettings.config, to: .blob(package.payload))
            try w.setSetting(SyncSettings.configETag, to: .text(newTag))
            for id in revoked { try w.removeCachedKeyFile(region: country, identifier: id) }
            if !revoked.isEmpty { try w.setSetting(SyncSettings.revocationPending, to: .integer(1)) }
            // A revoked warning package goes with the warnings it brought;
            // the next sync fetches it again.
            for (id, digest) in revokedWarnings {
                try w.removeCachedKeyFile(region: CachedKeyFileName.warningRegion(servers.warningRegion), identifier: id)
                if let digest { try w.removeCheckInWarnings(package: digest) }
            }
        }
        report.configuration = SyncConfigurationUse(source: .fetched, reason: nil, failures: 0)
        report.items.append(SyncItem(kind: .config, day: nil, hour: nil, etag: newTag, keys: 0, bytes: bytes.count))
        report.revoked += revoked.count + revokedWarnings.count
        changed = true
        if !revoked.isEmpty { lookUpDaysAgain() }
    }

    /// The cached trace warning packages the configuration revokes: an hour
    /// package of the warning region whose ETag is the cached one's (its
    /// interval is the day's midnight hour plus the hour), with the SHA-256
    /// of its export.bin, which names the warnings it brought (nil: empty).
    private func revokedWarningPackages(_ config: AppConfiguration) throws -> [(String, [UInt8]?)] {
        let region = CachedKeyFileName.warningRegion(servers.warningRegion)
        return try config.revoked.filter { $0.region == servers.warningRegion }.compactMap { p -> (String, [UInt8]?)? in
            guard let hour = p.hour, let midnight = UTCTime.midnight(ofDay: p.date) else { return nil }
            let id = String(midnight / 3600 + Int64(hour))
            guard let info = try store.cachedKeyFileInfo(region: region, identifier: id), info.etag == p.etag else { return nil }
            let bytes = try store.withCachedKeyFileContent(region: region, identifier: id) { Array($0) }
            if bytes.isEmpty { return (id, nil) }
            let payload = try SignedPackage(bytes: bytes, trust: nil, verify: false, limits: options.limits).payload
            return (id, Digest.sha256(payload))
        }
    }

    private func cachedETags() throws -> [String: String] {
        var out: [String: String] = [:]
        for id in try store.cachedKeyFileIdentifiers(region: country) {
            if let e = try store.cachedKeyFileInfo(region: country, identifier: id)?.etag { out[id] = e }
        }
        return out
    }
}
