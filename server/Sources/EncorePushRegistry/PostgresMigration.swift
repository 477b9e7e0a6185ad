import EncorePush
import EncoreSupport
import Logging
import NIOCore
import PostgresNIO

/// The migrations of the PostgreSQL schema, run under the start-up
/// advisory lock before the schema's `CREATE ... IF NOT EXISTS`.
enum PostgresMigration {
    /// The first schema kept push tokens in clear in a `push_token` column
    /// with a B-tree unique index (which refused tokens over 2704 bytes).
    /// Each token is put in canonical form (APNs: lower case), sealed and
    /// digested; of several rows with one canonical token (case copies
    /// made before canonical forms), the oldest keeps it and the others are
    /// deleted; a row whose token is not valid at all is deleted. Then the
    /// clear column goes. Returns whether anything was migrated (the caller
    /// rewrites the table so that the old row versions leave the data files).
    static func sealTokens(_ c: PostgresConnection, sealer: TokenSealer, logger: Logger) async throws -> Bool {
        let found = try await c.query("""
            SELECT count(*) FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = 'registrations' AND column_name = 'push_token'
            """, logger: logger)
        var old: Int64 = 0
        for try await (n,) in found.decode((Int64,).self) { old = n }
        guard old > 0 else { return false }
        try await c.query("ALTER TABLE registrations ADD COLUMN token_digest BYTEA, ADD COLUMN token_sealed BYTEA", logger: logger)
        // Read first (one connection cannot query while it streams rows);
        // a one-time step, bounded by the table's size.
        var rows: [(Int64, String, String)] = []
        let all = try await c.query("SELECT id, push_token, push_type FROM registrations ORDER BY id", logger: logger)
        for try await row in all.decode((Int64, String, String).self) { rows.append(row) }
        var seen = Set<[UInt8]>()
        var dropped = 0
        for (id, token, typeName) in rows {
            guard let type = PushType(rawValue: typeName), let canonical = try? PushRegistration.canonicalPushToken(token, type: type),
                  seen.insert(sealer.digest(canonical)).inserted else {
                try await c.query("DELETE FROM registrations WHERE id = \(id)", logger: logger)
                dropped += 1
                continue
            }
            let digest = sealer.digest(canonical)
            let sealed = try sealer.seal(canonical, digest: digest)
            try await c.query("""
                UPDATE registrations SET token_digest = \(ByteBuffer(bytes: digest)), token_sealed = \(ByteBuffer(bytes: sealed))
                WHERE id = \(id)
                """, logger: logger)
        }
        try await c.query("""
            ALTER TABLE registrations DROP COLUMN push_token,
                ALTER COLUMN token_digest SET NOT NULL, ALTER COLUMN token_sealed SET NOT NULL,
                ADD CONSTRAINT registrations_token_digest_key UNIQUE (token_digest),
                ADD CHECK (octet_length(token_digest) = 32),
                ADD CHECK (octet_length(token_sealed) BETWEEN 29 AND 4124)
            """, logger: logger)
        logger.notice("migrated the registry to sealed push tokens", metadata: ["rows": "\(rows.count)", "dropped": "\(dropped)"])
        return true
    }
}
