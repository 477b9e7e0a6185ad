import EncoreModel
import EncoreSupport

/// The store's schema as forward-only migrations: migration i brings the
/// schema from version i to i + 1 (PRAGMA user_version). Never edit a
/// migration that has shipped; add a new one.
package enum Schema {
    package static let migrations: [String] = [
        // 1: everything the client keeps.
        """
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

        CREATE TABLE key_packages (
            region TEXT NOT NULL,
            identifier TEXT NOT NULL,
            etag TEXT,
            sha256 BLOB NOT NULL CHECK (length(sha256) = 32),
            content BLOB NOT NULL,
            downloaded INTEGER NOT NULL,
            PRIMARY KEY (region, identifier)
        );

        CREATE TABLE tracing_events (
            time INTEGER NOT NULL,
            active INTEGER NOT NULL CHECK (active IN (0, 1))
        );
        CREATE INDEX tracing_events_time ON tracing_events (time);

        CREATE TABLE risk_results (
            id INTEGER PRIMARY KEY,
            time INTEGER NOT NULL,
            level INTEGER NOT NULL,
            document TEXT NOT NULL
        );
        CREATE INDEX risk_results_time ON risk_results (time);

        -- Small typed values: the SQLite storage class is the type.
        CREATE TABLE settings (
            name TEXT PRIMARY KEY,
            value NOT NULL
        );
        """,
    ]

    package static var latestVersion: Int { migrations.count }
}
