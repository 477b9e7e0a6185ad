import CCrypto
import EncoreCrypto
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// The Exposure Notification key schedule (ENF v1.2), byte-exact:
/// TEK → RPIK → RPI(j) and TEK → AEMK → AEM, through libcrypto.
public enum ENCrypto {
    package static let rpikInfo = Array("EN-RPIK".utf8)
    package static let aemkInfo = Array("EN-AEMK".utf8)

    /// RPIK = HKDF-SHA256(TEK, no salt, "EN-RPIK", 16).
    public static func rpik(tek: KeyData) throws -> KeyData { try hkdf16(tek, info: rpikInfo) }

    /// AEMK = HKDF-SHA256(TEK, no salt, "EN-AEMK", 16).
    public static func aemk(tek: KeyData) throws -> KeyData { try hkdf16(tek, info: aemkInfo) }

    /// PaddedData(j) = "EN-RPI" ‖ six zero bytes ‖ ENIN j as uint32 little-endian.
    package static func paddedData(_ interval: UInt32) -> [UInt8] {
        var block = Array("EN-RPI".utf8) + [UInt8](repeating: 0, count: 6)
        for i in 0 ..< 4 { block.append(UInt8(truncatingIfNeeded: interval >> UInt32(8 * i))) }
        return block
    }

    /// The RPIs of `count` consecutive intervals from `start`: one AES-128-ECB
    /// call over the padded blocks.
    public static func rpis(rpik: KeyData, start: UInt32, count: Int) throws -> [KeyData] {
        guard count > 0 else { return [] }
        var blocks: [UInt8] = []
        blocks.reserveCapacity(count * 16)
        for j in 0 ..< count { blocks += paddedData(start &+ UInt32(truncatingIfNeeded: j)) }
        let out = try rpik.withUnsafeBytes { try AES128.ecb(key: $0, blocks) }
        return stride(from: 0, to: out.count, by: 16).map { o in
            out.withUnsafeBytes { KeyData(UnsafeRawBufferPointer(rebasing: $0[o ..< o + 16])) }
        }
    }

    public static func rpi(rpik: KeyData, interval: UInt32) throws -> KeyData {
        try rpis(rpik: rpik, start: interval, count: 1)[0]
    }

    /// AEM = AES-128-CTR(AEMK, IV = RPI, metadata). Four bytes of metadata
    /// use only the first key-stream block: metadata XOR AES(AEMK, RPI)[0..<4].
    /// Decryption is the same operation.
    public static func aem(aemk: KeyData, rpi: KeyData, metadata: [UInt8]) throws -> [UInt8] {
        guard metadata.count <= 16 else {
            throw EncoreError(.invalidArgument, "AEM metadata is \(metadata.count) bytes; at most 16 are supported")
        }
        let stream = try aemk.withUnsafeBytes { key in try rpi.withUnsafeBytes { try AES128.ecb(key: key, Array($0)) } }
        return zip(metadata, stream).map { $0 ^ $1 }
    }

    private static func hkdf16(_ ikm: KeyData, info: [UInt8]) throws -> KeyData {
        // HKDF with L ≤ 32: PRK = HMAC(salt = 32 zero bytes, IKM); T(1) = HMAC(PRK, info ‖ 0x01).
        let salt = [UInt8](repeating: 0, count: 32)
        let prk = try ikm.withUnsafeBytes { try hmacSHA256(key: salt, data: Array($0)) }
        let t1 = try hmacSHA256(key: prk, data: info + [0x01])
        return t1.withUnsafeBytes { KeyData(UnsafeRawBufferPointer(rebasing: $0.prefix(16))) } // HMAC-SHA256 gives 32 bytes
    }

    package static func hmacSHA256(key: [UInt8], data: [UInt8]) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard HMAC(EVP_sha256(), key, Int32(key.count), data, data.count, &out, &length) != nil, length == 32 else {
            throw EncoreError(.internalError, "libcrypto HMAC-SHA256 failed")
        }
        return out
    }
}

/// AES-128 in ECB mode without padding, through libcrypto EVP.
package enum AES128 {
    package static func ecb(key: UnsafeRawBufferPointer, _ input: [UInt8]) throws -> [UInt8] {
        guard key.count == 16, input.count % 16 == 0 else {
            throw EncoreError(.invalidArgument, "AES-128-ECB needs a 16-byte key and whole blocks")
        }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw EncoreError(.outOfMemory, "cannot allocate a cipher context") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var out = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0
        guard EVP_EncryptInit_ex(ctx, EVP_aes_128_ecb(), nil, key.baseAddress?.assumingMemoryBound(to: UInt8.self), nil) == 1,
              EVP_CIPHER_CTX_set_padding(ctx, 0) == 1,
              EVP_EncryptUpdate(ctx, &out, &written, input, Int32(input.count)) == 1, Int(written) == input.count else {
            throw EncoreError(.internalError, "libcrypto AES-128-ECB failed")
        }
        return Array(out.prefix(input.count))
    }
}
