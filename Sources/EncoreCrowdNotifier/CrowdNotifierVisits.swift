import EncoreSupport

/// One hour of a visit, encrypted to that hour's identity under the
/// venue's public key: what the client keeps (with the day), never the
/// identity itself.
public struct CrowdNotifierCiphertext: Sendable, Equatable {
    /// g2^r (96 bytes).
    public var c1: [UInt8]
    /// x ⊕ SHA-256(e(H1(id), mpk)^r) (32 bytes).
    public var c2: [UInt8]
    /// secretbox(m, nonce, SHA-256(x)).
    public var c3: [UInt8]
    public var nonce: [UInt8]

    public init(c1: [UInt8], c2: [UInt8], c3: [UInt8], nonce: [UInt8]) {
        self.c1 = c1
        self.c2 = c2
        self.c3 = c3
        self.nonce = nonce
    }
}

/// One hour of a stored visit as the matching sees it.
public struct CrowdNotifierVisitHour: Sendable, Equatable {
    public var checkIn: Int64
    public var day: Int64
    public var ciphertext: CrowdNotifierCiphertext

    public init(checkIn: Int64, day: Int64, ciphertext: CrowdNotifierCiphertext) {
        self.checkIn = checkIn
        self.day = day
        self.ciphertext = ciphertext
    }
}

/// A trace key that opened one of the user's visits and overlaps it.
public struct CrowdNotifierExposure: Sendable, Equatable {
    public var checkIn: Int64
    public var identity: [UInt8]
    public var day: Int64
    public var arrival: Int64
    public var departure: Int64
    /// The published time of the problem (from the associated data, or
    /// the event itself in NotifyMe's layout).
    public var start: Int64
    public var end: Int64
    public var message: String
    public var criticality: UInt32?

    public init(checkIn: Int64, identity: [UInt8], day: Int64, arrival: Int64, departure: Int64, start: Int64, end: Int64,
                message: String, criticality: UInt32?) {
        self.checkIn = checkIn
        self.identity = identity
        self.day = day
        self.arrival = arrival
        self.departure = departure
        self.start = start
        self.end = end
        self.message = message
        self.criticality = criticality
    }

    public var json: JSONValue {
        .object([
            ("checkin", .int(checkIn)), ("identity", .string(Hex.encode(identity))), ("date", UTCTime.dayJSON(day)),
            ("arrival", .int(arrival)), ("departure", .int(departure)), ("start", .int(start)), ("end", .int(end)),
            ("message", .string(message)), ("criticality", criticality.map { .string($0 == 1 ? "HIGH" : $0 == 0 ? "LOW" : "\($0)") } ?? .null),
        ])
    }
}
