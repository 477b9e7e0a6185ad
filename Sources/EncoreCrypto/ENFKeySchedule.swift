import EncoreSupport

/// The Exposure Notification key schedule (ENF v1.2), byte-exact:
/// TEK → RPIK → RPI(j) and TEK → AEMK → AEM, through libcrypto.
public enum ENFKeySchedule {
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

    private static func hkdf16(_ tek: KeyData, info: [UInt8]) throws -> KeyData {
        let okm = try tek.withUnsafeBytes { try HKDF.sha256(ikm: Array($0), info: info, length: 16) }
        return okm.withUnsafeBytes { KeyData($0) } // HKDF gives exactly the 16 bytes asked for
    }
}
