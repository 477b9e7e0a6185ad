import EncoreSupport

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
}
