import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// One batch spread over the threads: thread t matches the t-th of as many
/// contiguous slices with matchers[t], writing only its own slots, so no
/// locks are needed.
package final class SliceJob: @unchecked Sendable {
    // @unchecked: the slot discipline above; slots are read after all
    // threads have finished (Parallel.perform returns).
    private let work: [MatchCandidate]
    private let matchers: [KeyMatcher]
    private let slots: UnsafeMutableBufferPointer<Result<[(Int, KeyMatch)], EncoreError>?>

    package init(work: [MatchCandidate], matchers: [KeyMatcher]) {
        self.work = work
        self.matchers = matchers
        slots = .allocate(capacity: matchers.count)
        slots.initialize(repeating: nil)
    }

    deinit { slots.deinitialize().deallocate() }

    package func run() throws -> [(Int, KeyMatch)] {
        let n = matchers.count
        Parallel.perform(iterations: n) { t in
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

/// Candidate batches queued by the threads reading files, matched by
/// whichever thread is free: the reader itself when the queue is full (so
/// memory stays bounded), else a thread with no file step to take (FileJob).
package final class SharedBatches: @unchecked Sendable {
    // @unchecked: the queue and the failure are only touched under `lock`.
    package struct Pending {
        package let file: Int
        package let list: KeyList
        package let seq: Int         // the batch's place in its file
        package let work: [MatchCandidate]
    }

    private let limit: Int
    private let results: BatchResults
    private let lock = ConditionLock()
    private var queue: [Pending] = []
    private var firstFailure: EncoreError?

    package init(limit: Int, results: BatchResults) {
        self.limit = limit
        self.results = results
    }

    package var failure: EncoreError? { lock.locked { firstFailure } }

    /// Queues a batch; while the queue is over its limit, the caller
    /// matches the oldest batches itself with its own matcher.
    package func push(_ batch: Pending, helping matcher: KeyMatcher) throws {
        lock.locked {
            queue.append(batch)
            lock.wakeAll()
        }
        while let p = popIfOver(limit) { try match(p, with: matcher) }
    }

    /// Wakes the threads waiting in drain() to test their `done` again:
    /// the readers call it when they finish files.
    package func readersChanged() { lock.locked { lock.wakeAll() } }

    /// Matches queued batches with `matcher` until `done()` says no more
    /// will come and the queue is empty, sleeping while the queue is empty
    /// and another thread is still reading a file. A failure is kept for
    /// run() and ends every drain.
    package func drain(with matcher: KeyMatcher, until done: () -> Bool) {
        while true {
            let next: Pending? = lock.locked {
                // done() is read under the lock after the queue was seen
                // empty: a reader pushes its last batch before it counts
                // itself finished, so nothing can be left behind.
                while queue.isEmpty, firstFailure == nil, !done() { lock.wait() }
                return firstFailure == nil && !queue.isEmpty ? queue.removeFirst() : nil
            }
            guard let next else { return }
            do { try match(next, with: matcher) } catch {
                let e = error as? EncoreError ?? EncoreError(.internalError, "\(error)")
                lock.locked {
                    if firstFailure == nil { firstFailure = e }
                    lock.wakeAll()
                }
                return
            }
        }
    }

    private func popIfOver(_ n: Int) -> Pending? {
        lock.locked { queue.count > n ? queue.removeFirst() : nil }
    }

    private func match(_ p: Pending, with matcher: KeyMatcher) throws {
        let found = try matcher.match(p.work[...]).map { (p.work[$0.0].key.keyData, $0.1) }
        results.record(file: p.file, list: p.list, seq: p.seq, found)
    }
}

/// The matches of every file, recorded by whichever thread matched them,
/// and put back in file order (a key listed twice in a file must resolve as
/// its later entry, whatever thread finished first).
package final class BatchResults: @unchecked Sendable {
    // @unchecked: only touched under the lock.
    package typealias Found = [(KeyData, KeyMatch)]
    private let byFile: Locked<[[(seq: Int, list: KeyList, found: Found)]]>

    package init(files: Int) { byFile = Locked(Array(repeating: [], count: files)) }

    package func record(file: Int, list: KeyList, seq: Int, _ found: Found) {
        guard !found.isEmpty else { return }
        byFile.withLock { $0[file].append((seq, list, found)) }
    }

    package func attach(to outcomes: [Matcher.FileOutcome]) -> [Matcher.FileOutcome] {
        byFile.withLock { all in
            outcomes.enumerated().map { i, o in
                var o = o
                for batch in all[i].sorted(by: { $0.seq < $1.seq }) {
                    if batch.list == .keys { o.mainMatches += batch.found } else { o.revisedMatches += batch.found }
                }
                return o
            }
        }
    }
}
