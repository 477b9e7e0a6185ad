import EncoreCheck
import EncoreCrypto
import EncoreHTTP
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// A key file to fetch and where it goes.
struct PackageTarget {
    var request: HTTPRequest
    var kind: SyncItem.Kind
    var day: String
    var hour: Int?
    var identifier: String
    /// Cached packages the new one replaces (a day's hours), removed in
    /// its transaction.
    var replaces: [String] = []

    var what: String { hour.map { "the key file of \(day) hour \($0)" } ?? "the key file of \(day)" }
}

/// A key file answer that passed verification.
struct CheckedPackage: Sendable {
    var bytes: [UInt8]
    var etag: String
    var file: KeyFile
}

/// CWA's key files: the day index and days, a day's hour index and
/// hours. Each package is verified (zip, export.bin, a trusted signature),
/// then kept with its ETag in a transaction of its own.
extension SyncOperation {
    func dayIndexWork() -> [SyncWork] {
        let dayFailed: (SyncOperation, EncoreError) throws -> Bool = { op, _ in
            try? op.store.setSetting(SyncSettings.daySyncFailed, to: .integer(1))
            return false
        }
        return [.fetch(DistributionProtocol.dayIndex(base: base, country: country), recover: dayFailed) { op, r in
            let listed = try DistributionProtocol.days(from: r)
            let cached = try op.store.cachedKeyFileIdentifiers(region: op.country)
            let gone = cached.filter { id in CachedKeyFileName.parse(id).map { $0.hour == nil && !listed.contains($0.day) } ?? false }
            try op.remove(gone)
            // The day's hours are covered by the day: they go with its arrival.
            let targets = try op.store.missingKeyFiles(region: op.country, available: listed).map { day in
                PackageTarget(request: DistributionProtocol.day(base: op.base, country: op.country, day: day), kind: .day, day: day, hour: nil,
                              identifier: day, replaces: cached.filter { $0.hasPrefix(day + "/") })
            }
            op.follow(with: op.packageWork(targets, recover: dayFailed) + [.local(recover: dayFailed) { op in
                try op.store.write { w in
                    try w.setSetting(SyncSettings.daySyncFailed, to: .integer(0))
                    try w.setSetting(SyncSettings.revocationPending, to: .integer(0))
                }
            }])
        }]
    }

    func hourIndexWork(_ day: String) throws -> [SyncWork] {
        // A day package covers its hours.
        if try store.hasCachedKeyFile(region: country, identifier: day) { return [] }
        return [.fetch(DistributionProtocol.hourIndex(base: base, country: country, day: day)) { op, r in
            let listed = try DistributionProtocol.hours(from: r).map { CachedKeyFileName.hour(day, $0) }
            try op.remove(try op.store.cachedKeyFileIdentifiers(region: op.country).filter { $0.hasPrefix(day + "/") && !listed.contains($0) })
            let targets = try op.store.missingKeyFiles(region: op.country, available: listed).compactMap { id -> PackageTarget? in
                guard let hour = CachedKeyFileName.parse(id)?.hour else { return nil }
                return PackageTarget(request: DistributionProtocol.hour(base: op.base, country: op.country, day: day, hour: hour), kind: .hour,
                                     day: day, hour: hour, identifier: id)
            }
            op.follow(with: op.packageWork(targets, recover: nil))
        }]
    }

    /// Cached packages the server no longer lists.
    private func remove(_ gone: [String]) throws {
        guard !gone.isEmpty else { return }
        try store.write { w in for id in gone { try w.removeCachedKeyFile(region: country, identifier: id) } }
        report.deleted += gone.count
        changed = true
    }

    /// The targets' packages in order, each kept once verified (when
    /// pipelined, the last one verified is written when the batch ends).
    /// Feeding an answer reads only its status and ETag and keeps its bytes
    /// as they came: verifying and writing a key file (about 10 ms for a
    /// day of 1.3 MB) is the compute step that follows it, so a host's
    /// event loop is never held by it. One answer waits at most: the next
    /// request comes after its compute step.
    private func packageWork(_ targets: [PackageTarget], recover: ((SyncOperation, EncoreError) throws -> Bool)?) -> [SyncWork] {
        targets.map { target in
            .fetch(target.request, recover: recover) { op, r in
                let (bytes, etag) = try DistributionProtocol.package(from: r, target.what)
                op.follow(with: [.compute(recover: recover) { op, _ in try op.keep(bytes, etag, target) }])
            }
        } + [.local(recover: recover) { op in try op.writeUnwritten() }]
    }

    /// Verifies a fed package and writes it (a compute step). The blocking
    /// run pipelines: the package verified before this one is written on
    /// this thread while this one is verified on another.
    private func keep(_ bytes: [UInt8], _ etag: String, _ target: PackageTarget) throws {
        let verification = KeyFileOptions(verification: .require, trust: servers.trust, limits: options.limits)
        guard pipelined else {
            let package = try Self.check(bytes, etag, verification)
            try Self.write(package, target, store: store, country: country, now: now)
            return note(package, target)
        }
        let previous = unwritten
        unwritten = nil
        let store = store, country = country, now = now
        let (checked, written) = Parallel.pair({ Result { try Self.check(bytes, etag, verification) } },
                                               { previous.map { p in Result { try Self.write(p.0, p.1, store: store, country: country, now: now) } } })
        if let written, let p = previous {
            try written.get()
            note(p.0, p.1)
        }
        unwritten = (try checked.get(), target)
    }

    /// Writes the verified package still waiting, if any (pipelined only).
    func writeUnwritten() throws {
        guard let (package, target) = unwritten else { return }
        unwritten = nil
        try Self.write(package, target, store: store, country: country, now: now)
        note(package, target)
    }

    /// Verifies a key file as it came: container, every field of
    /// export.bin and a trusted signature (the keys themselves are checked
    /// when the check reads them, as for any file).
    private static func check(_ bytes: [UInt8], _ etag: String, _ options: KeyFileOptions) throws -> CheckedPackage {
        let file = try KeyFile(bytes: bytes, options: options, keys: .countFields)
        return CheckedPackage(bytes: bytes, etag: etag, file: file)
    }

    /// Keeps a verified package with its ETag, replacing what it replaces,
    /// in one transaction.
    private static func write(_ package: CheckedPackage, _ target: PackageTarget, store: Store, country: String, now: Int64) throws {
        try store.write { w in
            try w.putCachedKeyFile(region: country, identifier: target.identifier, etag: package.etag, content: package.bytes, downloaded: now)
            for id in target.replaces { try w.removeCachedKeyFile(region: country, identifier: id) }
        }
    }

    /// What a kept package adds to the sync's report.
    private func note(_ package: CheckedPackage, _ target: PackageTarget) {
        // The check that follows reads the verified export.bin as it is.
        kept[country, default: [:]][target.identifier] = package.file.exportBinBuffer
        report.items.append(SyncItem(kind: target.kind, day: target.day, hour: target.hour, etag: package.etag,
                                     keys: Int(clamping: package.file.metadata.keyCount), bytes: package.bytes.count))
        report.deleted += target.replaces.count
        changed = true
    }
}
