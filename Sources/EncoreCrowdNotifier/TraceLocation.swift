import EncoreCrypto
import EncoreSupport

/// A place or event as its QR code describes it: the TraceLocation of a
/// QRCodePayload, the shape CWA's event codes took from CrowdNotifier's
/// (../shared/spec/checkins.md parts 1 and 2), with the ids derived from
/// the payload's bytes exactly as scanned. Both kinds of visit are kept by
/// this id in one check-in list (EncoreCheckIns), and CWA's rules for a
/// location are there too (defaultCheckInMinutes).
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

    /// The ids are derived from `payload`.
    public init(payload: [UInt8], version: UInt32, description: String, address: String, startTimestamp: UInt64, endTimestamp: UInt64,
                locationType: UInt32, defaultCheckInLengthMinutes: UInt32) {
        self.payload = payload
        self.version = version
        self.description = description
        self.address = address
        self.startTimestamp = startTimestamp
        self.endTimestamp = endTimestamp
        self.locationType = locationType
        self.defaultCheckInLengthMinutes = defaultCheckInLengthMinutes
        locationId = Self.locationId(payload: payload)
        locationIdHash = Self.locationIdHash(locationId)
    }

    /// SHA-256("CWA-GUID" ‖ the QRCodePayload bytes as scanned).
    public static func locationId(payload: [UInt8]) -> [UInt8] { Digest.sha256(Array("CWA-GUID".utf8), payload) }

    public static func locationIdHash(_ locationId: [UInt8]) -> [UInt8] { Digest.sha256(locationId) }

    /// What a check-in at a CrowdNotifier venue (SwissCovid, NotifyMe)
    /// lasts without a check-out: the venue's automatic check-out delay;
    /// else until the validity's end when it lies ahead; else two hours.
    /// Never more than a day, never less than a minute. (CWA's locations
    /// follow CWA's rule instead: defaultCheckInMinutes, in EncoreCheckIns.)
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

/// What a QR code can hold, for the parsers of both kinds of code.
public enum QRCodeLimits {
    /// A version 40 QR code holds at most 4296 characters; nothing longer is one.
    public static let maxTextBytes = 4296
    /// The base64 of the longest text holds at most this many bytes.
    public static let maxPayloadBytes = 3222
}
