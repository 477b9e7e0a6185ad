import CEncoreProto
import CProtobufC
import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreStorage
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

    /// A CheckInProtectedReport (field 8), made by the check-in layer.
    public struct ProtectedReport: Sendable, Equatable {
        public var locationIdHash: [UInt8]
        public var iv: [UInt8]
        public var encryptedCheckInRecord: [UInt8]
        public var mac: [UInt8]

        public init(locationIdHash: [UInt8], iv: [UInt8], encryptedCheckInRecord: [UInt8], mac: [UInt8]) {
            self.locationIdHash = locationIdHash
            self.iv = iv
            self.encryptedCheckInRecord = encryptedCheckInRecord
            self.mac = mac
        }
    }

    public var keys: [ExposureKey]
    public var visitedCountries: [String]
    public var origin: String
    public var consentToFederation: Bool
    /// 0 PCR_TEST, 1 RAPID_TEST.
    public var submissionType: Int32
    /// The user's check-ins, encrypted (field 8), already shuffled.
    public var checkInProtectedReports: [ProtectedReport]

    public init(keys: [ExposureKey], visitedCountries: [String] = [], origin: String = "DE",
                consentToFederation: Bool = false, submissionType: Int32 = 0, checkInProtectedReports: [ProtectedReport] = []) {
        self.keys = keys
        self.checkInProtectedReports = checkInProtectedReports
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
        // The smallest multiple of paddedBytes that requestPadding (tag,
        // varint length, bytes) can fill exactly.
        var target = max(Self.paddedBytes, (bare.count + Self.paddedBytes - 1) / Self.paddedBytes * Self.paddedBytes)
        while Self.paddingLength(bare: bare.count, target: target) == nil { target += Self.paddedBytes }
        let out = try pack(padding: [UInt8](repeating: 0x20, count: Self.paddingLength(bare: bare.count, target: target) ?? 0))
        guard out.count == target else { throw EncoreError(.internalError, "the submission payload is \(out.count) bytes, not \(target)") }
        return out
    }

    /// The padding bytes that bring `bare` bytes to `target`: the field takes
    /// a tag byte and a varint length besides (none when nothing is missing).
    static func paddingLength(bare: Int, target: Int) -> Int? {
        if bare == target { return 0 }
        for lengthBytes in 1 ... 4 {
            let p = target - bare - 1 - lengthBytes
            if p > 0 && (p < 128 ? 1 : p < 16384 ? 2 : p < 2_097_152 ? 3 : 4) == lengthBytes { return p }
        }
        return nil
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
        // Field 8: the reports' bytes are borrowed for the packing only.
        let reports = checkInProtectedReports
        let cReports = UnsafeMutablePointer<Cwapt__CheckInProtectedReport>.allocate(capacity: max(reports.count, 1))
        let reportPointers = UnsafeMutablePointer<UnsafeMutablePointer<Cwapt__CheckInProtectedReport>?>.allocate(capacity: max(reports.count, 1))
        let reportBytes = reports.flatMap { $0.locationIdHash + $0.iv + $0.encryptedCheckInRecord + $0.mac }
        defer {
            cReports.deallocate()
            reportPointers.deallocate()
        }
        return try reportBytes.withUnsafeBufferPointer { all in
            var offset = 0
            func field(_ n: Int) -> ProtobufCBinaryData {
                defer { offset += n }
                return ProtobufCBinaryData(len: n, data: UnsafeMutablePointer(mutating: all.baseAddress.map { $0 + offset }))
            }
            for (i, r) in reports.enumerated() {
                cwapt__check_in_protected_report__init(cReports + i)
                cReports[i].locationidhash = field(r.locationIdHash.count)
                cReports[i].iv = field(r.iv.count)
                cReports[i].encryptedcheckinrecord = field(r.encryptedCheckInRecord.count)
                cReports[i].mac = field(r.mac.count)
                reportPointers[i] = cReports + i
            }
            m.n_checkinprotectedreports = reports.count
            m.checkinprotectedreports = reports.isEmpty ? nil : reportPointers
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
}
