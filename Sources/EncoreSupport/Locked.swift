#if canImport(Glibc)
import Glibc
#endif

/// A value behind a pthread mutex: the library's lock for state shared by
/// threads. Not Synchronization's Mutex: on Linux that one waits with raw
/// futex calls, which ThreadSanitizer cannot see, so it reported every
/// access that Mutex guards as a race (make test-tsan); a pthread mutex it
/// follows. Uncontended, both cost the same (an atomic exchange each way).
/// Public for the push service (server/), which uses it for the same reason.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched with `mutex` held.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` on the value, holding the lock (not reentrant).
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
