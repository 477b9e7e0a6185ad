import EncoreSupport
import Glibc
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Parallel: slices and chunks in order, and a pair of jobs whose results come
/// back in place whatever ran first.
@Suite struct ParallelTests {
    @Test func slicesCoverTheRangeInOrder() {
        for threads in [1, 2, 3, 8] {
            let parts = Parallel.slices(count: 10, threads: threads) { Array($0) }
            #expect(parts.flatMap { $0 } == Array(0 ..< 10))
        }
    }

    /// Chunks taken by whichever thread is free still come back in chunk
    /// order, each index once, whatever the sizes (a last short chunk, a
    /// chunk larger than the range, an empty range).
    @Test func chunksCoverTheRangeOnceInOrder() {
        for threads in [1, 2, 3, 8] {
            for (count, chunk) in [(10, 3), (10, 1), (10, 10), (10, 64), (0, 4), (1000, 7), (5, 0)] {
                let calls = Atomic<Int>(0)
                let parts = Parallel.chunks(count: count, threads: threads, chunk: chunk) { range -> [Int] in
                    calls.add(1, ordering: .relaxed)
                    return Array(range)
                }
                #expect(parts.flatMap { $0 } == Array(0 ..< count), "count \(count), chunk \(chunk), \(threads) threads")
                let size = max(1, chunk)
                #expect(calls.load(ordering: .relaxed) == (count + size - 1) / size)
                #expect(parts.allSatisfy { $0.count <= size })
            }
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
