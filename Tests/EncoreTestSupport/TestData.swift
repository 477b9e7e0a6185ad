import EncoreCheckIns
import EncoreExposure
import EncoreFixtures
import EncoreKeyFiles
import EncoreSupport
import EncoreWire

/// Locates the shared test data (Tests/data) from this file's path, so the
/// Swift, C and Python tests read the same files.
package enum TestData {
    package static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(2) // EncoreTestSupport/TestData.swift
        return parts.joined(separator: "/") + "/data"
    }()

    package static func path(_ relative: String) -> String { root + "/" + relative }

    package static func bytes(_ relative: String) throws -> [UInt8] {
        let owned = try FileReader.read(path: path(relative), maxSize: 1 << 30)
        return owned.bytes
    }

    /// A trust list with the published keys of the signed samples.
    package static func sampleTrust() throws -> TrustList {
        let trust = TrustList()
        try trust.add(id: "310", version: "v1", material: bytes("exports/google-sample/public_310-v1.pem"))
        try trust.add(id: "some_id", version: "1", material: bytes("exports/en-server/public.pem"))
        return trust
    }
}
