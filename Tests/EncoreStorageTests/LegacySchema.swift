import EncoreCheck
import EncoreCheckIns
import EncoreClient
import EncoreExposure
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport
import EncoreTestResults
import EncoreTestSupport

/// The store's schema as forward-only migrations: migration i brings the
/// schema from version i to i + 1 (PRAGMA user_version). Never edit a
/// migration that has shipped; add a new one.
/// The store-wide schema as encore wrote it before features had tables of
/// their own (versions 1 to 6, frozen): what the migration tests make old
/// stores with.
enum LegacySchema {
    static let migrations: [String] = [
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
        // 2: the registered lab test and its submission (one at a time).
        """
        CREATE TABLE test_registration (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            key_type TEXT NOT NULL CHECK (key_type IN ('GUID', 'TELETAN')),
            rapid INTEGER NOT NULL CHECK (rapid IN (0, 1)),
            registration_token TEXT NOT NULL,
            registered_at INTEGER NOT NULL,
            result INTEGER CHECK (result BETWEEN 0 AND 9),
            result_at INTEGER,
            sample_collected_at INTEGER,
            notified_result INTEGER,
            tan TEXT,
            tan_at INTEGER,
            submitted_at INTEGER,
            submitted_keys INTEGER
        );
        """,
        // 3: check-ins (CWA event registration) and the published warnings
        // that matched their locations (Sources/EncoreStorage/CheckIns.swift).
        """
        CREATE TABLE check_ins (
            id INTEGER PRIMARY KEY,
            location_id BLOB NOT NULL CHECK (length(location_id) = 32),
            location_id_hash BLOB NOT NULL CHECK (length(location_id_hash) = 32),
            payload BLOB NOT NULL,
            description TEXT NOT NULL,
            address TEXT NOT NULL,
            start_time INTEGER NOT NULL CHECK (start_time >= 0),
            end_time INTEGER CHECK (end_time >= start_time),
            auto_end_time INTEGER NOT NULL CHECK (auto_end_time >= start_time),
            submitted INTEGER NOT NULL DEFAULT 0 CHECK (submitted IN (0, 1)),
            created INTEGER NOT NULL
        );
        CREATE INDEX check_ins_location ON check_ins (location_id_hash);
        CREATE INDEX check_ins_start ON check_ins (start_time);

        -- A warning is identified by its package (SHA-256 of export.bin) and
        -- its place in it: matching a package again adds nothing.
        CREATE TABLE check_in_warnings (
            check_in INTEGER NOT NULL REFERENCES check_ins (id) ON DELETE CASCADE,
            package BLOB NOT NULL CHECK (length(package) = 32),
            item INTEGER NOT NULL,
            start_interval INTEGER NOT NULL CHECK (start_interval >= 0),
            period INTEGER NOT NULL CHECK (period > 0),
            transmission_risk_level INTEGER NOT NULL CHECK (transmission_risk_level BETWEEN 1 AND 8),
            PRIMARY KEY (check_in, package, item)
        ) WITHOUT ROWID;
        """,
        // 4: CrowdNotifier check-ins (SwissCovid, NotifyMe) in the same list
        // as CWA ones: a kind on check_ins (the row holds what the list
        // shows, as for CWA: the QR payload, location id, description and
        // address, readable by anyone with the store and its key), and per
        // visit hour the IBE ciphertext and its day, as the SDKs keep them.
        // No column holds an hour's identity, but for these (diary)
        // check-ins it is recomputed from the payload at rest (the identity
        // filter does so). The trace keys that matched, once per (visit,
        // identity) (Sources/EncoreStorage/CrowdNotifierCheckIns.swift).
        // Migration 6 adds private check-ins, which keep no payload.
        """
        ALTER TABLE check_ins ADD COLUMN kind INTEGER NOT NULL DEFAULT 0 CHECK (kind IN (0, 1, 2));

        CREATE TABLE crowdnotifier_hours (
            check_in INTEGER NOT NULL REFERENCES check_ins (id) ON DELETE CASCADE,
            day INTEGER NOT NULL,
            c1 BLOB NOT NULL CHECK (length(c1) = 96),
            c2 BLOB NOT NULL CHECK (length(c2) = 32),
            c3 BLOB NOT NULL,
            nonce BLOB NOT NULL CHECK (length(nonce) = 24)
        );
        CREATE INDEX crowdnotifier_hours_day ON crowdnotifier_hours (day);
        CREATE INDEX crowdnotifier_hours_check_in ON crowdnotifier_hours (check_in);

        CREATE TABLE crowdnotifier_exposures (
            check_in INTEGER NOT NULL REFERENCES check_ins (id) ON DELETE CASCADE,
            identity BLOB NOT NULL CHECK (length(identity) = 32),
            day INTEGER NOT NULL,
            arrival INTEGER NOT NULL,
            departure INTEGER NOT NULL,
            start_time INTEGER NOT NULL,
            end_time INTEGER NOT NULL,
            message TEXT NOT NULL,
            criticality INTEGER,
            created INTEGER NOT NULL,
            PRIMARY KEY (check_in, identity)
        ) WITHOUT ROWID;
        """,
        // 5: rapid tests (Sources/EncoreStorage/TestRegistrations.swift):
        // which kind of test a registration is ('pcr', 'rapid-antigen',
        // 'rapid-pcr'; NULL before: 'pcr' or, with rapid = 1, a rapid
        // antigen test by GUID) and the consent time its QR code carries
        // (a rapid antigen test's time until the server reports one).
        """
        ALTER TABLE test_registration ADD COLUMN test_kind TEXT CHECK (test_kind IN ('pcr', 'rapid-antigen', 'rapid-pcr'));
        ALTER TABLE test_registration ADD COLUMN code_timestamp INTEGER;
        """,
        // 6: private CrowdNotifier check-ins (issue 41): the row keeps the
        // kind and the times only (the ids all zeros, payload and texts
        // empty, which the CHECK holds the row to), the hours keep what the
        // SDKs keep (the day, c1, c2, c3, the nonce). A private visit's
        // matches keep times and the decrypted message; their `identity`
        // is then not the venue's hour identity (which anyone holding the
        // venue's QR code could compute) but SHA-256 of the trace key's
        // nonce and sealed data: the same for the same trace key, and not
        // computable from the venue (CrowdNotifierCheckIns.swift).
        """
        ALTER TABLE check_ins ADD COLUMN private INTEGER NOT NULL DEFAULT 0
            CHECK (private = 0 OR (private = 1 AND kind != 0 AND location_id = zeroblob(32) AND location_id_hash = zeroblob(32)
                                   AND length(payload) = 0 AND description = '' AND address = ''));
        """,
    ]

    static var latestVersion: Int { migrations.count }
}
