#if canImport(Glibc)
import Glibc
#endif

/// One thread of its own that runs the jobs given to it one after the
/// other, in the order given, for the life of the process: a service's
/// serial queue without libdispatch. Idle, the thread sleeps on a
/// condition variable and wakes only for a job: libdispatch's worker
/// threads woke some 20 times in 5 idle minutes of encored
/// (make bench-device), each a wake-up of a device's processor for
/// nothing.
package final class WorkerThread: @unchecked Sendable {
    // @unchecked: `jobs` and `started` are only touched holding `lock`.
    private let lock = ConditionLock()
    private var jobs: [@Sendable () -> Void] = []
    private var started = false
    private let name: String

    /// `name`: the thread's name (15 bytes at most are kept), as `ps -L` and
    /// debuggers show it.
    package init(name: String) { self.name = name }

    /// Runs `job` on the thread after the jobs given before it. The thread
    /// starts with the first job. A thread that cannot be started (out of
    /// resources) runs the job on the calling thread instead, so that no
    /// job is lost.
    package func async(_ job: @escaping @Sendable () -> Void) {
        let start = lock.locked { () -> Bool in
            jobs.append(job)
            lock.wakeAll()
            defer { started = true }
            return !started
        }
        if start && !startThread() {
            lock.locked { started = false }
            runJobs()
        }
    }

    private func startThread() -> Bool {
        let context = Unmanaged.passRetained(self)
        var thread = pthread_t()
        guard pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            Unmanaged<WorkerThread>.fromOpaque(context).takeRetainedValue().serve()
            return nil
        }, context.toOpaque()) == 0 else {
            context.release()
            return false
        }
        pthread_detach(thread)
        return true
    }

    /// The thread's life: the next job, or sleep until there is one.
    private func serve() {
        nameThread()
        while true {
            let job = lock.locked { () -> @Sendable () -> Void in
                while jobs.isEmpty { lock.wait() }
                return jobs.removeFirst()
            }
            job()
        }
    }

    /// The thread's name in /proc (what `ps -L` and debuggers show): the
    /// kernel keeps 15 bytes. Glibc's pthread_setname_np is not visible to
    /// Swift; this is what it does for the calling thread.
    private func nameThread() {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// The jobs queued so far, on the calling thread (no thread could be started).
    private func runJobs() {
        while let job = lock.locked({ jobs.isEmpty ? nil : jobs.removeFirst() }) { job() }
    }
}

/// A one-time signal between threads: set once, waited for with a timeout.
package final class Latch: @unchecked Sendable {
    // @unchecked: `isSet` is only touched holding `lock`.
    private let lock = ConditionLock()
    private var isSet = false

    package init() {}

    package func set() {
        lock.locked {
            isSet = true
            lock.wakeAll()
        }
    }

    /// Whether it was set within `seconds`.
    package func wait(seconds: Double) -> Bool {
        let deadline = Monotonic.seconds() + seconds
        return lock.locked {
            while !isSet {
                if !lock.wait(until: deadline) { return isSet }
            }
            return true
        }
    }
}
