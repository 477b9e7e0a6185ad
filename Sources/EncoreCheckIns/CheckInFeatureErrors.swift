import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// Check-ins: a QR code that is not a CWA event code, of an unknown
/// version, not base64url, not a QRCodePayload, breaking the rules, too
/// large; a trace warning package that is not one; a protected report
/// whose MAC does not verify or that is unusable. CrowdNotifier: a venue key
/// that is not a usable G2 point; trace keys malformed or too large; one
/// trace key unusable; a ciphertext the key does not open; a master secret
/// that is not one; a body whose SHA-256 is not its signed content hash.
/// The organizer side: a location that breaks the app's rules.
extension EncoreError.Kind {
    public static let qrNotCWA = EncoreError.Kind("qrNotCWA")
    public static let qrVersion = EncoreError.Kind("qrVersion")
    public static let qrEncoding = EncoreError.Kind("qrEncoding")
    public static let qrMalformed = EncoreError.Kind("qrMalformed")
    public static let qrInvalid = EncoreError.Kind("qrInvalid")
    public static let qrTooLarge = EncoreError.Kind("qrTooLarge")
    public static let warningMalformed = EncoreError.Kind("warningMalformed")
    public static let reportMAC = EncoreError.Kind("reportMAC")
    public static let reportInvalid = EncoreError.Kind("reportInvalid")
    public static let cnPublicKey = EncoreError.Kind("cnPublicKey")
    public static let traceKeysMalformed = EncoreError.Kind("traceKeysMalformed")
    public static let traceKeysTooLarge = EncoreError.Kind("traceKeysTooLarge")
    public static let traceKeyInvalid = EncoreError.Kind("traceKeyInvalid")
    public static let cnNoMatch = EncoreError.Kind("cnNoMatch")
    public static let cnSecret = EncoreError.Kind("cnSecret")
    public static let traceKeysContentHash = EncoreError.Kind("traceKeysContentHash")
    public static let locationInvalid = EncoreError.Kind("locationInvalid")
}
