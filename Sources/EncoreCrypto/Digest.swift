import CCrypto
import EncoreSupport

/// SHA-256 through libcrypto: the features' derivations (check-in location
/// ids and report keys, CrowdNotifier's ids and masks, the configuration's
/// digests, test keys' hashes) and the digests of whole packages (the key
/// file cache, DP-3T's answers).
public enum Digest {
    /// SHA-256 of the parts concatenated (the inputs here are small).
    public static func sha256(_ parts: [UInt8]...) -> [UInt8] {
        let input = parts.flatMap { $0 }
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        // EVP_Digest fails only when libcrypto cannot allocate: nothing a caller could do.
        _ = input.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &out, &length, EVP_sha256(), nil) }
        return out
    }

    /// SHA-256 of a whole buffer (a cached package), without copying it.
    package static func sha256(_ bytes: UnsafeRawBufferPointer) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        var empty: UInt8 = 0
        let ok = withUnsafePointer(to: &empty) { e in
            EVP_Digest(bytes.count > 0 ? bytes.baseAddress : UnsafeRawPointer(e), bytes.count, &out, &length, EVP_sha256(), nil)
        }
        guard ok == 1, length == 32 else { throw EncoreError(.internalError, "libcrypto SHA-256 failed") }
        return out
    }
}

extension Digest {
    /// HMAC-SHA256(key, data): HKDF's steps, check-in reports' MACs.
    package static func hmacSHA256(key: [UInt8], data: [UInt8]) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard HMAC(EVP_sha256(), key, Int32(key.count), data, data.count, &out, &length) != nil, length == 32 else {
            throw EncoreError(.internalError, "libcrypto HMAC-SHA256 failed")
        }
        return out
    }
}
