import EncoreCrypto
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport
#if canImport(Glibc)
import Glibc
#endif

/// Counts of what matching did with the keys, for tests and benchmarks:
/// every valid key read is counted in `keys`, and once more under the first
/// reason it was skipped (revoked, old, no sightings, not infectious) or as
/// derived.
public struct MatchStatistics: Equatable, Sendable {
    public var files = 0
    public var keys = 0
    public var skippedOld = 0
    public var skippedRevoked = 0
    public var skippedNotInfectious = 0
    /// Skipped before any crypto: no sighting in the key's validity ± drift.
    public var skippedNoSightings = 0
    /// Keys whose RPIs were derived.
    public var derived = 0
    public var matchedKeys = 0
    /// The latest end_timestamp among the files (how fresh the keys are).
    public var newestFileEnd: Int64?
    public init() {}

    package mutating func add(_ o: MatchStatistics) {
        files += o.files
        keys += o.keys
        skippedOld += o.skippedOld
        skippedRevoked += o.skippedRevoked
        skippedNotInfectious += o.skippedNotInfectious
        skippedNoSightings += o.skippedNoSightings
        derived += o.derived
        matchedKeys += o.matchedKeys
        if let e = o.newestFileEnd { newestFileEnd = max(newestFileEnd ?? e, e) }
    }
}

/// The result of matching: windows (v2) and exposures and summary (v1).
/// None of it carries key material.
public struct MatchResult: Sendable {
    public var windows: [ExposureWindow]
    public var exposuresV1: [ExposureV1]
    public var summaryV1: ExposureSummaryV1
    public var statistics: MatchStatistics
}

/// Matches heard sightings against published keys, as the Exposure
/// Notification framework does on a phone.
public enum Matcher {
    /// The most threads a match may be asked for (each holds a matcher and buffers).
    public static let maxThreads = Parallel.maxThreads
    /// Progress is reported every this many keys read.
    package static let batchSize = 8192
    /// Candidates (keys that passed the filters) per batch of crypto: small
    /// enough to spread a file's crypto over the cores at its end, large
    /// enough that the kernel's call and a batch's bookkeeping do not count.
    package static let candidateBatch = 2048

    /// Opens the files (each checked and verified as the key file options
    /// say), streams their keys, and matches them. With several files they
    /// go through two steps spread over the threads (FileJob); memory holds
    /// at most two files and one batch per thread, not all keys, and a
    /// broken file fails the run with its error as with one thread (the
    /// first in file order). Up to 24 MB of freed file buffers are kept
    /// for the next files and runs (BufferPool.shared). Progress counts
    /// the files' bytes as given (compressed): the total is known before
    /// anything is read, done only grows and ends at the total; it is called
    /// from the worker threads, one call at a time; returning false cancels. Keys whose validity ended more than
    /// options.maxKeyAgeDays before `now` take no part.
    public static func match(sightings set: SightingSet, files: [KeyFileSource], keyFileOptions: KeyFileOptions,
                             options: MatchingOptions, now: Int64, v1: V1Configuration = .cwa, threads: Int = 0,
                             progress: ProgressHandler? = nil) throws -> MatchResult {
        try validate(options, now: now, threads: threads)
        return try run(sightings: set, files: files, keyFileOptions: keyFileOptions, options: options, now: now, v1: v1,
                       threads: threads, progress: progress)
    }

    /// What match() checks before anything else; callers that checked
    /// already (the exposure check) call run() directly.
    package static func validate(_ options: MatchingOptions, now: Int64, threads: Int) throws {
        try options.validate(now: now)
        guard threads >= 0, threads <= Matcher.maxThreads else {
            throw EncoreError(.invalidArgument, "matching: \(threads) threads asked for; 0 (one per core) to \(Matcher.maxThreads)")
        }
    }

    /// match() with arguments validate() accepted.
    package static func run(sightings set: SightingSet, files: [KeyFileSource], keyFileOptions: KeyFileOptions,
                            options: MatchingOptions, now: Int64, v1: V1Configuration, threads: Int,
                            progress: ProgressHandler?) throws -> MatchResult {
        merge(try outcomes(sightings: set, files: files, keyFileOptions: keyFileOptions, options: options, now: now,
                           threads: threads, progress: progress), options: options, now: now, v1: v1)
    }

    /// What each file contributed (its matches in file order, its revised
    /// keys, its counts), before merge(). `reportHeard`: keys of which a
    /// sighting was heard count as matched even when none passes the
    /// TX-power and replay rules (KeyMatcher).
    package static func outcomes(sightings set: SightingSet, files: [KeyFileSource], keyFileOptions: KeyFileOptions,
                                 options: MatchingOptions, now: Int64, threads: Int, reportHeard: Bool = false,
                                 progress: ProgressHandler?) throws -> [FileOutcome] {
        let threadCount = threads > 0 ? threads : max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let days = set.dayFilters(drift: options.driftIntervals)
        let matchers = try (0 ..< threadCount).map { _ in try KeyMatcher(set: set, days: days, options: options, reportHeard: reportHeard) }
        // Progress counts the files' bytes as given (compressed), known
        // before anything is read: it only grows, and ends at the total.
        let weights = files.map(progressWeight)
        let counter = ProgressCounter(progress, total: weights.reduce(0) { $0.addingReportingOverflow($1).overflow ? .max : $0 + $1 })
        // Keys are decoded once, in processFile, not also when the file is
        // opened: a malformed key fails the match as it would have failed the open.
        var fileOptions = keyFileOptions
        fileOptions.buffers = .shared
        let results = BatchResults(files: files.count)
        let outcomes: [FileOutcome]
        if files.count >= 2 && threadCount >= 2 {
            // Files in two steps (extracting, finishing: see FileJob) spread
            // over the threads: inflating, verifying, decoding and filtering
            // run in parallel too, not only the crypto. Candidate batches go
            // through a shared queue, so a thread out of files helps with the
            // crypto of a file heavy with candidates.
            let shared = SharedBatches(limit: 2 * threadCount, results: results)
            outcomes = try FileJob(files: files, matchers: matchers, shared: shared, window: 2 * threadCount,
                                   extract: { [fileOptions] in KeyFile.extract($0, options: fileOptions) },
                                   finish: { [fileOptions] in KeyFile.finish($0, options: fileOptions, keys: .countFields) }) { index, file, matcher, pointless in
                try processFile(file.get(), weight: weights[index], set: set, options: options, now: now, counter: counter, stop: pointless) { list, seq, work in
                    try shared.push(SharedBatches.Pending(file: index, list: list, seq: seq, work: work), helping: matcher)
                }
            }.run()
        } else {
            // One file at a time (opened two at a time, see KeyFile.open):
            // its batches are spread over the threads.
            var out: [FileOutcome] = []
            for first in stride(from: 0, to: files.count, by: 2) {
                let group = first ..< min(first + 2, files.count)
                for (index, file) in zip(group, KeyFile.open(Array(files[group]), options: fileOptions, keys: .countFields)) {
                    out.append(try processFile(file.get(), weight: weights[index], set: set, options: options, now: now, counter: counter) { list, seq, work in
                        results.record(file: index, list: list, seq: seq, try matchBatch(work, matchers: matchers))
                    })
                }
            }
            outcomes = out
        }
        return results.attach(to: outcomes)
    }

    /// A file's weight in the progress: its size as given (a file that
    /// cannot be read weighs 1; opening it fails the match anyway).
    static func progressWeight(_ source: KeyFileSource) -> UInt64 {
        switch source {
        case .bytes(let b): return UInt64(max(b.count, 1))
        case .buffer(let b): return UInt64(max(b.count, 1))
        case .path(let p):
            var st = stat()
            return stat(p, &st) == 0 ? UInt64(max(st.st_size, 1)) : 1
        }
    }

    /// What one file contributed, merged in file order afterwards so that
    /// revisions keep their meaning whatever thread read which file (the
    /// matches are attached from BatchResults after all threads are done).
    package struct FileOutcome {
        package var revised: [KeyData] = []
        package var revisedMatches: [(KeyData, KeyMatch)] = []
        package var mainMatches: [(KeyData, KeyMatch)] = []
        package var stats = MatchStatistics()
        package init() {}
    }

    /// Reads a file's keys and hands its candidates to `sink` in batches,
    /// numbered in file order (the matches are recorded wherever the sink
    /// has them matched, and put back in that order before merging).
    /// `stop` is asked as progress is reported: true when the file's outcome no
    /// longer matters (a file before it failed); it then ends as cancelled.
    package static func processFile(_ file: KeyFile, weight: UInt64, set: SightingSet, options: MatchingOptions, now: Int64,
                            counter: ProgressCounter, stop: () -> Bool = { false },
                            sink: (KeyList, Int, [MatchCandidate]) throws -> Void) throws -> FileOutcome {
        var out = FileOutcome()
        out.stats.files = 1
        out.stats.newestFileEnd = file.metadata.endTimestamp.flatMap { Int64(exactly: $0) }
        // The file's share of the progress, reported as its keys are read.
        let expected = max(1, file.metadata.keyCount + file.metadata.revisedKeyCount)
        var reportedBytes: UInt64 = 0
        func report(_ keysRead: UInt64) throws {
            if stop() { throw EncoreError(.cancelled, "a file before this one failed") }
            let bytes = keysRead >= expected ? weight : UInt64(Double(weight) * Double(keysRead) / Double(expected))
            if bytes > reportedBytes {
                try counter.addDone(bytes - reportedBytes)
                reportedBytes = bytes
            }
        }
        let filter = KeyFilter(set: set, options: options, now: now)
        var revisedHere: Set<KeyData> = []
        var main: [MatchCandidate] = [], revised: [MatchCandidate] = []
        var read: UInt64 = 0, reported: UInt64 = 0, batches = 0
        func flush(_ batch: inout [MatchCandidate], _ list: KeyList) throws {
            guard !batch.isEmpty else { return }
            try sink(list, batches, batch)
            batches += 1
            batch.removeAll(keepingCapacity: true)
        }
        let (fields, dropped) = try file.forEachKeyInFileOrder(prefilter: filter.prefilter) { list, key in
            if list == .revisedKeys { revisedHere.insert(key.keyData) }
            if let c = filter.candidate(key, stats: &out.stats) {
                if list == .keys {
                    main.append(c)
                    if main.count >= candidateBatch { try flush(&main, .keys) }
                } else {
                    revised.append(c)
                    if revised.count >= candidateBatch { try flush(&revised, .revisedKeys) }
                }
            }
            read += 1
            if read - reported >= UInt64(batchSize) {
                try report(read)
                reported = read
            }
        }
        try flush(&revised, .revisedKeys)
        try flush(&main, .keys)
        out.stats.keys += Int(clamping: dropped)
        out.stats.skippedNoSightings += Int(clamping: dropped)
        _ = fields
        try report(expected) // the rest, and the invalid keys
        // Main entries of keys revised in this file are dropped by merge().
        out.revised = Array(revisedHere)
        return out
    }

    /// Revisions replace earlier entries of the same key (REVOKED ones take
    /// the key out); main entries of a key revised earlier are ignored.
    /// Windows and v1 exposures are made here, from each key's scan
    /// instances, with `options`' window parameters and `now`; matches of
    /// keys whose validity ended more than options.maxKeyAgeDays before
    /// `now` take no part (a match kept from an earlier check may be one).
    package static func merge(_ outcomes: [FileOutcome], options: MatchingOptions, now: Int64, v1: V1Configuration) -> MatchResult {
        var stats = MatchStatistics()
        var matches: [KeyData: KeyMatch] = [:]
        var revised: Set<KeyData> = []
        let oldest = now - options.maxKeyAgeDays * UnixTime.day
        func current(_ m: KeyMatch) -> Bool {
            (Int64(m.key.rollingStartIntervalNumber) + Int64(m.key.rollingPeriod)) * ENInterval.seconds >= oldest
        }
        for o in outcomes {
            for k in o.revised {
                revised.insert(k)
                matches[k] = nil
            }
            for (k, m) in o.revisedMatches where current(m) { matches[k] = m }
            for (k, m) in o.mainMatches where !revised.contains(k) && current(m) { matches[k] = m }
            stats.add(o.stats)
        }
        // Entries that sort alike (same start and size, same date and score)
        // in the order of their keys' bytes, not the dictionary's, which
        // differs from run to run and with the number of threads.
        let byKey = matches.sorted { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }.map(\.value)
        let windows = byKey.flatMap { $0.windows(options) }.enumerated().sorted { a, b in
            (a.element.start, a.element.window.scanInstances.count, a.offset) < (b.element.start, b.element.window.scanInstances.count, b.offset)
        }.map(\.element.window)
        let exposures = byKey.flatMap { $0.exposuresV1(now: now, v1: v1) }.enumerated().sorted { a, b in
            (a.element.date, a.element.totalRiskScore, a.offset) < (b.element.date, b.element.totalRiskScore, b.offset)
        }.map(\.element)
        stats.matchedKeys = matches.count
        return MatchResult(windows: windows, exposuresV1: exposures,
                           summaryV1: V1Scoring.summary(exposures, matchedKeys: matches.count, now: now), statistics: stats)
    }

    /// Derives and looks up the RPIs of a batch of candidates, spread over
    /// the matchers (one per thread).
    package static func matchBatch(_ work: [MatchCandidate], matchers: [KeyMatcher]) throws -> [(KeyData, KeyMatch)] {
        let found = matchers.count == 1 ? try matchers[0].match(work[...]) : try SliceJob(work: work, matchers: matchers).run()
        return found.map { (work[$0.0].key.keyData, $0.1) }
    }
}

/// The cheap tests a key passes before any crypto, as each key is read.
package struct KeyFilter {
    package let set: SightingSet
    package let oldest: Int64
    package let drift: Int64
    package let infectiousnessOf: InfectiousnessTable

    package init(set: SightingSet, options: MatchingOptions, now: Int64) {
        self.set = set
        oldest = now - options.maxKeyAgeDays * UnixTime.day
        drift = options.driftIntervals
        infectiousnessOf = options.infectiousnessTable()
    }

    /// The same test of sightings in C, applied as keys are read, so most
    /// keys of a sparse user never become Swift values.
    package var prefilter: KeyPrefilter { KeyPrefilter(sighted: set.sighted.pointer, drift: drift, oldest: oldest) }

    /// The key with the intervals to derive, or nil when it cannot match
    /// (counted in `stats` by the first reason in this order).
    package func candidate(_ key: ExposureKey, stats: inout MatchStatistics) -> MatchCandidate? {
        stats.keys += 1
        if key.reportType == .revoked { stats.skippedRevoked += 1; return nil }
        let start = Int64(key.rollingStartIntervalNumber), end = start + Int64(key.rollingPeriod)
        if end * ENInterval.seconds < oldest { stats.skippedOld += 1; return nil }
        guard let intervals = set.intervalsToDerive(start: start, end: end, drift: drift) else {
            stats.skippedNoSightings += 1
            return nil
        }
        let infectiousness = infectiousnessOf(key.daysSinceOnsetOfSymptoms)
        if infectiousness == .none { stats.skippedNotInfectious += 1; return nil }
        stats.derived += 1
        return MatchCandidate(key: key, infectiousness: infectiousness, intervals: intervals)
    }
}
