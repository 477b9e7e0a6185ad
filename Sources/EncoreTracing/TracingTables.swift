import EncoreStorage

/// Tracing's tables: the tracing history (`tracing_events`, when tracing was
/// on and off), the sightings its cap dropped per day
/// (`tracing_dropped_sightings`), and its calibration and adapter in settings under
/// "tracing." (it reads exposure notification's sightings through
/// EncoreExposure).
extension StoreTables {
    public static let tracing = StoreTables(
        feature: "tracing",
        migrations: [
            // Tracing takes over the tracing history (issue 47). Exposure's
            // first step, shipped, made the table in every store it opened, and
            // runs before this one (StoreTables.all); a store opened with
            // tracing's tables alone gets it here. Either way the rows stay.
            Migration("""
                CREATE TABLE IF NOT EXISTS tracing_events (
                    time INTEGER NOT NULL,
                    active INTEGER NOT NULL CHECK (active IN (0, 1))
                );
                CREATE INDEX IF NOT EXISTS tracing_events_time ON tracing_events (time);
                """),
            // The sightings the cap dropped, per UTC day (issue 46; SightingCap).
            Migration("""
                CREATE TABLE tracing_dropped_sightings (
                    day INTEGER PRIMARY KEY,
                    sightings INTEGER NOT NULL CHECK (sightings >= 0)
                );
                """),
        ],
        settingPrefixes: ["tracing."],
        purge: { c, cutoff in
            // The tracing state at the cut-off is kept: an "on" event from
            // before it moves to the cut-off, so that active time after the
            // cut-off is still known.
            let last = try c.prepare("SELECT active FROM tracing_events WHERE time < ? ORDER BY time DESC, rowid DESC LIMIT 1")
            _ = last.bind(1, cutoff)
            let wasActive = try last.one { $0.int64(0) == 1 } ?? false
            let events = try c.purgeRows("DELETE FROM tracing_events WHERE time < ?", cutoff: cutoff)
            if wasActive {
                let s = try c.prepare("INSERT INTO tracing_events (time, active) SELECT ?, 1 WHERE NOT EXISTS (SELECT 1 FROM tracing_events WHERE time = ?)")
                _ = s.bind(1, cutoff).bind(2, cutoff)
                try s.run()
            }
            // A day's count goes with the day's last sightings (a few
            // rows, not a kind of its own in the purge's counts).
            _ = try c.purgeRows("DELETE FROM tracing_dropped_sightings WHERE day + 86400 <= ?", cutoff: cutoff)
            return [("tracingEvents", events)]
        })
}
