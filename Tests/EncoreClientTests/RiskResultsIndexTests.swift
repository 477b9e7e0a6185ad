import EncoreCheck
import EncoreClient
import EncoreStorage
import EncoreSupport
import EncoreTestSupport
import Testing

/// The notification rule reads the last LOW or HIGH result. A device that
/// checks every hour with tracing off piles up UNKNOWN results in front of
/// it; the check must find it in the index, not by reading each result.
@Suite struct RiskResultsIndexTests {
    static let key = StoreKey.raw([UInt8](repeating: 9, count: 32))

    @Test func theLastDefinitiveLevelBehindManyUnknownResults() throws {
        let dir = TempDir()
        let store = try Store(path: dir.file("s.db"), key: Self.key)
        let document = String(repeating: "x", count: 1000)
        _ = try store.addRiskResult(time: 1_000, level: CheckStatus.high.rawValue, document: document)
        _ = try store.addRiskResult(time: 2_000, level: CheckStatus.low.rawValue, document: document)
        for hour in 1 ... 300 {
            _ = try store.addRiskResult(time: 2_000 + Int64(hour) * 3600, level: CheckStatus.unknown.rawValue, document: document)
        }
        let definitive = [CheckStatus.low.rawValue, CheckStatus.high.rawValue]
        #expect(try store.lastRiskLevel(among: definitive) == CheckStatus.low.rawValue)
        #expect(try store.lastRiskLevel(among: [CheckStatus.high.rawValue]) == CheckStatus.high.rawValue)
        #expect(try store.lastRiskLevel(among: [CheckStatus.failed.rawValue]) == nil)

        #expect(try store.lastRiskResult()?.level == CheckStatus.unknown.rawValue)

        // SQLite's plans: the last LOW or HIGH from the index alone (no
        // row of risk_results read); the newest result the index's last
        // entry, nothing sorted.
        let levelPlan = try plan(store, Store.lastRiskLevelQuery(levels: definitive.count), binding: definitive)
        #expect(levelPlan.contains { $0.contains("COVERING INDEX risk_results_time_id_level") }, "plan: \(levelPlan)")
        #expect(!levelPlan.contains { $0.contains("TEMP B-TREE") }, "plan: \(levelPlan)")
        let newestPlan = try plan(store, Store.lastRiskResultQuery, binding: [])
        #expect(newestPlan.contains { $0.contains("INDEX risk_results_time_id_level") }, "plan: \(newestPlan)")
        #expect(!newestPlan.contains { $0.contains("TEMP B-TREE") }, "plan: \(newestPlan)")
    }

    /// The details of SQLite's query plan for `query`.
    func plan(_ store: Store, _ query: String, binding levels: [Int32]) throws -> [String] {
        try store.withConnection { c in
            let s = try c.prepare("EXPLAIN QUERY PLAN " + query)
            for (i, level) in levels.enumerated() { s.bind(Int32(i + 1), Int64(level)) }
            var details: [String] = []
            while try s.step() { details.append(s.text(3) ?? "") }
            return details
        }
    }
}
