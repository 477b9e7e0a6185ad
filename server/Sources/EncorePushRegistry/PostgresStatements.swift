import NIOCore
import PostgresNIO

/// The statements of a registration request, prepared once per connection:
/// PostgreSQL parses and plans them once, not on every request. Each is a
/// statement of its own (no BEGIN/COMMIT around them): a write checks in
/// its WHERE clause (or by a unique constraint) that the rows it was
/// planned on are unchanged, and says by the row it returns whether it
/// was carried out (PostgresRegistry.apply).
enum RegistrationStatements {
    /// The requester's row and the row that holds the token (one or two
    /// rows, or the same row twice over: one).
    struct Lookup: PostgresPreparedStatement {
        static let sql = """
            SELECT id, instance_hash, token_digest, push_type, registered_at, renewed_at FROM registrations
            WHERE instance_hash = $1 OR token_digest = $2
            """
        typealias Row = (Int64, String, ByteBuffer, String, Int64, Int64)
        var instanceHash: String
        var digest: ByteBuffer

        func makeBindings() throws -> PostgresBindings { bindings([instanceHash, digest]) }
        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// What an insert and an update write: the token, its type, the time.
    struct Token: Sendable {
        var digest: ByteBuffer
        var sealed: ByteBuffer
        var pushType: String
        var now: Int64

        var values: [any PostgresDynamicTypeEncodable] { [digest, sealed, pushType, now] }
    }

    /// A new row, unless a row holds the instance hash or the token digest
    /// by now (then no row is returned: the plan is stale).
    struct Insert: RegistrationWrite {
        static let sql = """
            INSERT INTO registrations (instance_hash, token_digest, token_sealed, push_type, registered_at, renewed_at)
            VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT DO NOTHING RETURNING id
            """
        var instanceHash: String
        var token: Token

        var values: [any PostgresDynamicTypeEncodable] { [instanceHash] + token.values }
    }

    /// The requester's row gets the token (its push history is kept only
    /// when the token is the same), unless the row is gone by now. Another
    /// row holding the token by now is a unique violation (retried).
    struct Update: RegistrationWrite {
        static let sql = """
            UPDATE registrations SET
                last_push_at = CASE WHEN token_digest = $2 THEN last_push_at END,
                last_outcome = CASE WHEN token_digest = $2 THEN last_outcome END,
                token_digest = $2, token_sealed = $3, push_type = $4, renewed_at = $5
            WHERE id = $1 RETURNING id
            """
        var id: Int64
        var token: Token

        var values: [any PostgresDynamicTypeEncodable] { [id] + token.values }
    }

    /// A refused takeover: the holder's row written back unchanged (so that
    /// it costs what an insert costs), if it still holds the token.
    struct Touch: RegistrationWrite {
        static let sql = "UPDATE registrations SET renewed_at = renewed_at WHERE id = $1 AND token_digest = $2 RETURNING id"
        var id: Int64
        var digest: ByteBuffer

        var values: [any PostgresDynamicTypeEncodable] { [id, digest] }
    }

    /// The requester's row deleted, if it is still there.
    struct Delete: RegistrationWrite {
        static let sql = "DELETE FROM registrations WHERE id = $1 RETURNING id"
        var id: Int64

        var values: [any PostgresDynamicTypeEncodable] { [id] }
    }

    static func bindings(_ values: [any PostgresDynamicTypeEncodable]) -> PostgresBindings {
        var b = PostgresBindings(capacity: values.count)
        for value in values { b.append(value) }
        return b
    }
}

/// A write that returns the id of the row it wrote: no row, not carried out.
protocol RegistrationWrite: PostgresPreparedStatement where Row == Int64 {
    var values: [any PostgresDynamicTypeEncodable] { get }
}

extension RegistrationWrite {
    func makeBindings() throws -> PostgresBindings { RegistrationStatements.bindings(values) }
    func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode(Int64.self) }
}
