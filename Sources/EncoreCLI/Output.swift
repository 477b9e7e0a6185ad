#if canImport(Glibc)
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport
import Glibc
#endif

/// Where the tool writes: results to stdout, reasons to stderr.
///
/// A command's stdout is all or nothing: write() keeps the text back and
/// runMain hands it to stdout (flush()) only when the command succeeded, so
/// a command that fails half-way (a damaged page in the middle of a list)
/// leaves no half-written JSON or text behind, only its reason on stderr.
/// Held text past `spillBytes` moves to an unlinked temporary file, so a
/// long list costs disk, not memory.
enum Output {
    /// Writes text to stdout when the command succeeds.
    static func write(_ text: String) {
        held.withLock { $0.append(text) }
    }

    /// Hands what the command wrote to stdout: on success (and by `keyfile
    /// inspect`, whose whole descriptions stand when a file is untrusted).
    static func flush() {
        held.withLock { $0.drain { writeAll(STDOUT_FILENO, $0) } }
    }

    /// Stdout held back until the command's outcome is known.
    private static let held = Locked(HeldOutput())
    static let spillBytes = 4 << 20

    private struct HeldOutput {
        var pending = ""
        /// The unlinked temporary file the text beyond spillBytes went to; -1 before.
        var spill: Int32 = -1

        mutating func append(_ text: String) {
            pending += text
            guard pending.utf8.count >= Output.spillBytes else { return }
            if spill < 0 {
                let directory = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
                var template = Array((directory + "/encore-output-XXXXXX").utf8CString)
                let fd = template.withUnsafeMutableBufferPointer { $0.baseAddress.map { mkstemp($0) } ?? -1 }
                // Without a temporary file the text stays in memory.
                guard fd >= 0 else { return }
                template.withUnsafeBufferPointer { if let p = $0.baseAddress { _ = unlink(p) } }
                spill = fd
            }
            guard Output.writeAll(spill, pending) else {
                Output.error("encore: cannot hold the output back in a temporary file")
                Glibc.exit(EncoreExit.failure)
            }
            pending = ""
        }

        mutating func drain(_ write: (String) -> Void) {
            if spill >= 0 {
                var buffer = [UInt8](repeating: 0, count: 1 << 16)
                var offset: off_t = 0
                while true {
                    let n = pread(spill, &buffer, buffer.count, offset)
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else { break }
                    write(String(decoding: buffer[0..<n], as: UTF8.self))
                    offset += off_t(n)
                }
                close(spill)
                spill = -1
            }
            write(pending)
            pending = ""
        }
    }

    /// Writes a (possibly multi-line) message to stderr, ending it with a newline.
    static func error(_ message: String) {
        writeAll(STDERR_FILENO, message.hasSuffix("\n") ? message : message + "\n")
    }

    /// Text on stderr as it is, without a newline (progress bars).
    static func error(rawLine text: String) {
        writeAll(STDERR_FILENO, text)
    }

    /// write(2) until done; gives up quietly (false) when the reader has gone away.
    @discardableResult
    fileprivate static func writeAll(_ fd: Int32, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var done = 0
            while done < bytes.count {
                let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                done += n
            }
            return true
        }
    }

    /// The one line a failed command leaves on stderr: `encore: FILE: REASON`
    /// (`encore: REASON` when the reason names the file already, as the
    /// library's "cannot open FILE: ..." does).
    static func fail(_ subject: String, _ reason: String) {
        error(reason.contains(subject) ? "encore: \(oneLine(reason))" : "encore: \(oneLine(subject)): \(oneLine(reason))")
    }

    /// Text safe to show on one terminal line: control characters (C0, DEL,
    /// C1, U+2028, U+2029) are written as escapes, so file names or file contents cannot
    /// break lines or send terminal control sequences.
    static func oneLine(_ text: String) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for s in text.unicodeScalars {
            switch s.value {
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x00..<0x20, 0x7F..<0xA0: out += "\\x" + hexByte(UInt8(truncatingIfNeeded: s.value))
            case 0x2028: out += "\\u2028" // line and paragraph separators
            case 0x2029: out += "\\u2029"
            default: out.unicodeScalars.append(s)
            }
        }
        return out
    }

    private static func hexByte(_ b: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(b >> 4)], digits[Int(b & 0x0f)]])
    }
}
