import CEncoreProto
import CEncoreShim
import CProtobufC
import EncoreCrypto
import EncoreStorage
import EncoreSupport
import EncoreWire

/// Decodes TemporaryExposureKey and SignatureInfo messages with the
/// generated protobuf-c code, into an arena that is reset after each message
/// so decoding allocates nothing per key. One decoder per thread.
package final class MessageDecoder {
    private let arena: OpaquePointer

    /// What decoding one message may allocate. A real key or signature info
    /// needs a few hundred bytes; a message that needs more is refused as
    /// malformed instead of growing memory many times its size.
    package static let messageLimit = 64 * 1024

    package init(limit: Int = MessageDecoder.messageLimit) throws {
        guard let a = enc_arena_new(4096, limit) else { throw EncoreError(.outOfMemory, "cannot allocate a decoding arena") }
        arena = a
    }

    deinit { enc_arena_free(arena) }

    package enum KeyResult {
        case valid(ExposureKey)
        case invalid
    }

    /// A key, or `.invalid` when it breaks the key rules; throws when the
    /// bytes are not a protobuf message at all. Keys in the plain form are
    /// read by the C fast path, anything else by protobuf-c.
    package func key(_ bytes: UnsafeRawBufferPointer) throws -> KeyResult {
        var fields = enc_key_fields()
        if enc_key_decode_plain(Self.base(bytes), bytes.count, &fields) == 0 {
            guard let decoded = try unpack({ ekexport__temporary_exposure_key__unpack($0, bytes.count, Self.base(bytes)) },
                                           enc_key_fields.init) else {
                throw undecodable("TemporaryExposureKey")
            }
            fields = decoded
        }
        return Self.key(fields)
    }

    /// The key rules (enc_key_is_valid), applied to the fields whichever
    /// decoder read them.
    package static func key(_ k: enc_key_fields) -> KeyResult {
        var k = k
        return enc_key_is_valid(&k) != 0 ? .valid(exposureKey(k)) : .invalid
    }

    /// The key of fields that passed the key rules (the report type is
    /// then one of ReportType's).
    package static func exposureKey(_ k: enc_key_fields) -> ExposureKey {
        ExposureKey(
            keyData: withUnsafeBytes(of: k.key_data) { KeyData($0) },
            transmissionRiskLevel: k.has_transmission_risk_level != 0 ? k.transmission_risk_level : 0,
            rollingStartIntervalNumber: k.has_rolling_start_interval_number != 0 ? k.rolling_start_interval_number : 0,
            rollingPeriod: k.has_rolling_period != 0 ? k.rolling_period : 144,
            reportType: ReportType(rawValue: k.has_report_type != 0 ? k.report_type : 0) ?? .unknown,
            daysSinceOnsetOfSymptoms: k.has_days_since_onset_of_symptoms != 0 ? k.days_since_onset_of_symptoms : nil)
    }

    /// A key the C walker found: decoded and checked already when plain,
    /// else decoded by protobuf-c from its payload in `body`.
    package func key(_ item: enc_key_item, in body: UnsafeRawBufferPointer) throws -> KeyResult {
        if item.plain != 0 { return item.valid != 0 ? .valid(Self.exposureKey(item.fields)) : .invalid }
        return try key(UnsafeRawBufferPointer(rebasing: body[item.payload ..< item.payload + item.length]))
    }

    package func signatureInfo(_ bytes: UnsafeRawBufferPointer) throws -> SignatureInfo {
        guard let info = try unpack({ ekexport__signature_info__unpack($0, bytes.count, Self.base(bytes)) }, SignatureInfo.init) else {
            throw undecodable("SignatureInfo")
        }
        return info
    }

    /// Runs protobuf-c's unpacking of some message into this arena and
    /// hands the result to `read` before the arena is reset; nil when
    /// protobuf-c refuses the bytes or the arena's limit.
    package func unpack<M, R>(_ unpack: (UnsafeMutablePointer<ProtobufCAllocator>?) -> UnsafeMutablePointer<M>?,
                      _ read: (M) throws -> R) throws -> R? {
        defer { enc_arena_reset(arena) }
        guard let m = unpack(enc_arena_allocator(arena)) else { return nil }
        return try read(m.pointee)
    }

    package static func base(_ bytes: UnsafeRawBufferPointer) -> UnsafePointer<UInt8>? {
        bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
    }

    private func undecodable(_ message: String) -> EncoreError {
        EncoreError(.exportMalformed, "export.bin: a \(message) cannot be decoded (or needs more than \(Self.messageLimit) bytes to decode)")
    }
}

extension enc_key_fields {
    /// The fields of a key protobuf-c decoded, in the fast path's form
    /// (absent fields read 0, where protobuf-c fills in defaults).
    package init(_ m: Ekexport__TemporaryExposureKey) {
        self.init()
        has_key_data = m.has_key_data != 0 ? 1 : 0
        key_data_len = UInt32(clamping: m.key_data.len)
        if m.has_key_data != 0, m.key_data.len == 16, let data = m.key_data.data {
            withUnsafeMutableBytes(of: &key_data) { $0.copyMemory(from: UnsafeRawBufferPointer(start: data, count: 16)) }
        }
        has_transmission_risk_level = m.has_transmission_risk_level != 0 ? 1 : 0
        transmission_risk_level = m.has_transmission_risk_level != 0 ? m.transmission_risk_level : 0
        has_rolling_start_interval_number = m.has_rolling_start_interval_number != 0 ? 1 : 0
        rolling_start_interval_number = m.has_rolling_start_interval_number != 0 ? m.rolling_start_interval_number : 0
        has_rolling_period = m.has_rolling_period != 0 ? 1 : 0
        rolling_period = m.has_rolling_period != 0 ? m.rolling_period : 0
        has_report_type = m.has_report_type != 0 ? 1 : 0
        report_type = m.has_report_type != 0 ? m.report_type : 0
        has_days_since_onset_of_symptoms = m.has_days_since_onset_of_symptoms != 0 ? 1 : 0
        days_since_onset_of_symptoms = m.has_days_since_onset_of_symptoms != 0 ? m.days_since_onset_of_symptoms : 0
    }
}

extension SignatureInfo {
    package init(_ m: Ekexport__SignatureInfo) {
        self.init(appBundleID: string(m.app_bundle_id), androidPackage: string(m.android_package),
                  verificationKeyVersion: string(m.verification_key_version),
                  verificationKeyID: string(m.verification_key_id), signatureAlgorithm: string(m.signature_algorithm))
    }
}

/// A protobuf-c string field: NULL when absent.
package func string(_ p: UnsafeMutablePointer<CChar>?) -> String? {
    p.map { String(cString: $0) }
}
