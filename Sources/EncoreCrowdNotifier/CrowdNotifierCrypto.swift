import CSodium
import EncoreCrypto
import EncoreSupport

/// CrowdNotifier v3's derivations (../shared/spec/checkins.md, part 2): the
/// nonces of a QR payload, the per-hour identities, and libsodium's
/// crypto_secretbox (XSalsa20-Poly1305) for the visit record and the
/// associated data. Pure: bytes in, bytes out.
public enum CrowdNotifierCrypto {
    /// Identities are per hour (the interval length in the id's input).
    public static let intervalSeconds: Int64 = 3600
    static let nonceBytes = 24
    static let keyBytes = 32

    /// noncePreId ‖ nonceTimekey ‖ notificationKey.
    package struct Nonces: Sendable, Equatable {
        package var preId: [UInt8]
        package var timeKey: [UInt8]
        package var notificationKey: [UInt8]
    }

    /// HKDF-SHA256(IKM = payload, salt = empty, info = "CrowdNotifier_v3", L = 96).
    package static func nonces(payload: [UInt8]) -> Nonces {
        // HKDF fails only when libcrypto cannot allocate (HMAC): nothing a caller could do.
        let okm = (try? HKDF.sha256(ikm: payload, info: Array("CrowdNotifier_v3".utf8), length: 96)) ?? [UInt8](repeating: 0, count: 96)
        return Nonces(preId: Array(okm[0 ..< 32]), timeKey: Array(okm[32 ..< 64]), notificationKey: Array(okm[64 ..< 96]))
    }

    /// SHA-256("CN-PREID" ‖ payload ‖ noncePreId).
    package static func preId(payload: [UInt8], nonces: Nonces) -> [UInt8] {
        Digest.sha256(Array("CN-PREID".utf8), payload, nonces.preId)
    }

    /// SHA-256("CN-TIMEKEY" ‖ BE32(3600) ‖ BE64(intervalStart) ‖ nonceTimekey).
    static func timeKey(intervalStart: Int64, nonces: Nonces) -> [UInt8] {
        Digest.sha256(Array("CN-TIMEKEY".utf8), bigEndian(UInt32(intervalSeconds)), bigEndian(UInt64(bitPattern: intervalStart)), nonces.timeKey)
    }

    /// SHA-256("CN-ID" ‖ preid ‖ BE32(3600) ‖ BE64(intervalStart) ‖ timekey),
    /// the deployed derivation (the SDKs' current test vectors).
    package static func identity(preId: [UInt8], intervalStart: Int64, timeKey: [UInt8]) -> [UInt8] {
        Digest.sha256(Array("CN-ID".utf8), preId, bigEndian(UInt32(intervalSeconds)), bigEndian(UInt64(bitPattern: intervalStart)), timeKey)
    }

    /// The identity of the hour starting at `intervalStart` for a payload.
    public static func identity(payload: [UInt8], intervalStart: Int64) -> [UInt8] {
        let n = nonces(payload: payload)
        return identity(preId: preId(payload: payload, nonces: n), intervalStart: intervalStart, timeKey: timeKey(intervalStart: intervalStart, nonces: n))
    }

    /// The starts of the hours a visit touches: floor(arrival/3600)·3600
    /// through floor(departure/3600)·3600. Empty for departure < arrival,
    /// and for more than `limit` hours (callers refuse those by hourCount).
    public static func hours(arrival: Int64, departure: Int64, limit: Int64) -> [Int64] {
        let count = hourCount(arrival: arrival, departure: departure)
        guard count > 0, count <= limit else { return [] }
        let first = arrival / intervalSeconds * intervalSeconds, last = departure / intervalSeconds * intervalSeconds
        return Array(stride(from: first, through: last, by: Int(intervalSeconds)))
    }

    /// How many hours [arrival, departure] touches; 0 when it is not a
    /// range (before 1970, or ending before it starts). Counted, not made:
    /// a host's far-future departure must be refused before any list of
    /// its hours exists (one to 9999 would take 560 MB).
    package static func hourCount(arrival: Int64, departure: Int64) -> Int64 {
        guard arrival >= 0, departure >= arrival else { return 0 }
        return departure / intervalSeconds - arrival / intervalSeconds + 1
    }

    static func bigEndian(_ v: UInt32) -> [UInt8] { (0 ..< 4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * UInt32($0))) } }
    static func bigEndian(_ v: UInt64) -> [UInt8] { (0 ..< 8).map { UInt8(truncatingIfNeeded: v >> (56 - 8 * UInt64($0))) } }

    // MARK: - crypto_secretbox

    /// crypto_secretbox_easy: MAC (16 bytes) ‖ ciphertext.
    static func seal(_ message: [UInt8], nonce: [UInt8], key: [UInt8]) throws -> [UInt8] {
        guard nonce.count == nonceBytes, key.count == keyBytes else {
            throw EncoreError(.invalidArgument, "secretbox needs a 24-byte nonce and a 32-byte key")
        }
        var out = [UInt8](repeating: 0, count: message.count + Int(crypto_secretbox_MACBYTES))
        let rc = crypto_secretbox_easy(&out, message, UInt64(message.count), nonce, key)
        guard rc == 0 else { throw EncoreError(.internalError, "crypto_secretbox_easy failed") }
        return out
    }

    /// crypto_secretbox_open_easy; nil when the box does not open (wrong
    /// key, altered bytes, too short, wrong nonce or key lengths).
    package static func open(_ box: [UInt8], nonce: [UInt8], key: [UInt8]) -> [UInt8]? {
        let mac = Int(crypto_secretbox_MACBYTES)
        guard box.count >= mac, nonce.count == nonceBytes, key.count == keyBytes else { return nil }
        var out = [UInt8](repeating: 0, count: box.count - mac)
        guard crypto_secretbox_open_easy(&out, box, UInt64(box.count), nonce, key) == 0 else { return nil }
        return out
    }
}
