import EncoreClient
import EncoreExposure
import EncoreStorage
import EncoreTestSupport
import Testing

/// Store.close(): the database is closed for every holder of the object;
/// their calls fail with .storeClosed, and the file opens again afterwards.
@Suite struct StoreCloseTests {
    @Test func closingFailsEveryLaterCallAndKeepsWhatWasCommitted() throws {
        let dir = TempDir()
        let path = dir.file("c.db")
        let store = try Store(path: path, key: .passphrase("secret"))
        #expect(try store.addSightings([sighting(1), sighting(2)]) == 2)
        store.close()
        #expect(kind { try store.countSightings() } == .storeClosed)
        #expect(kind { try store.setSetting("n", to: .integer(1)) } == .storeClosed)
        #expect(kind { try store.schemaVersion } == .storeClosed)
        store.close()  // again: nothing
        #expect(try Store(path: path, key: .passphrase("secret")).countSightings() == 2)
    }
}
