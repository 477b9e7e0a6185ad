import EncoreCrypto
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

extension Store {
    /// Adds sightings in one transaction: all of them or, on any error, none.
    /// Sightings identical to stored ones are kept once. Returns how many
    /// were new.
    @discardableResult
    public func addSightings(_ sightings: [Sighting]) throws -> Int {
        try write { try $0.addSightings(sightings) }
    }

    /// The sightings table, in time order (then the order they were added).
    package static let sightingRows = TimeRangedTable(name: "sightings", columns: "time, rpi, aem, rssi, prev_scan, typical_rssi",
                                                          order: "time, rowid") { s in
        let aem = s.blob(2)
        guard let rpi = s.keyData(1), aem.count == 4 else {
            throw EncoreError(.storeCorrupt, "the store is damaged: an sighting row has a malformed RPI or AEM")
        }
        return Sighting(time: s.int64(0), rpi: rpi, aem: aem.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) },
                        rssi: Int8(clamping: s.int64(3)), typicalRSSI: s.optionalInt64(5).map { Int8(clamping: $0) },
                        previousScan: s.optionalInt64(4))
    }

    /// How many different RPIs were heard with from <= time <= through.
    public func distinctRPIs(from: Int64, through: Int64) throws -> Int {
        try withConnection { c in
            let s = try c.prepare("SELECT count(DISTINCT rpi) FROM sightings WHERE time >= ? AND time <= ?")
            s.bind(1, from).bind(2, through)
            return try s.one { Int($0.int64(0)) } ?? 0
        }
    }

    /// How many sightings have `from ≤ time < to`.
    public func countSightings(from: Int64 = .min, to: Int64 = .max) throws -> Int {
        try count(Self.sightingRows, from: from, to: to)
    }

    /// Sightings with `from ≤ time < to` in time order, skipping `offset`
    /// and returning at most `limit`.
    public func sightings(from: Int64 = .min, to: Int64 = .max, offset: Int = 0, limit: Int = .max) throws -> [Sighting] {
        try rows(Self.sightingRows, from: from, to: to, offset: offset, limit: limit)
    }

    /// The newest sighting's rowid (0 with none): a sighting added later
    /// has a larger one as long as rowids are not reused, which the check's
    /// purge sees to (its kept matches' watermarks; see KeptMatches).
    public func sightingWatermark() throws -> Int64 {
        try withConnection { try $0.scalar("SELECT ifnull(max(rowid), 0) FROM sightings") ?? 0 }
    }

    /// The sightings added after the one with rowid `watermark`, with
    /// `from ≤ time`, in time order.
    public func sightings(after watermark: Int64, from: Int64 = .min) throws -> [Sighting] {
        try withConnection { c in
            let s = try c.prepare("SELECT \(Self.sightingRows.columns) FROM sightings WHERE rowid > ? AND time >= ? ORDER BY \(Self.sightingRows.order)")
            s.bind(1, watermark).bind(2, from)
            defer { s.reset() }
            var out: [Sighting] = []
            while try s.step() { out.append(try Self.sightingRows.decode(s)) }
            return out
        }
    }

    /// Calls `body` with sightings in time order (the connection is held
    /// meanwhile: do not call the store from `body`).
    public func forEachSighting(from: Int64 = .min, to: Int64 = .max, offset: Int = 0, limit: Int = .max,
                                   _ body: (Sighting) throws -> Void) throws {
        try forEach(Self.sightingRows, from: from, to: to, offset: offset, limit: limit, body)
    }
}

extension Connection {
    /// The rowid of the newest sighting (0 when there is none): what a
    /// feature that remembers how far it read the sightings compares with
    /// (the check's kept matches, in its purge).
    public func newestSightingRowID() throws -> Int64 {
        try scalar("SELECT ifnull(max(rowid), 0) FROM sightings") ?? 0
    }
}

extension StoreWriter {
    /// Adds sightings (see Store.addSightings) as part of the writer's
    /// transaction. Returns how many were new.
    @discardableResult
    public func addSightings(_ sightings: [Sighting]) throws -> Int {
        for (i, o) in sightings.enumerated() where o.time < 0 || (o.previousScan ?? 0) < 0 {
            throw EncoreError(.invalidArgument, "sighting \(i): times must not be negative")
        }
        // typical_rssi NULL when it is the RSSI (one report): what the rows
        // from before it was kept mean too.
        let s = try connection.prepare("INSERT OR IGNORE INTO sightings (time, rpi, aem, rssi, prev_scan, typical_rssi) VALUES (?, ?, ?, ?, ?, ?)")
        var added = 0
        for o in sightings {
            s.reset()
            s.bind(1, o.time)
            _ = o.rpi.withUnsafeBytes { s.bind(2, blob: $0) }
            _ = withUnsafeBytes(of: o.aem) { s.bind(3, blob: $0) }
            s.bind(4, Int64(o.rssi))
            s.bind(5, o.previousScan)
            s.bind(6, o.typicalRSSI == o.rssi ? nil : Int64(o.typicalRSSI))
            try s.run()
            added += connection.changes
        }
        return added
    }
}
