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
}
