import EncorePush
import EncoreStorage
import EncoreSupport
import Logging
import NIOCore
import PostgresNIO

/// The registry in PostgreSQL, for deployments that outgrow one file:
/// several `serve` instances behind a load balancer write to one database,
/// and several senders share the work. Each registration request is a
/// look-up and one write that is carried out only on the rows as they were
/// looked up (`apply`); senders claim due rows with `FOR UPDATE SKIP LOCKED`
/// and a lease, so no token is claimed by two senders in one round.
///
/// Push tokens are not kept in clear (PostgreSQL's files are not
/// encrypted as the SQLCipher file is): each row holds the token sealed
/// (`token_sealed`) and its keyed digest (`token_digest`, 32 bytes), on
/// which lookups are made and uniqueness is kept (`TokenSealer`).
public final class PostgresRegistry: RegistryStore {
    public let client: PostgresClient
    private let runner: Task<Void, Never>
    private let logger: Logger
    private let sealer: TokenSealer

    static let schema = """
        CREATE TABLE IF NOT EXISTS registrations (
            id BIGSERIAL PRIMARY KEY,
            instance_hash TEXT NOT NULL UNIQUE CHECK (length(instance_hash) = 64),
            token_digest BYTEA NOT NULL UNIQUE CHECK (octet_length(token_digest) = 32),
            token_sealed BYTEA NOT NULL CHECK (octet_length(token_sealed) BETWEEN 29 AND 4124),
            push_type TEXT NOT NULL CHECK (push_type IN ('ios', 'ios-sandbox', 'android')),
            registered_at BIGINT NOT NULL,
            renewed_at BIGINT NOT NULL,
            last_push_at BIGINT,
            last_outcome TEXT,
            lease_owner TEXT,
            lease_until BIGINT
        );
        CREATE INDEX IF NOT EXISTS registrations_renewed ON registrations (renewed_at)
        """

    /// Connects (`postgres://user[:password]@host[:port]/database`, no TLS:
    /// meant for a database on loopback or a private network), creates
    /// the schema if it is missing and migrates a database of the first
    /// schema (push tokens in clear) to sealed tokens.
    public init(url: String, sealer: TokenSealer, maximumConnections: Int = 16,
                logger: Logger = Logger(label: "encore-pushd.postgres")) async throws {
        let target = try PostgresURL(url)
        var configuration = PostgresClient.Configuration(host: target.host, port: target.port, username: target.user,
                                                         password: target.password, database: target.database, tls: .disable)
        configuration.options.maximumConnections = max(1, maximumConnections)
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        self.sealer = sealer
        runner = Task { await client.run() }
        do {
            let migrated = try await client.withTransaction(logger: logger) { c in
                // Two instances starting together must not both create the table.
                try await c.query("SELECT pg_advisory_xact_lock(4242018)", logger: logger)
                let migrated = try await PostgresMigration.sealTokens(c, sealer: sealer, logger: logger)
                for statement in Self.schema.split(separator: ";") {
                    try await c.query(PostgresQuery(unsafeSQL: String(statement)), logger: logger)
                }
                return migrated
            }
            if migrated {
                // The old rows (tokens in clear) are dead tuples until the
                // table is rewritten; VACUUM cannot run in a transaction.
                try await client.query("VACUUM FULL registrations", logger: logger)
                try await client.query("CHECKPOINT", logger: logger)
            }
            // A key other than the one the rows were sealed with is refused
            // at start, not at the first push.
            try await checkKey()
        } catch let e as EncoreError {
            runner.cancel()
            throw e
        } catch {
            runner.cancel()
            throw EncoreError(.io, "cannot use the PostgreSQL database at \(target.redacted): \(String(reflecting: error).prefix(300))")
        }
    }

    private func checkKey() async throws {
        let rows = try await client.query("SELECT token_digest, token_sealed FROM registrations ORDER BY id LIMIT 1", logger: logger)
        for try await (digest, sealed) in rows.decode((ByteBuffer, ByteBuffer).self) {
            do {
                _ = try sealer.open(Array(buffer: sealed), digest: Array(buffer: digest))
            } catch {
                throw EncoreError(.storeWrongKey, "the registry's push tokens were sealed with another key: give the key file the database was made with")
            }
        }
    }

    public func ping() async throws {
        try await client.query("SELECT 1", logger: logger)
    }

    public func close() async {
        runner.cancel()
    }

    /// Stale plans, unique violations (two instances taking one token at
    /// once), serialisation failures and deadlocks are retried: the retry
    /// sees the other request's row and plans again.
    private func retrying<T>(_ body: () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await body()
            } catch {
                guard attempt < 8, Self.isRetryable(error) else { throw error }
                attempt += 1
                try await Task.sleep(for: .milliseconds(Int.random(in: 1 ... 5 * attempt)))
            }
        }
    }

    /// The SQLSTATE of a failure, also inside a transaction's error.
    static func isRetryable(_ error: any Error) -> Bool {
        if let t = error as? PostgresTransactionError {
            return [t.closureError, t.commitError, t.beginError].contains { $0.map(isRetryable) ?? false }
        }
        if error is StalePlan { return true }
        guard let e = error as? PSQLError, let state = e.serverInfo?[.sqlState] else { return false }
        return state == "23505" || state == "40001" || state == "40P01"
    }

    public func apply(_ registration: PushRegistration, now: Int64) async throws -> RegistrationPlan {
        let hash = InstanceTokenHash(token: registration.instanceToken)
        let hex = Hex.encode(hash.bytes)
        // The token is canonical already (RegistryRequests): its digest is
        // the one every spelling of it has.
        let token = registration.pushToken
        let digest = ByteBuffer(bytes: token.isEmpty ? [] : sealer.digest(token))
        let sealed = ByteBuffer(bytes: token.isEmpty ? [] : try sealer.seal(token, digest: Array(buffer: digest)))
        let stored = RegistrationStatements.Token(digest: digest, sealed: sealed, pushType: registration.pushType.rawValue, now: now)
        let logger = self.logger
        // Two round trips, each a statement of its own: the look-up, then
        // the plan's write, which is carried out only if the rows it was
        // planned on are unchanged (else the request is planned again).
        // A new registration and a refused takeover both cost a look-up and
        // a committed write.
        return try await retrying {
            try await client.withConnection { c in
                var own: StoredRegistration?, holder: StoredRegistration?
                let rows = try await c.execute(RegistrationStatements.Lookup(instanceHash: hex, digest: digest), logger: logger)
                for try await (id, h, d, ty, reg, ren) in rows {
                    guard let bytes = Hex.decode(h), let rowHash = InstanceTokenHash(stored: bytes), let rowType = PushType(rawValue: ty) else { continue }
                    // The rules compare tokens: a row holding this token's
                    // digest holds this token, any other row another one.
                    let sameToken = !token.isEmpty && d == digest
                    let row = StoredRegistration(id: id, instanceHash: rowHash, pushToken: sameToken ? token : "", pushType: rowType,
                                                 registeredAt: reg, renewedAt: ren)
                    if rowHash.matches(hash) { own = row }
                    if sameToken { holder = row }
                }
                let plan = RegistrationRules.plan(requester: hash, pushToken: token, own: own, tokenHolder: holder)
                let written: Int
                switch plan {
                case .insert:
                    written = try await Self.count(c.execute(RegistrationStatements.Insert(instanceHash: hex, token: stored), logger: logger))
                case .update(let id):
                    written = try await Self.count(c.execute(RegistrationStatements.Update(id: id, token: stored), logger: logger))
                case .ignore:
                    guard let holder else { return plan }
                    written = try await Self.count(c.execute(RegistrationStatements.Touch(id: holder.id, digest: digest), logger: logger))
                case .delete(let id):
                    written = try await Self.count(c.execute(RegistrationStatements.Delete(id: id), logger: logger))
                case .none:
                    return plan
                }
                guard written == 1 else { throw StalePlan() }
                return plan
            }
        }
    }

    /// A registration's write found the rows changed since its look-up
    /// (another request for the same instance or token came between).
    struct StalePlan: Error {}

    private static func count<S: AsyncSequence>(_ rows: S) async throws -> Int {
        var n = 0
        for try await _ in rows { n += 1 }
        return n
    }

    public func claim(_ r: ClaimRequest) async throws -> [DueToken] {
        let limit = Int64(r.limit)
        let rows = try await client.query("""
            UPDATE registrations AS r SET lease_owner = \(r.owner), lease_until = \(r.leaseUntil)
            FROM (SELECT id FROM registrations
                  WHERE id > \(r.after) AND push_type IN ('ios', 'ios-sandbox')
                    AND (last_push_at IS NULL OR last_push_at < \(r.pushedBefore))
                    AND renewed_at >= \(r.renewedAfter)
                    AND (lease_until IS NULL OR lease_until <= \(r.now))
                  ORDER BY id LIMIT \(limit)
                  FOR UPDATE SKIP LOCKED) AS due
            WHERE r.id = due.id
            RETURNING r.id, r.token_digest, r.token_sealed, r.push_type
            """, logger: logger)
        var due: [DueToken] = []
        for try await (id, digest, sealed, type) in rows.decode((Int64, ByteBuffer, ByteBuffer, String).self) {
            guard let t = PushType(rawValue: type) else { continue }
            due.append(DueToken(id: id, pushToken: try sealer.open(Array(buffer: sealed), digest: Array(buffer: digest)), pushType: t))
        }
        return due.sorted { $0.id < $1.id }
    }

    /// One statement for the whole batch (arrays of the results, one
    /// round trip): rejected tokens deleted if their row still holds them,
    /// the others' outcomes recorded and their leases released.
    public func finish(_ results: [PushResult], owner: String) async throws {
        guard !results.isEmpty else { return }
        var ids: [Int64] = [], digests: [ByteBuffer] = [], outcomes: [String] = [], pushed: [Bool] = [], at: [Int64] = [], reject: [Bool] = []
        for r in results {
            ids.append(r.token.id)
            digests.append(ByteBuffer(bytes: sealer.digest(r.token.pushToken)))
            outcomes.append(r.outcome)
            pushed.append(r.action == .pushed)
            at.append(r.at)
            reject.append(r.action == .reject)
        }
        try await client.query("""
            WITH f AS (SELECT * FROM unnest(\(ids)::int8[], \(digests)::bytea[], \(outcomes)::text[], \(pushed)::bool[],
                                            \(at)::int8[], \(reject)::bool[]) AS f(id, digest, outcome, pushed, at, reject)),
            gone AS (DELETE FROM registrations AS r USING f WHERE f.reject AND r.id = f.id AND r.token_digest = f.digest)
            UPDATE registrations AS r SET
                last_outcome = CASE WHEN r.token_digest = f.digest THEN f.outcome ELSE r.last_outcome END,
                last_push_at = CASE WHEN f.pushed AND r.token_digest = f.digest THEN f.at ELSE r.last_push_at END,
                lease_owner = NULL, lease_until = NULL
            FROM f WHERE NOT f.reject AND r.id = f.id AND r.lease_owner = \(owner)
            """, logger: logger)
    }

    public func expire(renewedBefore: Int64) async throws -> Int {
        let rows = try await client.query("WITH gone AS (DELETE FROM registrations WHERE renewed_at < \(renewedBefore) RETURNING 1) SELECT count(*) FROM gone", logger: logger)
        var n: Int64 = 0
        for try await (count,) in rows.decode((Int64,).self) { n = count }
        return Int(n)
    }

    public func countDue(pushedBefore: Int64, renewedAfter: Int64) async throws -> Int {
        let rows = try await client.query("""
            SELECT count(*) FROM registrations WHERE push_type IN ('ios', 'ios-sandbox')
              AND (last_push_at IS NULL OR last_push_at < \(pushedBefore)) AND renewed_at >= \(renewedAfter)
            """, logger: logger)
        var n: Int64 = 0
        for try await (count,) in rows.decode((Int64,).self) { n = count }
        return Int(n)
    }
}

/// `postgres://user[:password]@host[:port]/database` (or `postgresql://`).
public struct PostgresURL: Sendable, Equatable {
    public var user: String
    public var password: String?
    public var host: String
    public var port: Int
    public var database: String

    public init(_ url: String) throws {
        let bad = EncoreError(.invalidArgument, "a PostgreSQL URL is postgres://user[:password]@host[:port]/database")
        var rest: Substring
        if url.hasPrefix("postgres://") {
            rest = url.dropFirst("postgres://".count)
        } else if url.hasPrefix("postgresql://") {
            rest = url.dropFirst("postgresql://".count)
        } else {
            throw bad
        }
        guard let at = rest.lastIndex(of: "@") else { throw bad }
        let credentials = rest[..<at]
        rest = rest[rest.index(after: at)...]
        if let colon = credentials.firstIndex(of: ":") {
            user = Self.unescape(credentials[..<colon])
            password = Self.unescape(credentials[credentials.index(after: colon)...])
        } else {
            user = Self.unescape(credentials)
        }
        guard let slash = rest.firstIndex(of: "/") else { throw bad }
        let hostPort = rest[..<slash]
        database = String(rest[rest.index(after: slash)...].prefix { $0 != "?" })
        if let colon = hostPort.lastIndex(of: ":") {
            host = String(hostPort[..<colon])
            guard let p = Int(hostPort[hostPort.index(after: colon)...]), (1 ... 65535).contains(p) else { throw bad }
            port = p
        } else {
            host = String(hostPort)
            port = 5432
        }
        guard !user.isEmpty, !host.isEmpty, !database.isEmpty else { throw bad }
    }

    /// The URL without its password, for messages.
    public var redacted: String { "postgres://\(user)@\(host):\(port)/\(database)" }

    /// %XX escapes (a password may hold @ or :).
    static func unescape(_ s: Substring) -> String {
        var out: [UInt8] = []
        let u = Array(s.utf8)
        var i = 0
        while i < u.count {
            if u[i] == UInt8(ascii: "%"), i + 2 < u.count, let h = Hex.nibble(u[i + 1]), let l = Hex.nibble(u[i + 2]) {
                out.append(h << 4 | l)
                i += 3
            } else {
                out.append(u[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
