import EncoreCheckIns
import EncoreExposure
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage

/// The exposure check's results.
extension StoreTables {
    public static let check = StoreTables(
        feature: "check",
        migrations: [
            Migration("""
            CREATE TABLE risk_results (
                id INTEGER PRIMARY KEY,
                time INTEGER NOT NULL,
                level INTEGER NOT NULL,
                document TEXT NOT NULL
            );
            CREATE INDEX risk_results_time ON risk_results (time);
            """, storeVersion: 1),
        ],
        // The newest result stays: the last result must stay readable offline.
        purge: { c, cutoff in
            [("riskResults", try c.purgeRows(
                "DELETE FROM risk_results WHERE time < ? AND id <> (SELECT id FROM risk_results ORDER BY time DESC, id DESC LIMIT 1)", cutoff: cutoff))]
        })
}
