import EncoreStorage
import EncoreSupport
import EncoreWire

/// Check-in times that cannot be (an end before the start, before 1970):
/// kept here, below the store, which checks them as its table would.
extension EncoreError.Kind {
    public static let checkInTimes = EncoreError.Kind("checkInTimes")
}

/// A private check-in's venue is not kept: checking out or editing it needs
/// its QR code again (checkInQRRequired); a QR code given for a check-in
/// must be of its kind (and, for a diary check-in, its very venue).
extension EncoreError.Kind {
    public static let checkInQRRequired = EncoreError.Kind("checkInQRRequired")
    public static let checkInQRMismatch = EncoreError.Kind("checkInQRMismatch")
}
