import EncoreKeyFiles
import EncoreSupport

/// Infectiousness of a diagnosis key, from its days since onset of symptoms.
public enum Infectiousness: Int32, Sendable, CaseIterable {
    case none = 0, standard = 1, high = 2

    public var name: String {
        switch self {
        case .none: return "none"
        case .standard: return "standard"
        case .high: return "high"
        }
    }
}

/// One scan of the device in which the key's RPI was heard.
public struct ScanInstance: Equatable, Sendable {
    public var typicalAttenuation: Int
    public var minAttenuation: Int
    public var secondsSinceLastScan: Int

    public init(typicalAttenuation: Int, minAttenuation: Int, secondsSinceLastScan: Int) {
        self.typicalAttenuation = typicalAttenuation
        self.minAttenuation = minAttenuation
        self.secondsSinceLastScan = secondsSinceLastScan
    }
}

/// An exposure window (ENF v2): up to 30 minutes of one matched key. It
/// carries no key material and no key identity.
public struct ExposureWindow: Equatable, Sendable {
    /// UTC midnight of the window's first scan instance, unix seconds.
    public var date: Int64
    public var reportType: ReportType
    public var infectiousness: Infectiousness
    /// AEM metadata bits 3:2 (0...3).
    public var calibrationConfidence: Int
    public var scanInstances: [ScanInstance]

    public init(date: Int64, reportType: ReportType, infectiousness: Infectiousness, calibrationConfidence: Int, scanInstances: [ScanInstance]) {
        self.date = date
        self.reportType = reportType
        self.infectiousness = infectiousness
        self.calibrationConfidence = calibrationConfidence
        self.scanInstances = scanInstances
    }
}

extension ExposureWindow {
    /// A window from raw values (a C caller's, a JSON document's), every
    /// field checked: `date` a UTC midnight and not negative, the report
    /// type 0...5, infectiousness 0...2, calibration confidence 0...3, and
    /// each scan instance's attenuations 0...255 and seconds since the last
    /// scan within a day. Failures are INVALID_ARGUMENT naming `what`.
    public init(checkedDate date: Int64, reportType: Int32, infectiousness: Int32, calibrationConfidence: Int,
                scanInstances: [ScanInstance], _ what: String) throws {
        guard date >= 0, date % UnixTime.day == 0 else {
            throw EncoreError(.invalidArgument, "\(what).date (\(date)) must be the unix seconds of a UTC midnight")
        }
        guard let type = ReportType(rawValue: reportType) else {
            throw EncoreError(.invalidArgument, "\(what).reportType (\(reportType)) must be 0...5")
        }
        guard let infectious = Infectiousness(rawValue: infectiousness) else {
            throw EncoreError(.invalidArgument, "\(what).infectiousness (\(infectiousness)) must be 0...2")
        }
        guard (0 ... 3).contains(calibrationConfidence) else {
            throw EncoreError(.invalidArgument, "\(what).calibrationConfidence (\(calibrationConfidence)) must be 0...3")
        }
        for (i, s) in scanInstances.enumerated() {
            guard (0 ... 255).contains(s.minAttenuation), (0 ... 255).contains(s.typicalAttenuation) else {
                throw EncoreError(.invalidArgument, "\(what).scanInstances[\(i)]: attenuations must be 0...255")
            }
            guard abs(s.secondsSinceLastScan) <= Int(UnixTime.day) else {
                throw EncoreError(.invalidArgument, "\(what).scanInstances[\(i)]: secondsSinceLastScan must be within a day")
            }
        }
        self.init(date: date, reportType: type, infectiousness: infectious, calibrationConfidence: calibrationConfidence,
                  scanInstances: scanInstances)
    }
}
