import EncoreCrowdNotifier
import EncoreStorage
import EncoreSupport

/// What CWA Android's check-in QR handler accepts of a location
/// (../shared/spec/checkins.md, "What the app accepts"): the rules the
/// parser of scanned codes and the organizer's creator share. Each refusal
/// names the field and the rule it broke.
public enum CheckInLocationRules {
    /// Characters (UTF-16 units, as the apps count a String's length) of a
    /// description or an address. Codes of third parties such as Luca use
    /// them all; the proto comment's 100 is not enforced by the app.
    public static let maxTextLength = 255
    /// The bytes of cryptographicSeed.
    public static let seedBytes = 16

    /// A description or address: not empty, at most 255 characters, one line.
    public static func checkText(_ field: String, _ value: String, kind: EncoreError.Kind) throws {
        guard !value.isEmpty else { throw EncoreError(kind, "the location's \(field) is empty; the app requires one") }
        let length = value.utf16.count
        guard length <= maxTextLength else {
            throw EncoreError(kind, "the location's \(field) has \(length) characters; the app allows at most \(maxTextLength)")
        }
        // "\r\n" is one Character in Swift: look at the scalars.
        guard !value.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" }) else {
            throw EncoreError(kind, "the location's \(field) spans several lines; the app allows a single line")
        }
    }

    /// Start and end: both 0 (a permanent place) or start ≤ end; a start
    /// without an end is refused.
    public static func checkTimes(start: UInt64, end: UInt64, kind: EncoreError.Kind) throws {
        guard start <= UInt64(Int64.max), end <= UInt64(Int64.max) else {
            throw EncoreError(kind, "the location's startTimestamp (\(start)) or endTimestamp (\(end)) is out of range")
        }
        if start != 0 && end == 0 {
            throw EncoreError(kind, "the location has a startTimestamp (\(start)) but no endTimestamp; the app requires both or neither")
        }
        guard end == 0 || start <= end else {
            throw EncoreError(kind, "the location's endTimestamp (\(end)) is before its startTimestamp (\(start))")
        }
    }

    /// CWA's automatic check-out (Android's getDefaultAutoCheckoutLengthInMinutes):
    /// the location's default length when present, else the event's length
    /// (end − start); rounded to the nearest 15 minutes (half up) and clamped
    /// to 15 … 1425 (23:45 h); with neither, 15.
    public static let minimumDefaultMinutes: Int64 = 15
    public static let maximumDefaultMinutes: Int64 = 23 * 60 + 45

    public static func defaultCheckInMinutes(defaultLength: UInt32, start: UInt64, end: UInt64) -> Int64 {
        let seconds: Int64
        if defaultLength > 0 {
            seconds = Int64(defaultLength) * 60
        } else if start != 0, end != 0, end >= start, let s = Int64(exactly: start), let e = Int64(exactly: end) {
            seconds = e - s
        } else {
            return minimumDefaultMinutes
        }
        // Whole quarters, half up, in integers: (seconds + 450) / 900.
        let quarters = seconds / 900 + (seconds % 900 >= 450 ? 1 : 0)
        return min(max(quarters * 15, minimumDefaultMinutes), maximumDefaultMinutes)
    }
}

extension TraceLocation {
    /// What a CWA check-in at this location lasts when the user does not
    /// check out, in minutes: CWA's rule (CheckInLocationRules), 15 … 1425.
    public var defaultCheckInMinutes: Int64 {
        CheckInLocationRules.defaultCheckInMinutes(defaultLength: defaultCheckInLengthMinutes, start: startTimestamp, end: endTimestamp)
    }

    /// The same in seconds.
    public var defaultCheckInSeconds: Int64 { defaultCheckInMinutes * 60 }
}
