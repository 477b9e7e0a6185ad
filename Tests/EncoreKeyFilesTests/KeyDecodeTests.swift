import EncoreCrypto
import EncoreKeyFiles
import EncoreKeyFilesFixtures
import EncoreSupport
import EncoreTestSupport
import EncoreWire
import CEncoreProto
import CEncoreShim
import Testing

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
        var fields: [ProtoSamples.KeyField] = []
        if mask & 1 != 0 { fields.append(.keyData((0 ..< 16).map { UInt8(truncatingIfNeeded: $0 * 31 + i) })) }
        if mask & 2 != 0 { fields.append(.transmissionRiskLevel(Int32(i % 9))) }
        if mask & 4 != 0 { fields.append(.rollingStart(Int32(2_650_000 + i))) }
        if mask & 8 != 0 { fields.append(.rollingPeriod(Int32(i % 150))) }
        if mask & 16 != 0 { fields.append(.reportType(Int32(i % 7))) }
        if mask & 32 != 0 { fields.append(.dsos(Int32(i % 29) - 14)) }
        return ProtoSamples.key(fields)
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
        let negative = ProtoSamples.key(.transmissionRiskLevel(-1))                     // ten-byte varint
        let repeated = ProtoSamples.key(.rollingStart(1)) + ProtoSamples.key(.rollingStart(2))
        let unknown = ProtoSamples.raw(.varint(9, 1))
        let wrongType = ProtoSamples.raw(.lengthDelimited(3, [1, 2]))
        let shortKey = ProtoSamples.key(.keyData([1, 2, 3]))                            // plain, but an invalid key
        for bytes in [negative, repeated, unknown, wrongType] {
            #expect(fast(bytes) == nil, "\(bytes)")
        }
        let short = try #require(fast(shortKey))
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

/// export.bin read through the C key walker (scan and cursors) against a
/// plain reading field by field with ProtoWire and the decoder, on a file
/// that mixes everything the walker leaves to Swift between its batches.
@Suite struct KeyWalkTests {
    /// A key field with a tag or length in a longer form than needed.
    func longForm(_ field: UInt64, _ payload: [UInt8], tagBytes: Bool) -> [UInt8] {
        var out: [UInt8] = tagBytes ? [UInt8(field << 3 | 2) | 0x80, 0x00] : [UInt8(field << 3 | 2)]
        var n = UInt64(payload.count)
        for _ in 0 ..< (tagBytes ? 1 : 5) { out.append(UInt8(n & 0x7f) | 0x80); n >>= 7 }
        out[out.count - 1] &= 0x7f
        if !tagBytes { out.append(0); out[out.count - 2] |= 0x80 } // six length bytes
        return out + payload
    }

    func mixedExport() -> [UInt8] {
        var body: [UInt8] = []
        var meta = ExportMetadata()
        meta.startTimestamp = 1_700_000_000
        body += ExportWriter.exportBin(metadata: meta, keys: []).dropFirst(ExportFormat.header.count)
        for i in 0 ..< 700 {
            var fields: [ProtoSamples.KeyField] = [
                .keyData((0 ..< (i % 97 == 5 ? 15 : 16)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ i) }), // some too short
                .transmissionRiskLevel(i % 50 == 3 ? -1 : Int32(i % 8)),                        // some need protobuf-c
                .rollingStart(Int32(2_650_000 + i)),
            ]
            if i % 11 == 0 { fields.append(.rollingPeriod(i % 22 == 0 ? 200 : 72)) }            // some invalid periods
            fields.append(.reportType(Int32(i % 6)))
            if i % 3 == 0 { fields.append(.dsos(Int32(i % 29) - 14)) }
            let k = ProtoSamples.key(fields)
            let list: UInt32 = i % 9 == 4 ? 8 : 7
            switch i % 41 {
            case 6: body += ProtoSamples.raw(.lengthDelimited(99, [1]))                         // an unknown field
            case 7: body += longForm(UInt64(list), k, tagBytes: true)
            case 8: body += longForm(UInt64(list), k, tagBytes: false)
            default: body += ProtoSamples.raw(.lengthDelimited(list, k))
            }
        }
        var batch = ExportMetadata()
        batch.batchNum = 1
        batch.batchSize = 1
        body += ExportWriter.exportBin(metadata: batch, keys: []).dropFirst(ExportFormat.header.count)
        return ExportFormat.header + body
    }

    /// The valid keys of a list, field by field.
    func reference(_ bin: [UInt8], _ list: KeyList) throws -> [ExposureKey] {
        let decoder = try MessageDecoder()
        return try bin.withUnsafeBytes { b in
            let body = try ExportFormat.body(b)
            var wire = ProtoWire(body)
            var out: [ExposureKey] = []
            while let f = try wire.next() {
                guard f.number == ExportFormat.fieldNumber(of: list), f.wireType == .lengthDelimited else { continue }
                if case .valid(let k) = try decoder.key(UnsafeRawBufferPointer(rebasing: body[f.payload])) { out.append(k) }
            }
            return out
        }
    }

    @Test func scanAndCursorsAgreeWithAFieldByFieldReading() throws {
        let bin = mixedExport()
        let keys = try reference(bin, .keys), revised = try reference(bin, .revisedKeys)
        #expect(keys.count > 500 && revised.count > 50)
        let file = try KeyFile(bytes: bin, options: KeyFileOptions(verify: false))
        #expect(file.metadata.keyCount == UInt64(keys.count))
        #expect(file.metadata.revisedKeyCount == UInt64(revised.count))
        #expect(file.metadata.invalidKeyCount > 0)
        #expect(file.metadata.batchNum == 1 && file.metadata.startTimestamp == 1_700_000_000)
        for (list, expected) in [(KeyList.keys, keys), (.revisedKeys, revised)] {
            for step in [1, 7, 127, 128, 129, 1000] {
                var cursor = KeyCursor(list: list), got: [ExposureKey] = []
                while try file.read(&cursor, maxCount: step, { got.append($0) }) > 0 {}
                #expect(got == expected, "\(list) in steps of \(step)")
                #expect(cursor.index == UInt64(expected.count))
            }
        }
    }

    /// A body that throws leaves the cursor at its key: reading on
    /// delivers that key again and nothing twice.
    @Test func aThrowingBodyLeavesTheCursorAtItsKey() throws {
        let bin = mixedExport()
        let expected = try reference(bin, .keys)
        let file = try KeyFile(bytes: bin, options: KeyFileOptions(verify: false))
        struct Stop: Error {}
        for stopAt in [0, 4, 127, 128, 300] {
            var cursor = KeyCursor(list: .keys), got: [ExposureKey] = []
            do {
                _ = try file.read(&cursor, maxCount: 1000) { key in
                    if got.count == stopAt { throw Stop() }
                    got.append(key)
                }
                Issue.record("the body should have thrown")
            } catch is Stop {}
            #expect(cursor.index == UInt64(stopAt))
            while try file.read(&cursor, maxCount: 50, { got.append($0) }) > 0 {}
            #expect(got == expected, "stopped at \(stopAt)")
        }
    }
}
