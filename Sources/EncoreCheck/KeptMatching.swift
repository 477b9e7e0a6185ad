import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// Which kind of check ran: every file matched again, or only what is new.
public enum CheckKind: String, Sendable {
    case full, incremental
}

/// What a check matched (the rest it read from its kept matches).
public struct CheckWork: Equatable, Sendable {
    public var kind: CheckKind
    /// Files matched against the sightings (new, replaced, or all of them).
    public var files = 0
    /// Valid keys read from those files.
    public var keys = 0
    /// Sightings added since the kept files were matched.
    public var newSightings = 0
    /// Kept files read again for the keys those sightings can match.
    public var filesRescanned = 0
    /// Keys matched again against all their sightings (new sightings heard
    /// them, or sightings of theirs were purged).
    public var keysRematched = 0
    /// Files whose matches were read from the store.
    public var keptFiles = 0

    public init(kind: CheckKind) { self.kind = kind }

    public var json: JSONValue {
        .object([("kind", .string(kind.rawValue)), ("files", .int(files)), ("keys", .int(keys)),
                 ("keptFiles", .int(keptFiles)), ("newSightings", .int(newSightings)),
                 ("filesRescanned", .int(filesRescanned)), ("keysRematched", .int(keysRematched))])
    }
}

/// Matching of the key file cache that matches each file once (issue 49):
/// what a file matched is kept (KeptMatches) and read back by later
/// checks, which match only what is new:
/// - files the kept matches do not hold (new, or replaced: another
///   SHA-256), against the sightings of their keys' validity ± drift only;
/// - for kept files, the sightings added since they were matched (rowid
///   above their watermark, whatever their time: late imports too): the
///   files' keys are screened against those sightings alone, and each key
///   heard in them is matched again against all of its sightings;
/// - kept keys some of whose sightings a purge removed, likewise.
/// Kept files the cache no longer holds go (with the cached file, by the
/// foreign key), and so does everything kept under other matching
/// parameters (MatchingFingerprint). Windows and v1 exposures are made
/// from the kept scan instances by the same merge as a full match's, so
/// risk parameters, window length and now apply as in a full check.
struct KeptMatching {
    let store: Store
    let options: MatchingOptions
    let now: Int64
    let threads: Int

    func match(_ files: [CheckedKeyFile], full: Bool, v1: V1Configuration, progress: ProgressHandler?) throws -> (MatchResult, CheckWork) {
        var work = CheckWork(kind: full ? .full : .incremental)
        let fingerprint = MatchingFingerprint.of(options)
        // Read first: a sighting added while this check runs has a larger
        // rowid and is new for the next one (matching it twice is harmless).
        let watermark = try store.sightingWatermark()
        let cached = Dictionary(files.map { (Self.name($0.region, $0.identifier), $0) }, uniquingKeysWith: { a, _ in a })
        var current: [String: KeptFile] = [:]
        var dropped: [Int64] = []
        for k in try store.keptFiles() {
            let name = Self.name(k.region, k.identifier)
            if !full, let f = cached[name], f.sha256 == k.sha256, k.fingerprint == fingerprint { current[name] = k } else { dropped.append(k.id) }
        }
        work.keptFiles = current.count

        // New and replaced files, against the sightings their keys can match.
        let fresh = files.filter { current[Self.name($0.region, $0.identifier)] == nil }
        var changed: [KeptFile] = []
        var freshStatistics: [String: MatchStatistics] = [:]
        if !fresh.isEmpty {
            let (sources, ranges) = try fresh.count == files.count
                ? (fresh.map { try $0.read() }, [sightingsFrom ..< Int64.max]) : keyRanges(fresh)
            let set = try SightingSet(sightings(in: ranges))
            let outcomes = try Matcher.outcomes(sightings: set, files: sources, keyFileOptions: KeyFileOptions(verification: .skip),
                                                options: options, now: now, threads: threads, progress: progress)
            for (f, o) in zip(fresh, outcomes) {
                changed.append(KeptFile(id: 0, region: f.region, identifier: f.identifier, sha256: f.sha256, fingerprint: fingerprint,
                                        matchedThrough: watermark, newestEnd: o.stats.newestFileEnd, keys: o.stats.keys, revised: o.revised,
                                        matches: o.revisedMatches.map { KeptEntry(list: .revisedKeys, match: $0.1) }
                                            + o.mainMatches.map { KeptEntry(list: .keys, match: $0.1) }))
                freshStatistics[Self.name(f.region, f.identifier)] = o.stats
                work.files += 1
                work.keys += o.stats.keys
            }
        }

        // Kept files: the sightings added since, and purged ones.
        let behind = current.values.filter { $0.matchedThrough < watermark || $0.hasStale }.sorted { ($0.region, $0.identifier) < ($1.region, $1.identifier) }
        if !behind.isEmpty {
            let heard = try heardKeys(behind, cached: cached, watermark: watermark, work: &work)
            for var k in behind {
                let name = Self.name(k.region, k.identifier)
                k.matches = try rematched(k.matches, heard: heard[name] ?? [], work: &work)
                k.matchedThrough = watermark
                current[name] = k
                changed.append(k)
            }
        }

        if !dropped.isEmpty || !changed.isEmpty || full {
            try store.write { w in
                if full { try w.connection.exec("DELETE FROM kept_files") }
                for id in dropped { try w.deleteKeptFile(id: id) }
                for k in changed { try w.keep(k, drift: options.driftIntervals) }
            }
        }
        // Merged in the cache's order, as a full match merges its files.
        for k in changed { current[Self.name(k.region, k.identifier)] = k }
        let fileOutcomes = files.map { f -> Matcher.FileOutcome in
            let name = Self.name(f.region, f.identifier)
            guard let k = current[name] else { return Matcher.FileOutcome() } // the cache lost it meanwhile
            var o = k.outcome
            if let s = freshStatistics[name] { o.stats = s } // counts of what was matched now
            return o
        }
        return (Matcher.merge(fileOutcomes, options: options, now: now, v1: v1), work)
    }

    private static func name(_ region: String, _ identifier: String) -> String { region + "\u{0}" + identifier }

    /// The oldest sighting a key taking part in a match at now can match.
    private var sightingsFrom: Int64 { ExposureDetection.oldestSighting(options, now: now) }

    /// The files opened (once: their export.bin is what matching reads)
    /// and the times their keys can be heard at, validity ± drift.
    private func keyRanges(_ files: [CheckedKeyFile]) throws -> ([KeyFileSource], [Range<Int64>]) {
        var sources: [KeyFileSource] = [], ranges: [Range<Int64>] = []
        for f in files {
            guard let file = try KeyFile.open([f.read()], options: KeyFileOptions(verification: .skip), keys: .countFields).first?.get() else { continue }
            var lower = Int64.max, upper = Int64.min
            _ = try file.forEachKeyInFileOrder { _, key in
                let r = KeptRange.of(key, drift: options.driftIntervals)
                lower = min(lower, r.lowerBound)
                upper = max(upper, r.upperBound)
            }
            sources.append(.buffer(file.exportBinBuffer))
            if lower < upper { ranges.append(lower ..< upper) }
        }
        return (sources, ranges)
    }

    /// The stored sightings in `ranges` (from sightingsFrom on), each once.
    private func sightings(in ranges: [Range<Int64>]) throws -> [Sighting] {
        var merged: [Range<Int64>] = []
        for r in ranges.map({ max($0.lowerBound, sightingsFrom) ..< max($0.upperBound, sightingsFrom) }).filter({ !$0.isEmpty })
            .sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, r.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound ..< max(last.upperBound, r.upperBound)
            } else {
                merged.append(r)
            }
        }
        return try merged.flatMap { try store.sightings(from: $0.lowerBound, to: $0.upperBound) }
    }

    /// The keys of each behind file heard in the sightings added since its
    /// watermark, in file order, by file name.
    private func heardKeys(_ behind: [KeptFile], cached: [String: CheckedKeyFile], watermark: Int64,
                           work: inout CheckWork) throws -> [String: [KeptEntry]] {
        let scanned = behind.filter { $0.matchedThrough < watermark }
        guard let since = scanned.map(\.matchedThrough).min() else { return [:] }
        let added = try store.sightings(after: since, from: sightingsFrom)
        work.newSightings = added.count
        guard !added.isEmpty else { return [:] }
        let names = scanned.map { Self.name($0.region, $0.identifier) }
        let outcomes = try Matcher.outcomes(sightings: SightingSet(added), files: names.compactMap { try cached[$0]?.read() },
                                            keyFileOptions: KeyFileOptions(verification: .skip), options: options, now: now,
                                            threads: threads, reportHeard: true, progress: nil)
        work.filesRescanned = names.count
        var out: [String: [KeptEntry]] = [:]
        for (name, o) in zip(names, outcomes) {
            out[name] = o.revisedMatches.map { KeptEntry(list: .revisedKeys, match: $0.1) } + o.mainMatches.map { KeptEntry(list: .keys, match: $0.1) }
        }
        return out
    }

    /// A kept file's matches with the heard keys' and the stale entries
    /// matched again against all their sightings: each heard key's entries
    /// (of its list) replace the kept ones of that key where the first was,
    /// or come last; entries that no longer match go.
    private func rematched(_ kept: [KeptEntry], heard: [KeptEntry], work: inout CheckWork) throws -> [KeptEntry] {
        struct Entry: Hashable { let list: KeyList; let key: KeyData }
        let stale = kept.filter(\.stale)
        guard !heard.isEmpty || !stale.isEmpty else { return kept }
        let again = try rematch((heard + stale).map(\.match.key))
        work.keysRematched += heard.count + stale.count
        var byEntry: [Entry: [KeptEntry]] = [:]
        for (e, m) in zip(heard, again) {
            byEntry[Entry(list: e.list, key: e.match.key.keyData), default: []] += m.map { [KeptEntry(list: e.list, match: $0)] } ?? []
        }
        var staleAgain = Array(again[heard.count...]).makeIterator()
        var out: [KeptEntry] = [], placed: Set<Entry> = []
        for e in kept {
            let id = Entry(list: e.list, key: e.match.key.keyData)
            let replacement = e.stale ? staleAgain.next() ?? nil : nil
            if let entries = byEntry[id] {
                if placed.insert(id).inserted { out += entries }
            } else if e.stale {
                if let m = replacement { out.append(KeptEntry(list: e.list, match: m)) }
            } else {
                out.append(e)
            }
        }
        for e in heard where placed.insert(Entry(list: e.list, key: e.match.key.keyData)).inserted {
            out += byEntry[Entry(list: e.list, key: e.match.key.keyData)] ?? []
        }
        return out
    }

    /// Each key matched against all the stored sightings it can match (nil:
    /// no match), as a full match would match it.
    private func rematch(_ keys: [ExposureKey]) throws -> [KeyMatch?] {
        let set = try SightingSet(sightings(in: keys.map { KeptRange.of($0, drift: options.driftIntervals) }))
        let filter = KeyFilter(set: set, options: options, now: now)
        var stats = MatchStatistics()
        var positions: [Int] = [], candidates: [MatchCandidate] = []
        for (i, k) in keys.enumerated() {
            if let c = filter.candidate(k, stats: &stats) {
                positions.append(i)
                candidates.append(c)
            }
        }
        var out = [KeyMatch?](repeating: nil, count: keys.count)
        guard !candidates.isEmpty else { return out }
        let matcher = try KeyMatcher(set: set, days: set.dayFilters(drift: options.driftIntervals), options: options)
        for (at, m) in try matcher.match(candidates[...]) { out[positions[at]] = m }
        return out
    }
}
