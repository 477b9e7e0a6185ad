#if canImport(Glibc)
import Glibc
#endif

/// Time passed since it was made, by CLOCK_MONOTONIC (immune to changes of
/// the wall clock), and sleeps that can be cancelled: the blocking drivers'
/// only view of time.
struct MonotonicClock {
    private let start = MonotonicClock.nanoseconds()

    var elapsedSeconds: Int64 { (Self.nanoseconds() - start) / 1_000_000_000 }

    /// Sleeps `milliseconds` (at most an hour), in slices of 50 ms so that
    /// `cancel` is seen soon.
    func sleep(milliseconds: Int64, cancel: (@Sendable () -> Bool)?) {
        var left = min(max(milliseconds, 0), 3_600_000)
        while left > 0 {
            if cancel?() == true { return }
            let slice = min(left, 50)
            usleep(UInt32(slice) * 1000)
            left -= slice
        }
    }

    private static func nanoseconds() -> Int64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
    }
}
