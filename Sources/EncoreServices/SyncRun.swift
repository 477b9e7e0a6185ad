import EncoreCheckIns
import EncoreCrypto
import EncoreHTTP
import EncoreKeyFiles
import EncoreModel
import EncoreProtocols
import EncoreStorage
import EncoreSupport

/// One sync's steps against the servers: every answer is verified, then
/// applied in one transaction (the package together with the state that
/// names it), so that a sync stopped at any point keeps only verified
/// packages and the next one resumes where this one stopped.
struct SyncRun {
    let store: Store
    let transport: any HTTPTransport
    let options: SyncOptions
    let now: Int64
    var report: SyncReport
    /// New keys, configuration or deletions: the check must run again.
    var changed = false
    /// The key packages kept by this run (region → identifier → export.bin
    /// or package), for the check that follows: it need not read them back
    /// from the cache, nor inflate again what verifying them inflated.
    var kept: [String: [String: OwnedBytes]] = [:]
    private let started = ContinuousClock.now
    private var requests = 0

    init(store: Store, transport: any HTTPTransport, options: SyncOptions, now: Int64, report: SyncReport) {
        self.store = store
        self.transport = transport
        self.options = options
        self.now = now
        self.report = report
    }

    var country: String { options.country }
    var base: String { options.distribution ?? "" }

    mutating func perform(_ steps: [SyncStep]) throws {
        var pending = steps
        while !pending.isEmpty {
            let step = pending.removeFirst()
            switch step {
            case .appConfig:
                // A revocation is followed by a fresh index look-up.
                if try appConfigOrFallback(), !pending.contains(.dayIndex) {
                    pending.insert(.dayIndex, at: 0)
                }
            case .dayIndex: try days()
            case .hourIndex(let day): try hours(of: day)
            case .dp3t: try dp3t()
            case .traceWarnings: try traceWarnings()
            case .traceKeys: try traceKeys()
            }
            if report.stoppedEarly { return }
        }
    }

    // MARK: - requests

    /// Performs a request unless the budget is spent (then nil: stop cleanly).
    mutating func fetch(_ request: HTTPRequest) throws -> HTTPResponse? {
        guard try admit() else { return nil }
        return try transport.perform(request)
    }

    /// Whether one more request may go out: false once the time budget is
    /// spent (the run stops cleanly); throws when the progress callback
    /// cancels. Counts the request.
    mutating func admit() throws -> Bool {
        let elapsed = ContinuousClock.now - started
        guard elapsed < .seconds(options.budgetSeconds) else {
            report.stoppedEarly = true
            report.warnings.append("the sync's time budget (\(options.budgetSeconds) s) ran out; the next sync resumes")
            return false
        }
        if let p = options.progress, !p(UInt64(requests), UInt64(requests + 1)) { throw EncoreError(.cancelled, "the sync was cancelled") }
        requests += 1
        return true
    }

    // MARK: - the app configuration

    /// The configuration, or, when it cannot be fetched or verified (404,
    /// 5xx, no answer, a bad signature, a payload that does not parse),
    /// the last verified one or the built-in one: the packages are synced
    /// and checked all the same. The failure counts for the
    /// configuration's own backoff, not for the sync's.
    private mutating func appConfigOrFallback() throws -> Bool {
        do {
            try store.setSetting(SyncSettings.configLastAttempt, to: .integer(now))
            let revoked = try appConfig()
            if !report.stoppedEarly {
                try store.write { w in
                    try w.setSetting(SyncSettings.configFailures, to: .integer(0))
                    try w.deleteSetting(SyncSettings.configLastError)
                }
            }
            return revoked
        } catch let e as EncoreError where Self.degradable(e.kind) {
            let failures = (try store.syncState(country: country).configFailures).addingReportingOverflow(1).partialValue
            try store.write { w in
                try w.setSetting(SyncSettings.configFailures, to: .integer(Int64(failures)))
                try w.setSetting(SyncSettings.configLastError, to: .text(e.message))
            }
            // Said once, in report.configuration (not also as a warning).
            report.configuration = try fallback("the configuration could not be fetched or verified: \(e.message)", failures: failures)
            return false
        }
    }

    /// What fails the configuration alone; the rest (a cancellation, the
    /// store, memory, a bug) fails the sync.
    static func degradable(_ kind: EncoreError.Kind) -> Bool {
        switch kind {
        case .cancelled, .outOfMemory, .internalError, .invalidArgument,
             .storeWrongKey, .storeNotDatabase, .storeTooNew, .storeFailed, .storeBusy, .storeMissing: return false
        default: return true
        }
    }

    /// The configuration the check goes on with when none was fetched: the
    /// stored (verified when it was fetched) one, else the built-in values.
    func fallback(_ reason: String, failures: Int) throws -> SyncConfigurationUse {
        let stored: Bool = if case .blob? = try store.setting(SyncSettings.config) { true } else { false }
        return SyncConfigurationUse(source: stored ? .lastVerified : .builtIn, reason: reason, failures: failures)
    }

    /// Fetches the configuration unless unchanged (304); keeps it with its
    /// ETag and deletes the cached packages it revokes, in one transaction.
    /// Returns whether packages were revoked.
    private mutating func appConfig() throws -> Bool {
        let etag: String? = if case .text(let t)? = try store.setting(SyncSettings.configETag), try store.setting(SyncSettings.config) != nil { t } else { nil }
        guard let r = try fetch(DistributionProtocol.appConfig(base: base, etag: etag)) else {
            report.configuration = try fallback("the sync's time budget ran out before the configuration", failures: 0)
            return false
        }
        noteClock(r)
        if r.status == 304 {
            report.configuration = SyncConfigurationUse(source: .unchanged, reason: nil, failures: 0)
            return false
        }
        let (bytes, newTag) = try DistributionProtocol.package(from: r, "the app configuration")
        let package = try SignedPackage(bytes: bytes, trust: options.trust, verify: true, limits: options.limits)
        let config = try AppConfiguration(payload: package.payload)
        let cached = try cachedETags()
        let revoked = config.revoked.filter { $0.region == country }.compactMap { p -> String? in
            let id = p.hour.map { CachedPackageName.hour(p.date, $0) } ?? p.date
            return cached[id] == p.etag ? id : nil
        }
        let revokedWarnings = try revokedWarningPackages(config)
        try store.write { w in
            try w.setSetting(SyncSettings.config, to: .blob(package.payload))
            try w.setSetting(SyncSettings.configETag, to: .text(newTag))
            for id in revoked { try w.removeKeyPackage(region: country, identifier: id) }
            if !revoked.isEmpty { try w.setSetting(SyncSettings.revocationPending, to: .integer(1)) }
            // A revoked warning package goes with the warnings it brought;
            // the next sync fetches it again.
            for (id, digest) in revokedWarnings {
                try w.removeKeyPackage(region: CachedPackageName.warningRegion(options.warningRegion), identifier: id)
                if let digest { try w.removeCheckInWarnings(package: digest) }
            }
        }
        report.revoked += revokedWarnings.count
        report.configuration = SyncConfigurationUse(source: .fetched, reason: nil, failures: 0)
        report.fetched.append(SyncFetched(kind: .config, day: nil, hour: nil, etag: newTag, keys: 0))
        report.revoked += revoked.count
        changed = true
        return !revoked.isEmpty
    }

    /// The cached trace warning packages the configuration revokes: an hour
    /// package of the warning region whose ETag is the cached one's (its
    /// interval is the day's midnight hour plus the hour), with the SHA-256
    /// of its export.bin, which names the warnings it brought (nil: empty).
    private func revokedWarningPackages(_ config: AppConfiguration) throws -> [(String, [UInt8]?)] {
        let region = CachedPackageName.warningRegion(options.warningRegion)
        return try config.revoked.filter { $0.region == options.warningRegion }.compactMap { p -> (String, [UInt8]?)? in
            guard let hour = p.hour, let midnight = UTCTime.midnight(ofDay: p.date) else { return nil }
            let id = String(midnight / 3600 + Int64(hour))
            guard let info = try store.keyPackageInfo(region: region, identifier: id), info.etag == p.etag else { return nil }
            let bytes = try store.withKeyPackageContent(region: region, identifier: id) { Array($0) }
            if bytes.isEmpty { return (id, nil) }
            let payload = try SignedPackage(bytes: bytes, trust: nil, verify: false, limits: options.limits).payload
            return (id, CheckInCrypto.sha256(payload))
        }
    }

    private mutating func noteClock(_ r: HTTPResponse) {
        guard let server = DistributionProtocol.serverDate(r) else { return }
        let offset = server - now
        report.clockOffset = offset
        if abs(offset) > SyncService.clockWarningSeconds {
            report.warnings.append("this device's clock is \(abs(offset) / 60) minutes \(offset > 0 ? "behind" : "ahead of") the server's")
        }
    }

    private func cachedETags() throws -> [String: String] {
        var out: [String: String] = [:]
        for id in try store.keyPackageIdentifiers(region: country) {
            if let e = try store.keyPackageInfo(region: country, identifier: id)?.etag { out[id] = e }
        }
        return out
    }

    // MARK: - DP-3T

    /// Everything published since the stored bundle tag; the new tag is
    /// stored with the bundle (never before it was verified and kept).
    private mutating func dp3t() throws {
        guard let base = options.dp3t, let key = options.dp3tKey else { return }
        let tag: String? = if case .text(let t)? = try store.setting(SyncSettings.dp3tTag) { t } else { nil }
        let synced = try dp3tSyncTimes()
        try sinceBundleTag(try DP3TProtocol.exposed(base: base, lastKeyBundleTag: tag), key: key, tagSetting: SyncSettings.dp3tTag,
                           synced: (SyncSettings.dp3tSyncs, .text(synced)), backend: "DP-3T") { run, body, next in
            // The JWT authenticated the body; the zip is still checked as a key file.
            let file = try KeyFile(bytes: body, options: KeyFileOptions(verification: .skip, limits: run.options.limits), keys: .countFields)
            try run.store.write { w in
                try w.putKeyPackage(region: CachedPackageName.dp3tRegion, identifier: next, etag: nil, content: body, downloaded: run.now)
                try w.setSetting(SyncSettings.dp3tTag, to: .text(next))
                try w.setSetting(SyncSettings.dp3tSyncs, to: .text(synced))
            }
            run.kept[CachedPackageName.dp3tRegion, default: [:]][next] = file.exportBinBuffer
            run.report.fetched.append(SyncFetched(kind: .dp3t, day: nil, hour: nil, etag: next, keys: Int(clamping: file.metadata.keyCount)))
            run.changed = true
        }
    }

    /// One answer of a bundle-tag backend (DP-3T keys, CrowdNotifier trace
    /// keys): a verified body goes to `keep` (which stores the new tag with
    /// what it keeps); with nothing new only the tag and the sync time move;
    /// a refused tag (unaligned 400, in the future 404) is dropped, so the
    /// next sync fetches everything.
    private mutating func sinceBundleTag(_ request: HTTPRequest, key: PublicKey, tagSetting: String, synced: (name: String, value: SettingValue),
                                         backend: String, keep: (inout SyncRun, [UInt8], String) throws -> Void) throws {
        guard let r = try fetch(request) else { return }
        switch try DP3TProtocol.answer(r, key: key) {
        case .keys(let body, let next):
            try keep(&self, body, next)
        case .nothingNew(let next):
            try store.write { w in
                if let next { try w.setSetting(tagSetting, to: .text(next)) }
                try w.setSetting(synced.name, to: synced.value)
            }
        case .tagRefused(let status):
            try store.deleteSetting(tagSetting)
            report.warnings.append("the \(backend) backend refused the stored bundle tag (\(status)); the next sync fetches everything")
        }
    }

    // MARK: - check-in warnings

    /// CWA's trace warning packages of the announced hours of the last 14
    /// days not yet cached: each verified like a key package, matched
    /// against the check-ins as it arrives (its warnings stored), then kept
    /// with its ETag so it is not fetched again. Matching again after a
    /// crash between the two adds nothing (warnings are stored once).
    private mutating func traceWarnings() throws {
        let region = options.warningRegion
        let cacheRegion = CachedPackageName.warningRegion(region)
        guard let r = try fetch(DistributionProtocol.traceWarningIndex(base: base, region: region)) else { return }
        let announced = try DistributionProtocol.traceWarningHours(from: r)
        let cached = try store.keyPackageIdentifiers(region: cacheRegion)
        let gone = cached.filter { id in Int64(id).map { !(announced?.contains($0) ?? false) } ?? true }
        if !gone.isEmpty {
            try store.write { w in for id in gone { try w.removeKeyPackage(region: cacheRegion, identifier: id) } }
            report.deleted += gone.count
        }
        guard let announced else { return }
        // Whatever the index says, only the retention's hours up to now.
        let nowHour = now / 3600
        let lo = max(announced.lowerBound, nowHour - SyncService.retentionDays * 24), hi = min(announced.upperBound, nowHour)
        guard lo <= hi else { return }
        let service = CheckInService(store: store)
        for id in try store.missingKeyPackages(region: cacheRegion, available: (lo ... hi).map(String.init)) {
            guard let interval = Int64(id) else { continue }
            guard let r = try fetch(DistributionProtocol.traceWarningPackage(base: base, region: region, interval: interval)) else { return }
            let (bytes, etag) = try DistributionProtocol.package(from: r, "the trace warning package of hour \(interval)")
            // An empty body is the empty package: nothing to verify or match.
            var outcome: WarningPackageOutcome?
            if !bytes.isEmpty {
                outcome = try service.matchWarningPackage(bytes, trust: options.trust, verify: true, limits: options.limits, now: now)
            }
            try store.write { w in try w.putKeyPackage(region: cacheRegion, identifier: id, etag: etag, content: bytes, downloaded: now) }
            let added = outcome?.added ?? 0
            report.fetched.append(SyncFetched(kind: .warnings, day: nil, hour: nil, etag: etag, keys: outcome.map { $0.scan.reports + $0.scan.warnings } ?? 0,
                                              interval: interval, matches: added))
            report.checkInMatches += added
            if added > 0 { changed = true }
        }
    }

    // MARK: - CrowdNotifier trace keys

    /// Trace keys published since the stored bundle tag, matched against
    /// the SwissCovid and NotifyMe visits; the tag is stored with the
    /// matches (never before the body was verified and processed).
    private mutating func traceKeys() throws {
        guard let base = options.crowdNotifier, let key = options.crowdNotifierKey else { return }
        let service = CheckInService(store: store)
        try sinceBundleTag(try DP3TProtocol.traceKeys(base: base, lastKeyBundleTag: try service.traceKeyBundleTag()), key: key,
                           tagSetting: CheckInService.traceKeyBundleTagSetting, synced: (SyncSettings.traceKeysLast, .integer(now)),
                           backend: "CrowdNotifier") { run, body, next in
            // The JWT's content hash was checked against the body.
            let outcome = try service.matchTraceKeys(body, bundleTag: next, now: run.now)
            try run.store.setSetting(SyncSettings.traceKeysLast, to: .integer(run.now))
            run.report.fetched.append(SyncFetched(kind: .traceKeys, day: nil, hour: nil, etag: next, keys: outcome.events, matches: outcome.new.count))
            run.report.checkInMatches += outcome.new.count
            if !outcome.new.isEmpty { run.changed = true }
        }
    }

    /// The DP-3T syncs of the last day, this one included (the planner's 6-a-day rule).
    private func dp3tSyncTimes() throws -> String {
        var times: [Int64] = []
        if case .text(let list)? = try store.setting(SyncSettings.dp3tSyncs) { times = list.split(separator: ",").compactMap { Int64($0) } }
        return (times.filter { $0 > now - UnixTime.day } + [now]).map(String.init).joined(separator: ",")
    }
}
