import ArgumentParser
import EncoreSupport

/// A daemon's settings as a file (`--config /etc/...`): one `option value`
/// a line, as on the command line without the dashes (`distribution
/// https://...`, `trust 310:v1:/etc/encore/cwa.pem`, `no-warnings`); blank
/// lines and lines starting with # are skipped. The file's options come
/// before the command line's, so the command line wins (and a repeatable
/// one such as trust adds up).
public enum ConfigFile {
    public static let maxSize: UInt64 = 1 << 20

    /// The file's options as command-line arguments.
    public static func arguments(path: String) throws -> [String] {
        let text: String
        do {
            text = String(decoding: try FileReader.read(path: path, maxSize: maxSize).bytes, as: UTF8.self)
        } catch let e as EncoreError {
            throw ValidationError("--config: \(e.message)")
        }
        var out: [String] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw).trimmingASCIIWhitespace
            if line.isEmpty || line.hasPrefix("#") { continue }
            let name = String(line.prefix { $0 != " " && $0 != "\t" })
            let value = String(line.dropFirst(name.count)).trimmingASCIIWhitespace
            guard !name.hasPrefix("-"), name != "config" else {
                throw ValidationError("\(path):\(number + 1): '\(name)' is not a setting (write the option's name without dashes; no config in a config)")
            }
            out.append("--" + name)
            if !value.isEmpty { out.append(value) }
        }
        return out
    }

    /// The command line with the file of its --config (if any) put first.
    public static func expand(_ arguments: [String]) throws -> [String] {
        var rest: [String] = []
        var path: String?
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            if a == "--config" {
                guard i + 1 < arguments.count else { throw ValidationError("--config needs a file") }
                path = arguments[i + 1]
                i += 2
                continue
            }
            if a.hasPrefix("--config=") { path = String(a.dropFirst("--config=".count)) } else { rest.append(a) }
            i += 1
        }
        guard let path else { return arguments }
        return try Self.arguments(path: path) + rest
    }
}
