import EncoreCrypto
import EncoreExposure
import EncoreFixtures
import EncoreKeyFiles
import EncoreKeyFilesFixtures
import EncoreStorage
import EncoreSupport
import EncoreTestSupport
import Testing

/// Matching's files in two steps (extracting, finishing) spread over the
/// threads (FileJob): the same outcome, the same error for broken files
/// wherever they are, and no more files in flight than the window, on any
/// number of threads.
@Suite struct FileJobTests {
    static let threadCounts = [1, 2, 3, 8]

    static func file(_ keys: [ExposureKey], revised: [ExposureKey] = [], signer: PrivateKey) throws -> KeyFileSource {
        try MultiFileMatchingTests.file(keys, revised: revised, signer: signer)
    }

    /// The error of a run as text (kind and message), or "ok".
    static func outcome(_ body: () throws -> MatchResult) -> String {
        do {
            _ = try body()
            return "ok"
        } catch let e as EncoreError {
            return "\(e.kind) \(e.message)"
        } catch {
            return "\(error)"
        }
    }

    /// More files than any window here, contacts in several, a revision
    /// in a later file: windows, v1 exposures, summary and statistics are
    /// the same on any number of threads.
    @Test func manyFilesGiveTheSameResultOnAnyNumberOfThreads() throws {
        let signer = try PrivateKey()
        let contacts = (0 ..< 8).map { SimulatedContact(seed: 2000 + $0, day: MatchingTests.day) }
        var sightings: [Sighting] = []
        for (i, c) in contacts.enumerated() {
            let t = MatchingTests.midnight + Int64(i) * 3000
            for s in 0 ..< 3 { sightings.append(try c.sighting(sentAt: t + Int64(s) * 240, rssi: -55 - Int8(i), previousScan: t + Int64(s) * 240 - 240)) }
        }
        var revoked = contacts[1].key
        revoked.reportType = .revoked
        let files = try (0 ..< 13).map { f -> KeyFileSource in
            var keys = (0 ..< 400).map { Fixtures.key(3_000_000 + 1000 * f + $0, dsos: 1) }
            if f % 2 == 0 && f / 2 < contacts.count { keys.insert(contacts[f / 2].key, at: 200) }
            return try Self.file(keys, revised: f == 11 ? [revoked] : [], signer: signer)
        }
        let set = try SightingSet(sightings + MatchingTests.noise(300))
        let results = try Self.threadCounts.map { threads in
            try Matcher.match(sightings: set, files: files, keyFileOptions: KeyFileOptions(trust: Fixtures.trust(signer)),
                              options: MatchingOptions(), now: MatchingTests.now, threads: threads)
        }
        let one = results[0]
        #expect(one.windows.count == 6 && one.statistics.files == 13 && one.statistics.matchedKeys == 6) // contact 1 revoked, 7 in no file
        for (threads, r) in zip(Self.threadCounts, results).dropFirst() {
            #expect(r.windows == one.windows, "\(threads) threads")
            #expect(r.exposuresV1 == one.exposuresV1 && r.summaryV1 == one.summaryV1 && r.statistics == one.statistics, "\(threads) threads")
        }
    }

    /// A broken file fails the run with its own error wherever it is; with
    /// two, the first in file order wins (the files before it are still
    /// read, those after it skipped), whatever the number of threads and
    /// whichever thread meets its broken file first.
    @Test func theFirstBrokenFileInFileOrderFailsTheRunOnAnyNumberOfThreads() throws {
        let signer = try PrivateKey(), stranger = try PrivateKey()
        let good = try (0 ..< 10).map { f in try Self.file((0 ..< 1500).map { Fixtures.key(4_000_000 + 2000 * f + $0, dsos: 1) }, signer: signer) }
        guard case .bytes(let zip) = good[0] else { Issue.record("a file in memory was expected"); return }
        let broken: [KeyFileSource] = [
            .bytes(Array("not a key file".utf8)),                                     // ZIP_NOT_ZIP
            try Self.file((0 ..< 1500).map { Fixtures.key(5_000_000 + $0, dsos: 1) }, signer: stranger), // no trusted signature
            .bytes(Array(zip.prefix(zip.count / 2))),                                  // cut off
        ]
        let set = try SightingSet(MatchingTests.noise(200))
        let options = KeyFileOptions(trust: try Fixtures.trust(signer))
        func run(_ files: [KeyFileSource], _ threads: Int) -> String {
            Self.outcome {
                try Matcher.match(sightings: set, files: files, keyFileOptions: options, options: MatchingOptions(),
                                  now: MatchingTests.now, threads: threads)
            }
        }
        let alone = broken.map { run([$0], 1) }
        #expect(Set(alone).count == 3 && !alone.contains("ok"))
        // (broken file, position) pairs; the second at a later position.
        let cases: [[(Int, Int)]] = [
            [(0, 0)], [(1, 4)], [(2, 9)], [(1, 0)], [(2, 5)],
            [(0, 0), (1, 1)], [(2, 2), (0, 7)], [(1, 5), (2, 9)], [(0, 8), (2, 9)], [(2, 1), (1, 3)],
        ]
        for brokenAt in cases {
            var files = good
            for (b, at) in brokenAt { files[at] = broken[b] }
            let expected = alone[brokenAt[0].0]
            for threads in Self.threadCounts {
                for _ in 0 ..< 2 { // two runs: the threads may meet the broken files in another order
                    #expect(run(files, threads) == expected, "broken \(brokenAt), \(threads) threads")
                }
            }
        }
    }

    /// Files in flight (from the start of their extracting to the end of
    /// their reading) never exceed the window, counted by the job and,
    /// independently, by the steps it is given.
    @Test func filesInFlightStayWithinTheWindow() throws {
        let signer = try PrivateKey()
        let files = try (0 ..< 12).map { f in try Self.file((0 ..< 800).map { Fixtures.key(6_000_000 + 1000 * f + $0, dsos: 1) }, signer: signer) }
        let set = try SightingSet(MatchingTests.noise(100))
        let options = MatchingOptions()
        let fileOptions = KeyFileOptions(trust: try Fixtures.trust(signer))
        for (threads, window) in [(2, 1), (2, 4), (3, 2), (8, 3), (8, 16)] {
            let matchers = try (0 ..< threads).map { _ in
                try KeyMatcher(set: set, days: set.dayFilters(drift: options.driftIntervals), options: options)
            }
            let live = LiveCount()
            let counter = ProgressCounter(nil, total: 1)
            let job = FileJob(files: files, matchers: matchers, shared: SharedBatches(limit: 2, results: BatchResults(files: files.count)),
                              window: window,
                              extract: { source in
                                  live.enter()
                                  return KeyFile.extract(source, options: fileOptions)
                              },
                              finish: { KeyFile.finish($0, options: fileOptions, keys: .countFields) }) { _, file, _, _ in
                defer { live.leave() }
                return try Matcher.processFile(file.get(), weight: 1, set: set, options: options, now: MatchingTests.now, counter: counter) { _, _, _ in }
            }
            let outcomes = try job.run()
            #expect(outcomes.count == files.count && outcomes.allSatisfy { $0.stats.keys == 800 }, "\(threads) threads, window \(window)")
            #expect(live.peak <= window && job.peakInFlight <= window && live.peak >= 1, "\(threads) threads, window \(window)")
            #expect(live.now == 0)
        }
    }
}

/// A count of files between two steps, and its peak, from any thread.
private final class LiveCount: @unchecked Sendable {
    // @unchecked: the counts are only touched under the lock.
    private let lock = ConditionLock()
    private var count = 0, highest = 0

    func enter() { lock.locked { count += 1; highest = max(highest, count) } }
    func leave() { lock.locked { count -= 1 } }
    var now: Int { lock.locked { count } }
    var peak: Int { lock.locked { highest } }
}
