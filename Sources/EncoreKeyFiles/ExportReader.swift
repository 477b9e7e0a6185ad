import CEncoreShim
import EncoreCrypto
import EncoreStorage
import EncoreSupport
import EncoreWire

/// Reads export.bin: a checking pass over the whole file that collects its
/// metadata and counts its keys, and cursors that stream the valid keys
/// afterwards. Nothing here holds more than one decoded key at a time.
public enum ExportReader {
    /// How often (in keys, about 120 KB) the checking pass reports progress.
    package static let progressInterval: UInt64 = 4096

    /// What the scan does with the keys.
    package enum KeyCheck {
        /// Decodes and checks every key: the counts are of valid keys.
        case decode
        /// Steps over them: the counts are of key fields, and each key is
        /// checked when it is read (for a reader that reads every key
        /// anyway, such as matching).
        case countFields
    }

    /// Checks every field of export.bin and returns its metadata and counts.
    public static func scan(_ bin: UnsafeRawBufferPointer, progress: ProgressHandler? = nil) throws -> ExportMetadata {
        try scan(bin, progress: progress, keys: .decode)
    }

    package static func scan(_ bin: UnsafeRawBufferPointer, progress: ProgressHandler?, keys: KeyCheck) throws -> ExportMetadata {
        let body = try ExportFormat.body(bin)
        let header = UInt64(ExportFormat.header.count), total = UInt64(bin.count)
        var meta = ExportMetadata()
        let decoder = try MessageDecoder()
        var seen: UInt64 = 0, nextReport = progressInterval
        func count(_ key: MessageDecoder.KeyResult?, list: UInt64) {
            switch key {
            case .valid?, nil: if list == ExportFormat.Field.keys.rawValue { meta.keyCount += 1 } else { meta.revisedKeyCount += 1 }
            case .invalid?: meta.invalidKeyCount += 1
            }
            seen += 1
        }
        try withKeyItems { items in
            var walker = BodyWalker(body, lists: keys == .decode ? BodyWalker.allLists : 0)
            while let event = try walker.next(into: items) {
                switch event {
                case .keys(let n):
                    for item in items.prefix(n) { count(try decoder.key(item, in: body), list: UInt64(item.list)) }
                case .field(let f):
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
                    case .keys, .revisedKeys: count(keys == .decode ? try decoder.key(payload) : nil, list: f.number)
                    }
                }
                if seen >= nextReport {
                    try progress.report(header + UInt64(walker.offset), of: total)
                    nextReport = seen + progressInterval
                }
            }
            meta.keyCount += walker.stepped.0
            meta.revisedKeyCount += walker.stepped.1
        }
        try progress.report(total, of: total)
        return meta
    }

    /// Key items the C walker fills per call: a few thousand bytes, so a
    /// batch stays in the cache.
    package static let keyItemBatch = 128

    package static func withKeyItems<R>(_ body: (UnsafeMutableBufferPointer<enc_key_item>) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(of: enc_key_item.self, capacity: keyItemBatch) { items in
            items.initialize(repeating: enc_key_item())
            return try body(items)
        }
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
    package var offset: Int = 0

    public init(list: KeyList) { self.list = list }
}

/// Walks the fields of export.bin's protobuf body: runs of key fields
/// through C (enc_export_keys), which decodes those of the wanted lists
/// into items and steps over the others; every other field, and any key
/// field in a form the C walker leaves, through ProtoWire.
package struct BodyWalker {
    package static let allLists = UInt32(1 << 7 | 1 << 8)

    package enum Event {
        /// items[0 ..< n] hold key fields of the wanted lists.
        case keys(Int)
        case field(ProtoWire.Field)
    }

    package let body: UnsafeRawBufferPointer
    package private(set) var offset: Int
    /// What the C walker decodes, drops and counts.
    package private(set) var walk: enc_key_walk

    package init(_ body: UnsafeRawBufferPointer, lists: UInt32, offset: Int = 0, prefilter: KeyPrefilter? = nil) {
        self.body = body
        self.offset = offset
        walk = enc_key_walk()
        walk.lists = lists
        if let prefilter {
            walk.sighted = prefilter.sighted
            walk.drift = prefilter.drift
            walk.oldest = prefilter.oldest
        }
    }

    /// Key fields stepped over: keys, revised keys.
    package var stepped: (UInt64, UInt64) { walk.stepped }

    package mutating func next(into items: UnsafeMutableBufferPointer<enc_key_item>) throws -> Event? {
        while let base = body.baseAddress, offset < body.count {
            let start = offset
            let n = enc_export_keys(base.assumingMemoryBound(to: UInt8.self), body.count, &offset, &walk, items.baseAddress, items.count)
            if n > 0 { return .keys(n) }
            if offset > start { continue } // only stepped over or dropped keys
            var wire = ProtoWire(body, offset: offset)
            guard let f = try wire.next() else { return nil }
            offset = wire.offset
            return .field(f)
        }
        return nil
    }
}

/// Matching's test of which keys cannot match (see enc_key_walk): keys it
/// drops never reach Swift.
package struct KeyPrefilter {
    package let sighted: OpaquePointer
    package let drift: Int64
    package let oldest: Int64

    package init(sighted: OpaquePointer, drift: Int64, oldest: Int64) {
        self.sighted = sighted
        self.drift = drift
        self.oldest = oldest
    }
}

extension ExportReader {
    /// Delivers up to `maxCount` valid keys from the cursor on and advances
    /// it; returns how many were delivered (fewer only at the end).
    package static func read(_ bin: UnsafeRawBufferPointer, cursor: inout KeyCursor, maxCount: Int,
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
            var walker = BodyWalker(protobuf, lists: UInt32(1) << UInt32(wanted), offset: cursor.offset)
            while delivered < maxCount, let event = try walker.next(into: items) {
                switch event {
                case .keys(let n):
                    for item in items.prefix(n) {
                        try deliver(try decoder.key(item, in: protobuf))
                        cursor.offset = item.end // per key: a throwing body leaves the cursor at its key
                        if delivered == maxCount { return }
                    }
                case .field(let f):
                    // The scan checked every field; other fields are skipped.
                    if f.number == wanted, f.wireType == .lengthDelimited {
                        try deliver(try decoder.key(UnsafeRawBufferPointer(rebasing: protobuf[f.payload])))
                    }
                }
                cursor.offset = walker.offset
            }
        }
        return delivered
    }

    /// Calls `body` with every valid key of both lists in file order,
    /// checking each (for a file scanned with `.countFields`), except those
    /// the prefilter drops; returns how many key fields there were, valid
    /// or not, and how many were dropped.
    package static func forEachKey(_ bin: UnsafeRawBufferPointer, decoder: MessageDecoder, prefilter: KeyPrefilter?,
                           _ body: (KeyList, ExposureKey) throws -> Void) throws -> (fields: UInt64, dropped: UInt64) {
        let protobuf = try ExportFormat.body(bin)
        var delivered: UInt64 = 0
        func deliver(_ key: MessageDecoder.KeyResult, list: UInt64) throws {
            delivered += 1
            guard case .valid(let k) = key else { return }
            try body(list == ExportFormat.Field.keys.rawValue ? .keys : .revisedKeys, k)
        }
        return try withKeyItems { items in
            var walker = BodyWalker(protobuf, lists: BodyWalker.allLists, prefilter: prefilter)
            while let event = try walker.next(into: items) {
                switch event {
                case .keys(let n):
                    for item in items.prefix(n) { try deliver(try decoder.key(item, in: protobuf), list: UInt64(item.list)) }
                case .field(let f):
                    if f.number == ExportFormat.Field.keys.rawValue || f.number == ExportFormat.Field.revisedKeys.rawValue,
                       f.wireType == .lengthDelimited {
                        try deliver(try decoder.key(UnsafeRawBufferPointer(rebasing: protobuf[f.payload])), list: f.number)
                    }
                }
            }
            let dropped = walker.walk.dropped
            return (delivered + dropped, dropped)
        }
    }
}
