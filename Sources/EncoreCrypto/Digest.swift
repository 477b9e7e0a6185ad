import CCrypto

/// SHA-256 through libcrypto, for the features' derivations (check-in
/// location ids and report keys, CrowdNotifier's ids and masks, the
/// configuration's digests).
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
}
