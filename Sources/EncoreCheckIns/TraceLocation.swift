import EncoreCrypto
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreWire

/// A place or event as its CWA QR code describes it (QRCodePayload,
/// ../shared/spec/checkins.md part 1), with the ids derived from the
/// payload's bytes exactly as scanned.
public struct TraceLocation: Sendable, Equatable {
    /// The QRCodePayload bytes as scanned: the location id is their hash,
    /// so they are kept as they are, never re-encoded.
    public var payload: [UInt8]
    public var version: UInt32
    public var description: String
    public var address: String
    /// Unix seconds; 0 for a permanent place.
    public var startTimestamp: UInt64
    public var endTimestamp: UInt64
    /// CWALocationData's type (CWA's TraceLocationType) and default length.
    public var locationType: UInt32
    public var defaultCheckInLengthMinutes: UInt32
    public var locationId: [UInt8]
    public var locationIdHash: [UInt8]

    /// What a CWA check-in at this location lasts when the user does not
    /// check out, in minutes: CWA's rule (CheckInLocationRules), 15 … 1425.
    public var defaultCheckInMinutes: Int64 {
        CheckInLocationRules.defaultCheckInMinutes(defaultLength: defaultCheckInLengthMinutes, start: startTimestamp, end: endTimestamp)
    }

    /// The same in seconds.
    public var defaultCheckInSeconds: Int64 { defaultCheckInMinutes * 60 }

    /// What a check-in at a CrowdNotifier venue (SwissCovid, NotifyMe)
    /// lasts without a check-out: the venue's automatic check-out delay;
    /// else until the validity's end when it lies ahead; else two hours.
    /// Never more than a day, never less than a minute. (CWA's locations
    /// follow CWA's rule instead: defaultCheckInMinutes.)
    public func crowdNotifierAutomaticLength(checkInAt start: Int64) -> Int64 {
        let length: Int64
        if defaultCheckInLengthMinutes > 0 {
            length = Int64(defaultCheckInLengthMinutes) * 60
        } else if endTimestamp > 0, let end = Int64(exactly: endTimestamp), end > start {
            length = end - start
        } else {
            length = 2 * 3600
        }
        return min(max(length, 60), 24 * 3600)
    }

    public var json: JSONValue {
        .object([
            ("description", .string(description)),
            ("address", .string(address)),
            ("startTimestamp", startTimestamp == 0 ? .null : .int(Int64(clamping: startTimestamp))),
            ("endTimestamp", endTimestamp == 0 ? .null : .int(Int64(clamping: endTimestamp))),
            ("locationType", .int(Int64(locationType))),
            ("defaultCheckInLengthInMinutes", defaultCheckInLengthMinutes == 0 ? .null : .int(Int64(defaultCheckInLengthMinutes))),
            ("locationId", .string(Hex.encode(locationId))),
            ("locationIdHash", .string(Hex.encode(locationIdHash))),
        ])
    }
}
