import EncoreSupport

/// Check-in times that cannot be (an end before the start, before 1970):
/// kept here, below the store, which checks them as its table would.
extension EncoreError.Kind {
    public static let checkInTimes = EncoreError.Kind("checkInTimes")
}
