import EncoreCrypto
import EncoreSupport

/// Temporary exposure keys for the kernel's tests: key `i` is 16 bytes of
/// SplitMix64 seeded with `i`, the same every run and distinct for each `i`.
enum TestKeys {
    static func tek(_ i: Int) -> KeyData {
        var rng = SplitMix64(seed: UInt64(truncatingIfNeeded: i))
        var raw = (rng.next(), rng.next())
        return withUnsafeBytes(of: &raw) { KeyData($0) }
    }
}
