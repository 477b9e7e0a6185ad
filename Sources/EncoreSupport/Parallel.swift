import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Work split into contiguous slices run on several threads, results in
/// slice order (so what the caller merges does not depend on scheduling).
///
/// The threads are the library's own, started for the work and joined
/// after it, not libdispatch's pool: on Linux, once a process has used
/// dispatch's global queues (concurrentPerform), a thread of its pool
/// wakes every second for the rest of the process's life, 86 400 wake-ups
/// a day in a device service that checks once (make bench-device). A
/// thread costs some tens of microseconds to start; the work given to one
/// is thousands of keys or a whole file.
package enum Parallel {
    /// The most threads a caller may ask any parallel work for (key files, trace keys).
    public static let maxThreads = 256

    /// The processors online, at least 1 and at most `cap`.
    package static func threads(cap: Int = 8) -> Int {
        max(1, min(cap, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
    }

    /// `body` on `threads` contiguous slices of 0..<count (fewer when
    /// count is smaller); one slice runs on the calling thread alone.
    /// `body` must be safe to call from several threads at once.
    package static func slices<T>(count: Int, threads: Int, _ body: (Range<Int>) -> T) -> [T] {
        let n = max(1, min(threads, count))
        if n == 1 { return [body(0 ..< count)] }
        return withoutActuallyEscaping(body) { body in
            let job = RangeResults(body, ranges: n) { t in count * t / n ..< count * (t + 1) / n }
            perform(iterations: n) { _ in job.work() }
            return job.collect()
        }
    }

    /// `body` on chunks of 0..<count of about `chunk` each, which `threads`
    /// threads take one after the other as they become free, results in
    /// chunk order. For work of uneven cost per item or cores of uneven
    /// speed (a phone's big and little cores, a shared machine): slices
    /// fixed in advance leave the faster threads idle while the slowest
    /// finishes. `body` must be safe to call from several threads at once.
    package static func chunks<T>(count: Int, threads: Int, chunk: Int, _ body: (Range<Int>) -> T) -> [T] {
        let size = max(1, chunk)
        let n = count / size + (count % size == 0 ? 0 : 1)
        let workers = max(1, min(threads, n))
        if workers == 1 { return (0 ..< n).map { body($0 * size ..< min(count, ($0 + 1) * size)) } }
        return withoutActuallyEscaping(body) { body in
            let job = RangeResults(body, ranges: n) { c in c * size ..< min(count, (c + 1) * size) }
            perform(iterations: workers) { _ in job.work() }
            return job.collect()
        }
    }

    /// `a` and `b` at the same time: `a` on another thread, `b` on the
    /// calling thread (work that must stay there, such as a host's
    /// callbacks, goes in `b`); one after the other when there is one
    /// processor. Each must be safe to run beside the other.
    package static func pair<A, B>(_ a: () -> A, _ b: () -> B) -> (A, B) {
        if threads() == 1 { return (a(), b()) }
        return withoutActuallyEscaping(a) { a in
            let job = Background(a)
            var second: B?
            perform(iterations: 2) { i in
                if i == 0 { second = b() } else { job.run() }
            }
            guard let second else { preconditionFailure("Parallel.pair: the calling thread's job left no result") }
            return (job.collect(), second)
        }
    }

    /// `body(i)` for every i in 0..<iterations at the same time, each on a
    /// thread of its own (0 on the calling thread); returns when all have.
    /// A thread that cannot be started runs its iteration on the calling
    /// thread instead, after iteration 0: a caller whose iterations wait
    /// for one another must not rely on them all running at once.
    package static func perform(iterations: Int, _ body: (Int) -> Void) {
        guard iterations > 1 else {
            if iterations == 1 { body(0) }
            return
        }
        withoutActuallyEscaping(body) { body in
            var started: [pthread_t] = []
            var inline: [Int] = []
            for i in 1 ..< iterations {
                let job = Unmanaged.passRetained(ThreadJob { body(i) })
                var thread = pthread_t()
                let r = pthread_create(&thread, nil, { context in
                    if let context { Unmanaged<ThreadJob>.fromOpaque(context).takeRetainedValue().run() }
                    return nil
                }, job.toOpaque())
                if r == 0 {
                    started.append(thread)
                } else {
                    job.release()
                    inline.append(i)
                }
            }
            body(0)
            for i in inline { body(i) }
            for thread in started { pthread_join(thread, nil) }
        }
    }
}

/// One iteration of Parallel.perform, handed to the thread that runs it.
private final class ThreadJob: @unchecked Sendable {
    // @unchecked: created on the calling thread, run once on the new one,
    // which the caller joins before anything it captured goes away.
    private let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
    func run() { body() }
}

/// The job Parallel.pair runs on another thread, and its result.
private final class Background<A>: @unchecked Sendable {
    // @unchecked: the result is written by the one job and read only after
    // the caller has waited for it.
    private let body: () -> A
    private var result: A?

    init(_ body: @escaping () -> A) { self.body = body }

    func run() { result = body() }

    func collect() -> A {
        guard let result else { preconditionFailure("Parallel.pair: the background job left no result") }
        return result
    }
}

/// The ranges of Parallel.slices and Parallel.chunks: the next one to
/// take, and their results in range order.
private final class RangeResults<T>: @unchecked Sendable {
    // @unchecked: each slot is written by the one worker that took its range
    // (the atomic counter hands every range out once) and read only after
    // every thread has been joined; `body` and `range` are only called.
    private let body: (Range<Int>) -> T
    private let range: (Int) -> Range<Int>
    private let slots: UnsafeMutableBufferPointer<T?>
    private let next = Atomic<Int>(0)

    init(_ body: @escaping (Range<Int>) -> T, ranges n: Int, _ range: @escaping (Int) -> Range<Int>) {
        self.body = body
        self.range = range
        slots = .allocate(capacity: n)
        slots.initialize(repeating: nil)
    }

    deinit { slots.deinitialize().deallocate() }

    func work() {
        while true {
            let r = next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard r < slots.count else { return }
            slots[r] = body(range(r))
        }
    }

    func collect() -> [T] { slots.compactMap { $0 } }
}
