#if canImport(Glibc)
import EncoreStorage
import Glibc
#endif

/// Wall-clock timing with the monotonic clock, and the few number formats the
/// reports need (no Foundation: String(format:) is not used).
enum Timing {
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Seconds taken by `body`.
    static func time(_ body: () throws -> Void) rethrows -> Double {
        let start = now()
        try body()
        return Double(now() - start) / 1e9
    }
}

/// The durations (seconds) of one measurement over several runs.
struct Samples {
    private(set) var seconds: [Double] = []

    mutating func add(_ s: Double) { seconds.append(s) }

    var median: Double {
        let s = seconds.sorted()
        guard !s.isEmpty else { return .nan }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    var best: Double { seconds.min() ?? .nan }
}

enum Format {
    /// `v` with `decimals` digits after the point.
    static func fixed(_ v: Double, _ decimals: Int = 1) -> String {
        guard v.isFinite else { return "n/a" }
        var scale = 1.0
        for _ in 0 ..< decimals { scale *= 10 }
        let scaled = (abs(v) * scale).rounded()
        let whole = UInt64(scaled / scale)
        let frac = UInt64(scaled - Double(whole) * scale)
        var text = grouped(whole)
        if decimals > 0 {
            let digits = String(frac)
            text += "." + String(repeating: "0", count: max(0, decimals - digits.count)) + digits
        }
        return (v < 0 && scaled != 0 ? "-" : "") + text
    }

    /// 1234567 → "1 234 567".
    static func grouped(_ n: UInt64) -> String {
        let digits = Array(String(n))
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(" ") }
            out.append(c)
        }
        return out
    }

    static func grouped(_ n: Int) -> String { grouped(UInt64(max(n, 0))) }

    /// Seconds as milliseconds, at a precision that suits the size.
    static func ms(_ s: Double) -> String {
        let v = s * 1000
        return fixed(v, v < 10 ? 2 : 1) + " ms"
    }

    /// Bytes as decimal megabytes (10^6 bytes).
    static func mb(_ bytes: Int) -> String { fixed(Double(bytes) / 1e6, 1) + " MB" }

    static func mbps(bytes: Int, seconds: Double) -> String { fixed(Double(bytes) / 1e6 / seconds, 0) + " MB/s" }

    /// Keys per second in millions.
    static func keysPerSecond(_ keys: Int, seconds: Double) -> String {
        fixed(Double(keys) / seconds / 1e6, 2) + " M keys/s"
    }

    static func ratio(_ r: Double) -> String { fixed(r, 2) + "×" }

    static func padRight(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }

    static func padLeft(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : String(repeating: " ", count: width - s.count) + s
    }
}
