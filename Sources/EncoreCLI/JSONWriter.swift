/// A JSON value whose objects keep their members in the order given, so the
/// tool's output has a stable field order.
indirect enum JSON {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    /// A finite floating-point number (non-finite values are written as null).
    case number(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    static func string(_ value: String?) -> JSON { value.map { .string($0) } ?? .null }
    static func int<I: BinaryInteger>(_ value: I?) -> JSON {
        guard let value else { return .null }
        if let v = Int64(exactly: value) { return .int(v) }
        if let v = UInt64(exactly: value) { return .uint(v) }
        return .null // wider than 64 bits: never produced by the tool
    }
}

/// Writes JSON text. Pretty output puts each member of a container that
/// holds containers on its own line (indented by two spaces) and writes
/// containers of plain values on one line: a key file's summary reads
/// top to bottom and each key takes one line.
enum JSONWriter {
    static func render(_ value: JSON, pretty: Bool = true) -> String {
        var out = ""
        write(value, to: &out, pretty: pretty, depth: 0)
        return out
    }

    static func write(_ value: JSON, to out: inout String, pretty: Bool, depth: Int) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let n): out += String(n)
        case .uint(let n): out += String(n)
        case .number(let d): out += d.isFinite ? d.description : "null"
        case .string(let s): writeString(s, to: &out)
        case .array(let items):
            writeContainer(open: "[", close: "]", count: items.count, multiLine: pretty && items.contains { $0.isContainer },
                           pretty: pretty, depth: depth, to: &out) { i, out in
                write(items[i], to: &out, pretty: pretty, depth: depth + 1)
            }
        case .object(let members):
            writeContainer(open: "{", close: "}", count: members.count, multiLine: pretty && members.contains { $0.1.isContainer },
                           pretty: pretty, depth: depth, to: &out) { i, out in
                writeString(members[i].0, to: &out)
                out += pretty ? ": " : ":"
                write(members[i].1, to: &out, pretty: pretty, depth: depth + 1)
            }
        }
    }

    private static func writeContainer(open: String, close: String, count: Int, multiLine: Bool, pretty: Bool, depth: Int,
                                       to out: inout String, member: (Int, inout String) -> Void) {
        out += open
        guard count > 0 else { out += close; return }
        let inner = String(repeating: "  ", count: depth + 1)
        for i in 0..<count {
            if i > 0 { out += "," }
            if multiLine { out += "\n" + inner } else if pretty && i > 0 { out += " " }
            member(i, &out)
        }
        if multiLine { out += "\n" + String(repeating: "  ", count: depth) }
        out += close
    }

    /// A JSON string literal: `"` and `\` escaped, control characters as
    /// \n, \r, \t, \b, \f or \u00XX, U+2028 and U+2029 escaped (so the text
    /// is also valid JavaScript); everything else as UTF-8.
    static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar.value {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x08: out += "\\b"
            case 0x0C: out += "\\f"
            case 0x00..<0x20, 0x2028, 0x2029: out += unicodeEscape(scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    private static func unicodeEscape(_ v: UInt32) -> String {
        let digits = Array("0123456789abcdef")
        return "\\u" + String((0..<4).reversed().map { digits[Int((v >> (UInt32($0) * 4)) & 0xf)] })
    }
}

extension JSON {
    var isContainer: Bool {
        switch self {
        case .array, .object: return true
        default: return false
        }
    }
}
