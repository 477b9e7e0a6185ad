import EncoreCrowdNotifier
import EncoreCrypto
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport

/// CrowdNotifier check-ins (schema 4): a check_ins row of kind SwissCovid
/// or NotifyMe with its hours, written together; the matched trace keys.
extension Store {
    static func checkHours(_ hours: [CrowdNotifierVisitHour]) throws {
        guard !hours.isEmpty else { throw EncoreError(.invalidArgument, "a CrowdNotifier check-in has at least one hour") }
        for h in hours.map(\.ciphertext) where h.c1.count != 96 || h.c2.count != 32 || h.nonce.count != 24 {
            throw EncoreError(.invalidArgument, "a CrowdNotifier hour has c1 of 96 bytes, c2 of 32 and a nonce of 24")
        }
        for h in hours { try StoreText.checkBlob(h.ciphertext.c3.count, "CrowdNotifier ciphertext") }
    }

    /// A visit's hours, under the check-in's id (whatever `checkIn` they carry).
    static func insertHours(_ hours: [CrowdNotifierVisitHour], checkIn: Int64, _ db: Connection) throws {
        let s = try db.prepare("INSERT INTO crowdnotifier_hours (check_in, day, c1, c2, c3, nonce) VALUES (?, ?, ?, ?, ?, ?)")
        for h in hours {
            let c = h.ciphertext
            s.bind(1, checkIn).bind(2, h.day).bind(3, blob: c.c1).bind(4, blob: c.c2).bind(5, blob: c.c3).bind(6, blob: c.nonce)
            try s.run()
        }
    }

    /// Stores a CrowdNotifier check-in and its hours in one transaction; returns its id.
    @discardableResult
    public func addCrowdNotifierCheckIn(_ c: CheckIn, hours: [CrowdNotifierVisitHour]) throws -> Int64 {
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
    public func updateCrowdNotifierCheckIn(id: Int64, start: Int64, end: Int64?, autoEnd: Int64, hours: [CrowdNotifierVisitHour]) throws {
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
    public func crowdNotifierHours(days: Set<Int64>? = nil) throws -> [CrowdNotifierVisitHour] {
        try withConnection { db in
            let s = try db.prepare("""
                SELECT h.check_in, h.day, h.c1, h.c2, h.c3, h.nonce FROM crowdnotifier_hours h JOIN check_ins c ON c.id = h.check_in
                WHERE c.submitted = 0 ORDER BY h.day, h.check_in
                """)
            defer { s.reset() }
            var out: [CrowdNotifierVisitHour] = []
            while try s.step() {
                let day = s.int64(1)
                if let days, !days.contains(day) { continue }
                out.append(CrowdNotifierVisitHour(checkIn: s.int64(0), day: day,
                                                  ciphertext: CrowdNotifierCiphertext(c1: s.blob(2), c2: s.blob(3), c3: s.blob(4), nonce: s.blob(5))))
            }
            return out
        }
    }

    /// The QR payloads of the check-ins that have CrowdNotifier hours and
    /// are not submitted (those crowdNotifierHours reads), by check-in id:
    /// one query for all. Private check-ins have none (their hours are
    /// paired with every key of their day).
    public func crowdNotifierPayloads() throws -> [Int64: [UInt8]] {
        try withConnection { db in
            let s = try db.prepare("""
                SELECT c.id, c.payload FROM check_ins c
                WHERE c.submitted = 0 AND c.private = 0 AND EXISTS (SELECT 1 FROM crowdnotifier_hours h WHERE h.check_in = c.id)
                """)
            defer { s.reset() }
            var out: [Int64: [UInt8]] = [:]
            while try s.step() { out[s.int64(0)] = s.blob(1) }
            return out
        }
    }

    /// Stores matches found at `created`; a (visit, identity) stored already
    /// is kept once. Returns the ones that were new: those to notify.
    public func addCrowdNotifierExposures(_ exposures: [CrowdNotifierExposure], created: Int64) throws -> [CrowdNotifierExposure] {
        try withConnection { db in
            try db.transaction {
                var added: [CrowdNotifierExposure] = []
                let s = try db.prepare("""
                    INSERT OR IGNORE INTO crowdnotifier_exposures
                        (check_in, identity, day, arrival, departure, start_time, end_time, message, criticality, created)
                    SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM check_ins WHERE id = ?)
                    """)
                for e in exposures {
                    try StoreText.checkDocument(e.message, "trace key message")
                    s.bind(1, e.checkIn).bind(2, blob: e.identity).bind(3, e.day).bind(4, e.arrival).bind(5, e.departure)
                    s.bind(6, e.start).bind(7, e.end).bind(8, text: e.message).bind(9, e.criticality.map(Int64.init)).bind(10, created).bind(11, e.checkIn)
                    try s.run()
                    if db.changes > 0 { added.append(e) }
                }
                return added
            }
        }
    }

    /// Every stored match, newest day first.
    public func crowdNotifierExposures() throws -> [CrowdNotifierExposure] {
        try withConnection { db in
            let s = try db.prepare("""
                SELECT e.check_in, e.identity, e.day, e.arrival, e.departure, e.start_time, e.end_time, e.message, e.criticality
                FROM crowdnotifier_exposures e JOIN check_ins c ON c.id = e.check_in WHERE c.submitted = 0
                ORDER BY e.day DESC, e.check_in, e.start_time
                """)
            defer { s.reset() }
            var out: [CrowdNotifierExposure] = []
            while try s.step() {
                out.append(CrowdNotifierExposure(checkIn: s.int64(0), identity: s.blob(1), day: s.int64(2), arrival: s.int64(3),
                                                 departure: s.int64(4), start: s.int64(5), end: s.int64(6), message: s.text(7) ?? "",
                                                 criticality: s.optionalInt64(8).flatMap { UInt32(exactly: $0) }))
            }
            return out
        }
    }
}
