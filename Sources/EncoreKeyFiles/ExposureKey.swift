import EncoreCrypto

/// Report type of a diagnosis key (the export format's enum).
public enum ReportType: Int32, Sendable, CaseIterable {
    case unknown = 0, confirmedTest, confirmedClinicalDiagnosis, selfReport, recursive, revoked

    /// The format's name in snake case ("confirmed_test"), for text and JSON.
    public var name: String {
        switch self {
        case .unknown: return "unknown"
        case .confirmedTest: return "confirmed_test"
        case .confirmedClinicalDiagnosis: return "confirmed_clinical_diagnosis"
        case .selfReport: return "self_report"
        case .recursive: return "recursive"
        case .revoked: return "revoked"
        }
    }
}

/// One valid published temporary exposure key (a diagnosis key).
public struct ExposureKey: Equatable, Sendable {
    public var keyData: KeyData
    public var transmissionRiskLevel: Int32
    public var rollingStartIntervalNumber: Int32
    /// 1...144; 144 when the file leaves it out.
    public var rollingPeriod: Int32
    public var reportType: ReportType
    /// Days since onset of symptoms; nil when the file leaves it out.
    public var daysSinceOnsetOfSymptoms: Int32?

    public init(keyData: KeyData, transmissionRiskLevel: Int32 = 0, rollingStartIntervalNumber: Int32,
                rollingPeriod: Int32 = 144, reportType: ReportType = .unknown, daysSinceOnsetOfSymptoms: Int32? = nil) {
        self.keyData = keyData
        self.transmissionRiskLevel = transmissionRiskLevel
        self.rollingStartIntervalNumber = rollingStartIntervalNumber
        self.rollingPeriod = rollingPeriod
        self.reportType = reportType
        self.daysSinceOnsetOfSymptoms = daysSinceOnsetOfSymptoms
    }
}

/// The two key lists of an export file.
public enum KeyList: Sendable, CaseIterable {
    case keys         // field 7
    case revisedKeys  // field 8
}
