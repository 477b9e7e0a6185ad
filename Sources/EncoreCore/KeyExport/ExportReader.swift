import CEncoreShim

/// Reads export.bin: a checking pass over the whole file that collects its
/// metadata and counts its keys, and cursors that stream the valid keys
/// afterwards. Nothing here holds more than one decoded key at a time.
public enum ExportReader {
    /// How often (in keys, about 120 KB) the checking pass reports progress.
    static let progressInterval: UInt64 = 4096

    /// Checks every field of export.bin and returns its metadata and counts.
    /// Key fields are walked and decoded by C (enc_export_keys) a batch at a
    /// time; every other field, and any key field it leaves, by ProtoWire.
    public static func scan(_ bin: UnsafeRawBufferPointer, progress: ProgressHandler? = nil) throws -> ExportMetadata {
        let body = try ExportFormat.body(bin)
        let header = UInt64(ExportFormat.header.count), total = UInt64(bin.count)
        var meta = ExportMetadata()
        let decoder = try MessageDecoder()
        var seen: UInt64 = 0, nextReport = progressInterval
        func count(_ key: MessageDecoder.KeyResult, list: ExportFormat.Field) {
            switch key {
            case .valid: if list == .keys { meta.keyCount += 1 } else { meta.revisedKeyCount += 1 }
            case .invalid: meta.invalidKeyCount += 1
            }
            seen += 1
        }
        try withKeyItems { items in
            var offset = 0
            while offset < body.count {
                let n = walkKeys(body, &offset, lists: allLists, into: items)
                for item in items.prefix(n) {
                    count(try decoder.key(item, in: body), list: item.list == 7 ? .keys : .revisedKeys)
                }
                if seen >= nextReport {
                    try progress.report(header + UInt64(offset), of: total)
                    nextReport = seen + progressInterval
                }
                if n == items.count || offset >= body.count { continue }
                // A field the walker leaves to ProtoWire.
                var wire = ProtoWire(body, offset: offset)
                guard let f = try wire.next() else { break }
                offset = wire.offset
                guard let field = ExportFormat.Field(rawValue: f.number) else { continue } // unknown: skipped
                try check(f, field)
                let payload = UnsafeRawBufferPointer(rebasing: body[f.payload])
                switch field {
                case .startTimestamp: meta.startTimestamp = f.value
                case .endTimestamp: meta.endTimestamp = f.value
                case .region: meta.region = String(decoding: payload, as: UTF8.self)
                case .batchNum: meta.batchNum = Int32(truncatingIfNeeded: f.value)
                case .batchSize: meta.batchSize = Int32(truncatingIfNeeded: f.value)
                case .signatureInfos:
                    guard meta.signatureInfos.count < SignatureFile.maxSignatures else {
                        throw EncoreError(.exportMalformed, "export.bin holds more than \(SignatureFile.maxSignatures) signature infos")
                    }
                    meta.signatureInfos.append(try decoder.signatureInfo(payload))
                case .keys, .revisedKeys: count(try decoder.key(payload), list: field)
                }
            }
        }
        try progress.report(total, of: total)
        return meta
    }

    /// Key items the C walker fills per call: a few thousand bytes, so a
    /// batch stays in the cache.
    static let keyItemBatch = 128
    static let allLists = UInt32(1 << 7 | 1 << 8)

    static func withKeyItems<R>(_ body: (UnsafeMutableBufferPointer<enc_key_item>) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(of: enc_key_item.self, capacity: keyItemBatch) { items in
            items.initialize(repeating: enc_key_item())
            return try body(items)
        }
    }

    /// enc_export_keys over `body` from `offset`; returns the items written.
    static func walkKeys(_ body: UnsafeRawBufferPointer, _ offset: inout Int, lists: UInt32,
                         into items: UnsafeMutableBufferPointer<enc_key_item>) -> Int {
        guard let base = body.baseAddress, offset < body.count else { return 0 }
        return enc_export_keys(base.assumingMemoryBound(to: UInt8.self), body.count, &offset, lists, items.baseAddress, items.count)
    }

    /// Known fields must have their declared wire type.
    private static func check(_ f: ProtoWire.Field, _ field: ExportFormat.Field) throws {
        let expected: ProtoWire.WireType
        switch field {
        case .startTimestamp, .endTimestamp: expected = .fixed64
        case .batchNum, .batchSize: expected = .varint
        case .region, .signatureInfos, .keys, .revisedKeys: expected = .lengthDelimited
        }
        guard f.wireType == expected else {
            throw EncoreError(.exportMalformed, "export.bin: field \(f.number) has wire type \(f.wireType.rawValue), expected \(expected.rawValue)")
        }
    }
}

/// A position in one key list of export.bin: the index of the next valid
/// key and the byte offset where the search for it resumes.
public struct KeyCursor: Sendable, Equatable {
    public let list: KeyList
    public internal(set) var index: UInt64 = 0
    var offset: Int = 0

    public init(list: KeyList) { self.list = list }
}

extension ExportReader {
    /// Delivers up to `maxCount` valid keys from the cursor on and advances
    /// it; returns how many were delivered (fewer only at the end).
    static func read(_ bin: UnsafeRawBufferPointer, cursor: inout KeyCursor, maxCount: Int,
                     decoder: MessageDecoder, _ body: (ExposureKey) throws -> Void) throws -> Int {
        let protobuf = try ExportFormat.body(bin)
        let wanted = ExportFormat.fieldNumber(of: cursor.list)
        var delivered = 0
        func deliver(_ key: MessageDecoder.KeyResult) throws {
            guard case .valid(let k) = key else { return }
            try body(k)
            delivered += 1
            cursor.index += 1
        }
        try withKeyItems { items in
            while delivered < maxCount && cursor.offset < protobuf.count {
                var offset = cursor.offset
                let n = walkKeys(protobuf, &offset, lists: UInt32(1) << UInt32(wanted), into: items)
                if n == 0 && offset == cursor.offset {
                    // A field the walker leaves to ProtoWire (the scan checked them all).
                    var wire = ProtoWire(protobuf, offset: cursor.offset)
                    guard let f = try wire.next() else { break }
                    if f.number == wanted, f.wireType == .lengthDelimited {
                        try deliver(try decoder.key(UnsafeRawBufferPointer(rebasing: protobuf[f.payload])))
                    }
                    cursor.offset = wire.offset
                    continue
                }
                for item in items.prefix(n) {
                    try deliver(try decoder.key(item, in: protobuf))
                    cursor.offset = item.end
                    if delivered == maxCount { return }
                }
                cursor.offset = offset // past the other list's keys after the last item
            }
        }
        return delivered
    }
}
