import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Work split into contiguous slices run on several threads, results in
/// slice order (so what the caller merges does not depend on scheduling).
package enum Parallel {
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
            let job = SliceResults(body, slots: n)
            DispatchQueue.concurrentPerform(iterations: n) { t in job.run(t, count * t / n ..< count * (t + 1) / n) }
            return job.collect()
        }
    }

    /// `a` and `b` at the same time, on two threads (one after the other
    /// when there is one processor). Each must be safe to run beside the
    /// other.
    package static func pair<A, B>(_ a: () -> A, _ b: () -> B) -> (A, B) {
        if threads() == 1 { return (a(), b()) }
        return withoutActuallyEscaping(a) { a in
            withoutActuallyEscaping(b) { b in
                let job = PairResults(a, b)
                DispatchQueue.concurrentPerform(iterations: 2) { job.run($0) }
                return job.collect()
            }
        }
    }
}

/// The two slots of Parallel.pair.
private final class PairResults<A, B>: @unchecked Sendable {
    // @unchecked: each slot is written by the one iteration that owns it and
    // read only after concurrentPerform has returned.
    private let a: () -> A, b: () -> B
    private var first: A?, second: B?

    init(_ a: @escaping () -> A, _ b: @escaping () -> B) {
        self.a = a
        self.b = b
    }

    func run(_ i: Int) {
        if i == 0 { first = a() } else { second = b() }
    }

    func collect() -> (A, B) {
        guard let first, let second else { preconditionFailure("Parallel.pair: a slot was not filled") }
        return (first, second)
    }
}

/// The slots of Parallel.slices.
private final class SliceResults<T>: @unchecked Sendable {
    // @unchecked: each slot is written by the one iteration that owns it and
    // read only after concurrentPerform has returned; `body` is only called.
    private let body: (Range<Int>) -> T
    private let slots: UnsafeMutableBufferPointer<T?>

    init(_ body: @escaping (Range<Int>) -> T, slots n: Int) {
        self.body = body
        slots = .allocate(capacity: n)
        slots.initialize(repeating: nil)
    }

    deinit { slots.deinitialize().deallocate() }

    func run(_ t: Int, _ range: Range<Int>) { slots[t] = body(range) }

    func collect() -> [T] { slots.compactMap { $0 } }
}
