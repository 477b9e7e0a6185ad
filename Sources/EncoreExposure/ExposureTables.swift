import EncoreStorage

/// Exposure notification's tables: sightings and own keys. Steps 1 of each
/// feature were the store-wide migration 1; its first step also made the
/// tracing history's table, which tracing's tables took over (issue 47:
/// shipped steps are never edited).
extension StoreTables {
    public static let exposure = StoreTables(
        feature: "exposure",
        migrations: [
            Migration("""
            CREATE TABLE observations (
                time INTEGER NOT NULL,
                rpi BLOB NOT NULL CHECK (length(rpi) = 16),
                aem BLOB NOT NULL CHECK (length(aem) = 4),
                rssi INTEGER NOT NULL,
                prev_scan INTEGER
            );
            -- Identical sightings are kept once (NULL prev_scan counts as one value);
            -- time leads, so the index also serves range queries.
            CREATE UNIQUE INDEX observations_identity
                ON observations (time, rpi, aem, rssi, ifnull(prev_scan, -9223372036854775808));

            CREATE TABLE own_keys (
                key_data BLOB PRIMARY KEY CHECK (length(key_data) = 16),
                rolling_start INTEGER NOT NULL,
                rolling_period INTEGER NOT NULL,
                created INTEGER NOT NULL
            );
            CREATE INDEX own_keys_start ON own_keys (rolling_start);

            CREATE TABLE tracing_events (
                time INTEGER NOT NULL,
                active INTEGER NOT NULL CHECK (active IN (0, 1))
            );
            CREATE INDEX tracing_events_time ON tracing_events (time);
            """, storeVersion: 1),
            // One vocabulary (issue 39): a sighting, not an observation.
            // SQLite renames a table in place; an index keeps its name, so
            // the one that says the old word is made again.
            Migration("""
                ALTER TABLE observations RENAME TO sightings;
                DROP INDEX observations_identity;
                CREATE UNIQUE INDEX sightings_identity
                    ON sightings (time, rpi, aem, rssi, ifnull(prev_scan, -9223372036854775808));
                """),
            // A scan instance's typical attenuation (issue 46): the mean RSSI
            // of the reports a sighting folds, beside `rssi`, the strongest.
            // NULL (every row from before, and a sighting of one report)
            // reads as `rssi`: typical = minimum attenuation, as before.
            Migration("ALTER TABLE sightings ADD COLUMN typical_rssi INTEGER;"),
        ],
        purge: { c, cutoff in
            let sightings = try c.purgeRows("DELETE FROM sightings WHERE time < ?", cutoff: cutoff)
            // A key's validity ends at (start + period) intervals of 600 s.
            let ownKeys = try c.purgeRows("DELETE FROM own_keys WHERE (rolling_start + rolling_period) * 600 <= ?", cutoff: cutoff)
            return [("sightings", sightings), ("ownKeys", ownKeys)]
        })
}
