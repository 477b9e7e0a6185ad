import CEncoreSQL
import EncoreModel
import EncoreSupport

/// One hour of a CrowdNotifier visit: its day and the IBE ciphertext of the
/// visit record (c1 96 bytes, c2 32, c3 the box, a 24-byte nonce).
public struct StoredCrowdNotifierHour: Equatable, Sendable {
    public var checkIn: Int64
    public var day: Int64
    public var c1: [UInt8]
    public var c2: [UInt8]
    public var c3: [UInt8]
    public var nonce: [UInt8]

    public init(checkIn: Int64 = 0, day: Int64, c1: [UInt8], c2: [UInt8], c3: [UInt8], nonce: [UInt8]) {
        self.checkIn = checkIn
        self.day = day
        self.c1 = c1
        self.c2 = c2
        self.c3 = c3
        self.nonce = nonce
    }
}

/// A trace key that matched a visit (kept once per visit and identity).
public struct StoredCrowdNotifierExposure: Equatable, Sendable {
    public var checkIn: Int64
    public var identity: [UInt8]
    public var day: Int64
    public var arrival: Int64
    public var departure: Int64
    public var start: Int64
    public var end: Int64
    public var message: String
    public var criticality: Int64?
    public var created: Int64

    public init(checkIn: Int64, identity: [UInt8], day: Int64, arrival: Int64, departure: Int64, start: Int64, end: Int64,
                message: String, criticality: Int64?, created: Int64) {
        self.checkIn = checkIn
        self.identity = identity
        self.day = day
        self.arrival = arrival
        self.departure = departure
        self.start = start
        self.end = end
        self.message = message
        self.criticality = criticality
        self.created = created
    }
}

/// CrowdNotifier check-ins (schema 4): a check_ins row of kind SwissCovid
/// or NotifyMe with its hours, written together; the matched trace keys.
extension Store {
    static func checkHours(_ hours: [StoredCrowdNotifierHour]) throws {
        guard !hours.isEmpty else { throw EncoreError(.invalidArgument, "a CrowdNotifier check-in has at least one hour") }
        for h in hours where h.c1.count != 96 || h.c2.count != 32 || h.nonce.count != 24 {
            throw EncoreError(.invalidArgument, "a CrowdNotifier hour has c1 of 96 bytes, c2 of 32 and a nonce of 24")
        }
        for h in hours { try StoreText.checkBlob(h.c3.count, "CrowdNotifier ciphertext") }
    }

    static func insertHours(_ hours: [StoredCrowdNotifierHour], checkIn: Int64, _ db: Connection) throws {
        let s = try db.prepare("INSERT INTO crowdnotifier_hours (check_in, day, c1, c2, c3, nonce) VALUES (?, ?, ?, ?, ?, ?)")
        for h in hours {
            s.bind(1, checkIn).bind(2, h.day).bind(3, blob: h.c1).bind(4, blob: h.c2).bind(5, blob: h.c3).bind(6, blob: h.nonce)
            try s.run()
        }
    }

    /// Stores a CrowdNotifier check-in and its hours in one transaction; returns its id.
    @discardableResult
    public func addCrowdNotifierCheckIn(_ c: StoredCheckIn, hours: [StoredCrowdNotifierHour]) throws -> Int64 {
        guard c.kind != .cwa else { throw EncoreError(.invalidArgument, "a CWA check-in has no CrowdNotifier hours") }
        try Self.checkCheckIn(c)
        try Self.checkHours(hours)
        return try withConnection { db in
            try db.transaction {
                let id = try Self.insertCheckIn(c, db)
                try Self.insertHours(hours, checkIn: id, db)
                return id
            }
        }
    }

    /// Sets a CrowdNotifier check-in's times and replaces its hours (made
    /// for the new times) in one transaction; .notFound for an unknown id.
    public func updateCrowdNotifierCheckIn(id: Int64, start: Int64, end: Int64?, autoEnd: Int64, hours: [StoredCrowdNotifierHour]) throws {
        try Self.checkTimes(start: start, end: end, autoEnd: autoEnd)
        try Self.checkHours(hours)
        try withConnection { db in
            try db.transaction {
                try db.prepare("UPDATE check_ins SET start_time = ?, end_time = ?, auto_end_time = ? WHERE id = ? AND kind != 0")
                    .bind(1, start).bind(2, end).bind(3, autoEnd).bind(4, id).run()
                guard db.changes > 0 else { throw EncoreError(.notFound, "no CrowdNotifier check-in \(id)") }
                try db.prepare("DELETE FROM crowdnotifier_hours WHERE check_in = ?").bind(1, id).run()
                try Self.insertHours(hours, checkIn: id, db)
            }
        }
    }

    /// The hours of the visits on `days` (all days: nil), of check-ins not submitted.
    public func crowdNotifierHours(days: Set<Int64>? = nil) throws -> [StoredCrowdNotifierHour] {
        try withConnection { db in
            let s = try db.prepare("""
                SELECT h.check_in, h.day, h.c1, h.c2, h.c3, h.nonce FROM crowdnotifier_hours h JOIN check_ins c ON c.id = h.check_in
                WHERE c.submitted = 0 ORDER BY h.day, h.check_in
                """)
            defer { s.reset() }
            var out: [StoredCrowdNotifierHour] = []
            while try s.step() {
                let day = s.int64(1)
                if let days, !days.contains(day) { continue }
                out.append(StoredCrowdNotifierHour(checkIn: s.int64(0), day: day, c1: s.blob(2), c2: s.blob(3), c3: s.blob(4), nonce: s.blob(5)))
            }
            return out
        }
    }

    /// Stores matches; a (visit, identity) stored already is kept once.
    /// Returns the ones that were new: those to notify.
    public func addCrowdNotifierExposures(_ exposures: [StoredCrowdNotifierExposure]) throws -> [StoredCrowdNotifierExposure] {
        try withConnection { db in
            try db.transaction {
                var added: [StoredCrowdNotifierExposure] = []
                let s = try db.prepare("""
                    INSERT OR IGNORE INTO crowdnotifier_exposures
                        (check_in, identity, day, arrival, departure, start_time, end_time, message, criticality, created)
                    SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM check_ins WHERE id = ?)
                    """)
                for e in exposures {
                    try StoreText.checkDocument(e.message, "trace key message")
                    s.bind(1, e.checkIn).bind(2, blob: e.identity).bind(3, e.day).bind(4, e.arrival).bind(5, e.departure)
                    s.bind(6, e.start).bind(7, e.end).bind(8, text: e.message).bind(9, e.criticality).bind(10, e.created).bind(11, e.checkIn)
                    try s.run()
                    if db.changes > 0 { added.append(e) }
                }
                return added
            }
        }
    }

    /// Every stored match, newest day first.
    public func crowdNotifierExposures() throws -> [StoredCrowdNotifierExposure] {
        try withConnection { db in
            let s = try db.prepare("""
                SELECT e.check_in, e.identity, e.day, e.arrival, e.departure, e.start_time, e.end_time, e.message, e.criticality, e.created
                FROM crowdnotifier_exposures e JOIN check_ins c ON c.id = e.check_in WHERE c.submitted = 0
                ORDER BY e.day DESC, e.check_in, e.start_time
                """)
            defer { s.reset() }
            var out: [StoredCrowdNotifierExposure] = []
            while try s.step() {
                out.append(StoredCrowdNotifierExposure(checkIn: s.int64(0), identity: s.blob(1), day: s.int64(2), arrival: s.int64(3),
                                                       departure: s.int64(4), start: s.int64(5), end: s.int64(6), message: s.text(7) ?? "",
                                                       criticality: s.optionalInt64(8), created: s.int64(9)))
            }
            return out
        }
    }
}
