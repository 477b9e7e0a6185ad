import CEncoreSQL
import EncoreCrowdNotifier
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport

/// Check-ins and their warnings (schema 3). Times are checked here as the
/// table's CHECKs would, so that a caller gets ENCORE_ERR_CHECKIN_TIMES
/// rather than a constraint failure.
extension Store {
    static let checkInColumns = """
        id, location_id, location_id_hash, payload, description, address, start_time, end_time, auto_end_time, submitted, created, kind, private
        """

    static func checkTimes(start: Int64, end: Int64?, autoEnd: Int64) throws {
        guard start >= 0 else { throw EncoreError(.checkInTimes, "a check-in cannot start before 1970 (\(start))") }
        if let end, end < start {
            throw EncoreError(.checkInTimes, "a check-in cannot end (\(UTCTime.iso8601(seconds: end) ?? "\(end)")) before it starts (\(UTCTime.iso8601(seconds: start) ?? "\(start)"))")
        }
        guard autoEnd >= start else { throw EncoreError(.checkInTimes, "a check-in's automatic end lies before its start") }
    }

    /// Stores a new check-in; returns its id.
    @discardableResult
    public func addCheckIn(_ c: CheckIn) throws -> Int64 {
        try Self.checkCheckIn(c)
        return try withConnection { db in try Self.insertCheckIn(c, db) }
    }

    static func checkCheckIn(_ c: CheckIn) throws {
        try Self.checkTimes(start: c.start, end: c.end, autoEnd: c.autoEnd)
        if c.isPrivate {
            // Nothing of the venue may reach the row (the table's CHECK says so too).
            guard c.kind != .cwa, c.locationId.isEmpty, c.locationIdHash.isEmpty, c.payload.isEmpty, c.description.isEmpty, c.address.isEmpty else {
                throw EncoreError(.invalidArgument, "a private check-in is a CrowdNotifier one and keeps nothing of its venue")
            }
            return
        }
        guard c.locationId.count == 32, c.locationIdHash.count == 32 else { throw EncoreError(.invalidArgument, "location ids are 32 bytes") }
        try StoreText.checkBlob(c.payload.count, "check-in payload")
        try StoreText.checkDocument(c.description, "check-in description")
        try StoreText.checkDocument(c.address, "check-in address")
    }

    static func insertCheckIn(_ c: CheckIn, _ db: Connection) throws -> Int64 {
        let s = try db.prepare("""
            INSERT INTO check_ins (location_id, location_id_hash, payload, description, address, start_time, end_time, auto_end_time, submitted, created, kind, private)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        // A private row's ids are zeros (the columns are 32 bytes), its payload empty.
        let zeros = [UInt8](repeating: 0, count: 32)
        s.bind(1, blob: c.isPrivate ? zeros : c.locationId).bind(2, blob: c.isPrivate ? zeros : c.locationIdHash).bind(3, blob: c.payload).bind(4, text: c.description)
        s.bind(5, text: c.address).bind(6, c.start).bind(7, c.end).bind(8, c.autoEnd).bind(9, Int64(c.submitted ? 1 : 0)).bind(10, c.created)
        s.bind(11, c.kind.rawValue).bind(12, Int64(c.isPrivate ? 1 : 0))
        try s.run()
        return enc_sql_last_insert_rowid(db.db)
    }

    public func checkIn(id: Int64) throws -> CheckIn? {
        try withConnection { db in
            let s = try db.prepare("SELECT \(Self.checkInColumns) FROM check_ins WHERE id = ?")
            s.bind(1, id)
            return try s.one { Self.checkIn($0) }
        }
    }

    /// Every check-in, oldest start first.
    public func checkIns() throws -> [CheckIn] {
        try withConnection { db in
            let s = try db.prepare("SELECT \(Self.checkInColumns) FROM check_ins ORDER BY start_time, id")
            defer { s.reset() }
            var out: [CheckIn] = []
            while try s.step() { out.append(Self.checkIn(s)) }
            return out
        }
    }

    /// Sets a check-in's times (nil end: checked in again); .notFound for an unknown id.
    public func updateCheckInTimes(id: Int64, start: Int64, end: Int64?) throws {
        try withConnection { db in
            try db.transaction {
                guard let c = try db.prepare("SELECT \(Self.checkInColumns) FROM check_ins WHERE id = ?").bind(1, id).one({ Self.checkIn($0) }) else {
                    throw EncoreError(.notFound, "no check-in \(id)")
                }
                // The automatic end keeps its length from the start.
                let autoEnd = try CheckIn.automaticEnd(start: start, length: c.autoEnd - c.start)
                try Self.checkTimes(start: start, end: end, autoEnd: autoEnd)
                let s = try db.prepare("UPDATE check_ins SET start_time = ?, end_time = ?, auto_end_time = ? WHERE id = ?")
                s.bind(1, start).bind(2, end).bind(3, autoEnd).bind(4, id)
                try s.run()
            }
        }
    }

    /// Deletes a check-in and its warnings; false when there was none.
    @discardableResult
    public func deleteCheckIn(id: Int64) throws -> Bool {
        try withConnection { db in
            try db.prepare("DELETE FROM check_ins WHERE id = ?").bind(1, id).run()
            return db.changes > 0
        }
    }

    /// Closes open check-ins whose automatic end has come; returns how many.
    @discardableResult
    public func closeExpiredCheckIns(now: Int64) throws -> Int {
        try withConnection { db in
            try db.prepare("UPDATE check_ins SET end_time = auto_end_time WHERE end_time IS NULL AND auto_end_time <= ?").bind(1, now).run()
            return db.changes
        }
    }

    /// Marks check-ins as submitted (their own warnings are then ignored).
    public func markCheckInsSubmitted(_ ids: [Int64]) throws {
        try withConnection { db in
            try db.transaction {
                for id in ids { try db.prepare("UPDATE check_ins SET submitted = 1 WHERE id = ?").bind(1, id).run() }
            }
        }
    }

    /// Deletes check-ins that ended before `now - maxAge` (and their
    /// warnings), then empties the WAL; secure_delete zeroes the bytes.
    @discardableResult
    public func purgeCheckIns(now: Int64, maxAge: Int64) throws -> Int {
        guard maxAge >= 0 else { throw EncoreError(.invalidArgument, "the retention period must not be negative") }
        let (cutoff, overflow) = now.subtractingReportingOverflow(maxAge)
        guard !overflow else { throw EncoreError(.invalidArgument, "now - maxAge overflows") }
        let n = try withConnection { db in
            try db.prepare("DELETE FROM check_ins WHERE ifnull(end_time, auto_end_time) < ?").bind(1, cutoff).run()
            return db.changes
        }
        if n > 0 { try checkpoint() }
        return n
    }

    /// Stores warnings (a warning stored already is kept once); returns how many were new.
    @discardableResult
    public func addCheckInWarnings(_ warnings: [CheckInWarning]) throws -> Int {
        try withConnection { db in
            try db.transaction {
                var added = 0
                let s = try db.prepare("""
                    INSERT OR IGNORE INTO check_in_warnings (check_in, package, item, start_interval, period, transmission_risk_level)
                    SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM check_ins WHERE id = ?)
                    """)
                for w in warnings {
                    s.bind(1, w.checkIn).bind(2, blob: w.package).bind(3, w.item).bind(4, Int64(w.startInterval)).bind(5, Int64(w.period))
                    s.bind(6, Int64(w.transmissionRiskLevel)).bind(7, w.checkIn)
                    try s.run()
                    added += db.changes
                }
                return added
            }
        }
    }

    /// Every stored warning of check-ins not submitted by this user.
    /// Rows whose times are not signed 32-bit (a start of −1, a period of
    /// 0) are no warnings and are left out.
    public func checkInWarnings() throws -> [CheckInWarning] {
        try withConnection { db in
            let s = try db.prepare("""
                SELECT w.check_in, w.package, w.item, w.start_interval, w.period, w.transmission_risk_level
                FROM check_in_warnings w JOIN check_ins c ON c.id = w.check_in WHERE c.submitted = 0 ORDER BY w.check_in, w.package, w.item
                """)
            defer { s.reset() }
            var out: [CheckInWarning] = []
            let signed32 = 0 ... Int64(Int32.max)
            while try s.step() {
                let (start, period, risk) = (s.int64(3), s.int64(4), s.int64(5))
                guard signed32.contains(start), signed32.contains(period), period > 0, let r = UInt32(exactly: risk) else { continue }
                out.append(CheckInWarning(checkIn: s.int64(0), package: s.blob(1), item: s.int64(2), startInterval: UInt32(start),
                                          period: UInt32(period), transmissionRiskLevel: r))
            }
            return out
        }
    }

    static func checkIn(_ s: Statement) -> CheckIn {
        let kind = CheckInKind(rawValue: s.int64(11)) ?? .cwa
        if s.int64(12) == 1 {
            var c = CheckIn.privateVisit(kind: kind, start: s.int64(6), end: s.optionalInt64(7), autoEnd: s.int64(8), created: s.int64(10))
            c.id = s.int64(0)
            c.submitted = s.int64(9) == 1
            return c
        }
        return CheckIn(id: s.int64(0), locationId: s.blob(1), locationIdHash: s.blob(2), payload: s.blob(3), description: s.text(4) ?? "",
                       address: s.text(5) ?? "", start: s.int64(6), end: s.optionalInt64(7), autoEnd: s.int64(8), submitted: s.int64(9) == 1,
                       created: s.int64(10), kind: kind)
    }
}

/// Check-ins' writes that land with another feature's in one transaction
/// (`Store.write`).
extension StoreWriter {
    /// Deletes the check-in warnings that came from one trace warning
    /// package (by the SHA-256 of its export.bin); returns how many.
    @discardableResult
    public func removeCheckInWarnings(package: [UInt8]) throws -> Int {
        try changes("DELETE FROM check_in_warnings WHERE package = ?") { $0.bind(1, blob: package) }
    }

    /// Keeps the CrowdNotifier trace keys' bundle tag (nil: forgets it, so
    /// that the next fetch takes everything).
    public func setTraceKeyBundleTag(_ tag: String?) throws {
        let name = CheckInService.traceKeyBundleTagSetting
        if let tag { try setSetting(name, to: .text(tag)) } else { try deleteSetting(name) }
    }
}
