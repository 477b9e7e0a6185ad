import EncoreSupport

/// HKDF-SHA256 (RFC 5869) without a salt (an absent salt is HashLen zero
/// bytes): ENF's RPIK and AEMK, CrowdNotifier's nonces.
package enum HKDF {
    package static func sha256(ikm: [UInt8], info: [UInt8], length: Int) throws -> [UInt8] {
        guard length >= 0, length <= 255 * 32 else {
            throw EncoreError(.invalidArgument, "HKDF-SHA256 gives 0 to \(255 * 32) bytes, not \(length)")
        }
        let prk = try Digest.hmacSHA256(key: [UInt8](repeating: 0, count: 32), data: ikm)
        var out: [UInt8] = [], t: [UInt8] = []
        var counter: UInt8 = 1
        while out.count < length {
            t = try Digest.hmacSHA256(key: prk, data: t + info + [counter]) // T(i) = HMAC(PRK, T(i-1) ‖ info ‖ i)
            out += t
            counter &+= 1
        }
        return Array(out.prefix(length))
    }
}
