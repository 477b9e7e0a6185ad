
/// Times are unix seconds. Every "now" a caller passes is checked here
/// before any time arithmetic: not negative (as the store requires of its
/// rows), and with every span bounded, no window or age computation can
/// overflow.
public enum UnixTime {
    /// Seconds in a UTC day.
    public static let day: Int64 = 86_400

    /// Throws INVALID_ARGUMENT naming `what` when `now` is negative.
    public static func checkNow(_ now: Int64, _ what: String) throws {
        guard now >= 0 else { throw EncoreError(.invalidArgument, "\(what): now (\(now)) must not be negative") }
    }

    /// UTC midnight at or before `t` (Int64.min for the few times before
    /// the first one Int64 holds).
    public static func utcMidnight(_ t: Int64) -> Int64 { t.saturatingSubtracting(((t % day) + day) % day) }
}
