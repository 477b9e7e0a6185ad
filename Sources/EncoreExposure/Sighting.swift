import EncoreCrypto
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// One sighting: the device heard an advertisement (RPI ‖ AEM) at `time`
/// with `rssi`; `previousScan` is the time of the scan run before, when the
/// host knows it. A sighting may stand for several reports of one scan (the
/// tracing folds them): `rssi` is then the strongest (what the minimum
/// attenuation comes from) and `typicalRSSI` their mean (the typical
/// attenuation's); for one report both are that report's RSSI.
public struct Sighting: Equatable, Hashable, Sendable {
    public var time: Int64
    public var rpi: KeyData
    /// The 4 encrypted metadata bytes, in memory order.
    public var aem: UInt32
    public var rssi: Int8
    public var typicalRSSI: Int8
    public var previousScan: Int64?

    /// `typicalRSSI` nil: `rssi` (one report).
    public init(time: Int64, rpi: KeyData, aem: UInt32, rssi: Int8, typicalRSSI: Int8? = nil, previousScan: Int64? = nil) {
        self.time = time
        self.rpi = rpi
        self.aem = aem
        self.rssi = rssi
        self.typicalRSSI = typicalRSSI ?? rssi
        self.previousScan = previousScan
    }

    public init(time: Int64, rpi: KeyData, aemBytes: [UInt8], rssi: Int8, typicalRSSI: Int8? = nil, previousScan: Int64? = nil) throws {
        guard aemBytes.count == 4 else { throw EncoreError(.invalidArgument, "an AEM has 4 bytes, not \(aemBytes.count)") }
        self.init(time: time, rpi: rpi, aem: aemBytes.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) },
                  rssi: rssi, typicalRSSI: typicalRSSI, previousScan: previousScan)
    }

    public var aemBytes: [UInt8] { withUnsafeBytes(of: aem) { Array($0) } }
}
