import EncoreCrypto
import EncoreExposure
import EncoreStorage
import EncoreSupport
import CEncoreShim
import Testing

/// The matching kernel's paths (SHA-NI or OpenSSL for HKDF; VAES, AES-NI or
/// OpenSSL for AES) against ENFKeySchedule (OpenSSL's EVP/HMAC).
@Suite struct KernelTests {
    /// Every combination of features this CPU has, down to OpenSSL alone.
    static let modes: [Int32] = (0 ... ENC_KERNEL_ALL).filter { $0 & enc_kernel_features() == $0 }

    func derive(_ ctx: OpaquePointer, _ tek: KeyData, start: UInt32, count: UInt32) -> (KeyData, [KeyData]) {
        var rpik = [UInt8](repeating: 0, count: 16)
        var out = [UInt8](repeating: 0, count: 16 * Int(count))
        _ = tek.withUnsafeBytes { enc_rpik(ctx, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), &rpik) }
        _ = enc_rpis(ctx, rpik, start, count, &out)
        return (KeyData(rpik)!, rpisOf(out))
    }

    func rpisOf(_ flat: [UInt8]) -> [KeyData] {
        stride(from: 0, to: flat.count, by: 16).map { o in flat.withUnsafeBytes { KeyData(UnsafeRawBufferPointer(rebasing: $0[o ..< o + 16])) } }
    }

    @Test(arguments: modes) func everyPathAgreesWithOpenSSL(mode: Int32) throws {
        let ctx = try #require(enc_rpi_ctx_new_mode(mode))
        defer { enc_rpi_ctx_free(ctx) }
        #expect(enc_rpi_ctx_features(ctx) == mode)
        for i in 0 ..< 300 {
            let tek = TestKeys.tek(i)
            let start = UInt32(2_650_000 + i * 37), count = UInt32(1 + (i * 53) % 144)
            let (rpik, rpis) = derive(ctx, tek, start: start, count: count)
            let expectedRPIK = try ENFKeySchedule.rpik(tek: tek)
            #expect(rpik == expectedRPIK, "key \(i)")
            #expect(rpis == (try ENFKeySchedule.rpis(rpik: expectedRPIK, start: start, count: Int(count))), "key \(i)")
        }
        // The published vectors, and an interval number whose bytes carry.
        let tek = try #require(Hex.decode("75c734c6dd1a782de7a965da5eb93125").flatMap(KeyData.init))
        let (rpik, rpis) = derive(ctx, tek, start: 2_642_976, count: 144)
        #expect(rpik.hex == "185ad91db69ec7dd048960f1f3ba6175")
        #expect(rpis[0].hex == "8be6cd371c5c891604bfbe49df845096")
        let (_, carry) = derive(ctx, tek, start: 0x0000_FFF0, count: 144)
        #expect(carry == (try ENFKeySchedule.rpis(rpik: rpik, start: 0x0000_FFF0, count: 144)))
    }

    /// enc_match_keys over batches of every size around the HKDF lane count
    /// and counts around the AES chunk size: it finds exactly the planted
    /// RPIs, in job order, with their offsets and index positions.
    @Test(arguments: modes) func batchesFindExactlyThePlantedRPIs(mode: Int32) throws {
        let ctx = try #require(enc_rpi_ctx_new_mode(mode))
        defer { enc_rpi_ctx_free(ctx) }
        for n in [1, 2, 3, 4, 5, 7, 8, 9, 33] {
            var jobs: [enc_match_job] = [], heard: [KeyData] = [], expected: [(UInt32, UInt32, KeyData)] = []
            for k in 0 ..< n {
                let tek = TestKeys.tek(n * 100 + k)
                let start = UInt32(2_650_000 + 144 * k), count = UInt32([1, 15, 16, 17, 31, 32, 33, 143, 144][(n + k) % 9])
                var job = enc_match_job()
                tek.withUnsafeBytes { t in withUnsafeMutableBytes(of: &job.tek) { $0.copyMemory(from: t) } }
                job.start = start
                job.count = count
                jobs.append(job)
                let rpis = try ENFKeySchedule.rpis(rpik: try ENFKeySchedule.rpik(tek: tek), start: start, count: Int(count))
                for j in Set([0, Int(count) / 2, Int(count) - 1]).sorted() where k % 3 != 1 { // every third key unheard
                    heard.append(rpis[j])
                    expected.append((UInt32(k), UInt32(j), rpis[j]))
                }
            }
            for i in 0 ..< 500 { heard.append(TestKeys.tek(90_000 + i)) } // strangers
            let flat = heard.flatMap(\.bytes)
            let index = try #require(flat.withUnsafeBufferPointer { enc_rpi_index_new($0.baseAddress, UInt32(heard.count), nil) })
            defer { enc_rpi_index_free(index) }
            // Too small a hits buffer first: the count says how many there are.
            var hits = [enc_rpi_hit](repeating: enc_rpi_hit(), count: 1)
            let needed = enc_match_keys(ctx, index, nil, jobs, jobs.count, &hits, hits.count)
            #expect(needed == Int64(expected.count), "n \(n)")
            hits = [enc_rpi_hit](repeating: enc_rpi_hit(), count: max(1, Int(needed)))
            let found = enc_match_keys(ctx, index, nil, jobs, jobs.count, &hits, hits.count)
            #expect(found == needed)
            let got = hits.prefix(Int(found)).map { ($0.job, $0.interval_offset, heard[Int($0.rpi_index)]) }
            #expect(got.elementsEqual(expected) { $0 == $1 }, "n \(n): \(got.map { ($0.0, $0.1) }) vs \(expected.map { ($0.0, $0.1) })")
        }
    }

    /// Repeated RPIs share an id, given in order of first occurrence.
    @Test func theIndexNumbersDistinctRPIs() throws {
        let a = TestKeys.tek(1), b = TestKeys.tek(2), c = TestKeys.tek(3)
        let flat = [a, b, a, c, b].flatMap(\.bytes)
        var ids = [UInt32](repeating: 99, count: 5)
        let index = try #require(flat.withUnsafeBufferPointer { enc_rpi_index_new($0.baseAddress, 5, &ids) })
        defer { enc_rpi_index_free(index) }
        #expect(ids == [0, 1, 0, 2, 1])
        #expect(enc_rpi_index_count(index) == 3)
    }

    @Test func aCountOver144IsRefused() throws {
        let ctx = try #require(enc_rpi_ctx_new())
        defer { enc_rpi_ctx_free(ctx) }
        let index = try #require(enc_rpi_index_new(nil, 0, nil))
        defer { enc_rpi_index_free(index) }
        var job = enc_match_job()
        job.count = 145
        var hit = enc_rpi_hit()
        #expect(enc_match_keys(ctx, index, nil, [job], 1, &hit, 1) == -1)
    }

    @Test func theCPUsInstructionsAreUsedWhereItHasThem() throws {
        let ctx = try #require(enc_rpi_ctx_new())
        defer { enc_rpi_ctx_free(ctx) }
        #expect(enc_rpi_ctx_features(ctx) == enc_kernel_features())
        #expect((enc_kernel_features() & ENC_KERNEL_AES_NI != 0) == (enc_x86_supported() != 0))
    }
}
