import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// One advertisement report as the radio gave it: the service data of UUID
/// 0xFD6F (RPI ‖ AEM), the RSSI as measured (before this device's
/// correction; BlueZ gives an int16) and when it was heard.
public struct ScanReport: Equatable, Sendable {
    public var rpi: KeyData
    /// The 4 encrypted metadata bytes, in memory order (as Sighting keeps them).
    public var aem: UInt32
    public var rssi: Int16
    public var time: Int64

    public init(rpi: KeyData, aem: UInt32, rssi: Int16, time: Int64) {
        self.rpi = rpi
        self.aem = aem
        self.rssi = rssi
        self.time = time
    }

    /// From the 20 bytes of service data; nil when there are not exactly 20.
    public init?(serviceData: [UInt8], rssi: Int16, time: Int64) {
        guard serviceData.count == 20, let rpi = KeyData(Array(serviceData[0 ..< 16])) else { return nil }
        let aem = serviceData[16 ..< 20].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        self.init(rpi: rpi, aem: aem, rssi: rssi, time: time)
    }

    /// HCI's "RSSI not available" (127) and values no radio reports.
    var hasRSSI: Bool { rssi >= -127 && rssi <= 126 }
}

/// One RPI heard in one scan, its reports folded as the ENF keeps a scan
/// instance: when it was first heard, and the RSSI after this device's
/// correction both typical (the mean of the reports, what the typical
/// attenuation comes from: see ScanAggregation.typicalRSSI) and maximal
/// (the one the minimum attenuation comes from).
public struct ScanSighting: Equatable, Sendable {
    public var rpi: KeyData
    public var aem: UInt32
    public var firstSeen: Int64
    public var typicalRSSI: Int8
    public var maxRSSI: Int8
    /// How many reports were folded into it.
    public var reports: Int
}

/// What folding a scan's reports dropped besides folding repeats.
public struct ScanAggregate: Equatable, Sendable {
    /// One per RPI, in the order the RPIs were first heard.
    public var sightings: [ScanSighting]
    /// Reports of the device's own RPIs.
    public var ownReports = 0
    /// Reports folded into an earlier report of the same RPI.
    public var repeatedReports = 0
    /// Reports without an RSSI (127), or with another AEM than the RPI's
    /// first report in the scan (a replay or a corrupted packet).
    public var invalidReports = 0
}

public enum ScanAggregation {
    /// Folds one scan's reports into one sighting per RPI. The RSSI gets
    /// `calibration`'s correction (ENF: attenuation = TX power − (RSSI +
    /// correction)), so the store keeps what the matching subtracts from.
    public static func aggregate(_ reports: [ScanReport], ownRPIs: Set<KeyData>, calibration: Calibration) -> ScanAggregate {
        var out = ScanAggregate(sightings: [])
        var index: [KeyData: Int] = [:]
        index.reserveCapacity(reports.count)
        var sums: [Int] = []
        for r in reports {
            if ownRPIs.contains(r.rpi) { out.ownReports += 1; continue }
            guard r.hasRSSI else { out.invalidReports += 1; continue }
            let rssi = calibration.correctedRSSI(r.rssi)
            if let i = index[r.rpi] {
                guard out.sightings[i].aem == r.aem else { out.invalidReports += 1; continue }
                out.sightings[i].reports += 1
                out.sightings[i].firstSeen = min(out.sightings[i].firstSeen, r.time)
                out.sightings[i].maxRSSI = max(out.sightings[i].maxRSSI, rssi)
                sums[i] += Int(rssi)
                out.repeatedReports += 1
            } else {
                index[r.rpi] = out.sightings.count
                out.sightings.append(ScanSighting(rpi: r.rpi, aem: r.aem, firstSeen: r.time, typicalRSSI: rssi, maxRSSI: rssi, reports: 1))
                sums.append(Int(rssi))
            }
        }
        for i in out.sightings.indices {
            out.sightings[i].typicalRSSI = typicalRSSI(sum: sums[i], count: out.sightings[i].reports)
        }
        return out
    }

    /// The typical RSSI of `count` reports summing to `sum` (dBm, corrected):
    /// their mean in dB, rounded so that the matching's TX power − typical
    /// RSSI is the spec's rounded mean attenuation. Attenuation is a dB
    /// difference from one TX power (one RPI, one AEM), so the mean of the
    /// attenuations is the TX power minus the mean RSSI; a half rounds to
    /// the larger attenuation (the lower RSSI): ⌈mean − ½⌉, in integers.
    /// Not a mean of milliwatts, which the strongest report would rule, and
    /// so not the ENF's typical attenuation. One difference remains: the
    /// matching clamps an attenuation at 0, which a report stronger than
    /// the TX power would need per report (all in the lowest bucket).
    static func typicalRSSI(sum: Int, count: Int) -> Int8 {
        guard count > 0 else { return 0 }
        let numerator = 2 * sum - count, denominator = 2 * count
        let ceiling = numerator >= 0 ? (numerator + denominator - 1) / denominator : -(-numerator / denominator)
        return Int8(clamping: ceiling)
    }
}
