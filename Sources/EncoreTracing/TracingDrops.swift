import EncoreStorage

/// The sightings the cap dropped (SightingCap), counted per UTC day in
/// tracing's table `tracing_dropped_sightings` and kept as long as the
/// sightings would have been.
extension StoreWriter {
    /// Adds `count` to the sightings dropped on the UTC day starting at `day`.
    func addDroppedSightings(day: Int64, count: Int) throws {
        guard count > 0 else { return }
        // Two statements, not an upsert: the store's SQLite (SQLCipher's)
        // does not parse INSERT ... ON CONFLICT.
        let row = try connection.prepare("INSERT OR IGNORE INTO tracing_dropped_sightings (day, sightings) VALUES (?, 0)")
        row.bind(1, day)
        try row.run()
        let add = try connection.prepare("UPDATE tracing_dropped_sightings SET sightings = sightings + ? WHERE day = ?")
        add.bind(1, Int64(count)).bind(2, day)
        try add.run()
    }
}

/// One UTC day's count of sightings the cap dropped.
public struct DroppedSightings: Equatable, Sendable {
    /// Unix seconds of the day's UTC midnight.
    public var day: Int64
    public var sightings: Int
}

extension Store {
    /// The days with `from ≤ day < to` on which the cap dropped sightings,
    /// in day order.
    public func droppedSightings(from: Int64 = .min, to: Int64 = .max) throws -> [DroppedSightings] {
        try withConnection { c in
            let s = try c.prepare("SELECT day, sightings FROM tracing_dropped_sightings WHERE day >= ? AND day < ? ORDER BY day")
            s.bind(1, from).bind(2, to)
            defer { s.reset() }
            var out: [DroppedSightings] = []
            while try s.step() { out.append(DroppedSightings(day: s.int64(0), sightings: Int(clamping: s.int64(1)))) }
            return out
        }
    }
}
