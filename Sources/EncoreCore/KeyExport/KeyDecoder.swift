import CEncoreProto
import CEncoreShim
import CProtobufC

/// Decodes TemporaryExposureKey and SignatureInfo messages with the
/// generated protobuf-c code, into an arena that is reset after each message
/// so decoding allocates nothing per key. One decoder per thread.
final class MessageDecoder {
    private let arena: OpaquePointer

    /// What decoding one message may allocate. A real key or signature info
    /// needs a few hundred bytes; a message that needs more is refused as
    /// malformed instead of growing memory many times its size.
    static let messageLimit = 64 * 1024

    init(limit: Int = MessageDecoder.messageLimit) throws {
        guard let a = enc_arena_new(4096, limit) else { throw EncoreError(.outOfMemory, "cannot allocate a decoding arena") }
        arena = a
    }

    deinit { enc_arena_free(arena) }

    enum KeyResult {
        case valid(ExposureKey)
        case invalid
    }

    /// A key, or `.invalid` when it breaks the key rules; throws when the
    /// bytes are not a protobuf message at all.
    func key(_ bytes: UnsafeRawBufferPointer) throws -> KeyResult {
        let result = try unpack({ ekexport__temporary_exposure_key__unpack($0, bytes.count, Self.base(bytes)) }) { k -> KeyResult in
            guard k.has_key_data != 0, k.key_data.len == 16, let data = k.key_data.data else { return .invalid }
            let period = k.has_rolling_period != 0 ? k.rolling_period : 144
            guard (1 ... 144).contains(period) else { return .invalid }
            guard let reportType = ReportType(rawValue: k.has_report_type != 0 ? k.report_type : 0) else { return .invalid }
            return .valid(ExposureKey(
                keyData: KeyData(UnsafeRawBufferPointer(start: data, count: 16)),
                transmissionRiskLevel: k.has_transmission_risk_level != 0 ? k.transmission_risk_level : 0,
                rollingStartIntervalNumber: k.has_rolling_start_interval_number != 0 ? k.rolling_start_interval_number : 0,
                rollingPeriod: period,
                reportType: reportType,
                daysSinceOnsetOfSymptoms: k.has_days_since_onset_of_symptoms != 0 ? k.days_since_onset_of_symptoms : nil))
        }
        guard let result else { throw undecodable("TemporaryExposureKey") }
        return result
    }

    func signatureInfo(_ bytes: UnsafeRawBufferPointer) throws -> SignatureInfo {
        guard let info = try unpack({ ekexport__signature_info__unpack($0, bytes.count, Self.base(bytes)) }, SignatureInfo.init) else {
            throw undecodable("SignatureInfo")
        }
        return info
    }

    /// Runs protobuf-c's unpacking of some message into this arena and
    /// hands the result to `read` before the arena is reset; nil when
    /// protobuf-c refuses the bytes or the arena's limit.
    func unpack<M, R>(_ unpack: (UnsafeMutablePointer<ProtobufCAllocator>?) -> UnsafeMutablePointer<M>?,
                      _ read: (M) throws -> R) throws -> R? {
        defer { enc_arena_reset(arena) }
        guard let m = unpack(enc_arena_allocator(arena)) else { return nil }
        return try read(m.pointee)
    }

    static func base(_ bytes: UnsafeRawBufferPointer) -> UnsafePointer<UInt8>? {
        bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
    }

    private func undecodable(_ message: String) -> EncoreError {
        EncoreError(.exportMalformed, "export.bin: a \(message) cannot be decoded (or needs more than \(Self.messageLimit) bytes to decode)")
    }
}

extension SignatureInfo {
    init(_ m: Ekexport__SignatureInfo) {
        self.init(appBundleID: string(m.app_bundle_id), androidPackage: string(m.android_package),
                  verificationKeyVersion: string(m.verification_key_version),
                  verificationKeyID: string(m.verification_key_id), signatureAlgorithm: string(m.signature_algorithm))
    }
}

/// A protobuf-c string field: NULL when absent.
func string(_ p: UnsafeMutablePointer<CChar>?) -> String? {
    p.map { String(cString: $0) }
}
