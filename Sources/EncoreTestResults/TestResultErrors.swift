import EncoreSupport

/// Test results and submission: a QR code, GUID, teleTAN or date of birth
/// that cannot be right (refused before any request); no test registered;
/// one registered already; not positive; the TAN refused or expired;
/// submitted already; a rapid test's code whose hash does not match; the
/// verification server's 403 (the result under the date-of-birth key
/// differs); a test the server reports redeemed when it is registered.
extension EncoreError.Kind {
    public static let testKey = EncoreError.Kind("testKey")
    public static let notRegistered = EncoreError.Kind("notRegistered")
    public static let alreadyRegistered = EncoreError.Kind("alreadyRegistered")
    public static let notPositive = EncoreError.Kind("notPositive")
    public static let tanRefused = EncoreError.Kind("tanRefused")
    public static let alreadySubmitted = EncoreError.Kind("alreadySubmitted")
    public static let testCodeHash = EncoreError.Kind("testCodeHash")
    public static let dateOfBirthMismatch = EncoreError.Kind("dateOfBirthMismatch")
    public static let testRedeemed = EncoreError.Kind("testRedeemed")
}
