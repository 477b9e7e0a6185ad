import EncoreExposure
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// The Bluetooth calibration of this device, for a device that Google's
/// calibration table (en-calibration-2020-12-14.csv) does not list, as no
/// Linux host is: the TX power it advertises in the AEM, the correction
/// added to every RSSI it measures, and the calibration confidence (AEM
/// metadata bits 3:2) that follows from what was measured.
public struct Calibration: Equatable, Sendable {
    /// The measured radiated TX power in dBm; nil: not measured (the default is used).
    public var txPower: Int8?
    /// dB added to each RSSI this device measures; nil: not measured.
    public var rssiCorrection: Int8?
    /// 0...3 as the host states it; nil: derived from what was measured.
    public var confidence: UInt8?

    /// The TX power and RSSI correction used when none was measured: the
    /// middle of Google's calibration table (most listed phones: TX power
    /// -20...-33 dBm, RSSI correction 0...9 dB). microG likewise falls back
    /// to the table's average for a device it does not know, at LOWEST
    /// confidence.
    public static let defaultTxPower: Int8 = -25
    public static let defaultRSSICorrection: Int8 = 4

    /// ENF's CalibrationConfidence values.
    public static let lowest: UInt8 = 0, low: UInt8 = 1, medium: UInt8 = 2, high: UInt8 = 3

    public init(txPower: Int8? = nil, rssiCorrection: Int8? = nil, confidence: UInt8? = nil) throws {
        if let confidence, confidence > Self.high {
            throw EncoreError(.invalidArgument, "the calibration confidence must be 0...3, not \(confidence)")
        }
        self.txPower = txPower
        self.rssiCorrection = rssiCorrection
        self.confidence = confidence
    }

    public var effectiveTxPower: Int8 { txPower ?? Self.defaultTxPower }
    public var effectiveRSSICorrection: Int8 { rssiCorrection ?? Self.defaultRSSICorrection }

    /// The stated confidence, or the one that follows from the measurements
    /// (as microG grades its fallbacks): both measured for this device
    /// MEDIUM (a measurement of one unit, not Google's calibration of the
    /// model, which alone earns HIGH), one of them LOW, none LOWEST.
    public var effectiveConfidence: UInt8 {
        if let confidence { return confidence }
        switch (txPower, rssiCorrection) {
        case (.some, .some): return Self.medium
        case (nil, nil): return Self.lowest
        default: return Self.low
        }
    }

    /// The RSSI a report carries once this device's correction is added,
    /// in the int8 the store keeps (saturating).
    public func correctedRSSI(_ raw: Int16) -> Int8 {
        Int8(clamping: Int(raw) + Int(effectiveRSSICorrection))
    }
}

/// Where the store keeps the tracing feature's small values: its settings
/// (the storage engine has one migration list for all tables, so the
/// feature adds no table of its own; see docs in the module's API note).
enum TracingSettingNames {
    static let txPower = "tracing.tx_power"
    static let rssiCorrection = "tracing.rssi_correction"
    static let confidence = "tracing.calibration_confidence"
    static let adapter = "tracing.adapter"
    static let lastScan = "tracing.last_scan"
}

extension Store {
    /// The stored calibration (what was never set is nil).
    public func tracingCalibration() throws -> Calibration {
        func int8(_ name: String) throws -> Int8? {
            guard let v = try setting(name) else { return nil }
            guard case .integer(let i) = v, let x = Int8(exactly: i) else {
                throw EncoreError(.storeCorrupt, "the store is damaged: setting '\(name)' is not an int8 integer")
            }
            return x
        }
        let confidence = try int8(TracingSettingNames.confidence)
        guard confidence.map({ (0 ... 3).contains($0) }) ?? true else {
            throw EncoreError(.storeCorrupt, "the store is damaged: the calibration confidence is out of range")
        }
        return try Calibration(txPower: int8(TracingSettingNames.txPower), rssiCorrection: int8(TracingSettingNames.rssiCorrection),
                               confidence: confidence.map { UInt8($0) })
    }

    /// Stores the calibration in one transaction; nil fields are removed
    /// (so the defaults and the derived confidence apply again).
    public func setTracingCalibration(_ c: Calibration) throws {
        try write { w in
            for (name, value) in [(TracingSettingNames.txPower, c.txPower.map(Int64.init)),
                                  (TracingSettingNames.rssiCorrection, c.rssiCorrection.map(Int64.init)),
                                  (TracingSettingNames.confidence, c.confidence.map(Int64.init))] {
                if let value { try w.setSetting(name, to: .integer(value)) } else { _ = try w.deleteSetting(name) }
            }
        }
    }

    /// Records the name of the radio the host traces with ("hci0"), for
    /// the status; nil removes it.
    public func setTracingAdapter(_ name: String?) throws {
        if let name {
            guard !name.isEmpty, name.utf8.count <= 64, !name.utf8.contains(0) else {
                throw EncoreError(.invalidArgument, "the adapter name must have 1 to 64 bytes and no NUL")
            }
            try setSetting(TracingSettingNames.adapter, to: .text(name))
        } else {
            try deleteSetting(TracingSettingNames.adapter)
        }
    }

    /// The adapter name the host recorded, nil when none.
    public func tracingAdapter() throws -> String? {
        guard let v = try setting(TracingSettingNames.adapter) else { return nil }
        guard case .text(let s) = v else { throw EncoreError(.storeCorrupt, "the store is damaged: the tracing adapter is not text") }
        return s
    }
}
