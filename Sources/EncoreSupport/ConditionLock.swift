#if canImport(Glibc)
import Glibc
#endif

/// A mutex with a condition variable (pthreads): for a thread that has
/// nothing to do until another thread changes shared state, so it sleeps
/// instead of polling. Synchronization's Mutex has no condition.
package final class ConditionLock: @unchecked Sendable {
    // @unchecked: the pthread objects are what make it thread-safe.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        // Timed waits count on the monotonic clock: a device's clock set
        // back an hour must not stretch a 10-second wait to an hour.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` holding the mutex.
    package func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Inside locked(): releases the mutex until woken, then holds it
    /// again. Wake-ups may be spurious: callers wait in a loop on their
    /// condition.
    package func wait() { pthread_cond_wait(condition, mutex) }

    /// Inside locked(): as wait(), but until `deadline` at the latest (on
    /// Monotonic.seconds()' clock). Returns false once the deadline passed.
    package func wait(until deadline: Double) -> Bool {
        let bounded = max(0, min(deadline, 1e12))
        var at = timespec()
        at.tv_sec = Int(bounded)
        at.tv_nsec = Int((bounded - Double(at.tv_sec)) * 1e9)
        return pthread_cond_timedwait(condition, mutex, &at) != ETIMEDOUT
    }

    /// Wakes every waiting thread. Call it after changing what waiters
    /// test, holding the mutex or after taking it once, so that no waiter
    /// tests the old state and then sleeps through the wake-up.
    package func wakeAll() { pthread_cond_broadcast(condition) }
}
