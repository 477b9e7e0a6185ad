import EncoreWire
import CEncoreShim
import CZlib
import Testing

/// The zip CRC-32 with carry-less multiplication against zlib's: every
/// length around the 64-byte fold and the 16-byte tail, at unaligned
/// starts, from any running value, and a long buffer.
@Suite struct CRC32Tests {
    func zlib(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        UInt32(truncatingIfNeeded: CZlib.crc32(uLong(crc), bytes.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(bytes.count)))
    }

    @Test func agreesWithZlibAtEveryLengthAndOffset() {
        var rng = SystemRandomNumberGenerator()
        let data = (0 ..< 4_200).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
        data.withUnsafeBytes { all in
            for length in 0 ..< 600 {
                for offset in 0 ..< 3 {
                    let slice = UnsafeRawBufferPointer(rebasing: all[offset ..< offset + length])
                    #expect(KeyFileArchive.crc32Of(slice) == zlib(0, slice), "length \(length), offset \(offset)")
                }
            }
            #expect(KeyFileArchive.crc32Of(all) == zlib(0, all))
        }
        let zeros = [UInt8](repeating: 0, count: 1 << 20), ones = [UInt8](repeating: 0xff, count: 4_099)
        zeros.withUnsafeBytes { #expect(KeyFileArchive.crc32Of($0) == zlib(0, $0)) }
        ones.withUnsafeBytes { #expect(KeyFileArchive.crc32Of($0) == zlib(0, $0)) }
        #expect(KeyFileArchive.crc32Of(UnsafeRawBufferPointer(start: nil, count: 0)) == 0)
    }

    /// The bulk step takes a running CRC, as zlib's crc32 does.
    @Test func theBulkStepContinuesARunningCRC() {
        let data = (0 ..< 1_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        data.withUnsafeBytes { p in
            var crc = zlib(0, UnsafeRawBufferPointer(rebasing: p[0 ..< 100]))
            let taken = enc_crc32_bulk(&crc, p.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) + 100 }, 900)
            #expect(taken == 0 || taken == 896)
            #expect(zlib(crc, UnsafeRawBufferPointer(rebasing: p[(100 + taken)...])) == zlib(0, p))
        }
    }
}
