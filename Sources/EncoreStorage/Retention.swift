import EncoreSupport

extension Store {
    /// The retention period of the Exposure Notification system.
    public static let defaultRetentionSeconds: Int64 = 14 * 24 * 3600

    /// Deletes what is older than `now - maxAge` in one transaction (each
    /// feature's purge says what of its tables goes and what stays), then
    /// empties the WAL. secure_delete zeroes the freed bytes. Settings stay.
    @discardableResult
    public func purge(now: Int64, maxAge: Int64 = Store.defaultRetentionSeconds) throws -> PurgeCounts {
        guard maxAge >= 0 else { throw EncoreError(.invalidArgument, "the retention period must not be negative") }
        let (cutoff, overflow) = now.subtractingReportingOverflow(maxAge)
        guard !overflow else { throw EncoreError(.invalidArgument, "now - maxAge overflows") }
        let counts = try withConnection { c in
            try c.transaction { () -> PurgeCounts in
                var n = PurgeCounts()
                for f in tables {
                    for (name, rows) in try f.purge?(c, cutoff) ?? [] { n[name] += rows }
                }
                return n
            }
        }
        try checkpoint()
        return counts
    }
}

extension Connection {
    /// Runs `sql` with the cut-off bound as its one parameter; the rows it changed.
    public func purgeRows(_ sql: String, cutoff: Int64) throws -> Int {
        let s = try prepare(sql)
        _ = s.bind(1, cutoff)
        try s.run()
        return changes
    }
}
