/// Times are unix seconds. Every "now" a caller passes is checked here
/// before any time arithmetic: not negative (as the store requires of its
/// rows), and with every span bounded, no window or age computation can
/// overflow.
enum UnixTime {
    /// Throws INVALID_ARGUMENT naming `what` when `now` is negative.
    static func checkNow(_ now: Int64, _ what: String) throws {
        guard now >= 0 else { throw EncoreError(.invalidArgument, "\(what): now (\(now)) must not be negative") }
    }
}
