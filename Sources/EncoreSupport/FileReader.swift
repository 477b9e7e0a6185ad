#if canImport(Glibc)
import Glibc
#endif

/// Reads a whole regular file into memory, refusing files larger than
/// `maxSize` (with `tooLarge`, the kind its caller's format has for that)
/// before allocating anything.
public enum FileReader {
    public static func read(path: String, maxSize: UInt64, tooLarge: EncoreError.Kind = .outOfRange) throws -> OwnedBytes {
        try read(path: path, maxSize: maxSize, pool: nil, tooLarge: tooLarge)
    }

    package static func read(path: String, maxSize: UInt64, pool: BufferPool?, tooLarge: EncoreError.Kind = .outOfRange) throws -> OwnedBytes {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw EncoreError(.io, "cannot open \(path): \(errnoText())") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw EncoreError(.io, "cannot stat \(path): \(errnoText())") }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw EncoreError(.io, "\(path) is not a regular file") }
        let size = UInt64(clamping: st.st_size)
        guard size <= maxSize, let count = Int(exactly: size) else {
            throw EncoreError(tooLarge, "\(path) is \(size) bytes, more than the limit of \(maxSize)")
        }
        let bytes = try OwnedBytes(uninitializedCount: count, pool: pool)
        let out = bytes.mutableBuffer
        var done = 0
        while done < count {
            guard let dst = out.baseAddress else { break }
            let n = Glibc.read(fd, dst + done, count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw EncoreError(.io, "cannot read \(path): \(errnoText())")
            }
            if n == 0 { throw EncoreError(.io, "\(path) shrank while it was read") }
            done += n
        }
        return bytes
    }

    private static func errnoText() -> String {
        guard let s = strerror(errno) else { return "errno \(errno)" }
        return String(cString: s)
    }
}
