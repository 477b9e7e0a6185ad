import EncoreCrypto
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// CWA presence tracing's crypto (../shared/spec/checkins.md, part 1): the
/// report of a check-in encrypted under keys derived from its location id
/// (TraceLocation.locationId), which only someone who scanned the
/// location's QR code can derive (AES-256-CBC with PKCS#7, authenticated by
/// HMAC-SHA256 over iv ‖ ciphertext, the MAC checked in constant time
/// before decryption).
public enum CheckInCrypto {
    public static let ivBytes = 16
    public static let macBytes = 32
    public static let hashBytes = 32

    /// The two keys of a location's reports.
    public struct Keys: Sendable {
        public let encryption: [UInt8]
        public let mac: [UInt8]

        public init(locationId: [UInt8]) {
            encryption = Digest.sha256(Array("CWA-ENCRYPTION-KEY".utf8), locationId)
            mac = Digest.sha256(Array("CWA-MAC-KEY".utf8), locationId)
        }
    }

    /// HMAC-SHA256(key, iv ‖ ciphertext).
    package static func mac(_ key: [UInt8], iv: UnsafeRawBufferPointer, ciphertext: UnsafeRawBufferPointer) throws -> [UInt8] {
        try Digest.hmacSHA256(key: key, data: Array(iv) + Array(ciphertext))
    }

    /// Encrypts a check-in record for submission: (ciphertext, mac).
    public static func encrypt(record: [UInt8], keys: Keys, iv: [UInt8]) throws -> (ciphertext: [UInt8], mac: [UInt8]) {
        guard iv.count == ivBytes else { throw EncoreError(.invalidArgument, "the IV must be 16 bytes") }
        let ciphertext = try iv.withUnsafeBytes { i in
            try record.withUnsafeBytes { try AES256CBC.crypt(key: keys.encryption, iv: i, $0, encrypt: true) }
        } ?? []
        let mac = try iv.withUnsafeBytes { i in try ciphertext.withUnsafeBytes { try Self.mac(keys.mac, iv: i, ciphertext: $0) } }
        return (ciphertext, mac)
    }

    /// Why a report could not be opened.
    public enum OpenFailure: Error, Sendable, Equatable { case lengths, mac, padding }

    /// Checks the MAC (in constant time, before anything is decrypted) and
    /// decrypts: the record's bytes.
    public static func open(iv: UnsafeRawBufferPointer, ciphertext: UnsafeRawBufferPointer, mac: UnsafeRawBufferPointer,
                            keys: Keys) throws -> Result<[UInt8], OpenFailure> {
        guard iv.count == ivBytes, mac.count == macBytes, ciphertext.count > 0, ciphertext.count % 16 == 0 else { return .failure(.lengths) }
        let expected = try Self.mac(keys.mac, iv: iv, ciphertext: ciphertext)
        let equal = expected.withUnsafeBytes { ConstantTime.equal($0, mac) }
        guard equal else { return .failure(.mac) }
        // Bad padding: the MAC was right, the sender encrypted garbage.
        guard let plain = try AES256CBC.crypt(key: keys.encryption, iv: iv, ciphertext, encrypt: false) else { return .failure(.padding) }
        return .success(plain)
    }
}
