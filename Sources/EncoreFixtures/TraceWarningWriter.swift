import CEncoreProto
import EncoreCheckIns
import EncoreCrowdNotifier
import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreKeyFilesFixtures
import EncoreSupport
import EncoreTestResults
import EncoreWire

/// Trace warning packages as CWA's server makes them (tests and the bench):
/// a TraceWarningPackage of plain warnings and protected reports encrypted
/// with the spec's crypto, and its signed zip (export.bin without the key
/// files' header).
public enum TraceWarningWriter {
    public struct PlainWarning {
        public var locationIdHash: [UInt8]
        public var startInterval: UInt32
        public var period: UInt32
        public var transmissionRiskLevel: UInt32

        public init(locationIdHash: [UInt8], startInterval: UInt32, period: UInt32, transmissionRiskLevel: UInt32) {
            self.locationIdHash = locationIdHash
            self.startInterval = startInterval
            self.period = period
            self.transmissionRiskLevel = transmissionRiskLevel
        }
    }

    /// A protected report of a visit to the location `locationId`.
    public static func report(locationId: [UInt8], startInterval: UInt32, period: UInt32, transmissionRiskLevel: UInt32,
                              iv: [UInt8]? = nil) throws -> SubmissionPayload.ProtectedReport {
        let iv = try iv ?? SecureRandom.bytes(16)
        let record = CheckInRecordCodec.encode(startInterval: startInterval, period: period, transmissionRiskLevel: transmissionRiskLevel)
        let sealed = try CheckInCrypto.encrypt(record: record, keys: CheckInCrypto.Keys(locationId: locationId), iv: iv)
        return SubmissionPayload.ProtectedReport(locationIdHash: TraceLocation.locationIdHash(locationId), iv: iv,
                                                 encryptedCheckInRecord: sealed.ciphertext, mac: sealed.mac)
    }

    /// One report's protobuf bytes (field 4 of the package, without its tag).
    public static func reportBytes(_ r: SubmissionPayload.ProtectedReport) -> [UInt8] {
        ExportWriter.written {
            let b = try ProtoBuilder()
            return ProtoBuilder.pack(try report(r, b))
        }
    }

    private static func report(_ r: SubmissionPayload.ProtectedReport, _ b: ProtoBuilder) throws -> UnsafeMutablePointer<Cwapt__CheckInProtectedReport> {
        let m = try b.message(cwapt__check_in_protected_report__init)
        m.pointee.locationidhash = try b.bytes(r.locationIdHash)
        m.pointee.iv = try b.bytes(r.iv)
        m.pointee.encryptedcheckinrecord = try b.bytes(r.encryptedCheckInRecord)
        m.pointee.mac = try b.bytes(r.mac)
        return m
    }

    /// A TraceWarningPackage's bytes, packed by protobuf-c as proto3 (as
    /// CWA's server writes it: a field that is 0 or empty is left out).
    /// `rawReports` are report messages as they are (hostile ones
    /// included), written after the others.
    public static func package<Reports: Sequence>(intervalNumber: UInt32 = 0, region: String = "DE", warnings: [PlainWarning] = [],
                                                  reports: Reports, rawReports: [[UInt8]] = []) -> [UInt8]
        where Reports.Element == SubmissionPayload.ProtectedReport {
        ExportWriter.written {
            // A report takes about 200 bytes of the arena (message and fields).
            let b = try ProtoBuilder(capacity: 4096 + min(reports.underestimatedCount + warnings.count, 1 << 20) * 208)
            let m = try b.message(cwapt__trace_warning_package__init)
            m.pointee.intervalnumber = intervalNumber
            m.pointee.region = try b.string(region)
            let plain = try warnings.map { w in
                let e = try b.message(cwapt__trace_time_interval_warning__init)
                e.pointee.locationidhash = try b.bytes(w.locationIdHash)
                e.pointee.startintervalnumber = w.startInterval
                e.pointee.period = w.period
                e.pointee.transmissionrisklevel = w.transmissionRiskLevel
                return e
            }
            m.pointee.n_timeintervalwarnings = plain.count
            m.pointee.timeintervalwarnings = try b.list(plain)
            let protected = try reports.map { try report($0, b) }
            m.pointee.n_checkinprotectedreports = protected.count
            m.pointee.checkinprotectedreports = try b.list(protected)
            try b.setUnknownFields(of: m, rawReports.map { .lengthDelimited(4, $0) })
            return ProtoBuilder.pack(m)
        }
    }

    public static func package(intervalNumber: UInt32 = 0, region: String = "DE", warnings: [PlainWarning] = [],
                               rawReports: [[UInt8]] = []) -> [UInt8] {
        package(intervalNumber: intervalNumber, region: region, warnings: warnings, reports: [], rawReports: rawReports)
    }

    /// The signed zip of a package's bytes (export.bin + export.sig).
    public static func signedPackage(_ payload: [UInt8], signer: PrivateKey, info: SignatureInfo) throws -> [UInt8] {
        let der = try payload.withUnsafeBytes { try signer.sign($0, algorithm: .sha256) }
        return try ZipWriter.archive([
            ZipWriter.Member(name: "export.bin", data: payload),
            ZipWriter.Member(name: "export.sig", data: ExportWriter.exportSig([(info, 1, 1, der)]), compress: false),
        ])
    }
}
