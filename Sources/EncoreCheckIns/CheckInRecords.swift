import EncoreCrowdNotifier
import EncoreKeyFiles
import EncoreRisk
import EncoreSupport

/// Which QR code a check-in came from (check_ins.kind, schema 4).
public enum CheckInKind: Int64, Sendable, CaseIterable {
    case cwa = 0, swissCovid = 1, notifyMe = 2

    public var name: String { self == .cwa ? "cwa" : self == .swissCovid ? "swisscovid" : "notifyme" }
}

/// A check-in: the location (its ids and the QR payload, kept for
/// display and for a later parse), the visit's times, and whether it was
/// submitted. Like every table, encrypted on disk.
///
/// A private check-in (CrowdNotifier only, `isPrivate`) keeps nothing of
/// its venue: its ids and payload are empty and its texts too, so that
/// the row holds its kind and times only (the hours' ciphertexts are in
/// crowdnotifier_hours); checking out or editing it needs the QR code again.
public struct CheckIn: Equatable, Sendable {
    public var id: Int64
    public var locationId: [UInt8]
    public var locationIdHash: [UInt8]
    public var payload: [UInt8]
    public var description: String
    public var address: String
    public var start: Int64
    /// nil while the user is checked in.
    public var end: Int64?
    /// When an open check-in closes by itself (start + the location's default length).
    public var autoEnd: Int64
    public var submitted: Bool
    public var created: Int64
    /// CWA, or a CrowdNotifier venue (whose hours are in crowdnotifier_hours).
    public var kind: CheckInKind
    /// Nothing of the venue kept (see above).
    public var isPrivate: Bool

    /// The end the visit has (or will have if the user never checks out).
    public var effectiveEnd: Int64 { end ?? autoEnd }

    public init(id: Int64 = 0, locationId: [UInt8], locationIdHash: [UInt8], payload: [UInt8], description: String, address: String,
                start: Int64, end: Int64?, autoEnd: Int64, submitted: Bool = false, created: Int64, kind: CheckInKind = .cwa,
                isPrivate: Bool = false) {
        self.id = id
        self.locationId = locationId
        self.locationIdHash = locationIdHash
        self.payload = payload
        self.description = description
        self.address = address
        self.start = start
        self.end = end
        self.autoEnd = autoEnd
        self.submitted = submitted
        self.created = created
        self.kind = kind
        self.isPrivate = isPrivate
    }

    /// A private CrowdNotifier check-in: its kind and times, nothing of the venue.
    public static func privateVisit(kind: CheckInKind, start: Int64, end: Int64?, autoEnd: Int64, created: Int64) -> CheckIn {
        CheckIn(locationId: [], locationIdHash: [], payload: [], description: "", address: "", start: start, end: end, autoEnd: autoEnd,
                created: created, kind: kind, isPrivate: true)
    }
}

extension CheckIn {
    /// When a check-in starting at `start` ends by itself, `length` later:
    /// CHECKIN_TIMES for a start whose end would be past Int64's (a host's
    /// clock, never a wrapped time).
    public static func automaticEnd(start: Int64, length: Int64) throws -> Int64 {
        let (end, overflow) = start.addingReportingOverflow(length)
        guard !overflow else { throw EncoreError(.checkInTimes, "the check-in's start (\(start)) is out of range") }
        return end
    }
}

/// A warning for one check-in: a trace warning package's entry that
/// names its location (the package's SHA-256 and the entry's place in it
/// identify it), with the warning's time and transmission risk. Times are
/// signed 32-bit in the package, as matching keeps them.
public struct CheckInWarning: Sendable, Equatable {
    public var checkIn: Int64
    public var package: [UInt8]
    public var item: Int64
    public var startInterval: UInt32
    public var period: UInt32
    public var transmissionRiskLevel: UInt32

    public init(checkIn: Int64, package: [UInt8] = [], item: Int64 = 0, startInterval: UInt32, period: UInt32, transmissionRiskLevel: UInt32) {
        self.checkIn = checkIn
        self.package = package
        self.item = item
        self.startInterval = startInterval
        self.period = period
        self.transmissionRiskLevel = transmissionRiskLevel
    }
}
