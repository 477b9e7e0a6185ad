
/// UTC times as ISO 8601 text, without Foundation: instants as
/// "2020-05-20T08:40:00Z", UTC days as "2020-05-20" (how every JSON form
/// and file name of encore writes a day).
public enum UTCTime {
    /// 9999-12-31T23:59:59Z; later times are not written as dates.
    public static let maxSeconds: Int64 = 253_402_300_799
    /// Seconds in one Exposure Notification interval (10 minutes).
    public static let intervalSeconds: Int64 = 600

    /// "2020-05-20T08:40:00Z", or nil for times outside years 0...9999.
    public static func iso8601(seconds: Int64) -> String? {
        guard seconds >= -62_167_219_200, seconds <= maxSeconds else { return nil }
        let days = floorDiv(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (y, m, d) = civil(fromDays: days)
        return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + "T"
            + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2) + "Z"
    }

    public static func iso8601(seconds: UInt64) -> String? {
        guard let s = Int64(exactly: seconds) else { return nil }
        return iso8601(seconds: s)
    }

    /// The start of an interval number (seconds since the epoch / 600).
    public static func iso8601(interval: Int32) -> String? {
        iso8601(seconds: Int64(interval) * intervalSeconds)
    }

    /// "2020-05-20": the UTC day that holds `seconds`, or nil outside years 0...9999.
    public static func day(seconds: Int64) -> String? {
        iso8601(seconds: seconds).map { String($0.prefix(10)) }
    }

    /// The day as JSON: its "YYYY-MM-DD" text, or null.
    public static func dayJSON(_ seconds: Int64?) -> JSONValue {
        .string(seconds.flatMap { day(seconds: $0) })
    }

    /// The unix seconds of the UTC midnight starting "YYYY-MM-DD", nil when
    /// the text is not such a day (years 1970...9999).
    public static func midnight(ofDay text: String) -> Int64? {
        guard let (y, m, d) = civil(ofDay: text), y >= 1970 else { return nil }
        return days(fromCivil: y, m, d) * UnixTime.day
    }

    /// The unix seconds of "YYYY-MM-DDTHH:MM:SSZ" (what iso8601 writes), or
    /// of "YYYY-MM-DD" (its midnight); nil for anything else or before 1970.
    public static func seconds(ofISO8601 text: String) -> Int64? {
        if text.utf8.count == 10 { return midnight(ofDay: text) }
        let chars = Array(text)
        guard chars.count == 20, chars[10] == "T", chars[13] == ":", chars[16] == ":", chars[19] == "Z",
              let midnight = midnight(ofDay: String(chars[0 ..< 10])),
              let h = Int64(String(chars[11 ..< 13])), let m = Int64(String(chars[14 ..< 16])), let s = Int64(String(chars[17 ..< 19])),
              chars[11 ..< 19].allSatisfy({ $0 == ":" || ("0" ... "9").contains($0) }),
              h < 24, m < 60, s < 60 else { return nil }
        return midnight + h * 3600 + m * 60 + s
    }

    /// Year, month and day of "YYYY-MM-DD" (any year 0...9999), nil when the
    /// text is not a day of the calendar (2021-02-30 is not).
    public static func civil(ofDay text: String) -> (Int64, Int64, Int64)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy { ("0" ... "9").contains($0) } }),
              let y = Int64(parts[0]), let m = Int64(parts[1]), let d = Int64(parts[2]),
              (1 ... 12).contains(m), (1 ... 31).contains(d) else { return nil }
        // The day must come back as written.
        guard civil(fromDays: days(fromCivil: y, m, d)) == (y, m, d) else { return nil }
        return (y, m, d)
    }

    /// Days since 1970-01-01 of a (proleptic Gregorian) date (Howard
    /// Hinnant's days_from_civil).
    public static func days(fromCivil y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Year, month, day of a day count since 1970-01-01 (proleptic Gregorian;
    /// Howard Hinnant's civil_from_days).
    public static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
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
