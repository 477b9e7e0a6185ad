import EncoreSupport

/// Key material that is not a usable key (PEM, DER, base64; the curve).
extension EncoreError.Kind {
    public static let keyFormat = EncoreError.Kind("keyFormat")
}
