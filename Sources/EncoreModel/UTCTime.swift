/// UTC times as ISO 8601 text, without Foundation.
enum UTCTime {
    /// 9999-12-31T23:59:59Z; later times are not written as dates.
    static let maxSeconds: Int64 = 253_402_300_799
    /// Seconds in one Exposure Notification interval (10 minutes).
    static let intervalSeconds: Int64 = 600

    /// "2020-05-20T08:40:00Z", or nil for times outside years 0...9999.
    static func iso8601(seconds: Int64) -> String? {
        guard seconds >= -62_167_219_200, seconds <= maxSeconds else { return nil }
        let days = floorDiv(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (y, m, d) = civil(fromDays: days)
        return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + "T"
            + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2) + "Z"
    }

    static func iso8601(seconds: UInt64) -> String? {
        guard let s = Int64(exactly: seconds) else { return nil }
        return iso8601(seconds: s)
    }

    /// The start of an interval number (seconds since the epoch / 600).
    static func iso8601(interval: Int32) -> String? {
        iso8601(seconds: Int64(interval) * intervalSeconds)
    }

    /// Year, month, day of a day count since 1970-01-01 (proleptic Gregorian;
    /// Howard Hinnant's civil_from_days).
    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    private static func pad(_ n: Int64, _ width: Int) -> String {
        let s = String(n)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}
