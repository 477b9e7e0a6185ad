import EncoreStorage

/// The key file cache's table.
extension StoreTables {
    public static let keyFiles = StoreTables(
        feature: "keyfiles",
        migrations: [
            Migration("""
            CREATE TABLE key_packages (
                region TEXT NOT NULL,
                identifier TEXT NOT NULL,
                etag TEXT,
                sha256 BLOB NOT NULL CHECK (length(sha256) = 32),
                content BLOB NOT NULL,
                downloaded INTEGER NOT NULL,
                PRIMARY KEY (region, identifier)
            );
            """, storeVersion: 1),
            // One vocabulary (issue 39): a cached key file, not a key package.
            Migration("ALTER TABLE key_packages RENAME TO key_files;"),
            // The newest download (every check asks) and the purge's cut-off
            // from an index: `downloaded` follows the content in the row, and
            // reading it walked each file's overflow pages (issue 49).
            Migration("CREATE INDEX key_files_downloaded ON key_files (downloaded);"),
        ],
        purge: { c, cutoff in [("keyFiles", try c.purgeRows("DELETE FROM key_files WHERE downloaded < ?", cutoff: cutoff))] })
}
