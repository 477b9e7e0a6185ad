import EncoreKeyFiles
import EncoreStorage

/// Check-ins: CWA's and CrowdNotifier's visits in one list, the published
/// warnings that matched CWA locations, CrowdNotifier's hours and matches;
/// settings under "checkins." (the trace keys' bundle tag).
extension StoreTables {
    public static let checkIns = StoreTables(
        feature: "checkins",
        migrations: [
            Migration("""
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
            """, storeVersion: 3),
            // CrowdNotifier check-ins (SwissCovid, NotifyMe) in the same list
            // as CWA ones: a kind on check_ins (the row holds what the list
            // shows, as for CWA), and per visit hour the IBE ciphertext and
            // its day, as the SDKs keep them. The trace keys that matched,
            // once per (visit, identity) (CrowdNotifierVisitTables.swift).
            Migration("""
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
            """, storeVersion: 4),
            // Private CrowdNotifier check-ins (issue 41): the row keeps the
            // kind and the times only (the CHECK holds it to that); a
            // private visit's matches are keyed by a hash of the trace key,
            // not by the venue's hour identity (CrowdNotifierCheckIns.swift).
            Migration("""
            ALTER TABLE check_ins ADD COLUMN private INTEGER NOT NULL DEFAULT 0
                CHECK (private = 0 OR (private = 1 AND kind != 0 AND location_id = zeroblob(32) AND location_id_hash = zeroblob(32)
                                       AND length(payload) = 0 AND description = '' AND address = ''));
            """, storeVersion: 6),
            // Each feature writes only under its own prefixes (issue 47):
            // the trace keys' bundle tag, which check-ins store with their
            // matches, leaves the sync's names.
            .renamingSetting("sync.crowdnotifier.bundleTag", to: CheckInService.traceKeyBundleTagSetting),
        ],
        settingPrefixes: ["checkins."])
}
