import CCrypto
import EncoreCrypto
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreWire

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
        let data = Array(iv) + Array(ciphertext)
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard HMAC(EVP_sha256(), key, Int32(key.count), data, data.count, &out, &length) != nil, length == 32 else {
            throw EncoreError(.internalError, "libcrypto HMAC-SHA256 failed")
        }
        return out
    }

    /// AES-256-CBC with PKCS#7 padding; nil when decryption finds bad padding.
    static func aes(_ key: [UInt8], iv: UnsafeRawBufferPointer, _ input: UnsafeRawBufferPointer, encrypt: Bool) throws -> [UInt8]? {
        guard key.count == 32, iv.count == ivBytes else { throw EncoreError(.internalError, "AES-256-CBC needs a 32-byte key and a 16-byte IV") }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw EncoreError(.outOfMemory, "cannot allocate a cipher context") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        guard input.count <= Int(Int32.max) - 32 else { throw EncoreError(.invalidArgument, "AES-256-CBC input too large") }
        var out = [UInt8](repeating: 0, count: input.count + 32)
        var n: Int32 = 0, final: Int32 = 0
        let inBytes = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let ivBytes = iv.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let ok: Bool = key.withUnsafeBytes { k in
            let kp = k.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return out.withUnsafeMutableBufferPointer { o in
                guard let base = o.baseAddress else { return false }
                if encrypt {
                    return EVP_EncryptInit_ex(ctx, EVP_aes_256_cbc(), nil, kp, ivBytes) == 1
                        && EVP_EncryptUpdate(ctx, base, &n, inBytes, Int32(input.count)) == 1
                        && EVP_EncryptFinal_ex(ctx, base + Int(n), &final) == 1
                }
                return EVP_DecryptInit_ex(ctx, EVP_aes_256_cbc(), nil, kp, ivBytes) == 1
                    && EVP_DecryptUpdate(ctx, base, &n, inBytes, Int32(input.count)) == 1
                    && EVP_DecryptFinal_ex(ctx, base + Int(n), &final) == 1
            }
        }
        guard ok else {
            if encrypt { throw EncoreError(.internalError, "libcrypto AES-256-CBC failed") }
            return nil // bad padding (the MAC was right: the sender encrypted garbage)
        }
        return Array(out.prefix(Int(n) + Int(final)))
    }

    /// Encrypts a check-in record for submission: (ciphertext, mac).
    public static func encrypt(record: [UInt8], keys: Keys, iv: [UInt8]) throws -> (ciphertext: [UInt8], mac: [UInt8]) {
        guard iv.count == ivBytes else { throw EncoreError(.invalidArgument, "the IV must be 16 bytes") }
        let ciphertext = try iv.withUnsafeBytes { i in
            try record.withUnsafeBytes { try aes(keys.encryption, iv: i, $0, encrypt: true) }
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
        let equal = expected.withUnsafeBytes { CRYPTO_memcmp($0.baseAddress, mac.baseAddress, macBytes) == 0 }
        guard equal else { return .failure(.mac) }
        guard let plain = try aes(keys.encryption, iv: iv, ciphertext, encrypt: false) else { return .failure(.padding) }
        return .success(plain)
    }
}
