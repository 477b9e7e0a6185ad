import CEncorePairing
import EncoreSupport

/// BLS12-381 as CrowdNotifier uses it, over CEncorePairing (our own C,
/// bit-compatible with mcl): points parsed with full validation, the hash
/// to G1 (H1) and to Fr, the pairing and mcl's serialisations. Scalars that
/// are secrets (r at check-in, a venue's master secret) only ever go
/// through the constant-time multiplications.
package enum BLS {
    package static let frBytes = Int(ENC_BLS_FR_BYTES)
    package static let g1Bytes = Int(ENC_BLS_G1_BYTES)
    package static let g2Bytes = Int(ENC_BLS_G2_BYTES)
    package static let gtBytes = Int(ENC_BLS_GT_BYTES)

    /// Why bytes are not a usable point: the C library's verdicts.
    package enum PointError: Error, Equatable {
        case length, encoding, notOnCurve, notInSubgroup, identity

        init(code: Int32) {
            switch Int(code) {
            case Int(ENC_BLS_ERR_NOT_ON_CURVE): self = .notOnCurve
            case Int(ENC_BLS_ERR_NOT_IN_SUBGROUP): self = .notInSubgroup
            case Int(ENC_BLS_ERR_IDENTITY): self = .identity
            default: self = .encoding
            }
        }

        package var text: String {
            switch self {
            case .length: return "has the wrong length"
            case .encoding: return "is not an encoding of a field element (a coordinate not below p, stray flag bits)"
            case .notOnCurve: return "is not a point of the curve"
            case .notInSubgroup: return "is on the curve but not in the prime-order subgroup"
            case .identity: return "is the identity (the point at infinity)"
            }
        }
    }

    /// A G1 point that is not the identity (sk_id of a trace key).
    package static func g1Nonzero(_ bytes: [UInt8]) -> Result<enc_g1, PointError> {
        guard bytes.count == g1Bytes else { return .failure(.length) }
        var p = enc_g1()
        let rc = bytes.withUnsafeBufferPointer { enc_bls_g1_deserialize_nonzero(&p, $0.baseAddress) }
        return Int(rc) == Int(ENC_BLS_OK) ? .success(p) : .failure(PointError(code: rc))
    }

    /// A G2 point that is not the identity (a venue's public key, c1).
    package static func g2Nonzero(_ bytes: [UInt8]) -> Result<enc_g2, PointError> {
        guard bytes.count == g2Bytes else { return .failure(.length) }
        var p = enc_g2()
        let rc = bytes.withUnsafeBufferPointer { enc_bls_g2_deserialize_nonzero(&p, $0.baseAddress) }
        return Int(rc) == Int(ENC_BLS_OK) ? .success(p) : .failure(PointError(code: rc))
    }

    package static func serialize(_ p: enc_g1) -> [UInt8] {
        var p = p
        var out = [UInt8](repeating: 0, count: g1Bytes)
        out.withUnsafeMutableBufferPointer { enc_bls_g1_serialize($0.baseAddress, &p) }
        return out
    }

    package static func serialize(_ p: enc_g2) -> [UInt8] {
        var p = p
        var out = [UInt8](repeating: 0, count: g2Bytes)
        out.withUnsafeMutableBufferPointer { enc_bls_g2_serialize($0.baseAddress, &p) }
        return out
    }

    package static func serialize(_ g: enc_gt) -> [UInt8] {
        var g = g
        var out = [UInt8](repeating: 0, count: gtBytes)
        out.withUnsafeMutableBufferPointer { enc_bls_gt_serialize($0.baseAddress, &g) }
        return out
    }

    /// mcl's hashAndMapToG1 (CrowdNotifier's H1).
    package static func hashToG1(_ message: [UInt8]) -> enc_g1 {
        var p = enc_g1()
        message.withUnsafeBufferPointer { enc_bls_g1_hash(&p, $0.baseAddress, $0.count) }
        return p
    }

    /// mcl's Fr::setHashOf (CrowdNotifier's HashToFr).
    package static func hashToFr(_ message: [UInt8]) -> enc_fr {
        var k = enc_fr()
        message.withUnsafeBufferPointer { enc_bls_fr_hash(&k, $0.baseAddress, $0.count) }
        return k
    }

    /// 32 little-endian bytes below r (mcl's Fr form); nil otherwise.
    package static func fr(_ bytes: [UInt8]) -> enc_fr? {
        guard bytes.count == frBytes else { return nil }
        var k = enc_fr()
        let rc = bytes.withUnsafeBufferPointer { enc_bls_fr_from_bytes(&k, $0.baseAddress) }
        return Int(rc) == Int(ENC_BLS_OK) ? k : nil
    }

    package static func bytes(_ k: enc_fr) -> [UInt8] {
        var k = k
        var out = [UInt8](repeating: 0, count: frBytes)
        out.withUnsafeMutableBufferPointer { enc_bls_fr_to_bytes($0.baseAddress, &k) }
        return out
    }

    /// A uniform non-zero scalar from 512 bits of the CSPRNG.
    package static func randomFr(_ random: (Int) throws -> [UInt8]) throws -> enc_fr {
        while true {
            let wide = try random(64)
            guard wide.count == 64 else { throw EncoreError(.internalError, "the random source gave \(wide.count) bytes, not 64") }
            var k = enc_fr()
            wide.withUnsafeBufferPointer { enc_bls_fr_from_wide_bytes(&k, $0.baseAddress) }
            if enc_bls_fr_is_zero(&k) == 0 { return k }
        }
    }

    package static func isZero(_ k: enc_fr) -> Bool {
        var k = k
        return enc_bls_fr_is_zero(&k) != 0
    }

    /// g2^k for a secret k (constant time).
    package static func g2Generator(times k: enc_fr) -> enc_g2 {
        var k = k
        var g = enc_g2(), out = enc_g2()
        enc_bls_g2_generator(&g)
        enc_bls_g2_mul(&out, &g, &k)
        return out
    }

    /// p^k for a secret k (constant time).
    package static func g1(_ p: enc_g1, times k: enc_fr) -> enc_g1 {
        var p = p, k = k
        var out = enc_g1()
        enc_bls_g1_mul(&out, &p, &k)
        return out
    }

    /// e(p, q) serialised.
    package static func pairing(_ p: enc_g1, _ q: enc_g2) -> [UInt8] {
        var p = p, q = q
        var g = enc_gt()
        enc_bls_pairing(&g, &p, &q)
        return serialize(g)
    }

    /// e(p, q) serialised for each q, all prepared: the values of
    /// pairing(p, q) one by one, bit for bit, for less (the pairings' final
    /// exponentiations share their inversions). Matching pairs a trace key
    /// with the prepared hours of its day this way.
    package static func pairings(_ p: enc_g1, _ qs: [PreparedG2]) -> [[UInt8]] {
        guard !qs.isEmpty else { return [] }
        var p = p
        var out = [enc_gt](repeating: enc_gt(), count: qs.count)
        // The lines are read through pointers: their owners must outlive the call.
        withExtendedLifetime(qs) {
            let lines: [UnsafePointer<enc_g2_prepared>?] = qs.map { UnsafePointer($0.lines) }
            lines.withUnsafeBufferPointer { q in
                out.withUnsafeMutableBufferPointer { g in
                    enc_bls_pairing_prepared_many(g.baseAddress, &p, q.baseAddress, q.count)
                }
            }
        }
        return out.map(serialize)
    }

    /// A G2 point's Miller-loop lines (about 20 KB), computed once for
    /// pairing the point with many G1 points: matching prepares each stored
    /// hour's c1 and pairs it with every trace key of its day. Read-only
    /// after init, so threads share it.
    package final class PreparedG2: @unchecked Sendable {
        fileprivate let lines: UnsafeMutablePointer<enc_g2_prepared>

        package init(_ q: enc_g2) {
            var q = q
            lines = .allocate(capacity: 1)
            enc_bls_g2_prepare(lines, &q)
        }

        deinit { lines.deallocate() }
    }

    /// e(p, q)^k serialised, for a secret k (computed as e(k·p, q)).
    package static func pairing(_ p: enc_g1, _ q: enc_g2, power k: enc_fr) -> [UInt8] {
        var p = p, q = q, k = k
        var g = enc_gt()
        enc_bls_pairing_pow(&g, &p, &q, &k)
        return serialize(g)
    }
}
