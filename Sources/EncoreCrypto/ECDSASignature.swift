import CCrypto
#if canImport(Glibc)
import Glibc
#endif

/// The DER form of ECDSA signatures (SEQUENCE of the integers r and s), as
/// key files carry them and as libcrypto verifies them.
package enum ECDSASignature {
    /// The DER form of a signature from its two halves (a JWS's r ‖ s).
    package static func der(r: [UInt8], s: [UInt8]) -> [UInt8]? {
        guard let sig = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(sig) }
        let br = r.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
        let bs = s.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
        guard let br, let bs else { BN_free(br); BN_free(bs); return nil }
        guard ECDSA_SIG_set0(sig, br, bs) == 1 else { BN_free(br); BN_free(bs); return nil }
        var out: UnsafeMutablePointer<UInt8>?
        let n = i2d_ECDSA_SIG(sig, &out)
        guard n > 0, let out else { return nil }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(n)))
    }

    /// DER as the ECDSA standard demands: decoding consumes every byte and
    /// re-encoding gives the same bytes (no BER length forms, no padding).
    package static func isStrictDER(_ der: [UInt8]) -> Bool {
        guard !der.isEmpty else { return false }
        return der.withUnsafeBufferPointer { buf -> Bool in
            var p: UnsafePointer<UInt8>? = buf.baseAddress
            guard let sig = d2i_ECDSA_SIG(nil, &p, buf.count) else { ERR_clear_error(); return false }
            defer { ECDSA_SIG_free(sig) }
            guard let start = buf.baseAddress, let end = p, end - start == buf.count else { return false }
            var out: UnsafeMutablePointer<UInt8>? = nil
            let n = i2d_ECDSA_SIG(sig, &out)
            guard n > 0, let out else { return false }
            defer { CRYPTO_free(out, #fileID, #line) }
            return Int(n) == buf.count && memcmp(out, start, buf.count) == 0
        }
    }
}
