import EncoreModel
import EncoreSupport

extension Store {
    /// Adds sightings in one transaction: all of them or, on any error, none.
    /// Sightings identical to stored ones are kept once. Returns how many
    /// were new.
    @discardableResult
    public func addObservations(_ observations: [Observation]) throws -> Int {
        for (i, o) in observations.enumerated() where o.time < 0 || (o.previousScan ?? 0) < 0 {
            throw EncoreError(.invalidArgument, "observation \(i): times must not be negative")
        }
        return try withConnection { c in
            try c.transaction {
                let s = try c.prepare("INSERT OR IGNORE INTO observations (time, rpi, aem, rssi, prev_scan) VALUES (?, ?, ?, ?, ?)")
                var added = 0
                for o in observations {
                    s.reset()
                    s.bind(1, o.time)
                    _ = o.rpi.withUnsafeBytes { s.bind(2, blob: $0) }
                    _ = withUnsafeBytes(of: o.aem) { s.bind(3, blob: $0) }
                    s.bind(4, Int64(o.rssi))
                    s.bind(5, o.previousScan)
                    try s.run()
                    added += c.changes
                }
                return added
            }
        }
    }

    /// How many sightings have `from ≤ time < to`.
    public func countObservations(from: Int64 = .min, to: Int64 = .max) throws -> Int {
        try withConnection { c in
            let s = try c.prepare("SELECT count(*) FROM observations WHERE time >= ? AND time < ?")
            s.bind(1, from).bind(2, to)
            return try s.one { Int($0.int64(0)) } ?? 0
        }
    }

    /// Sightings with `from ≤ time < to` in time order, skipping `offset`
    /// and returning at most `limit`.
    public func observations(from: Int64 = .min, to: Int64 = .max, offset: Int = 0, limit: Int = .max) throws -> [Observation] {
        var out: [Observation] = []
        try forEachObservation(from: from, to: to, offset: offset, limit: limit) { out.append($0) }
        return out
    }

    /// Calls `body` with sightings in time order (the connection is held
    /// meanwhile: do not call the store from `body`).
    public func forEachObservation(from: Int64 = .min, to: Int64 = .max, offset: Int = 0, limit: Int = .max,
                                   _ body: (Observation) throws -> Void) throws {
        guard offset >= 0, limit >= 0 else { throw EncoreError(.invalidArgument, "offset and limit must not be negative") }
        try withConnection { c in
            let s = try c.prepare("""
                SELECT time, rpi, aem, rssi, prev_scan FROM observations
                WHERE time >= ? AND time < ? ORDER BY time, rowid LIMIT ? OFFSET ?
                """)
            s.bind(1, from).bind(2, to).bind(3, Int64(clamping: limit)).bind(4, Int64(offset))
            defer { s.reset() } // also when `body` throws mid-way
            while try s.step() {
                let aem = s.blob(2)
                guard let rpi = s.keyData(1), aem.count == 4 else {
                    throw EncoreError(.storeNotDatabase, "store: an observation row has a malformed RPI or AEM")
                }
                try body(Observation(time: s.int64(0), rpi: rpi, aem: aem.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) },
                                     rssi: Int8(clamping: s.int64(3)), previousScan: s.optionalInt64(4)))
            }
        }
    }
}
