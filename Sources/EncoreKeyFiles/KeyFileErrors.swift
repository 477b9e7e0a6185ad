import EncoreSupport

/// Key files: export.bin's header; the signature file missing, from a key
/// not trusted, not verifying, malformed; a batch that does not hold
/// together.
extension EncoreError.Kind {
    public static let exportHeader = EncoreError.Kind("exportHeader")
    public static let signatureMissing = EncoreError.Kind("signatureMissing")
    public static let signatureUntrusted = EncoreError.Kind("signatureUntrusted")
    public static let signatureInvalid = EncoreError.Kind("signatureInvalid")
    public static let signatureMalformed = EncoreError.Kind("signatureMalformed")
    public static let batch = EncoreError.Kind("batch")
}
