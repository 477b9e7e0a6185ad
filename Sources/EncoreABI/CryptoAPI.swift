// encore.h section: crypto, part 1
import CEncoreTypes
import EncoreCrypto
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// 16 bytes of a caller's buffer as key data.
func key16(_ p: UnsafePointer<UInt8>?, _ len: Int, _ name: String) throws -> KeyData {
    let b = try buffer(p, len, name)
    guard b.count == 16 else { throw EncoreError(.invalidArgument, "\(name) must be 16 bytes, not \(b.count)") }
    return KeyData(b)
}

/// Writes bytes into a caller's buffer of `capacity` bytes (enough room is checked first).
func write(_ bytes: [UInt8], to out: UnsafeMutablePointer<UInt8>?, _ capacity: Int, _ name: String) throws {
    let out = try required(out, name)
    guard capacity >= bytes.count else { throw EncoreError(.invalidArgument, "\(name) needs \(bytes.count) bytes, has \(capacity)") }
    bytes.withUnsafeBufferPointer { src in
        if let base = src.baseAddress { out.update(from: base, count: src.count) }
    }
}

/// RPIK = HKDF-SHA256(TEK, no salt, "EN-RPIK", 16) into out[16].
@c public func encore_rpik_derive(_ tek: UnsafePointer<UInt8>?, _ tek_len: Int, _ out: UnsafeMutablePointer<UInt8>?, _ out_len: Int) -> encore_status {
    guarded { try write(ENFKeySchedule.rpik(tek: key16(tek, tek_len, "tek")).bytes, to: out, out_len, "out") }
}

/// AEMK = HKDF-SHA256(TEK, no salt, "EN-AEMK", 16) into out[16].
@c public func encore_aemk_derive(_ tek: UnsafePointer<UInt8>?, _ tek_len: Int, _ out: UnsafeMutablePointer<UInt8>?, _ out_len: Int) -> encore_status {
    guarded { try write(ENFKeySchedule.aemk(tek: key16(tek, tek_len, "tek")).bytes, to: out, out_len, "out") }
}

/// The RPIs of intervals start ..< start + count (count 1...144) under an
/// RPIK, 16 bytes each, into out[16 * count].
@c public func encore_rpis_derive(_ rpik: UnsafePointer<UInt8>?, _ rpik_len: Int, _ start_interval: UInt32, _ count: UInt32, _ out: UnsafeMutablePointer<UInt8>?, _ out_len: Int) -> encore_status {
    guarded {
        guard (1 ... 144).contains(count) else { throw EncoreError(.invalidArgument, "count must be 1...144, not \(count)") }
        let rpis = try ENFKeySchedule.rpis(rpik: key16(rpik, rpik_len, "rpik"), start: start_interval, count: Int(count))
        try write(rpis.flatMap(\.bytes), to: out, out_len, "out")
    }
}

/// AEM = AES-128-CTR(AEMK, IV = RPI, metadata) of `metadata_len` (≤ 16)
/// bytes into out; decryption is the same call with the AEM as metadata.
@c public func encore_aem_crypt(_ aemk: UnsafePointer<UInt8>?, _ aemk_len: Int, _ rpi: UnsafePointer<UInt8>?, _ rpi_len: Int, _ metadata: UnsafePointer<UInt8>?, _ metadata_len: Int, _ out: UnsafeMutablePointer<UInt8>?, _ out_len: Int) -> encore_status {
    guarded {
        let m = Array(try buffer(metadata, metadata_len, "metadata"))
        let aem = try ENFKeySchedule.aem(aemk: key16(aemk, aemk_len, "aemk"), rpi: key16(rpi, rpi_len, "rpi"), metadata: m)
        if !aem.isEmpty { try write(aem, to: out, out_len, "out") }
    }
}
