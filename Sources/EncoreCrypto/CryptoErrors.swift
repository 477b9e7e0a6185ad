import EncoreSupport

/// Key material that is not a usable key (PEM, DER, base64; the curve); a
/// signature that does not verify with the trusted key, or is not one at
/// all (a key file's, a JWS's).
extension EncoreError.Kind {
    public static let keyFormat = EncoreError.Kind("keyFormat")
    public static let signatureInvalid = EncoreError.Kind("signatureInvalid")
    public static let signatureMalformed = EncoreError.Kind("signatureMalformed")
}
