import EncoreSupport

/// Key files: export.bin's header; the signature file missing, from a key
/// not trusted; a batch that does not hold together. (A signature that does
/// not verify or is malformed is EncoreCrypto's .signatureInvalid and
/// .signatureMalformed.)
extension EncoreError.Kind {
    public static let exportHeader = EncoreError.Kind("exportHeader")
    public static let signatureMissing = EncoreError.Kind("signatureMissing")
    public static let signatureUntrusted = EncoreError.Kind("signatureUntrusted")
    public static let batch = EncoreError.Kind("batch")
}
