import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// The bytes of a kept match (kept_matches.key and .instances): the key
/// as the file gave it and its scan instances, little-endian, fixed sizes.
/// Rows are the check's own and are read back by the same code; a row that
/// does not decode is a damaged store.
enum KeptMatchCodec {
    /// key data 16, TRL 4, start 4, period 4, report type 4, dsos present 1,
    /// dsos 4, infectiousness 1.
    static let keySize = 38
    /// start 8, typical attenuation 1, minimum attenuation 1, seconds since
    /// the last scan 2, calibration confidence 1.
    static let instanceSize = 13

    static func encode(key k: ExposureKey, infectiousness: Infectiousness) -> [UInt8] {
        var out = k.keyData.bytes
        out.reserveCapacity(keySize)
        for v in [k.transmissionRiskLevel, k.rollingStartIntervalNumber, k.rollingPeriod, k.reportType.rawValue] { append(&out, v) }
        out.append(k.daysSinceOnsetOfSymptoms == nil ? 0 : 1)
        append(&out, k.daysSinceOnsetOfSymptoms ?? 0)
        out.append(UInt8(truncatingIfNeeded: infectiousness.rawValue))
        return out
    }

    static func encode(instances: [(TimedScanInstance, calibration: Int)]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(instances.count * instanceSize)
        for (t, calibration) in instances {
            append(&out, t.start)
            // Attenuations are clamped to 0...255 and seconds to 0...300 when made.
            out.append(UInt8(clamping: t.instance.typicalAttenuation))
            out.append(UInt8(clamping: t.instance.minAttenuation))
            append(&out, UInt16(clamping: t.instance.secondsSinceLastScan))
            out.append(UInt8(clamping: calibration))
        }
        return out
    }

    static func decode(key b: [UInt8], instances i: [UInt8]) throws -> KeyMatch {
        guard b.count == keySize, i.count % instanceSize == 0, let keyData = KeyData(Array(b[0 ..< 16])),
              let reportType = ReportType(rawValue: read(b, 28)), let infectiousness = Infectiousness(rawValue: Int32(b[37])) else {
            throw EncoreError(.storeNotDatabase, "store: a kept match is damaged")
        }
        let key = ExposureKey(keyData: keyData, transmissionRiskLevel: read(b, 16), rollingStartIntervalNumber: read(b, 20),
                              rollingPeriod: read(b, 24), reportType: reportType, daysSinceOnsetOfSymptoms: b[32] == 0 ? nil : read(b, 33))
        var instances: [(TimedScanInstance, calibration: Int)] = []
        instances.reserveCapacity(i.count / instanceSize)
        for o in stride(from: 0, to: i.count, by: instanceSize) {
            let seconds: UInt16 = read(i, o + 10)
            instances.append((TimedScanInstance(start: read(i, o), instance: ScanInstance(
                typicalAttenuation: Int(i[o + 8]), minAttenuation: Int(i[o + 9]), secondsSinceLastScan: Int(seconds))),
                              calibration: Int(i[o + 12])))
        }
        return KeyMatch(key: key, infectiousness: infectiousness, instances: instances)
    }

    private static func append<T: FixedWidthInteger>(_ out: inout [UInt8], _ v: T) {
        withUnsafeBytes(of: v.littleEndian) { out += $0 }
    }

    private static func read<T: FixedWidthInteger>(_ b: [UInt8], _ at: Int) -> T {
        b.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: at, as: T.self)) }
    }
}
