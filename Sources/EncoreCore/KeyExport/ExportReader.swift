/// Reads export.bin: a checking pass over the whole file that collects its
/// metadata and counts its keys, and cursors that stream the valid keys
/// afterwards. Nothing here holds more than one decoded key at a time.
public enum ExportReader {
    /// How often (in keys, about 120 KB) the checking pass reports progress.
    static let progressInterval: UInt64 = 4096

    /// Checks every field of export.bin and returns its metadata and counts.
    public static func scan(_ bin: UnsafeRawBufferPointer, progress: ProgressHandler? = nil) throws -> ExportMetadata {
        let body = try ExportFormat.body(bin)
        let header = UInt64(ExportFormat.header.count), total = UInt64(bin.count)
        var meta = ExportMetadata()
        var wire = ProtoWire(body)
        let decoder = try MessageDecoder()
        var seen: UInt64 = 0
        while let f = try wire.next() {
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
            case .keys, .revisedKeys:
                switch try decoder.key(payload) {
                case .valid: if field == .keys { meta.keyCount += 1 } else { meta.revisedKeyCount += 1 }
                case .invalid: meta.invalidKeyCount += 1
                }
                seen += 1
                if seen % progressInterval == 0 { try progress.report(header + UInt64(wire.offset), of: total) }
            }
        }
        try progress.report(total, of: total)
        return meta
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
        var wire = ProtoWire(protobuf, offset: cursor.offset)
        var delivered = 0
        while delivered < maxCount, let f = try wire.next() {
            if f.number == wanted, f.wireType == .lengthDelimited,
               case .valid(let key) = try decoder.key(UnsafeRawBufferPointer(rebasing: protobuf[f.payload])) {
                try body(key)
                delivered += 1
                cursor.index += 1
            }
            cursor.offset = wire.offset
        }
        return delivered
    }
}
