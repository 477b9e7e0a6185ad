import CEncoreSQL
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// One stored risk calculation: when, the level, and the host's document
/// describing it (UTF-8 text, e.g. JSON).
public struct RiskResult: Equatable, Hashable, Sendable {
    /// The store's number for the result: increasing in the order added.
    public var id: Int64
    /// Unix seconds of the calculation.
    public var time: Int64
    public var level: Int32
    public var document: String
}

/// The result history: every risk calculation with its time, level and
/// summary, so that the last result can be read offline.
extension Store {
    /// Stores a result; returns its id. The document must not contain NUL.
    @discardableResult
    public func addRiskResult(time: Int64, level: Int32, document: String) throws -> Int64 {
        guard time >= 0 else { throw EncoreError(.invalidArgument, "risk result: the time must not be negative") }
        try StoreText.checkDocument(document, "risk result document")
        return try withConnection { c in
            let s = try c.prepare("INSERT INTO risk_results (time, level, document) VALUES (?, ?, ?)")
            s.bind(1, time).bind(2, Int64(level)).bind(3, text: document)
            try s.run()
            return enc_sql_last_insert_rowid(c.db)
        }
    }

    /// The newest result (latest time; the last added among equal times),
    /// nil when there is none.
    public func lastRiskResult() throws -> RiskResult? {
        try withConnection { c in
            let s = try c.prepare(Self.lastRiskResultQuery)
            return try s.one { try Store.riskResult($0) }
        }
    }

    /// The level of the newest result whose level is one of `levels`, nil
    /// when there is none.
    public func lastRiskLevel(among levels: [Int32]) throws -> Int32? {
        guard !levels.isEmpty else { return nil }
        return try withConnection { c in
            let s = try c.prepare(Self.lastRiskLevelQuery(levels: levels.count))
            for (i, level) in levels.enumerated() { s.bind(Int32(i + 1), Int64(level)) }
            return try s.one { Int32(clamping: $0.int64(0)) }
        }
    }

    /// The newest result's query: the index's last entry, then its row.
    package static let lastRiskResultQuery = "SELECT id, time, level, document FROM risk_results ORDER BY time DESC, id DESC LIMIT 1"

    /// The query of lastRiskLevel, for `levels` levels: answered from the
    /// index on (time, id, level) without reading a result's row.
    package static func lastRiskLevelQuery(levels: Int) -> String {
        let marks = Array(repeating: "?", count: levels).joined(separator: ", ")
        return "SELECT level FROM risk_results WHERE level IN (\(marks)) ORDER BY time DESC, id DESC LIMIT 1"
    }

    /// The result with `id`, nil when there is none (or it was purged).
    public func riskResult(id: Int64) throws -> RiskResult? {
        try withConnection { c in
            let s = try c.prepare("SELECT id, time, level, document FROM risk_results WHERE id = ?")
            s.bind(1, id)
            return try s.one { try Store.riskResult($0) }
        }
    }

    /// The risk_results table, oldest first (by time, then id).
    package static let riskResultRows = TimeRangedTable(name: "risk_results", columns: "id, time, level, document", order: "time, id") {
        try Store.riskResult($0)
    }

    /// How many results have `from ≤ time < to`.
    public func countRiskResults(from: Int64 = .min, to: Int64 = .max) throws -> Int {
        try count(Self.riskResultRows, from: from, to: to)
    }

    /// Results with `from ≤ time < to`, oldest first (by time, then id),
    /// skipping `offset` and returning at most `limit`.
    public func riskResults(from: Int64 = .min, to: Int64 = .max, offset: Int = 0, limit: Int = .max) throws -> [RiskResult] {
        try rows(Self.riskResultRows, from: from, to: to, offset: offset, limit: limit)
    }

    /// Calls `body` with the results of riskResults(from:to:) (the
    /// connection is held meanwhile: do not call the store from `body`).
    public func forEachRiskResult(from: Int64 = .min, to: Int64 = .max, offset: Int = 0, limit: Int = .max,
                                  _ body: (RiskResult) throws -> Void) throws {
        try forEach(Self.riskResultRows, from: from, to: to, offset: offset, limit: limit, body)
    }

    private static func riskResult(_ s: Statement) throws -> RiskResult {
        guard let level = Int32(exactly: s.int64(2)) else {
            throw EncoreError(.storeCorrupt, "the store is damaged: a risk result row has a level outside 32 bits")
        }
        return RiskResult(id: s.int64(0), time: s.int64(1), level: level, document: s.text(3) ?? "")
    }
}
