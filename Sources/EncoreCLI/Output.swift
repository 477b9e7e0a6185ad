#if canImport(Glibc)
import EncoreCheck
import EncoreCheckIns
import EncoreCrypto
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncorePush
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreSync
import EncoreTestResults
import EncoreWire
import Glibc
#endif

/// Where the tool writes: results to stdout, reasons to stderr.
enum Output {
    /// Writes text to stdout as it is.
    static func write(_ text: String) {
        writeAll(STDOUT_FILENO, text)
    }

    /// Writes a (possibly multi-line) message to stderr, ending it with a newline.
    static func error(_ message: String) {
        writeAll(STDERR_FILENO, message.hasSuffix("\n") ? message : message + "\n")
    }

    /// Text on stderr as it is, without a newline (progress bars).
    static func error(rawLine text: String) {
        writeAll(STDERR_FILENO, text)
    }

    /// write(2) until done; gives up quietly when the reader has gone away.
    private static func writeAll(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var done = 0
            while done < bytes.count {
                let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    return
                }
                done += n
            }
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
