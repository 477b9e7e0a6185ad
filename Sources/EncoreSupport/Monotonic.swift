#if canImport(Glibc)
import Glibc
#endif

/// Seconds on the monotonic clock: for intervals and deadlines that a
/// clock set back or forward must not stretch or cut.
public enum Monotonic {
    public static func seconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
