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
        pthread_cond_init(condition, nil)
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

    /// Wakes every waiting thread. Call it after changing what waiters
    /// test, holding the mutex or after taking it once, so that no waiter
    /// tests the old state and then sleeps through the wake-up.
    package func wakeAll() { pthread_cond_broadcast(condition) }
}
