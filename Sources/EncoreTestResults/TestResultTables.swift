import EncoreStorage

/// The registered test and its submission (one at a time).
extension StoreTables {
    public static let testResults = StoreTables(
        feature: "testresults",
        migrations: [
            Migration("""
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
            """, storeVersion: 2),
            // Rapid tests: which kind of test a registration is ('pcr',
            // 'rapid-antigen', 'rapid-pcr'; NULL before: 'pcr' or, with
            // rapid = 1, a rapid antigen test by GUID) and the consent time
            // its QR code carries.
            Migration("""
            ALTER TABLE test_registration ADD COLUMN test_kind TEXT CHECK (test_kind IN ('pcr', 'rapid-antigen', 'rapid-pcr'));
            ALTER TABLE test_registration ADD COLUMN code_timestamp INTEGER;
            """, storeVersion: 5),
        ])
}
