import CEncoreProto
import CProtobufC
import EncoreModel
import EncoreSupport
#if canImport(Glibc)
import Glibc
#endif

/// CWA's SubmissionPayload (proto/submission.proto), encoded with protobuf-c.
///
/// Padding: CWA's rule adds 28 bytes per missing key, so that every
/// submission is about the size of a full one; a key takes 30 to 36 bytes on
/// the wire, so sizes still differed by a few bytes per key. encore pads
/// every payload to exactly `paddedBytes` (a full submission of 15 keys at
/// their largest and the other fields fits well within it), so real and fake
/// submissions are the same size whatever the number of keys and the
/// symptoms; larger payloads (check-ins) are padded to the next multiple.
public struct SubmissionPayload: Sendable, Equatable {
    public static let paddedBytes = 1000

    public var keys: [ExposureKey]
    public var visitedCountries: [String]
    public var origin: String
    public var consentToFederation: Bool
    /// 0 PCR_TEST, 1 RAPID_TEST.
    public var submissionType: Int32

    public init(keys: [ExposureKey], visitedCountries: [String] = [], origin: String = "DE",
                consentToFederation: Bool = false, submissionType: Int32 = 0) {
        self.keys = keys
        self.visitedCountries = visitedCountries
        self.origin = origin
        self.consentToFederation = consentToFederation
        self.submissionType = submissionType
    }

    /// The protobuf bytes, padded.
    public func encoded() throws -> [UInt8] {
        for c in visitedCountries where c.utf8.count != 2 || !c.allSatisfy({ $0.isASCII && $0.isUppercase }) {
            throw EncoreError(.invalidArgument, "visited countries are two capital letters (\"\(c.prefix(8))\" is not)")
        }
        guard visitedCountries.count <= 64 else { throw EncoreError(.invalidArgument, "at most 64 visited countries") }
        let bare = try pack(padding: [])
        // requestPadding's tag and length take 3 bytes for 128...16383.
        let target = max(Self.paddedBytes, (bare.count + 3 + Self.paddedBytes - 1) / Self.paddedBytes * Self.paddedBytes)
        var padding = target - bare.count - 3
        var out = try pack(padding: [UInt8](repeating: 0x20, count: max(padding, 0)))
        // A length below 128 takes one byte less: one more of padding.
        if out.count == target - 1 {
            padding += 1
            out = try pack(padding: [UInt8](repeating: 0x20, count: padding))
        }
        guard out.count == target else { throw EncoreError(.internalError, "the submission payload is \(out.count) bytes, not \(target)") }
        return out
    }

    private func pack(padding: [UInt8]) throws -> [UInt8] {
        let n = keys.count
        let cKeys = UnsafeMutablePointer<Ekexport__TemporaryExposureKey>.allocate(capacity: max(n, 1))
        let keyPointers = UnsafeMutablePointer<UnsafeMutablePointer<Ekexport__TemporaryExposureKey>?>.allocate(capacity: max(n, 1))
        let keyBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: max(n, 1) * 16)
        defer {
            cKeys.deallocate()
            keyPointers.deallocate()
            keyBytes.deallocate()
        }
        for (i, k) in keys.enumerated() {
            ekexport__temporary_exposure_key__init(cKeys + i)
            (keyBytes + i * 16).initialize(from: k.keyData.bytes, count: 16)
            cKeys[i].key_data = ProtobufCBinaryData(len: 16, data: keyBytes + i * 16)
            cKeys[i].has_key_data = 1
            cKeys[i].transmission_risk_level = k.transmissionRiskLevel
            cKeys[i].has_transmission_risk_level = 1
            cKeys[i].rolling_start_interval_number = k.rollingStartIntervalNumber
            cKeys[i].has_rolling_start_interval_number = 1
            cKeys[i].rolling_period = k.rollingPeriod
            cKeys[i].has_rolling_period = 1
            cKeys[i].report_type = k.reportType.rawValue
            cKeys[i].has_report_type = 1
            if let d = k.daysSinceOnsetOfSymptoms {
                cKeys[i].days_since_onset_of_symptoms = d
                cKeys[i].has_days_since_onset_of_symptoms = 1
            }
            keyPointers[i] = cKeys + i
        }
        var countries = visitedCountries.map { strdup($0) }
        defer { countries.forEach { free($0) } }
        guard countries.allSatisfy({ $0 != nil }), let origin = strdup(origin) else {
            throw EncoreError(.outOfMemory, "cannot build the submission payload")
        }
        defer { free(origin) }
        var m = Cwasubmission__SubmissionPayload()
        cwasubmission__submission_payload__init(&m)
        m.n_keys = n
        m.keys = n > 0 ? keyPointers : nil
        m.n_visitedcountries = countries.count
        m.origin = origin
        m.consenttofederation = consentToFederation ? 1 : 0
        m.has_consenttofederation = 1
        m.submissiontype = submissionType
        m.has_submissiontype = 1
        return try padding.withUnsafeBufferPointer { pad in
            m.requestpadding = ProtobufCBinaryData(len: pad.count, data: UnsafeMutablePointer(mutating: pad.baseAddress))
            m.has_requestpadding = pad.count > 0 ? 1 : 0
            return try countries.withUnsafeMutableBufferPointer { list in
                m.visitedcountries = list.count > 0 ? list.baseAddress : nil
                let size = cwasubmission__submission_payload__get_packed_size(&m)
                var out = [UInt8](repeating: 0, count: size)
                let written = out.withUnsafeMutableBufferPointer { cwasubmission__submission_payload__pack(&m, $0.baseAddress) }
                guard written == size else { throw EncoreError(.internalError, "protobuf-c packed \(written) of \(size) bytes") }
                return out
            }
        }
    }
}
