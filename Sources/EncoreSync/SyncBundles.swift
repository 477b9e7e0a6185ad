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

/// The bundle-tag backends (DP-3T keys, CrowdNotifier trace keys) and CWA's
/// trace warning packages.
extension SyncOperation {
    // MARK: - DP-3T

    /// Everything published since the stored bundle tag; the new tag is
    /// stored with the bundle (never before it was verified and kept).
    func dp3tWork() throws -> [SyncWork] {
        guard let base = servers.dp3t, let key = servers.dp3tKey else { return [] }
        let tag: String? = if case .text(let t)? = try store.setting(SyncSettings.dp3tTag) { t } else { nil }
        let synced = try dp3tSyncTimes()
        return [sinceBundleTag(try DP3TProtocol.exposed(base: base, lastKeyBundleTag: tag), .dp3t, key: key, storeTag: SyncSettings.storeDP3TTag,
                               synced: (SyncSettings.dp3tSyncs, .text(synced)), backend: "DP-3T") { op, body, next in
            // The JWT authenticated the body; the zip is still checked as a
            // key file, and written, in a compute step as CWA's key files.
            op.follow(with: [.compute { op, _ in
                let file = try KeyFile(bytes: body, options: KeyFileOptions(verification: .skip, limits: op.options.limits), keys: .countFields)
                try op.store.write { w in
                    try w.putCachedKeyFile(region: CachedKeyFileName.dp3tRegion, identifier: next, etag: nil, content: body, downloaded: op.now)
                    try w.setSetting(SyncSettings.dp3tTag, to: .text(next))
                    try w.setSetting(SyncSettings.dp3tSyncs, to: .text(synced))
                }
                op.kept[CachedKeyFileName.dp3tRegion, default: [:]][next] = file.exportBinBuffer
                op.report.items.append(SyncItem(kind: .dp3t, day: nil, hour: nil, etag: next, keys: Int(clamping: file.metadata.keyCount),
                                                bytes: body.count))
                op.changed = true
            }])
        }]
    }

    /// The DP-3T syncs of the last day, this one included (the planner's 6-a-day rule).
    private func dp3tSyncTimes() throws -> String {
        var times: [Int64] = []
        if case .text(let list)? = try store.setting(SyncSettings.dp3tSyncs) { times = list.split(separator: ",").compactMap { Int64($0) } }
        return (times.filter { $0 > now - UnixTime.day } + [now]).map(String.init).joined(separator: ",")
    }

    // MARK: - CrowdNotifier trace keys

    /// Trace keys published since the stored bundle tag, matched against
    /// the SwissCovid and NotifyMe visits; the tag is stored with the
    /// matches (never before the body was verified and processed). The
    /// pairings are heavy: the matching is a compute step of its own.
    func traceKeysWork() throws -> [SyncWork] {
        guard let base = servers.crowdNotifier, let key = servers.crowdNotifierKey else { return [] }
        let service = CheckInService(store: store)
        return [sinceBundleTag(try DP3TProtocol.traceKeys(base: base, lastKeyBundleTag: try service.traceKeyBundleTag()), .traceKeys, key: key,
                               storeTag: { w, tag in try w.setTraceKeyBundleTag(tag) }, synced: (SyncSettings.traceKeysLast, .integer(now)),
                               backend: "CrowdNotifier") { op, body, next in
            // The JWT's content hash was checked against the body.
            op.follow(with: [.compute { op, progress in
                let outcome = try service.matchTraceKeys(body, bundleTag: next, now: op.now, progress: progress)
                try op.store.setSetting(SyncSettings.traceKeysLast, to: .integer(op.now))
                op.report.items.append(SyncItem(kind: .traceKeys, day: nil, hour: nil, etag: next, keys: outcome.events, matches: outcome.new.count,
                                                bytes: body.count))
                op.report.checkInMatches += outcome.new.count
                if !outcome.new.isEmpty { op.changed = true }
            }])
        }]
    }

    /// One request to a bundle-tag backend: a verified body goes to `keep`
    /// (which stores the new tag with what it keeps); with nothing new only
    /// the tag and the sync time move; a refused tag (unaligned 400, in the
    /// future 404) is dropped, so the next sync fetches everything.
    /// `storeTag` writes the backend's tag (nil: forgets it) where the
    /// feature that owns it keeps it.
    private func sinceBundleTag(_ request: HTTPRequest, _ kind: SyncItem.Kind, key: PublicKey,
                                storeTag: @escaping (StoreWriter, String?) throws -> Void, synced: (name: String, value: SettingValue),
                                backend: String, keep: @escaping (SyncOperation, [UInt8], String) throws -> Void) -> SyncWork {
        .fetch(request) { op, r in
            switch try DP3TProtocol.answer(r, key: key) {
            case .keys(let body, let next):
                try keep(op, body, next)
            case .nothingNew(let next):
                try op.store.write { w in
                    if let next { try storeTag(w, next) }
                    try w.setSetting(synced.name, to: synced.value)
                }
                op.report.items.append(SyncItem(kind: kind, day: nil, hour: nil, etag: next ?? "", keys: 0, outcome: .cached))
            case .tagRefused(let status):
                try op.store.write { try storeTag($0, nil) }
                op.report.warnings.append("the \(backend) backend refused the stored bundle tag (\(status)); the next sync fetches everything")
            }
        }
    }

    // MARK: - check-in warnings

    /// CWA's trace warning packages of the announced hours of the last 14
    /// days not yet cached: each verified like a key file, matched
    /// against the check-ins as it arrives (its warnings stored), then kept
    /// with its ETag so it is not fetched again. Matching again after a
    /// crash between the two adds nothing (warnings are stored once).
    func traceWarningsWork() -> [SyncWork] {
        let region = servers.warningRegion
        let cacheRegion = CachedKeyFileName.warningRegion(region)
        return [.fetch(DistributionProtocol.traceWarningIndex(base: base, region: region)) { op, r in
            let announced = try DistributionProtocol.traceWarningHours(from: r)
            let cached = try op.store.cachedKeyFileIdentifiers(region: cacheRegion)
            let gone = cached.filter { id in Int64(id).map { !(announced?.contains($0) ?? false) } ?? true }
            if !gone.isEmpty {
                try op.store.write { w in for id in gone { try w.removeCachedKeyFile(region: cacheRegion, identifier: id) } }
                op.report.deleted += gone.count
            }
            guard let announced else { return }
            // Whatever the index says, only the retention's hours up to now.
            let nowHour = op.now / 3600
            let lo = max(announced.lowerBound, nowHour - SyncService.retentionDays * 24), hi = min(announced.upperBound, nowHour)
            guard lo <= hi else { return }
            let missing = try op.store.missingKeyFiles(region: cacheRegion, available: (lo ... hi).map(String.init))
            op.follow(with: missing.compactMap { id in Int64(id).map { op.warningPackageWork(id, interval: $0) } })
        }]
    }

    private func warningPackageWork(_ id: String, interval: Int64) -> SyncWork {
        let region = servers.warningRegion
        return .fetch(DistributionProtocol.traceWarningPackage(base: base, region: region, interval: interval)) { op, r in
            let (bytes, etag) = try DistributionProtocol.package(from: r, "the trace warning package of hour \(interval)")
            // An empty body is the empty package: nothing to verify or match.
            var outcome: WarningPackageOutcome?
            if !bytes.isEmpty {
                outcome = try CheckInService(store: op.store).matchWarningPackage(bytes, trust: op.servers.trust, verify: true,
                                                                                  limits: op.options.limits, now: op.now)
            }
            try op.store.write { w in
                try w.putCachedKeyFile(region: CachedKeyFileName.warningRegion(region), identifier: id, etag: etag, content: bytes, downloaded: op.now)
            }
            let added = outcome?.added ?? 0
            op.report.items.append(SyncItem(kind: .warnings, day: nil, hour: nil, etag: etag, keys: outcome.map { $0.scan.reports + $0.scan.warnings } ?? 0,
                                            interval: interval, matches: added, bytes: bytes.count))
            op.report.checkInMatches += added
            if added > 0 { op.changed = true }
        }
    }
}
