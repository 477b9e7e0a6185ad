import Foundation

/// A fresh store path in a temporary directory, removed with the directory.
package final class TempDir {
    package let path: String
    package init() {
        path = NSTemporaryDirectory() + "encore-test-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    package func file(_ name: String) -> String { path + "/" + name }
}
