import EncoreExposure
import EncoreStorage

/// The exposure check's results.
extension StoreTables {
    public static let check = StoreTables(
        feature: "check",
        migrations: [
            Migration("""
            CREATE TABLE risk_results (
                id INTEGER PRIMARY KEY,
                time INTEGER NOT NULL,
                level INTEGER NOT NULL,
                document TEXT NOT NULL
            );
            CREATE INDEX risk_results_time ON risk_results (time);
            """, storeVersion: 1),
            // Kept matches (issue 49): what each cached key file matched,
            // so that a check matches only what is new (KeptMatches). A
            // file's rows go with the cached file (revoked, replaced,
            // purged: the foreign key), or when its SHA-256 or the
            // matching parameters' fingerprint no longer agree.
            Migration("""
            CREATE TABLE kept_files (
                id INTEGER PRIMARY KEY,
                region TEXT NOT NULL,
                identifier TEXT NOT NULL,
                sha256 BLOB NOT NULL CHECK (length(sha256) = 32),
                fingerprint TEXT NOT NULL,
                matched_through INTEGER NOT NULL,
                newest_end INTEGER,
                keys INTEGER NOT NULL,
                revised BLOB NOT NULL,
                UNIQUE (region, identifier),
                FOREIGN KEY (region, identifier) REFERENCES key_files (region, identifier) ON DELETE CASCADE
            );
            CREATE TABLE kept_matches (
                file INTEGER NOT NULL REFERENCES kept_files (id) ON DELETE CASCADE,
                seq INTEGER NOT NULL,
                list INTEGER NOT NULL CHECK (list IN (0, 1)),
                key BLOB NOT NULL,
                instances BLOB NOT NULL,
                range_start INTEGER NOT NULL,
                stale INTEGER NOT NULL DEFAULT 0 CHECK (stale IN (0, 1)),
                PRIMARY KEY (file, seq)
            );
            """),
            // The last LOW or HIGH result (ExposureCheck's notification
            // rule) read from the index alone: behind it a store can hold
            // hundreds of UNKNOWN or OUTDATED results (a device checking
            // hourly with tracing off), whose rows the time index alone
            // made every check read and decrypt. In the order the queries
            // ask for (time, then id), so that the newest result is still
            // the index's last entry and nothing is sorted.
            Migration("""
            DROP INDEX risk_results_time;
            CREATE INDEX risk_results_time_id_level ON risk_results (time, id, level);
            """),
        ],
        // The newest result stays: the last result must stay readable offline.
        // Kept matches go with their cached files (the foreign key); those
        // that may hold sightings the purge removed (exposure's purge runs
        // before this one) are matched again at the next check, and the
        // watermarks come down to the newest sighting left, so that a
        // rowid SQLite hands out again still counts as new.
        purge: { c, cutoff in
            let results = try c.purgeRows(
                "DELETE FROM risk_results WHERE time < ? AND id <> (SELECT id FROM risk_results ORDER BY time DESC, id DESC LIMIT 1)", cutoff: cutoff)
            _ = try c.purgeRows("UPDATE kept_matches SET stale = 1 WHERE range_start < ?", cutoff: cutoff)
            try c.prepare("UPDATE kept_files SET matched_through = min(matched_through, ?)").bind(1, try c.newestSightingRowID()).run()
            return [("riskResults", results)]
        })
}
