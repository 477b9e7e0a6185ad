#if canImport(Glibc)
import EncoreCommandSupport
import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport
import Glibc
#endif

/// The daemon's log: one line per event on stderr, where journald takes it
/// (the "<N>" prefix is the syslog priority it reads). Nothing logged may
/// identify a device or this one: never an RPI, an AEM, a key or a
/// Bluetooth address (a device's object path holds one).
enum Log {
    static func info(_ message: String) { write(6, message) }
    static func warning(_ message: String) { write(4, message) }
    static func error(_ message: String) { write(3, message) }

    /// A message as it is (a usage error's), without a priority.
    static func plain(_ message: String) { emit(message + "\n") }

    private static func write(_ priority: Int, _ message: String) {
        emit("<\(priority)>encore-tracingd: \(message)\n")
    }

    private static func emit(_ line: String) {
        // One write(2) a line: lines of a dying process are not cut in two.
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}
