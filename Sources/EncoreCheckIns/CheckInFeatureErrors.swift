import EncoreSupport

/// Check-ins: a trace warning package that is not one; a protected report
/// whose MAC does not verify or that is unusable; a body of trace keys whose
/// SHA-256 is not its signed content hash. The organizer side: a location
/// that breaks the app's rules. (The QR codes' kinds, CrowdNotifier's and
/// checkInTimes are EncoreCrowdNotifier's: CrowdNotifierErrors.swift.)
extension EncoreError.Kind {
    public static let warningMalformed = EncoreError.Kind("warningMalformed")
    public static let reportMAC = EncoreError.Kind("reportMAC")
    public static let reportInvalid = EncoreError.Kind("reportInvalid")
    public static let traceKeysContentHash = EncoreError.Kind("traceKeysContentHash")
    public static let locationInvalid = EncoreError.Kind("locationInvalid")
}
