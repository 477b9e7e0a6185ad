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
