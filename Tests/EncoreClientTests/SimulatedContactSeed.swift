import EncoreFixtures
import EncoreKeyFiles
import EncoreKeyFilesFixtures

/// A contact of the tests: the simulated world's, with deterministic keys.
extension SimulatedContact {
    package init(seed: Int, day: UInt32) {
        self.init(tek: Fixtures.key(seed).keyData, day: day)
    }
}
