import CEncoreProto
import CProtobufC
import EncoreCrowdNotifier
import EncoreCrypto
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// CWA's location types (TraceLocationType; CWALocationData.type) and
/// whether the app offers each as a permanent place or a temporary event.
public enum TraceLocationKind: Sendable, Equatable {
    case place, event

    /// 1–12 as CWA Android offers them; 0 (UNSPECIFIED) and others: nil.
    public init?(type: UInt32) {
        switch type {
        case 1, 3 ... 8: self = .place
        case 2, 9 ... 12: self = .event
        default: return nil
        }
    }

    /// The app's default length when the organizer gives none: places 120
    /// minutes, events 15 (CWA Android's TraceLocationCreateViewModel).
    public var defaultMinutes: UInt32 { self == .place ? 120 : 15 }
}

/// What an organizer enters for a new event or place.
public struct TraceLocationSpec: Sendable, Equatable {
    public var description: String
    public var address: String
    /// Unix seconds: both for an event, neither (0) for a place.
    public var startTimestamp: UInt64
    public var endTimestamp: UInt64
    /// CWA's TraceLocationType, 1–12.
    public var locationType: UInt32
    /// Minutes; nil: the app's default for the kind (places 120, events 15).
    public var defaultCheckInLengthMinutes: UInt32?

    public init(description: String, address: String, startTimestamp: UInt64 = 0, endTimestamp: UInt64 = 0, locationType: UInt32,
                defaultCheckInLengthMinutes: UInt32? = nil) {
        self.description = description
        self.address = address
        self.startTimestamp = startTimestamp
        self.endTimestamp = endTimestamp
        self.locationType = locationType
        self.defaultCheckInLengthMinutes = defaultCheckInLengthMinutes
    }
}

/// The organizer side (../shared/spec/checkins.md, "Organizer side"): the
/// QRCodePayload of a user's own event or place, as CWA's apps make it on
/// the phone (nothing is asked of a server, nothing signed). The result is
/// parsed back by the guests' parser, so what is created is exactly what a
/// guest's check-in reads, with the same location id.
public enum TraceLocationCreator {
    /// CWA's production presence-tracing public key (96 bytes), which the
    /// apps write into crowdNotifierData and no CWA computation uses.
    public static let cwaPublicKey: [UInt8] = Base64.decode(
        "gwLMzE153tQwAOf2MZoUXXfzWTdlSpfS99iZffmcmxOG9njSK4RTimFOFwDh6t0Tyw8XR01ugDYjtuKwjjuK49Oh83FWct6XpefPi9Skjxvvz53i9gaMmUEc96pbtoaA".utf8) ?? []

    /// The location of `spec` with a fresh random 16-byte seed (a new
    /// location every time, as the apps' "duplicate" makes one).
    public static func create(_ spec: TraceLocationSpec) throws -> TraceLocation {
        try CheckInQRCode.location(payload: payload(spec, seed: SecureRandom.bytes(CheckInLocationRules.seedBytes)))
    }

    /// The QRCodePayload bytes of `spec` with the given seed and key, after
    /// the organizer's rules (CWA Android's TraceLocationCreateViewModel):
    /// a type of 1–12; description and address not blank, at most 255
    /// characters, one line (kept as typed; checked untrimmed too, so that
    /// the guests' parser accepts them); an event has a start and a later
    /// end, a place neither; a default length of at most 1425 minutes, 0
    /// made 15 as the app's picker does. Standard proto3: zero values and
    /// empty strings left out.
    public static func payload(_ spec: TraceLocationSpec, seed: [UInt8], publicKey: [UInt8] = cwaPublicKey) throws -> [UInt8] {
        guard let kind = TraceLocationKind(type: spec.locationType) else {
            throw EncoreError(.locationInvalid, "the location type \(spec.locationType) is not one the app offers: 1-12 (1, 3-8 places; 2, 9-12 events)")
        }
        for (field, value) in [("description", spec.description), ("address", spec.address)] {
            guard value.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else {
                throw EncoreError(.locationInvalid, "the location's \(field) is blank; the app requires one")
            }
            try CheckInLocationRules.checkText(field, value, kind: .locationInvalid)
        }
        switch kind {
        case .event:
            guard spec.startTimestamp != 0, spec.endTimestamp != 0 else {
                throw EncoreError(.locationInvalid, "an event (type \(spec.locationType)) needs a start and an end")
            }
            guard spec.endTimestamp > spec.startTimestamp else {
                throw EncoreError(.locationInvalid, "the event's end (\(spec.endTimestamp)) is not after its start (\(spec.startTimestamp))")
            }
            try CheckInLocationRules.checkTimes(start: spec.startTimestamp, end: spec.endTimestamp, kind: .locationInvalid)
        case .place:
            guard spec.startTimestamp == 0, spec.endTimestamp == 0 else {
                throw EncoreError(.locationInvalid, "a place (type \(spec.locationType)) has no start or end; an event's types are 2 and 9-12")
            }
        }
        var minutes = spec.defaultCheckInLengthMinutes ?? kind.defaultMinutes
        if minutes == 0 { minutes = UInt32(CheckInLocationRules.minimumDefaultMinutes) }
        guard minutes <= CheckInLocationRules.maximumDefaultMinutes else {
            throw EncoreError(.locationInvalid, "the default check-in length of \(minutes) minutes is above the app's longest, \(CheckInLocationRules.maximumDefaultMinutes) (23:45 h)")
        }
        guard seed.count == CheckInLocationRules.seedBytes else {
            throw EncoreError(.invalidArgument, "the cryptographic seed has \(seed.count) bytes, not \(CheckInLocationRules.seedBytes)")
        }
        return try pack(spec, defaultMinutes: minutes, seed: seed, publicKey: publicKey)
    }

    private static func pack(_ spec: TraceLocationSpec, defaultMinutes: UInt32, seed: [UInt8], publicKey: [UInt8]) throws -> [UInt8] {
        var vendor = Cwapt__CWALocationData()
        cwapt__cwalocation_data__init(&vendor)
        vendor.version = 1
        vendor.type = spec.locationType
        vendor.defaultcheckinlengthinminutes = defaultMinutes
        var packed = [UInt8](repeating: 0, count: cwapt__cwalocation_data__get_packed_size(&vendor))
        let vendorLength = packed.withUnsafeMutableBufferPointer { cwapt__cwalocation_data__pack(&vendor, $0.baseAddress) }
        var vendorBytes = Array(packed.prefix(vendorLength))

        var description = Array(spec.description.utf8CString), address = Array(spec.address.utf8CString)
        var seedBytes = seed, key = publicKey
        return description.withUnsafeMutableBufferPointer { d in
            address.withUnsafeMutableBufferPointer { a in
                seedBytes.withUnsafeMutableBufferPointer { s in
                    key.withUnsafeMutableBufferPointer { k in
                        vendorBytes.withUnsafeMutableBufferPointer { v in
                            var location = Cwapt__TraceLocation()
                            cwapt__trace_location__init(&location)
                            location.version = 1
                            location.description = d.baseAddress
                            location.address = a.baseAddress
                            location.starttimestamp = spec.startTimestamp
                            location.endtimestamp = spec.endTimestamp
                            var cn = Cwapt__CrowdNotifierData()
                            cwapt__crowd_notifier_data__init(&cn)
                            cn.version = 1
                            cn.publickey = ProtobufCBinaryData(len: k.count, data: k.baseAddress)
                            cn.cryptographicseed = ProtobufCBinaryData(len: s.count, data: s.baseAddress)
                            var p = Cwapt__QRCodePayload()
                            cwapt__qrcode_payload__init(&p)
                            p.version = 1
                            p.vendordata = ProtobufCBinaryData(len: v.count, data: v.baseAddress)
                            return withUnsafeMutablePointer(to: &location) { l in
                                withUnsafeMutablePointer(to: &cn) { c in
                                    p.locationdata = l
                                    p.crowdnotifierdata = c
                                    var out = [UInt8](repeating: 0, count: cwapt__qrcode_payload__get_packed_size(&p))
                                    let n = out.withUnsafeMutableBufferPointer { cwapt__qrcode_payload__pack(&p, $0.baseAddress) }
                                    return Array(out.prefix(n))
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
