import EncoreKeyFiles
import Testing

/// ENF intervals, with the numbers of the published ENF v1.2 vectors
/// (Tests/data/enf/test_vectors_v1.2.json: a key made at 1585785600 has
/// rolling start 2642976).
@Suite struct ENIntervalTests {
    @Test func vectorsKeyGenerationTime() {
        #expect(ENInterval.number(unixSeconds: 1_585_785_600) == 2_642_976)
        #expect(ENInterval.dayStart(2_642_976 + 77) == 2_642_976)
    }
}
