import EncoreStorage
import EncoreSupport

/// The fixed parts of export.bin.
public enum ExportFormat {
    /// "EK Export v1" padded with four spaces to 16 bytes.
    public static let header: [UInt8] = Array("EK Export v1    ".utf8)
    package static let headerPrefix: [UInt8] = Array("EK Export".utf8)

    public static func hasHeader(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= header.count && bytes.prefix(header.count).elementsEqual(header)
    }

    /// Whether the bytes start like some export.bin, perhaps another version.
    package static func looksLikeExport(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= headerPrefix.count && bytes.prefix(headerPrefix.count).elementsEqual(headerPrefix)
    }

    /// The protobuf after the header, or `.exportHeader`.
    package static func body(_ bin: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer {
        guard hasHeader(bin) else {
            let shown = Hex.encode(bin.prefix(16))
            throw EncoreError(.exportHeader, "export.bin does not start with \"EK Export v1    \" (starts with \(shown.isEmpty ? "nothing" : shown))")
        }
        return UnsafeRawBufferPointer(rebasing: bin[header.count...])
    }

    /// Protobuf field numbers of TemporaryExposureKeyExport.
    package enum Field: UInt64 {
        case startTimestamp = 1, endTimestamp, region, batchNum, batchSize, signatureInfos, keys, revisedKeys
    }

    package static func fieldNumber(of list: KeyList) -> UInt64 {
        switch list {
        case .keys: return Field.keys.rawValue
        case .revisedKeys: return Field.revisedKeys.rawValue
        }
    }
}
