import EncoreCheckIns
import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncorePush
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
        return SubmissionPayload.ProtectedReport(locationIdHash: CheckInCrypto.locationIdHash(locationId), iv: iv,
                                                 encryptedCheckInRecord: sealed.ciphertext, mac: sealed.mac)
    }

    /// One report's protobuf bytes (field 4 of the package, without its tag).
    public static func reportBytes(_ r: SubmissionPayload.ProtectedReport) -> [UInt8] {
        var e = ProtoEncoder()
        e.lengthDelimited(1, r.locationIdHash)
        e.lengthDelimited(2, r.iv)
        e.lengthDelimited(3, r.encryptedCheckInRecord)
        e.lengthDelimited(4, r.mac)
        return e.bytes
    }

    /// A TraceWarningPackage's bytes. `rawReports` are report messages as
    /// they are (hostile ones included).
    public static func package(intervalNumber: UInt32 = 0, region: String = "DE", warnings: [PlainWarning] = [],
                               reports: [SubmissionPayload.ProtectedReport] = [], rawReports: [[UInt8]] = []) -> [UInt8] {
        var e = ProtoEncoder(reservingCapacity: (reports.count + rawReports.count) * 110 + warnings.count * 50 + 16)
        if intervalNumber != 0 { e.varint(1, UInt64(intervalNumber)) }
        e.string(2, region)
        for w in warnings {
            var m = ProtoEncoder()
            m.lengthDelimited(1, w.locationIdHash)
            m.varint(2, UInt64(w.startInterval))
            m.varint(3, UInt64(w.period))
            m.varint(4, UInt64(w.transmissionRiskLevel))
            e.lengthDelimited(3, m.bytes)
        }
        for r in reports { e.lengthDelimited(4, reportBytes(r)) }
        for r in rawReports { e.lengthDelimited(4, r) }
        return e.bytes
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
