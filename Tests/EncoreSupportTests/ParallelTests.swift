import EncoreSupport
import Glibc
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Parallel: slices in slice order, and a pair of jobs whose results come
/// back in place whatever ran first.
@Suite struct ParallelTests {
    @Test func slicesCoverTheRangeInOrder() {
        for threads in [1, 2, 3, 8] {
            let parts = Parallel.slices(count: 10, threads: threads) { Array($0) }
            #expect(parts.flatMap { $0 } == Array(0 ..< 10))
        }
    }

    @Test func aPairRunsBothAndKeepsTheirPlaces() {
        let calls = Atomic<Int>(0)
        struct Failure: Error {}
        for _ in 0 ..< 100 {
            let (a, b) = Parallel.pair({ () -> Result<Int, Failure> in calls.add(1, ordering: .relaxed); return .success(1) },
                                       { () -> Result<Int, Failure>? in calls.add(1, ordering: .relaxed); return .failure(Failure()) })
            #expect((try? a.get()) == 1)
            #expect(b.map { (try? $0.get()) == nil } == true)
        }
        #expect(calls.load(ordering: .relaxed) == 200)
    }

    /// The second job stays on the calling thread (a host's transport
    /// callback is called there, as the header promises).
    @Test func theSecondOfAPairRunsOnTheCallingThread() {
        let caller = pthread_self()
        for _ in 0 ..< 100 {
            let (_, here) = Parallel.pair({ pthread_self() }, { pthread_self() })
            #expect(pthread_equal(here, caller) != 0)
        }
    }
}
