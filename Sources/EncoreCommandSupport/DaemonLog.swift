#if canImport(Glibc)
import Glibc
#endif

/// A daemon's log (encored, encore-notify): one line per event on stderr, where journald takes it
/// (the "<N>" prefix is the syslog priority it reads). Nothing logged may
/// identify a device or this one: never an RPI, an AEM, a key or a
/// Bluetooth address (a device's object path holds one).
public enum Log {
    public static func info(_ message: String) { write(6, message) }
    public static func warning(_ message: String) { write(4, message) }
    public static func error(_ message: String) { write(3, message) }

    /// A message as it is (a usage error's), without a priority.
    public static func plain(_ message: String) { emit(message + "\n") }

    /// The program's name as it was started (encored, encore-notify).
    private static let program: String = {
        let path = CommandLine.arguments.first ?? "encore"
        return String(path.split(separator: "/").last ?? Substring(path))
    }()

    private static func write(_ priority: Int, _ message: String) {
        emit("<\(priority)>\(program): \(message)\n")
    }

    private static func emit(_ line: String) {
        // One write(2) a line: lines of a dying process are not cut in two.
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}
