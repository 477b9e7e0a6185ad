import CEncoreProto
import CEncoreShim
import Testing
@testable import EncoreCore

/// The C fast path for plain TemporaryExposureKey messages against
/// protobuf-c: whenever the fast path takes a message, both must read the
/// same fields; messages outside the plain form must be left to protobuf-c.
@Suite struct KeyDecodeTests {
    /// protobuf-c's reading, or nil when it refuses the bytes.
    func slow(_ bytes: [UInt8]) throws -> enc_key_fields? {
        let decoder = try MessageDecoder()
        return try bytes.withUnsafeBufferPointer { b in
            try decoder.unpack({ ekexport__temporary_exposure_key__unpack($0, b.count, b.baseAddress) }, enc_key_fields.init)
        }
    }

    func fast(_ bytes: [UInt8]) -> enc_key_fields? {
        var f = enc_key_fields()
        return bytes.withUnsafeBufferPointer { enc_key_decode_plain($0.baseAddress, $0.count, &f) } == 1 ? f : nil
    }

    func same(_ a: enc_key_fields, _ b: enc_key_fields) -> Bool {
        var a = a, b = b
        return withUnsafeBytes(of: &a) { x in withUnsafeBytes(of: &b) { y in x.elementsEqual(y) } }
    }

    /// A key as writers produce it, with every field present or not.
    func plainKey(_ i: Int, mask: Int) -> [UInt8] {
        var e = ProtoEncoder()
        if mask & 1 != 0 { e.lengthDelimited(1, (0 ..< 16).map { UInt8(truncatingIfNeeded: $0 * 31 + i) }) }
        if mask & 2 != 0 { e.int32(2, Int32(i % 9)) }
        if mask & 4 != 0 { e.int32(3, Int32(2_650_000 + i)) }
        if mask & 8 != 0 { e.int32(4, Int32(i % 150)) }
        if mask & 16 != 0 { e.int32(5, Int32(i % 7)) }
        if mask & 32 != 0 { e.sint32(6, Int32(i % 29) - 14) }
        return e.bytes
    }

    @Test func plainKeysTakeTheFastPathAndAgree() throws {
        for i in 0 ..< 640 {
            let bytes = plainKey(i, mask: i % 64)
            let f = try #require(fast(bytes), "key \(i) should be plain")
            let s = try #require(try slow(bytes))
            #expect(same(f, s), "key \(i)")
        }
    }

    @Test func otherFormsAreLeftToProtobufC() throws {
        var negative = ProtoEncoder(); negative.int32(2, -1)                  // ten-byte varint
        var repeated = ProtoEncoder(); repeated.int32(3, 1); repeated.int32(3, 2)
        var unknown = ProtoEncoder(); unknown.int32(9, 1)
        var wrongType = ProtoEncoder(); wrongType.lengthDelimited(3, [1, 2])
        var shortKey = ProtoEncoder(); shortKey.lengthDelimited(1, [1, 2, 3])  // plain, but an invalid key
        for bytes in [negative.bytes, repeated.bytes, unknown.bytes, wrongType.bytes] {
            #expect(fast(bytes) == nil, "\(bytes)")
        }
        let short = try #require(fast(shortKey.bytes))
        #expect(short.key_data_len == 3)
        if case .valid = MessageDecoder.key(short) { Issue.record("a 3-byte key must be invalid") }
    }

    /// Random mutations of plain keys: the fast path never reads a message
    /// differently from protobuf-c, and never takes one protobuf-c refuses.
    @Test func mutationsNeverDisagree() throws {
        var rng = SplitMix64(seed: 0x6b65_79)
        var taken = 0
        for i in 0 ..< 20_000 {
            var bytes = plainKey(i, mask: 63 - i % 5)
            switch rng.next() % 4 {
            case 0: bytes[Int(rng.next() % UInt64(bytes.count))] ^= UInt8(truncatingIfNeeded: 1 << (rng.next() % 8))
            case 1: bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
            case 2: bytes.removeLast(Int(rng.next() % 4))
            default: bytes.insert(UInt8(truncatingIfNeeded: rng.next()), at: Int(rng.next() % UInt64(bytes.count + 1)))
            }
            guard let f = fast(bytes) else { continue }
            taken += 1
            let s = try #require(try slow(bytes), "protobuf-c refuses what the fast path took: \(bytes)")
            #expect(same(f, s), "\(bytes)")
        }
        #expect(taken > 5_000)
    }
}
