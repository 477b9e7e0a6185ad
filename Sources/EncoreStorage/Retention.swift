import EncoreModel
import EncoreSupport

/// How many rows a purge removed, per kind of data.
public struct PurgeCounts: Equatable, Sendable {
    public var sightings = 0
    public var ownKeys = 0
    public var cachedKeyFiles = 0
    public var tracingEvents = 0
    public var riskResults = 0
    public init() {}
    public var total: Int { sightings + ownKeys + cachedKeyFiles + tracingEvents + riskResults }
}

extension Store {
    /// The retention period of the Exposure Notification system.
    public static let defaultRetentionSeconds: Int64 = 14 * 24 * 3600

    /// Deletes what is older than `now - maxAge` in one transaction, then
    /// empties the WAL. secure_delete zeroes the freed bytes. What is kept:
    /// settings; the newest risk result (the last result must stay
    /// readable offline); and the tracing state at the cut-off (an "on"
    /// event from before it is moved to the cut-off, so active time after
    /// the cut-off is still known).
    @discardableResult
    public func purge(now: Int64, maxAge: Int64 = Store.defaultRetentionSeconds) throws -> PurgeCounts {
        guard maxAge >= 0 else { throw EncoreError(.invalidArgument, "the retention period must not be negative") }
        let (cutoff, overflow) = now.subtractingReportingOverflow(maxAge)
        guard !overflow else { throw EncoreError(.invalidArgument, "now - maxAge overflows") }
        let counts = try withConnection { c in
            try c.transaction { () -> PurgeCounts in
                var n = PurgeCounts()
                func delete(_ sql: String, _ bind: (Statement) -> Void = { $0.bind(1, cutoff) }) throws -> Int {
                    let s = try c.prepare(sql)
                    bind(s)
                    try s.run()
                    return c.changes
                }
                n.sightings = try delete("DELETE FROM sightings WHERE time < ?")
                // A key's validity ends at (start + period) intervals of 600 s.
                n.ownKeys = try delete("DELETE FROM own_keys WHERE (rolling_start + rolling_period) * 600 <= ?")
                n.cachedKeyFiles = try delete("DELETE FROM key_files WHERE downloaded < ?")
                n.riskResults = try delete("DELETE FROM risk_results WHERE time < ? AND id <> (SELECT id FROM risk_results ORDER BY time DESC, id DESC LIMIT 1)")

                let last = try c.prepare("SELECT active FROM tracing_events WHERE time < ? ORDER BY time DESC, rowid DESC LIMIT 1")
                last.bind(1, cutoff)
                let wasActive = try last.one { $0.int64(0) == 1 } ?? false
                n.tracingEvents = try delete("DELETE FROM tracing_events WHERE time < ?")
                if wasActive {
                    let s = try c.prepare("INSERT INTO tracing_events (time, active) SELECT ?, 1 WHERE NOT EXISTS (SELECT 1 FROM tracing_events WHERE time = ?)")
                    s.bind(1, cutoff).bind(2, cutoff)
                    try s.run()
                }
                return n
            }
        }
        try checkpoint()
        return counts
    }
}
