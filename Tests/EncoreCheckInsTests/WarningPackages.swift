import EncoreCheckIns
import EncoreCrypto
import EncoreTestSupport
import EncoreWire

/// Trace warning packages as CWA's server writes them, for the scanner's
/// tests: a TraceWarningPackage (proto/presence_tracing.proto) of plain
/// warnings and protected reports, each field by its number, and as proto3
/// a field that is 0 or empty left out.
enum WarningPackages {
    /// A CheckInProtectedReport's fields.
    struct Report: Equatable {
        var locationIdHash: [UInt8], iv: [UInt8], encryptedCheckInRecord: [UInt8], mac: [UInt8]
    }

    /// A TraceTimeIntervalWarning's fields (the deprecated plain warning).
    struct PlainWarning {
        var locationIdHash: [UInt8], startInterval: UInt32, period: UInt32, transmissionRiskLevel: UInt32
    }

    /// A location id's hash as a report carries it (SHA-256 of the id).
    static func hash(_ locationId: [UInt8]) -> [UInt8] { Digest.sha256(locationId) }

    /// A report of a visit to `locationId`: its record sealed with the spec's crypto.
    static func report(locationId: [UInt8], startInterval: UInt32, period: UInt32, transmissionRiskLevel: UInt32,
                       iv: [UInt8] = [UInt8](repeating: 9, count: 16)) throws -> Report {
        let record = CheckInRecordCodec.encode(startInterval: startInterval, period: period, transmissionRiskLevel: transmissionRiskLevel)
        let sealed = try CheckInCrypto.encrypt(record: record, keys: CheckInCrypto.Keys(locationId: locationId), iv: iv)
        return Report(locationIdHash: hash(locationId), iv: iv, encryptedCheckInRecord: sealed.ciphertext, mac: sealed.mac)
    }

    /// One report's message bytes (field 4 of the package, without its tag).
    static func reportBytes(_ r: Report) -> [UInt8] {
        ProtoSamples.raw(bytes(1, r.locationIdHash) + bytes(2, r.iv) + bytes(3, r.encryptedCheckInRecord) + bytes(4, r.mac))
    }

    /// A package's bytes: its interval and region, then the warnings, the
    /// reports and `rawReports` (report messages as they are, hostile ones
    /// included), in this order.
    static func package(intervalNumber: UInt32 = 0, region: String = "DE", warnings: [PlainWarning] = [], reports: [Report] = [],
                        rawReports: [[UInt8]] = []) -> [UInt8] {
        let plain = warnings.map { w in
            ProtoSamples.raw(bytes(1, w.locationIdHash) + number(2, w.startInterval) + number(3, w.period) + number(4, w.transmissionRiskLevel))
        }
        return ProtoSamples.raw(number(1, intervalNumber) + bytes(2, Array(region.utf8)) + plain.map { .lengthDelimited(3, $0) }
                                + (reports.map(reportBytes) + rawReports).map { .lengthDelimited(4, $0) })
    }

    private static func number(_ field: UInt32, _ value: UInt32) -> [ProtoBuilder.UnknownField] {
        value == 0 ? [] : [.varint(field, UInt64(value))]
    }

    private static func bytes(_ field: UInt32, _ value: [UInt8]) -> [ProtoBuilder.UnknownField] {
        value.isEmpty ? [] : [.lengthDelimited(field, value)]
    }
}
