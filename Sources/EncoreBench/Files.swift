import EncoreExposure
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport
#if canImport(Glibc)
import Glibc
#endif

/// Files for the benchmark: written whole, read whole, temp directories.
enum Files {
    static func write(_ path: String, _ bytes: [UInt8]) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw BenchError("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var done = 0
        try bytes.withUnsafeBytes { buf in
            while done < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + done, buf.count - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw BenchError("cannot write \(path): \(String(cString: strerror(errno)))") }
                done += n
            }
        }
    }

    static func read(_ path: String) throws -> [UInt8] {
        let owned = try FileReader.read(path: path, maxSize: 1 << 32)
        return owned.bytes
    }

    /// A fresh directory under $TMPDIR (or /tmp).
    static func temporaryDirectory() throws -> String {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array("\(base)/encore-bench.XXXXXX".utf8CString)
        guard let p = mkdtemp(&template) else { throw BenchError("cannot create a directory in \(base)") }
        return String(cString: p)
    }

    static func removeQuietly(_ path: String) { unlink(path) }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
