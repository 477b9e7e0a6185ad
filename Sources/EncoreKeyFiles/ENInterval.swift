/// ENIntervalNumber: the number of the 10-minute window since the epoch.
public enum ENInterval {
    public static let seconds: Int64 = 600
    /// Intervals in a full key validity (24 h).
    public static let rollingPeriod: UInt32 = 144

    /// floor(unixSeconds / 600), nil outside uint32 (before 1970 or far future).
    public static func number(unixSeconds t: Int64) -> UInt32? {
        guard t >= 0 else { return nil }
        return UInt32(exactly: t / seconds)
    }

    /// floor(t / 600) for any Int64 (the interval a time falls in).
    public static func floor(_ t: Int64) -> Int64 { t / seconds - (t % seconds < 0 ? 1 : 0) }

    /// The first interval of the UTC day containing `interval`.
    public static func dayStart(_ interval: UInt32) -> UInt32 {
        interval - interval % rollingPeriod
    }
}
