import CCrypto
import EncoreSupport

/// Bytes from the operating system's CSPRNG (through libcrypto's RAND_bytes,
/// which OpenSSL seeds from getrandom()): own keys, tokens, nonces, IVs.
public enum SecureRandom {
    public static func bytes(_ count: Int) throws -> [UInt8] {
        guard count >= 0, let n = Int32(exactly: count) else { throw EncoreError(.invalidArgument, "cannot make \(count) random bytes") }
        var out = [UInt8](repeating: 0, count: count)
        guard count == 0 || RAND_bytes(&out, n) == 1 else { throw EncoreError(.internalError, "the CSPRNG (RAND_bytes) failed") }
        return out
    }
}
