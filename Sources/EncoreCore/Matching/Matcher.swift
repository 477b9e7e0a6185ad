import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Where a key file comes from; files are opened one after another.
public enum KeyFileSource: Sendable {
    case path(String)
    case bytes([UInt8])

    func open(_ options: KeyFileOptions) throws -> KeyFile {
        switch self {
        case .path(let p): return try KeyFile(path: p, options: options)
        case .bytes(let b): return try KeyFile(bytes: b, options: options)
        }
    }
}

/// Counts of what matching did with the keys, for tests and benchmarks.
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
    /// Keys read and filtered per batch before the crypto is spread over
    /// the cores; progress is reported per batch.
    static let batchSize = 8192

    /// Opens the files one after another (each checked and verified as the
    /// key file options say), streams their keys, and matches them. Memory
    /// holds one file and one batch at a time, not all keys. Progress counts
    /// keys: done of those in the files opened so far (the total grows as
    /// files open); returning false cancels.
    public static func match(observations set: ObservationSet, files: [KeyFileSource], keyFileOptions: KeyFileOptions,
                             options: MatchingOptions, v1: V1Configuration = .cwa, threads: Int = 0,
                             progress: ProgressHandler? = nil) throws -> MatchResult {
        try options.validate()
        let threadCount = threads > 0 ? threads : max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        var stats = MatchStatistics()
        var matches: [KeyData: KeyMatch] = [:]
        var revised: Set<KeyData> = []
        var keysKnown: UInt64 = 0, keysDone: UInt64 = 0
        let matchers = try (0 ..< threadCount).map { _ in try KeyMatcher(set: set, options: options, v1: v1) }

        for source in files {
            let file = try source.open(keyFileOptions)
            stats.files += 1
            if let end = file.metadata.endTimestamp.flatMap({ Int64(exactly: $0) }) {
                stats.newestFileEnd = max(stats.newestFileEnd ?? end, end)
            }
            keysKnown += file.metadata.keyCount + file.metadata.revisedKeyCount
            // Revisions first: they replace earlier entries of the same key,
            // and a file's own main entry of a revised key is superseded.
            try file.forEachKey(in: .revisedKeys) { key in
                revised.insert(key.keyData)
                matches[key.keyData] = nil
            }
            for list in [KeyList.revisedKeys, .keys] {
                var cursor = KeyCursor(list: list)
                var batch: [ExposureKey] = []
                batch.reserveCapacity(batchSize)
                while true {
                    batch.removeAll(keepingCapacity: true)
                    let n = try file.read(&cursor, maxCount: batchSize) { batch.append($0) }
                    if n == 0 { break }
                    if list == .keys { batch.removeAll { revised.contains($0.keyData) } }
                    for (key, m) in try matchBatch(batch, set: set, options: options, matchers: matchers, stats: &stats) {
                        matches[key] = m
                    }
                    keysDone += UInt64(n)
                    try progress.report(keysDone, of: keysKnown)
                }
            }
        }

        let windows = matches.values.flatMap(\.windows).sorted { a, b in
            (a.start, a.window.scanInstances.count) < (b.start, b.window.scanInstances.count)
        }.map(\.window)
        let exposures = matches.values.flatMap(\.exposuresV1).sorted { ($0.date, $0.totalRiskScore) < ($1.date, $1.totalRiskScore) }
        stats.matchedKeys = matches.count
        return MatchResult(windows: windows, exposuresV1: exposures,
                           summaryV1: V1Scoring.summary(exposures, matchedKeys: matches.count, now: options.now), statistics: stats)
    }

    /// Filters a batch cheaply, then derives and looks up RPIs of the keys
    /// left, spread over the matchers (one per thread).
    static func matchBatch(_ batch: [ExposureKey], set: ObservationSet, options: MatchingOptions, matchers: [KeyMatcher],
                           stats: inout MatchStatistics) throws -> [(KeyData, KeyMatch)] {
        let oldest = options.now - options.maxKeyAgeDays * WindowBuilder.day
        let drift = options.driftIntervals * ENInterval.seconds
        var work: [(ExposureKey, Infectiousness)] = []
        for key in batch {
            stats.keys += 1
            if key.reportType == .revoked { stats.skippedRevoked += 1; continue }
            let start = Int64(key.rollingStartIntervalNumber) * ENInterval.seconds
            let end = start + Int64(key.rollingPeriod) * ENInterval.seconds
            if end < oldest { stats.skippedOld += 1; continue }
            let infectiousness = options.infectiousness(key.daysSinceOnsetOfSymptoms)
            if infectiousness == .none { stats.skippedNotInfectious += 1; continue }
            if !set.hasObservation(from: start - drift, to: end + drift) { stats.skippedNoSightings += 1; continue }
            work.append((key, infectiousness))
        }
        stats.derived += work.count
        guard !work.isEmpty else { return [] }

        let job = BatchJob(work: work, matchers: matchers)
        DispatchQueue.concurrentPerform(iterations: matchers.count) { job.run(thread: $0) }
        let results = try job.collect()
        return zip(work, results).compactMap { w, r in r.map { (w.0.keyData, $0) } }
    }
}

/// One batch spread over the threads. Thread t handles keys t, t + T,
/// t + 2T, ... with matchers[t] and writes only their result slots and its
/// own failure slot, so the hot loop needs no locks.
final class BatchJob: @unchecked Sendable {
    // @unchecked: the slot discipline above; buffers are read after all
    // threads have finished (concurrentPerform returns).
    private let work: [(ExposureKey, Infectiousness)]
    private let matchers: [KeyMatcher]
    private let results: UnsafeMutableBufferPointer<KeyMatch?>
    private let failures: UnsafeMutableBufferPointer<EncoreError?>

    init(work: [(ExposureKey, Infectiousness)], matchers: [KeyMatcher]) {
        self.work = work
        self.matchers = matchers
        results = .allocate(capacity: work.count)
        results.initialize(repeating: nil)
        failures = .allocate(capacity: matchers.count)
        failures.initialize(repeating: nil)
    }

    deinit {
        results.deinitialize().deallocate()
        failures.deinitialize().deallocate()
    }

    func run(thread t: Int) {
        var i = t
        while i < work.count {
            do {
                results[i] = try matchers[t].match(work[i].0, infectiousness: work[i].1)
            } catch let e as EncoreError {
                failures[t] = e
                return
            } catch {
                failures[t] = EncoreError(.internalError, "\(error)")
                return
            }
            i += matchers.count
        }
    }

    func collect() throws -> [KeyMatch?] {
        if let failure = failures.compactMap({ $0 }).first { throw failure }
        return Array(results)
    }
}
