import EncoreCrypto
import EncoreExposure
import EncoreStorage
import EncoreSupport
import EncoreTestSupport
import EncoreWire
import CEncoreShim
import Testing

/// The C walker's shortcut for keys whose layout it has already seen
/// (enc_key_shape) against decoding every key: on bodies whose layouts keep
/// changing under the same message length, enc_export_keys must return the
/// items, fields and drops that enc_key_decode_plain (itself held to
/// protobuf-c by KeyDecodeTests) and the prefilter's rule give key by key.
@Suite struct KeyShapeTests {
    static let base: Int64 = 2_650_032            // a midnight's ENIN
    static let drift: Int64 = 12
    static let sighted: [Int64] = (0 ..< 24).map { base + 3 * 144 + 78 + $0 }
    static let oldest: Int64 = (base + 100) * 600  // keys of day 0 are too old for the prefilter: kept

    /// What varies between keys: each choice gives values of one byte
    /// length, so keys built from the same choices share their layout.
    struct Layout {
        var keyLength = 16, trl = 0, start = 0, period = 0, report = 0, dsos = 0
        var twist = 0  // 1: two fields swapped, 2: an unknown field, 3: a field twice, 4: a tail byte changed

        static func random(_ rng: inout SplitMix64) -> Layout {
            func pick(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
            return Layout(keyLength: pick(12) == 0 ? 15 + 2 * pick(2) : 16, trl: pick(5), start: pick(7), period: pick(7),
                          report: pick(9), dsos: pick(4), twist: pick(8) == 0 ? 1 + pick(4) : 0)
        }
    }

    /// One field of a TemporaryExposureKey (export.proto) as its bytes, by
    /// its number: the int32 fields as varints (a negative one sign-extended
    /// to ten bytes, as protobuf-c writes it), the days since onset (sint32)
    /// zigzagged.
    enum KeyField {
        case keyData([UInt8]), transmissionRiskLevel(Int32), rollingStart(Int32), rollingPeriod(Int32), reportType(Int32), dsos(Int32)

        var bytes: [UInt8] {
            func int32(_ number: UInt32, _ v: Int32) -> [UInt8] { ProtoSamples.raw(.varint(number, UInt64(bitPattern: Int64(v)))) }
            switch self {
            case .keyData(let d): return ProtoSamples.raw(.lengthDelimited(1, d))
            case .transmissionRiskLevel(let v): return int32(2, v)
            case .rollingStart(let v): return int32(3, v)
            case .rollingPeriod(let v): return int32(4, v)
            case .reportType(let v): return int32(5, v)
            case .dsos(let v): return ProtoSamples.raw(.varint(6, UInt64(UInt32(bitPattern: (v << 1) ^ (v >> 31)))))
            }
        }
    }

    static func message(_ l: Layout, _ rng: inout SplitMix64) -> [UInt8] {
        let small = Int32(rng.next() % 8)
        var fields: [[UInt8]] = []
        func add(_ field: KeyField) { fields.append(field.bytes) }
        add(.keyData((0 ..< l.keyLength).map { _ in UInt8(truncatingIfNeeded: rng.next()) }))
        switch l.trl {
        case 0: break
        case 1, 2: add(.transmissionRiskLevel(small))
        case 3: add(.transmissionRiskLevel(200 + small))             // two bytes
        default: add(.transmissionRiskLevel(-1 - small))             // ten bytes: protobuf-c's
        }
        let day = Int64(rng.next() % 5)
        switch l.start {
        case 0: break                                         // absent: ENIN 0, too old for the prefilter
        case 1, 2, 3: add(.rollingStart(Int32(base + 144 * day + (l.start == 3 ? Int64(small) * 6 : 0))))
        case 4: add(.rollingStart(300_000_000 + small)) // five bytes
        case 5: add(.rollingStart(5 + small))                // one byte
        default:                                              // 144 intervals reach the first sighting's drift, or just miss it
            add(.rollingStart(Int32(sighted[0] - drift - 143 - Int64(small % 2))))
        }
        switch l.period {
        case 0: break                                         // absent: 144
        case 1, 2: add(.rollingPeriod(144))
        case 3: add(.rollingPeriod(72 + small))
        case 4: add(.rollingPeriod(0))                        // invalid
        case 5: add(.rollingPeriod(200))                      // invalid
        default: add(.rollingPeriod(1 + small))
        }
        switch l.report {
        case 0: break
        case 7: add(.reportType(5))                        // REVOKED: never dropped
        case 8: add(.reportType(6 + small))                // invalid
        default: add(.reportType(Int32(l.report % 5)))
        }
        switch l.dsos {
        case 0: break
        case 1, 2: add(.dsos(small - 4))
        default: add(.dsos(3000 + small))           // two bytes
        }
        switch l.twist {
        case 1 where fields.count > 2: fields.swapAt(1, fields.count - 1)
        case 2: fields.append(ProtoSamples.raw(.varint(9, 1)))
        case 3: fields.append(fields[fields.count - 1])
        default: break
        }
        var bytes = fields.flatMap { $0 }
        if l.twist == 4, bytes.count > 18 { bytes[18 + Int(rng.next() % UInt64(bytes.count - 18))] ^= UInt8(truncatingIfNeeded: 1 << (rng.next() % 8)) }
        return bytes
    }

    /// Key fields in runs that share a layout, with fresh key data and
    /// values: what lets the shortcut work, and breaks it now and then.
    static func body(seed: UInt64, keys: Int) -> [UInt8] {
        var rng = SplitMix64(seed: seed)
        var layout = Layout.random(&rng), body: [UInt8] = []
        for _ in 0 ..< keys {
            if rng.next() % 6 == 0 { layout = Layout.random(&rng) }
            body += ProtoSamples.raw(.lengthDelimited(rng.next() % 10 == 0 ? 8 : 7, message(layout, &rng)))
        }
        return body
    }

    struct Item: Equatable {
        var list: UInt32, payload: Int, length: Int, end: Int, plain: UInt32, valid: UInt32
        var fields: [Int64]  // when plain: every field, presence included
    }

    static func values(_ f: enc_key_fields) -> [Int64] {
        var f = f
        let key = withUnsafeBytes(of: &f.key_data) { Array($0) }
        return key.map(Int64.init) + [Int64(f.key_data_len), Int64(f.transmission_risk_level), Int64(f.rolling_start_interval_number),
                                      Int64(f.rolling_period), Int64(f.report_type), Int64(f.days_since_onset_of_symptoms),
                                      Int64(f.has_key_data), Int64(f.has_transmission_risk_level), Int64(f.has_rolling_start_interval_number),
                                      Int64(f.has_rolling_period), Int64(f.has_report_type), Int64(f.has_days_since_onset_of_symptoms)]
    }

    /// Key by key: enc_key_decode_plain, validity and the prefilter's rule.
    static func reference(_ body: UnsafeRawBufferPointer, sighted: SightedIntervals) throws -> (items: [Item], dropped: UInt64) {
        var wire = ProtoWire(body), items: [Item] = [], dropped: UInt64 = 0
        while let f = try wire.next() {
            let message = UnsafeRawBufferPointer(rebasing: body[f.payload])
            var fields = enc_key_fields()
            let plain = UInt32(enc_key_decode_plain(message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count, &fields))
            let valid: UInt32 = plain == 1 && enc_key_is_valid(&fields) == 1 ? 1 : 0
            if valid == 1 && f.number == 7 {
                let report = fields.has_report_type == 1 ? fields.report_type : 0
                let start = Int64(fields.has_rolling_start_interval_number == 1 ? fields.rolling_start_interval_number : 0)
                let end = start + Int64(fields.has_rolling_period == 1 ? fields.rolling_period : 144)
                var lower: Int64 = 0, upper: Int64 = 0
                if report != 5 && end * 600 >= oldest && enc_sighted_range(sighted.pointer, start, end, drift, &lower, &upper) == 0 {
                    dropped += 1
                    continue
                }
            }
            items.append(Item(list: UInt32(f.number), payload: f.payload.lowerBound, length: f.payload.count, end: f.payload.upperBound,
                              plain: plain, valid: valid, fields: plain == 1 ? values(fields) : []))
        }
        return (items, dropped)
    }

    /// The walker, `batch` items per call.
    static func walk(_ body: UnsafeRawBufferPointer, sighted: SightedIntervals, batch: Int) throws -> (items: [Item], walk: enc_key_walk) {
        var walk = enc_key_walk()
        walk.lists = 1 << 7 | 1 << 8
        walk.sighted = sighted.pointer
        walk.drift = drift
        walk.oldest = oldest
        var items: [Item] = [], offset = 0
        let base = try #require(body.baseAddress).assumingMemoryBound(to: UInt8.self)
        var slots = [enc_key_item](repeating: enc_key_item(), count: batch)
        while offset < body.count {
            let before = offset
            let n = slots.withUnsafeMutableBufferPointer { enc_export_keys(base, body.count, &offset, &walk, $0.baseAddress, batch) }
            try #require(n > 0 || offset > before, "the walker stopped at \(offset) of \(body.count)")
            for s in slots.prefix(n) {
                items.append(Item(list: s.list, payload: s.payload, length: s.length, end: s.end, plain: s.plain, valid: s.valid,
                                  fields: s.plain == 1 ? values(s.fields) : []))
            }
        }
        return (items, walk)
    }

    @Test(arguments: [1, 2, 3, 4]) func shortcutAgreesWithDecodingEveryKey(seed: UInt64) throws {
        let sighted = try SightedIntervals(sortedTimes: Self.sighted.map { $0 * 600 })
        let bytes = Self.body(seed: seed, keys: 20_000)
        try bytes.withUnsafeBytes { body in
            let expected = try Self.reference(body, sighted: sighted)
            #expect(expected.dropped > 2_000 && expected.items.count > 2_000)
            for batch in [1, 7, 128] {
                let (items, walk) = try Self.walk(body, sighted: sighted, batch: batch)
                #expect(walk.dropped == expected.dropped, "batch \(batch)")
                #expect(items.count == expected.items.count, "batch \(batch)")
                for (got, want) in zip(items, expected.items) where got != want {
                    Issue.record("batch \(batch): key at \(want.payload): \(got) instead of \(want)")
                    break
                }
                var learned = walk.shapes
                let known = withUnsafeBytes(of: &learned) { $0.bindMemory(to: enc_key_shape.self).filter { $0.known == 1 }.count }
                #expect(known >= 3, "the shortcut was not exercised")
            }
        }
    }
}
