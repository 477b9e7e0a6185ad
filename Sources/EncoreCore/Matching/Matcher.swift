import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Where a key file comes from; files are opened one after another.
public enum KeyFileSource: Sendable {
    case path(String)
    case bytes([UInt8])

    func open(_ options: KeyFileOptions, keys: ExportReader.KeyCheck = .decode) throws -> KeyFile {
        switch self {
        case .path(let p): return try KeyFile(path: p, options: options, keys: keys)
        case .bytes(let b): return try KeyFile(bytes: b, options: options, keys: keys)
        }
    }
}

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
        // Keys are decoded once, here, not also when the file is opened: a
        // malformed key fails the match as it would have failed the open.
        let file = try source.open(keyFileOptions, keys: .countFields)
        var out = FileOutcome()
        out.stats.files = 1
        out.stats.newestFileEnd = file.metadata.endTimestamp.flatMap { Int64(exactly: $0) }
        counter.addKnown(file.metadata.keyCount + file.metadata.revisedKeyCount)
        let filter = KeyFilter(set: set, options: options)
        var revisedHere: Set<KeyData> = []
        var main: [MatchCandidate] = [], revised: [MatchCandidate] = []
        var read: UInt64 = 0, reported: UInt64 = 0
        func flush(_ batch: inout [MatchCandidate], _ list: KeyList) throws {
            guard !batch.isEmpty else { return }
            let found = try matchBatch(batch, matchers: matchers)
            if list == .keys { out.mainMatches += found } else { out.revisedMatches += found }
            batch.removeAll(keepingCapacity: true)
        }
        let (fields, dropped) = try file.forEachKeyInFileOrder(prefilter: filter.prefilter) { list, key in
            if list == .revisedKeys { revisedHere.insert(key.keyData) }
            if let c = filter.candidate(key, stats: &out.stats) {
                if list == .keys {
                    main.append(c)
                    if main.count >= batchSize { try flush(&main, .keys) }
                } else {
                    revised.append(c)
                    if revised.count >= batchSize { try flush(&revised, .revisedKeys) }
                }
            }
            read += 1
            if read - reported >= UInt64(batchSize) {
                try counter.addDone(read - reported)
                reported = read
            }
        }
        try flush(&revised, .revisedKeys)
        try flush(&main, .keys)
        out.stats.keys += Int(clamping: dropped)
        out.stats.skippedNoSightings += Int(clamping: dropped)
        if fields > reported { try counter.addDone(fields - reported) } // the rest, and the invalid keys
        // A file's own main entry of a revised key is superseded.
        if !revisedHere.isEmpty { out.mainMatches.removeAll { revisedHere.contains($0.0) } }
        out.revised = Array(revisedHere)
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

    /// Derives and looks up the RPIs of a batch of candidates, spread over
    /// the matchers (one per thread).
    static func matchBatch(_ work: [MatchCandidate], matchers: [KeyMatcher]) throws -> [(KeyData, KeyMatch)] {
        let found = matchers.count == 1 ? try matchers[0].match(work[...]) : try SliceJob(work: work, matchers: matchers).run()
        return found.map { (work[$0.0].key.keyData, $0.1) }
    }
}

/// The cheap tests a key passes before any crypto, as each key is read.
struct KeyFilter {
    let set: ObservationSet
    let oldest: Int64
    let drift: Int64
    let infectiousnessOf: InfectiousnessTable

    init(set: ObservationSet, options: MatchingOptions) {
        self.set = set
        oldest = options.now - options.maxKeyAgeDays * WindowBuilder.day
        drift = options.driftIntervals
        infectiousnessOf = options.infectiousnessTable()
    }

    /// The same test of sightings in C, applied as keys are read, so most
    /// keys of a sparse user never become Swift values.
    var prefilter: KeyPrefilter { KeyPrefilter(sighted: set.sighted.pointer, drift: drift, oldest: oldest) }

    /// The key with the intervals to derive, or nil when it cannot match
    /// (counted in `stats` by the first reason in this order).
    func candidate(_ key: ExposureKey, stats: inout MatchStatistics) -> MatchCandidate? {
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

/// One batch spread over the threads: thread t matches the t-th of as many
/// contiguous slices with matchers[t], writing only its own slots, so no
/// locks are needed.
final class SliceJob: @unchecked Sendable {
    // @unchecked: the slot discipline above; slots are read after all
    // threads have finished (concurrentPerform returns).
    private let work: [MatchCandidate]
    private let matchers: [KeyMatcher]
    private let slots: UnsafeMutableBufferPointer<Result<[(Int, KeyMatch)], EncoreError>?>

    init(work: [MatchCandidate], matchers: [KeyMatcher]) {
        self.work = work
        self.matchers = matchers
        slots = .allocate(capacity: matchers.count)
        slots.initialize(repeating: nil)
    }

    deinit { slots.deinitialize().deallocate() }

    func run() throws -> [(Int, KeyMatch)] {
        let n = matchers.count
        DispatchQueue.concurrentPerform(iterations: n) { t in
            let slice = work[work.count * t / n ..< work.count * (t + 1) / n]
            do {
                slots[t] = .success(try matchers[t].match(slice))
            } catch {
                slots[t] = .failure(error as? EncoreError ?? EncoreError(.internalError, "\(error)"))
            }
        }
        var out: [(Int, KeyMatch)] = []
        for slot in slots {
            switch slot {
            case .success(let found)?: out += found
            case .failure(let e)?: throw e
            case nil: throw EncoreError(.internalError, "a slice was not matched")
            }
        }
        return out
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
