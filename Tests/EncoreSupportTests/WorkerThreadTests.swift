import EncoreSupport
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// WorkerThread: a service's serial queue on a thread of its own, which
/// sleeps while it has nothing to do; Latch: a signal waited for with a
/// timeout.
@Suite struct WorkerThreadTests {
    /// The calling thread's id: /proc/thread-self links to /proc/PID/task/TID
    /// (gettid is not visible to Swift).
    static func threadID() -> Int32 {
        var path = [CChar](repeating: 0, count: 64)
        let n = readlink("/proc/thread-self", &path, path.count - 1)
        guard n > 0 else { return -1 }
        let text = String(decoding: path.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: "/").last.flatMap { Int32($0) } ?? -1
    }

    @Test func jobsRunInOrderOnOneOtherThread() {
        let worker = WorkerThread(name: "test-worker")
        let seen = Mutex<[(Int, Int32)]>([])
        let done = Latch()
        for i in 0 ..< 200 {
            worker.async {
                seen.withLock { $0.append((i, Self.threadID())) }
                if i == 199 { done.set() }
            }
        }
        #expect(done.wait(seconds: 10))
        let jobs = seen.withLock { $0 }
        #expect(jobs.map(\.0) == Array(0 ..< 200))
        #expect(Set(jobs.map(\.1)).count == 1)
        #expect(jobs.first?.1 != Self.threadID())
    }

    /// Idle, the thread sleeps on its condition: no wake-up in a second
    /// (voluntary context switches in /proc, as make bench-device counts them).
    @Test func anIdleThreadDoesNotWake() throws {
        let worker = WorkerThread(name: "test-idle")
        let tid = Mutex<Int32>(0)
        let ran = Latch()
        worker.async {
            tid.withLock { $0 = Self.threadID() }
            ran.set()
        }
        #expect(ran.wait(seconds: 10))
        let id = tid.withLock { $0 }
        usleep(100_000)  // the thread back asleep on its condition
        let before = try #require(Self.voluntarySwitches(thread: id))
        usleep(1_000_000)
        let after = try #require(Self.voluntarySwitches(thread: id))
        #expect(after == before)
        // It still answers.
        let again = Latch()
        worker.async { again.set() }
        #expect(again.wait(seconds: 10))
    }

    @Test func aLatchWaitsAtMostItsTime() {
        let latch = Latch()
        let start = Monotonic.seconds()
        #expect(!latch.wait(seconds: 0.2))
        let waited = Monotonic.seconds() - start
        #expect(waited >= 0.19 && waited < 5, "waited \(waited) s")
        latch.set()
        #expect(latch.wait(seconds: 0))
        #expect(latch.wait(seconds: 10))
    }

    static func voluntarySwitches(thread: Int32) -> Int? {
        guard let f = fopen("/proc/self/task/\(thread)/status", "r") else { return nil }
        defer { fclose(f) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), f) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("voluntary_ctxt_switches:") {
                return Int(text.dropFirst("voluntary_ctxt_switches:".count).trimmingPrefix(while: { $0 == " " || $0 == "\t" }).prefix { $0.isNumber })
            }
        }
        return nil
    }
}
