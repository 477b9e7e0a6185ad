import EncoreClient
import EncoreSupport
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's wall clock in unix seconds, which it gives its client
/// (`clientClock`): the daemon reads the time through the client, as every
/// host does. In production the system's; with the test-only
/// `--test-clock-file`, the system's plus the number of seconds the file
/// holds, read again at every look, so that a test can move the daemon a
/// rotation or a scan period ahead without waiting.
public final class DaemonClock: Sendable {
    public let offsetFile: String?
    private let offset: Locked<Int64>

    /// Reads the file once, so a wrong one fails the start, not later.
    public init(offsetFile: String?) throws {
        self.offsetFile = offsetFile
        offset = Locked(try offsetFile.map(Self.readOffset) ?? 0)
    }

    /// Now. A file that cannot be read any more keeps the last offset.
    public func now() -> Int64 {
        let o: Int64 = offset.withLock { kept in
            if let offsetFile, let read = try? Self.readOffset(offsetFile) { kept = read }
            return kept
        }
        return Int64(time(nil)).saturatingAdding(o)
    }

    /// The clock as a client keeps it.
    public var clientClock: ClientClock {
        offsetFile == nil ? .system : .host { [self] in now() }
    }

    /// Whether the time can jump (a test clock): the loop then looks often.
    public var canJump: Bool { offsetFile != nil }

    public static func readOffset(_ path: String) throws -> Int64 {
        let text = String(decoding: try FileReader.read(path: path, maxSize: 64).bytes, as: UTF8.self)
        guard let offset = Int64(text.trimmingASCIIWhitespace) else {
            throw EncoreError(.invalidArgument, "\(path) must hold a whole number of seconds (the test clock's offset)")
        }
        return offset
    }
}

