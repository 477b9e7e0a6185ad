import Dispatch
import Synchronization
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

    mutating func add(_ o: MatchStatistics) {
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
    /// Keys read and filtered per batch before the crypto is spread over
    /// the cores; progress is reported per batch.
    static let batchSize = 8192

    /// Opens the files (each checked and verified as the key file options
    /// say), streams their keys, and matches them. With several files each
    /// thread takes whole files; memory holds one file and one batch per
    /// thread, not all keys. Progress counts keys: done of those in the files
    /// opened so far (the total grows as files open); it is called from the
    /// worker threads, one call at a time; returning false cancels.
    public static func match(observations set: ObservationSet, files: [KeyFileSource], keyFileOptions: KeyFileOptions,
                             options: MatchingOptions, v1: V1Configuration = .cwa, threads: Int = 0,
                             progress: ProgressHandler? = nil) throws -> MatchResult {
        try options.validate()
        let threadCount = threads > 0 ? threads : max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let matchers = try (0 ..< threadCount).map { _ in try KeyMatcher(set: set, options: options, v1: v1) }
        let counter = ProgressCounter(progress)
        let outcomes: [FileOutcome]
        if files.count >= 2 && threadCount >= 2 {
            // Whole files per thread: reading, inflating, verifying and
            // decoding run in parallel too, not only the crypto.
            outcomes = try FileJob(files: files, matchers: matchers) { source, matcher in
                do {
                    return try processFile(source, keyFileOptions: keyFileOptions, set: set, options: options, matchers: [matcher], counter: counter)
                } catch {
                    counter.stop() // the other threads stop at their next batch
                    throw error
                }
            }.run()
        } else {
            // One file: its batches are spread over the threads instead.
            outcomes = try files.map {
                try processFile($0, keyFileOptions: keyFileOptions, set: set, options: options, matchers: matchers, counter: counter)
            }
        }
        return merge(outcomes, now: options.now)
    }

    /// What one file contributed, merged in file order afterwards so that
    /// revisions keep their meaning whatever thread read which file.
    struct FileOutcome {
        var revised: [KeyData] = []
        var revisedMatches: [(KeyData, KeyMatch)] = []
        var mainMatches: [(KeyData, KeyMatch)] = []
        var stats = MatchStatistics()
    }

    static func processFile(_ source: KeyFileSource, keyFileOptions: KeyFileOptions, set: ObservationSet, options: MatchingOptions,
                            matchers: [KeyMatcher], counter: ProgressCounter) throws -> FileOutcome {
        let file = try source.open(keyFileOptions)
        var out = FileOutcome()
        out.stats.files = 1
        out.stats.newestFileEnd = file.metadata.endTimestamp.flatMap { Int64(exactly: $0) }
        counter.addKnown(file.metadata.keyCount + file.metadata.revisedKeyCount)
        // A file's own main entry of a revised key is superseded.
        var revisedHere: Set<KeyData> = []
        try file.forEachKey(in: .revisedKeys) { revisedHere.insert($0.keyData) }
        out.revised = Array(revisedHere)
        for list in [KeyList.revisedKeys, .keys] {
            var cursor = KeyCursor(list: list)
            var batch: [ExposureKey] = []
            batch.reserveCapacity(batchSize)
            while true {
                batch.removeAll(keepingCapacity: true)
                let n = try file.read(&cursor, maxCount: batchSize) { batch.append($0) }
                if n == 0 { break }
                if list == .keys && !revisedHere.isEmpty { batch.removeAll { revisedHere.contains($0.keyData) } }
                let found = try matchBatch(batch, set: set, options: options, matchers: matchers, stats: &out.stats)
                if list == .keys { out.mainMatches += found } else { out.revisedMatches += found }
                try counter.addDone(UInt64(n))
            }
        }
        return out
    }

    /// Revisions replace earlier entries of the same key (REVOKED ones take
    /// the key out); main entries of a key revised earlier are ignored.
    static func merge(_ outcomes: [FileOutcome], now: Int64) -> MatchResult {
        var stats = MatchStatistics()
        var matches: [KeyData: KeyMatch] = [:]
        var revised: Set<KeyData> = []
        for o in outcomes {
            for k in o.revised {
                revised.insert(k)
                matches[k] = nil
            }
            for (k, m) in o.revisedMatches { matches[k] = m }
            for (k, m) in o.mainMatches where !revised.contains(k) { matches[k] = m }
            stats.add(o.stats)
        }
        let windows = matches.values.flatMap(\.windows).sorted { a, b in
            (a.start, a.window.scanInstances.count) < (b.start, b.window.scanInstances.count)
        }.map(\.window)
        let exposures = matches.values.flatMap(\.exposuresV1).sorted { ($0.date, $0.totalRiskScore) < ($1.date, $1.totalRiskScore) }
        stats.matchedKeys = matches.count
        return MatchResult(windows: windows, exposuresV1: exposures,
                           summaryV1: V1Scoring.summary(exposures, matchedKeys: matches.count, now: now), statistics: stats)
    }

    /// Filters a batch cheaply, then derives and looks up RPIs of the keys
    /// left, spread over the matchers (one per thread).
    static func matchBatch(_ batch: [ExposureKey], set: ObservationSet, options: MatchingOptions, matchers: [KeyMatcher],
                           stats: inout MatchStatistics) throws -> [(KeyData, KeyMatch)] {
        let oldest = options.now - options.maxKeyAgeDays * WindowBuilder.day
        let drift = options.driftIntervals * ENInterval.seconds
        let infectiousnessOf = options.infectiousnessTable()
        var work: [(ExposureKey, Infectiousness)] = []
        for key in batch {
            stats.keys += 1
            if key.reportType == .revoked { stats.skippedRevoked += 1; continue }
            let start = Int64(key.rollingStartIntervalNumber) * ENInterval.seconds
            let end = start + Int64(key.rollingPeriod) * ENInterval.seconds
            if end < oldest { stats.skippedOld += 1; continue }
            let infectiousness = infectiousnessOf(key.daysSinceOnsetOfSymptoms)
            if infectiousness == .none { stats.skippedNotInfectious += 1; continue }
            // Validity ± drift is whole intervals: the O(1) test is exact.
            let driftIntervals = drift / ENInterval.seconds
            if !set.hasObservation(fromInterval: Int64(key.rollingStartIntervalNumber) - driftIntervals,
                                   toInterval: Int64(key.rollingStartIntervalNumber) + Int64(key.rollingPeriod) + driftIntervals) {
                stats.skippedNoSightings += 1
                continue
            }
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

/// Progress shared by the threads: counts under a lock, the handler called
/// one call at a time, and cancellation seen by every thread.
final class ProgressCounter: @unchecked Sendable {
    // @unchecked: the handler and counts are only touched inside `state`.
    private let handler: ProgressHandler?
    private let state = Mutex<(known: UInt64, done: UInt64, stopped: Bool)>((0, 0, false))

    init(_ handler: ProgressHandler?) { self.handler = handler }

    func addKnown(_ n: UInt64) { state.withLock { $0.known += n } }

    /// Adds keys done and reports; throws `.cancelled` once any thread's
    /// report was refused, or the run stopped on an error.
    func addDone(_ n: UInt64) throws {
        let go = state.withLock { s -> Bool in
            guard !s.stopped else { return false }
            s.done += n
            if let handler, !handler(s.done, s.known) { s.stopped = true }
            return !s.stopped
        }
        if !go { throw EncoreError(.cancelled, "cancelled by the progress callback") }
    }

    /// Tells the other threads to stop (after an error).
    func stop() { state.withLock { $0.stopped = true } }
}

/// Files spread over the threads: each takes the next file from a shared
/// counter and processes it whole with its own matcher.
final class FileJob: @unchecked Sendable {
    // @unchecked: each slot is written by the one thread that took its
    // file, and read after concurrentPerform has returned.
    private let files: [KeyFileSource]
    private let matchers: [KeyMatcher]
    private let body: (KeyFileSource, KeyMatcher) throws -> Matcher.FileOutcome
    private let next = Atomic<Int>(0)
    private let failed = Atomic<Bool>(false)
    private let slots: UnsafeMutableBufferPointer<Result<Matcher.FileOutcome, EncoreError>?>

    init(files: [KeyFileSource], matchers: [KeyMatcher], _ body: @escaping (KeyFileSource, KeyMatcher) throws -> Matcher.FileOutcome) {
        self.files = files
        self.matchers = matchers
        self.body = body
        slots = .allocate(capacity: files.count)
        slots.initialize(repeating: nil)
    }

    deinit { slots.deinitialize().deallocate() }

    func run() throws -> [Matcher.FileOutcome] {
        DispatchQueue.concurrentPerform(iterations: matchers.count) { t in
            while !failed.load(ordering: .relaxed) {
                let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard i < files.count else { return }
                do {
                    slots[i] = .success(try body(files[i], matchers[t]))
                } catch {
                    slots[i] = .failure(error as? EncoreError ?? EncoreError(.internalError, "\(error)"))
                    failed.store(true, ordering: .relaxed)
                }
            }
        }
        // The first failure in file order (a cancellation elsewhere may have
        // been caused by it), else every file's outcome.
        var out: [Matcher.FileOutcome] = []
        var firstFailure: EncoreError?
        for slot in slots {
            switch slot {
            case .success(let o)?: out.append(o)
            case .failure(let e)?: if firstFailure == nil || firstFailure?.kind == .cancelled { firstFailure = e }
            case nil: break
            }
        }
        if let firstFailure { throw firstFailure }
        guard out.count == files.count else { throw EncoreError(.internalError, "a file was not processed") }
        return out
    }
}
