import EncoreSupport

/// A private check-in's venue is not kept: checking out or editing it needs
/// its QR code again (checkInQRRequired); a QR code given for a check-in
/// must be of its kind (and, for a diary check-in, its very venue).
extension EncoreError.Kind {
    public static let checkInQRRequired = EncoreError.Kind("checkInQRRequired")
    public static let checkInQRMismatch = EncoreError.Kind("checkInQRMismatch")
}
