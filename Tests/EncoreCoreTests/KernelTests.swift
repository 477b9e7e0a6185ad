import CEncoreShim
import Testing
@testable import EncoreCore

/// The matching kernel's two paths (the CPU's SHA/AES instructions where
/// present, OpenSSL otherwise) against ENCrypto (OpenSSL's EVP/HMAC).
@Suite struct KernelTests {
    func derive(_ ctx: OpaquePointer, _ tek: KeyData, start: UInt32, count: UInt32) -> (KeyData, [KeyData]) {
        var rpik = [UInt8](repeating: 0, count: 16)
        var out = [UInt8](repeating: 0, count: 16 * Int(count))
        _ = tek.withUnsafeBytes { enc_rpik(ctx, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), &rpik) }
        _ = enc_rpis(ctx, rpik, start, count, &out)
        let rpis = stride(from: 0, to: out.count, by: 16).map { o in out.withUnsafeBytes { KeyData(UnsafeRawBufferPointer(rebasing: $0[o ..< o + 16])) } }
        return (KeyData(rpik)!, rpis)
    }

    @Test(arguments: [true, false]) func bothPathsAgreeWithOpenSSL(fast: Bool) throws {
        let ctx = try #require(enc_rpi_ctx_new_mode(fast ? 1 : 0))
        defer { enc_rpi_ctx_free(ctx) }
        for i in 0 ..< 300 {
            let tek = Fixtures.key(i).keyData
            let start = UInt32(2_650_000 + i * 37), count = UInt32(1 + (i * 53) % 144)
            let (rpik, rpis) = derive(ctx, tek, start: start, count: count)
            let expectedRPIK = try ENCrypto.rpik(tek: tek)
            #expect(rpik == expectedRPIK, "key \(i)")
            #expect(rpis == (try ENCrypto.rpis(rpik: expectedRPIK, start: start, count: Int(count))), "key \(i)")
        }
        // The published vectors, and an interval number whose bytes carry.
        let tek = try #require(Hex.decode("75c734c6dd1a782de7a965da5eb93125").flatMap(KeyData.init))
        let (rpik, rpis) = derive(ctx, tek, start: 2_642_976, count: 144)
        #expect(rpik.hex == "185ad91db69ec7dd048960f1f3ba6175")
        #expect(rpis[0].hex == "8be6cd371c5c891604bfbe49df845096")
        let (_, carry) = derive(ctx, tek, start: 0x0000_FFF0, count: 144)
        #expect(carry == (try ENCrypto.rpis(rpik: rpik, start: 0x0000_FFF0, count: 144)))
    }

    @Test func theFastPathIsUsedWhereTheCPUHasIt() throws {
        let ctx = try #require(enc_rpi_ctx_new())
        defer { enc_rpi_ctx_free(ctx) }
        #expect(enc_rpi_ctx_is_fast(ctx) == enc_x86_supported())
    }
}
