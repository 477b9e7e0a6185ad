import EncoreHTTP
import EncoreKeyFiles
import EncoreModel
import EncoreProtocols
import EncoreStorage
import EncoreSupport

/// CWA's key packages: the day index and days, a day's hour index and
/// hours. Each package is verified (zip, export.bin, a trusted signature),
/// then kept with its ETag in a transaction of its own.
extension SyncRun {
    /// A package to fetch and where it goes.
    struct PackageTarget {
        var request: HTTPRequest
        var kind: SyncFetched.Kind
        var day: String
        var hour: Int?
        var identifier: String
        /// Cached packages the new one replaces (a day's hours), removed in
        /// its transaction.
        var replaces: [String] = []

        var what: String { hour.map { "the key package of \(day) hour \($0)" } ?? "the key package of \(day)" }
    }

    /// A package answer that passed verification.
    struct CheckedPackage: Sendable {
        var bytes: [UInt8]
        var etag: String
        var file: KeyFile
    }

    mutating func days() throws {
        do {
            guard let r = try fetch(DistributionProtocol.dayIndex(base: base, country: country)) else { return }
            let listed = try DistributionProtocol.days(from: r)
            let cached = try store.keyPackageIdentifiers(region: country)
            let gone = cached.filter { id in CachedPackageName.parse(id).map { $0.hour == nil && !listed.contains($0.day) } ?? false }
            try remove(gone)
            // The day's hours are covered by the day: they go with its arrival.
            let targets = try store.missingKeyPackages(region: country, available: listed).map { day in
                PackageTarget(request: DistributionProtocol.day(base: base, country: country, day: day), kind: .day, day: day, hour: nil,
                              identifier: day, replaces: cached.filter { $0.hasPrefix(day + "/") })
            }
            try fetchAndKeep(targets)
            if report.stoppedEarly { return }
            try store.write { w in
                try w.setSetting(SyncSettings.daySyncFailed, to: .integer(0))
                try w.setSetting(SyncSettings.revocationPending, to: .integer(0))
            }
        } catch {
            try? store.setSetting(SyncSettings.daySyncFailed, to: .integer(1))
            throw error
        }
    }

    mutating func hours(of day: String) throws {
        // A day package covers its hours.
        if try store.hasKeyPackage(region: country, identifier: day) { return }
        guard let r = try fetch(DistributionProtocol.hourIndex(base: base, country: country, day: day)) else { return }
        let listed = try DistributionProtocol.hours(from: r).map { CachedPackageName.hour(day, $0) }
        try remove(try store.keyPackageIdentifiers(region: country).filter { $0.hasPrefix(day + "/") && !listed.contains($0) })
        let targets = try store.missingKeyPackages(region: country, available: listed).compactMap { id -> PackageTarget? in
            guard let hour = CachedPackageName.parse(id)?.hour else { return nil }
            return PackageTarget(request: DistributionProtocol.hour(base: base, country: country, day: day, hour: hour), kind: .hour,
                                 day: day, hour: hour, identifier: id)
        }
        try fetchAndKeep(targets)
    }

    /// Cached packages the server no longer lists.
    private mutating func remove(_ gone: [String]) throws {
        guard !gone.isEmpty else { return }
        try store.write { w in for id in gone { try w.removeKeyPackage(region: country, identifier: id) } }
        report.deleted += gone.count
        changed = true
    }

    /// Fetches the targets' packages in order and keeps each. While one is
    /// verified (inflating and hashing export.bin) on another thread, the
    /// one verified before it is written to the store (encrypting pages,
    /// syncing the file) and the next one is fetched, on the calling thread
    /// (where a host's transport expects its calls), so two processors
    /// share the work. Packages are kept in order, each only once verified;
    /// the first failure ends the run: of writing (nothing more is fetched),
    /// of verifying (the package fetched meanwhile is dropped), of fetching
    /// (the verified package is written first).
    private mutating func fetchAndKeep(_ targets: [PackageTarget]) throws {
        guard let first = targets.first, var answer = try fetch(first.request) else { return }
        var ready: (CheckedPackage, PackageTarget)?
        var failedFetch: (any Error)?
        for (i, target) in targets.enumerated() {
            var next: HTTPRequest?
            if i + 1 < targets.count, try admit() { next = targets[i + 1].request }
            let run = self, r = answer, previous = ready
            let (checked, (written, fetched)) = Parallel.pair({ Result { try run.check(r, target.what) } },
                                                              { run.write(previous, thenFetch: next) })
            if let written, let p = previous {
                try written.get()
                note(p.0, p.1)
            }
            ready = (try checked.get(), target)
            guard let fetched else { break }
            do { answer = try fetched.get() } catch { failedFetch = error; break }
        }
        if let p = ready {
            try write(p.0, p.1)
            note(p.0, p.1)
        }
        if let failedFetch { throw failedFetch }
    }

    /// Verifies a key package answer: container, every field of export.bin
    /// and a trusted signature (the keys themselves are checked when the
    /// check reads them, as for any file).
    private func check(_ r: HTTPResponse, _ what: String) throws -> CheckedPackage {
        let (bytes, etag) = try DistributionProtocol.package(from: r, what)
        let file = try KeyFile(bytes: bytes, options: KeyFileOptions(verification: .require, trust: options.trust, limits: options.limits),
                               keys: .countFields)
        return CheckedPackage(bytes: bytes, etag: etag, file: file)
    }

    /// Lane B of fetchAndKeep: writes the package verified before (if any),
    /// then, unless that failed, fetches the next (if any).
    private func write(_ previous: (CheckedPackage, PackageTarget)?,
                       thenFetch next: HTTPRequest?) -> (Result<Void, any Error>?, Result<HTTPResponse, any Error>?) {
        let written: Result<Void, any Error>? = previous.map { p in Result { try write(p.0, p.1) } }
        if case .failure? = written { return (written, nil) }
        return (written, next.map { n in Result { try transport.perform(n) } })
    }

    /// Keeps a verified package with its ETag, replacing what it replaces,
    /// in one transaction.
    private func write(_ package: CheckedPackage, _ target: PackageTarget) throws {
        try store.write { w in
            try w.putKeyPackage(region: country, identifier: target.identifier, etag: package.etag, content: package.bytes, downloaded: now)
            for id in target.replaces { try w.removeKeyPackage(region: country, identifier: id) }
        }
    }

    /// What a kept package adds to the run's report.
    private mutating func note(_ package: CheckedPackage, _ target: PackageTarget) {
        // The check that follows reads the verified export.bin as it is.
        kept[country, default: [:]][target.identifier] = package.file.exportBinBuffer
        report.fetched.append(SyncFetched(kind: target.kind, day: target.day, hour: target.hour, etag: package.etag,
                                          keys: Int(clamping: package.file.metadata.keyCount)))
        report.deleted += target.replaces.count
        changed = true
    }
}
