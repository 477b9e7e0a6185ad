import EncorePush
import EncoreStorage
import EncoreSupport
import NIOPosix

/// The registry in one SQLCipher file (the default): the project's
/// encrypted database layer with the registry's own schema (never the
/// client's). SQLite calls block, so they run on NIO's thread pool, one at
/// a time on the one connection; several processes on one file (serve and
/// send) wait for each other's locks up to the busy timeout.
public final class SQLCipherRegistry: RegistryStore {
    /// Forward-only migrations of the registry's schema (user_version).
    static let migrations = [
        """
        CREATE TABLE registrations (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            instance_hash BLOB NOT NULL UNIQUE CHECK (length(instance_hash) = 32),
            push_token TEXT NOT NULL UNIQUE CHECK (length(push_token) BETWEEN 1 AND 4096),
            push_type TEXT NOT NULL CHECK (push_type IN ('ios', 'ios-sandbox', 'android')),
            registered_at INTEGER NOT NULL,
            renewed_at INTEGER NOT NULL,
            last_push_at INTEGER,
            last_outcome TEXT,
            lease_owner TEXT,
            lease_until INTEGER
        );
        CREATE INDEX registrations_renewed ON registrations (renewed_at);
        """,
        // APNs tokens in canonical form (lower-case hex): of case copies
        // registered before, the oldest row keeps the token.
        """
        DELETE FROM registrations WHERE push_type IN ('ios', 'ios-sandbox') AND EXISTS (
            SELECT 1 FROM registrations AS older
            WHERE lower(older.push_token) = lower(registrations.push_token) AND older.id < registrations.id);
        UPDATE registrations SET push_token = lower(push_token) WHERE push_type IN ('ios', 'ios-sandbox');
        """,
    ]

    private let database: EncryptedDatabase
    private let pool: NIOThreadPool

    public init(path: String, key: StoreKey, pool: NIOThreadPool = .singleton) throws {
        database = try EncryptedDatabase(path: path, key: key, options: StoreOptions(busyTimeoutMilliseconds: 10_000),
                                         migrations: Self.migrations, kind: "push registry")
        self.pool = pool
    }

    private func run<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let database = self.database
        return try await pool.runIfActive { try database.withConnection(body) }
    }

    private static let columns = "id, instance_hash, push_token, push_type, registered_at, renewed_at"

    private static func row(_ s: Statement) -> StoredRegistration? {
        guard let hash = InstanceTokenHash(stored: s.blob(1)), let token = s.text(2),
              let type = s.text(3).flatMap(PushType.init(rawValue:)) else { return nil }
        return StoredRegistration(id: s.int64(0), instanceHash: hash, pushToken: token, pushType: type,
                                  registeredAt: s.int64(4), renewedAt: s.int64(5))
    }

    public func apply(_ registration: PushRegistration, now: Int64) async throws -> RegistrationPlan {
        let hash = InstanceTokenHash(token: registration.instanceToken)
        return try await run { c in
            try c.transaction {
                let own = try c.prepare("SELECT \(Self.columns) FROM registrations WHERE instance_hash = ?1")
                    .bind(1, blob: hash.bytes).one(Self.row) ?? nil
                var holder: StoredRegistration?
                if !registration.pushToken.isEmpty {
                    holder = try c.prepare("SELECT \(Self.columns) FROM registrations WHERE push_token = ?1")
                        .bind(1, text: registration.pushToken).one(Self.row) ?? nil
                }
                let plan = RegistrationRules.plan(requester: hash, pushToken: registration.pushToken, own: own, tokenHolder: holder)
                switch plan {
                case .insert:
                    try c.prepare("""
                        INSERT INTO registrations (instance_hash, push_token, push_type, registered_at, renewed_at)
                        VALUES (?1, ?2, ?3, ?4, ?4)
                        """).bind(1, blob: hash.bytes).bind(2, text: registration.pushToken)
                        .bind(3, text: registration.pushType.rawValue).bind(4, now).run()
                case .update(let id):
                    // A new token has not been pushed yet: its push record starts empty.
                    try c.prepare("""
                        UPDATE registrations SET
                            last_push_at = CASE WHEN push_token = ?1 THEN last_push_at END,
                            last_outcome = CASE WHEN push_token = ?1 THEN last_outcome END,
                            push_token = ?1, push_type = ?2, renewed_at = ?3
                        WHERE id = ?4
                        """).bind(1, text: registration.pushToken).bind(2, text: registration.pushType.rawValue)
                        .bind(3, now).bind(4, id).run()
                case .ignore:
                    // The holder's row is written back unchanged, so that a
                    // refused takeover costs what an insert costs (one
                    // committed write): its timing tells nothing either.
                    if let holder {
                        try c.prepare("UPDATE registrations SET renewed_at = renewed_at WHERE id = ?1").bind(1, holder.id).run()
                    }
                case .delete(let id):
                    try c.prepare("DELETE FROM registrations WHERE id = ?1").bind(1, id).run()
                case .none:
                    break
                }
                return plan
            }
        }
    }

    public func claim(_ r: ClaimRequest) async throws -> [DueToken] {
        try await run { c in
            try c.transaction {
                let s = try c.prepare("""
                    SELECT id, push_token, push_type FROM registrations
                    WHERE id > ?1 AND push_type IN ('ios', 'ios-sandbox')
                      AND (last_push_at IS NULL OR last_push_at < ?2)
                      AND renewed_at >= ?3
                      AND (lease_until IS NULL OR lease_until <= ?4)
                    ORDER BY id LIMIT ?5
                    """).bind(1, r.after).bind(2, r.pushedBefore).bind(3, r.renewedAfter).bind(4, r.now).bind(5, Int64(r.limit))
                var due: [DueToken] = []
                while try s.step() {
                    guard let token = s.text(1), let type = s.text(2).flatMap(PushType.init(rawValue:)) else { continue }
                    due.append(DueToken(id: s.int64(0), pushToken: token, pushType: type))
                }
                s.reset()
                let lease = try c.prepare("UPDATE registrations SET lease_owner = ?1, lease_until = ?2 WHERE id = ?3")
                for t in due {
                    try lease.bind(1, text: r.owner).bind(2, r.leaseUntil).bind(3, t.id).run()
                    lease.reset()
                }
                return due
            }
        }
    }

    public func finish(_ results: [PushResult], owner: String) async throws {
        guard !results.isEmpty else { return }
        try await run { c in
            try c.transaction {
                for r in results {
                    if r.action == .reject {
                        try c.prepare("DELETE FROM registrations WHERE id = ?1 AND push_token = ?2")
                            .bind(1, r.token.id).bind(2, text: r.token.pushToken).run()
                        continue
                    }
                    try c.prepare("""
                        UPDATE registrations SET
                            last_outcome = CASE WHEN push_token = ?2 THEN ?3 ELSE last_outcome END,
                            last_push_at = CASE WHEN ?4 AND push_token = ?2 THEN ?5 ELSE last_push_at END,
                            lease_owner = NULL, lease_until = NULL
                        WHERE id = ?1 AND lease_owner = ?6
                        """).bind(1, r.token.id).bind(2, text: r.token.pushToken).bind(3, text: r.outcome)
                        .bind(4, Int64(r.action == .pushed ? 1 : 0)).bind(5, r.at).bind(6, text: owner).run()
                }
            }
        }
    }

    public func expire(renewedBefore: Int64) async throws -> Int {
        try await run { c in
            try c.prepare("DELETE FROM registrations WHERE renewed_at < ?1").bind(1, renewedBefore).run()
            return c.changes
        }
    }

    public func countDue(pushedBefore: Int64, renewedAfter: Int64) async throws -> Int {
        try await run { c in
            Int(try c.prepare("""
                SELECT count(*) FROM registrations WHERE push_type IN ('ios', 'ios-sandbox')
                  AND (last_push_at IS NULL OR last_push_at < ?1) AND renewed_at >= ?2
                """).bind(1, pushedBefore).bind(2, renewedAfter).one { $0.int64(0) } ?? 0)
        }
    }

    public func ping() async throws {
        _ = try await run { c in try c.prepare("SELECT count(*) FROM sqlite_master").one { $0.int64(0) } }
    }

    public func close() async {}
}
