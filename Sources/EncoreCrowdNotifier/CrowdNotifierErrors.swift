import EncoreSupport

/// CrowdNotifier: a venue key that is not a usable G2 point; trace keys
/// malformed or too large; one trace key unusable; a ciphertext the key does
/// not open; a master secret that is not one.
extension EncoreError.Kind {
    public static let cnPublicKey = EncoreError.Kind("cnPublicKey")
    public static let traceKeysMalformed = EncoreError.Kind("traceKeysMalformed")
    public static let traceKeysTooLarge = EncoreError.Kind("traceKeysTooLarge")
    public static let traceKeyInvalid = EncoreError.Kind("traceKeyInvalid")
    public static let cnNoMatch = EncoreError.Kind("cnNoMatch")
    public static let cnSecret = EncoreError.Kind("cnSecret")
}

/// A QR code that is not one of the codes encore reads, of an unknown
/// version, not base64url, not a QRCodePayload, breaking the rules, too
/// large. Declared here, below the check-ins, because CWA's event codes
/// (EncoreCheckIns) and CrowdNotifier's venue codes give the same statuses.
extension EncoreError.Kind {
    public static let qrNotCWA = EncoreError.Kind("qrNotCWA")
    public static let qrVersion = EncoreError.Kind("qrVersion")
    public static let qrEncoding = EncoreError.Kind("qrEncoding")
    public static let qrMalformed = EncoreError.Kind("qrMalformed")
    public static let qrInvalid = EncoreError.Kind("qrInvalid")
    public static let qrTooLarge = EncoreError.Kind("qrTooLarge")
}

/// Visit times that cannot be (an end before the start, before 1970, a
/// visit longer than its hours allow): the check-ins' status, declared here
/// because a visit's hours are made here.
extension EncoreError.Kind {
    public static let checkInTimes = EncoreError.Kind("checkInTimes")
}
