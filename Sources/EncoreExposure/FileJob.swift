import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// Files spread over the threads in two steps each, so that one thread
/// inflates a file while another checks and reads one before it:
/// extracting (reading the zip and inflating export.bin through zlib, most
/// of a sparse user's time) and finishing (hashing and verifying export.bin,
/// then reading its keys through the sighted-set filter with the thread's
/// matcher). A thread finishes files already extracted, lowest first, else
/// extracts the next files in order, else matches queued candidate batches
/// until one of the two has work. Files are extracted two at a time while
/// at least two per thread remain (finished together, so that their
/// export.bin are hashed side by side), then one at a time, so that the
/// threads finish together.
///
/// Memory: at most `window` files are between the start of their
/// extracting and the end of their finishing (their buffers come from the
/// caller's pool), however many files and threads there are.
///
/// Errors: a failed file makes the files after it pointless (they are
/// skipped, or stop at their next batch), but those before it are still
/// read, so the error reported is the one of the first failing file in file
/// order, as when one thread reads the files one after the other.
package final class FileJob: @unchecked Sendable {
    // @unchecked: the scheduling state is only touched under `lock`; each
    // slot is written by the one thread that finished its file and read
    // after Parallel.perform has returned.
    package typealias Extract = (KeyFileSource) -> Result<KeyFile.Members, any Error>
    package typealias Finish = ([Result<KeyFile.Members, any Error>]) -> [Result<KeyFile, any Error>]
    /// Reads one finished file (the file's index, the file or why it could
    /// not be opened, the thread's matcher, and a test the reader calls as
    /// it reports progress: true once a file before this one failed).
    package typealias Body = (Int, Result<KeyFile, any Error>, KeyMatcher, _ pointless: () -> Bool) throws -> Matcher.FileOutcome

    /// Files extracted together, finished together.
    private struct Group {
        let first: Int
        var members: [Result<KeyFile.Members, any Error>]
    }

    private enum Task {
        case extract(Range<Int>)
        case finish(Group)
        /// Nothing to extract or finish now: help with queued batches.
        case wait
        /// Every file finished (or pointless).
        case done
    }

    private let files: [KeyFileSource]
    private let matchers: [KeyMatcher]
    private let shared: SharedBatches
    private let window: Int
    private let extract: Extract
    private let finish: Finish
    private let body: Body
    private let slots: UnsafeMutableBufferPointer<Result<Matcher.FileOutcome, EncoreError>?>

    private let lock = ConditionLock()
    private var nextToExtract = 0
    /// Extracted groups not yet taken for finishing, lowest first.
    private var extracted: [Group] = []
    /// Files between the start of their extracting and the end of their finishing.
    private var inFlight = 0
    private var peak = 0
    /// The index of the first failed file so far (files.count: none).
    private var firstFailed: Int

    /// `window` (at least 1) bounds the files in flight; `extract` and
    /// `finish` are KeyFile's two steps of opening; `body` reads a file
    /// (and is where an opening error surfaces, as the file's failure).
    package init(files: [KeyFileSource], matchers: [KeyMatcher], shared: SharedBatches, window: Int,
                 extract: @escaping Extract, finish: @escaping Finish, _ body: @escaping Body) {
        self.files = files
        self.matchers = matchers
        self.shared = shared
        self.window = max(1, window)
        self.extract = extract
        self.finish = finish
        self.body = body
        firstFailed = files.count
        slots = .allocate(capacity: files.count)
        slots.initialize(repeating: nil)
    }

    deinit { slots.deinitialize().deallocate() }

    /// The most files that were in flight at once during run().
    package var peakInFlight: Int { lock.locked { peak } }

    package func run() throws -> [Matcher.FileOutcome] {
        // Iterations may run one after another (more matchers than cores):
        // a thread waits in drain() only while another one holds files in
        // flight, and that one wakes it when it is done with them.
        Parallel.perform(iterations: matchers.count) { t in
            let matcher = matchers[t]
            loop: while shared.failure == nil {
                switch lock.locked({ nextTask() }) {
                case .extract(let range):
                    let group = Group(first: range.lowerBound, members: files[range].map(extract))
                    lock.locked {
                        // A file that cannot be extracted fails (when finished):
                        // the files after it need not be extracted meanwhile.
                        if let broken = group.members.firstIndex(where: { if case .failure = $0 { true } else { false } }) {
                            firstFailed = min(firstFailed, group.first + broken)
                        }
                        extracted.insert(group, at: extracted.firstIndex { $0.first > group.first } ?? extracted.endIndex)
                        dropPointless()
                    }
                    shared.readersChanged()
                case .finish(let group):
                    for (i, file) in zip(group.first..., finish(group.members)) where !pointless(i) {
                        do {
                            slots[i] = .success(try body(i, file, matcher) { self.pointless(i) })
                        } catch {
                            slots[i] = .failure(error as? EncoreError ?? EncoreError(.internalError, "\(error)"))
                            lock.locked {
                                firstFailed = min(firstFailed, i)
                                dropPointless()
                            }
                        }
                    }
                    lock.locked { inFlight -= group.members.count }
                    shared.readersChanged()
                case .wait:
                    // Under SharedBatches' lock, then this one's: never the other way round.
                    shared.drain(with: matcher) { lock.locked { hasTask } }
                case .done:
                    break loop
                }
            }
            shared.drain(with: matcher) { true } // what is left in the queue
        }
        // The first failure in file order (a cancellation elsewhere may have
        // been caused by it), else a failed batch, else every file's outcome.
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
        if let e = shared.failure { throw e }
        guard out.count == files.count else { throw EncoreError(.internalError, "a file was not processed") }
        return out
    }

    private func pointless(_ index: Int) -> Bool { lock.locked { index > firstFailed } }

    /// Under the lock: whether nextTask() has something other than `.wait`.
    private var hasTask: Bool {
        if case .wait = peekTask() { return false }
        return true
    }

    /// Under the lock: what to do next, without taking it.
    private func peekTask() -> Task {
        let end = min(files.count, firstFailed + 1) // files after a failure are pointless
        if let g = extracted.first, g.first < end { return .finish(g) }
        if nextToExtract < end && inFlight < window {
            let pair = files.count - nextToExtract >= 2 * matchers.count && end - nextToExtract >= 2 && window - inFlight >= 2
            return .extract(nextToExtract ..< nextToExtract + (pair ? 2 : 1))
        }
        return inFlight == 0 ? .done : .wait
    }

    /// Under the lock, after a group was extracted or a file failed (the
    /// caller then wakes the waiting threads): groups past the first
    /// failure are dropped, and their buffers go back.
    private func dropPointless() {
        while let g = extracted.last, g.first > firstFailed {
            extracted.removeLast()
            inFlight -= g.members.count
        }
    }

    /// Under the lock: the next task, taken.
    private func nextTask() -> Task {
        let task = peekTask()
        switch task {
        case .finish: extracted.removeFirst()
        case .extract(let range):
            nextToExtract = range.upperBound
            inFlight += range.count
            peak = max(peak, inFlight)
        case .wait, .done: break
        }
        return task
    }
}
