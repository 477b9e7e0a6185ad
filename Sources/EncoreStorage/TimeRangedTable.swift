import EncoreSupport

/// A table whose rows are read by a time range (`from ≤ time < to`), in a
/// fixed order, a page at a time: the one mechanism behind the sightings,
/// the tracing history and the risk results (and later tables of that
/// kind). Its SQL is built from trusted names only, never from input.
package struct TimeRangedTable<Row>: Sendable {
    /// The table's name.
    package let name: String
    /// The columns `decode` reads, in its order.
    package let columns: String
    /// ORDER BY: time first, then what makes the order total.
    package let order: String
    package let decode: @Sendable (Statement) throws -> Row

    package init(name: String, columns: String, order: String, decode: @escaping @Sendable (Statement) throws -> Row) {
        self.name = name
        self.columns = columns
        self.order = order
        self.decode = decode
    }

    /// How many rows have `from ≤ time < to`.
    package func count(_ c: Connection, from: Int64, to: Int64) throws -> Int {
        let s = try c.prepare("SELECT count(*) FROM \(name) WHERE time >= ? AND time < ?")
        s.bind(1, from).bind(2, to)
        return try s.one { Int($0.int64(0)) } ?? 0
    }

    /// Calls `body` with the rows of the range in order, skipping `offset`
    /// and at most `limit` of them (the statement is reset also when
    /// `body` throws mid-way).
    package func forEach(_ c: Connection, from: Int64, to: Int64, offset: Int, limit: Int, _ body: (Row) throws -> Void) throws {
        guard offset >= 0, limit >= 0 else { throw EncoreError(.invalidArgument, "offset and limit must not be negative") }
        let s = try c.prepare("SELECT \(columns) FROM \(name) WHERE time >= ? AND time < ? ORDER BY \(order) LIMIT ? OFFSET ?")
        s.bind(1, from).bind(2, to).bind(3, Int64(clamping: limit)).bind(4, Int64(offset))
        defer { s.reset() }
        while try s.step() { try body(try decode(s)) }
    }
}

extension Store {
    package func count<Row>(_ table: TimeRangedTable<Row>, from: Int64, to: Int64) throws -> Int {
        try withConnection { try table.count($0, from: from, to: to) }
    }

    /// Rows of a range (the connection is held meanwhile: do not call the
    /// store from `body`).
    package func forEach<Row>(_ table: TimeRangedTable<Row>, from: Int64, to: Int64, offset: Int, limit: Int,
                              _ body: (Row) throws -> Void) throws {
        try withConnection { try table.forEach($0, from: from, to: to, offset: offset, limit: limit, body) }
    }

    package func rows<Row>(_ table: TimeRangedTable<Row>, from: Int64, to: Int64, offset: Int, limit: Int) throws -> [Row] {
        var out: [Row] = []
        try forEach(table, from: from, to: to, offset: offset, limit: limit) { out.append($0) }
        return out
    }
}
