/// JSON text of a JSONValue: compact (documents the library stores), or
/// pretty for people (each member of a container that holds containers on
/// its own line, indented by two spaces; containers of plain values on one
/// line, so a key file's summary reads top to bottom and each key takes one
/// line). Whole numbers are written without a fraction.
extension JSONValue {
    public var rendered: String { rendered(pretty: false) }

    public func rendered(pretty: Bool) -> String {
        var out = ""
        write(to: &out, pretty: pretty, depth: 0)
        return out
    }

    private var isContainer: Bool {
        switch self {
        case .array, .object: return true
        default: return false
        }
    }

    private func write(to out: inout String, pretty: Bool, depth: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .integer(let i): out += String(i)
        case .unsignedInteger(let u): out += String(u)
        case .number(let d):
            if !d.isFinite { out += "null" } else if d == d.rounded(), abs(d) < 9_007_199_254_740_992 { out += String(Int64(d)) } else { out += d.description }
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let items):
            JSONValue.writeContainer("[", "]", count: items.count, multiLine: pretty && items.contains { $0.isContainer },
                                     pretty: pretty, depth: depth, to: &out) { i, out in
                items[i].write(to: &out, pretty: pretty, depth: depth + 1)
            }
        case .object(let members):
            JSONValue.writeContainer("{", "}", count: members.count, multiLine: pretty && members.contains { $0.1.isContainer },
                                     pretty: pretty, depth: depth, to: &out) { i, out in
                JSONValue.writeString(members[i].0, to: &out)
                out += pretty ? ": " : ":"
                members[i].1.write(to: &out, pretty: pretty, depth: depth + 1)
            }
        }
    }

    private static func writeContainer(_ open: String, _ close: String, count: Int, multiLine: Bool, pretty: Bool, depth: Int,
                                       to out: inout String, member: (Int, inout String) -> Void) {
        out += open
        guard count > 0 else { out += close; return }
        let inner = String(repeating: "  ", count: depth + 1)
        for i in 0 ..< count {
            if i > 0 { out += "," }
            if multiLine { out += "\n" + inner } else if pretty && i > 0 { out += " " }
            member(i, &out)
        }
        if multiLine { out += "\n" + String(repeating: "  ", count: depth) }
        out += close
    }

    /// A JSON string literal: `"` and `\` escaped, control characters as
    /// \n, \r, \t, \b, \f or \u00XX, U+2028 and U+2029 escaped (so the
    /// text is also valid JavaScript); everything else as UTF-8.
    private static func writeString(_ s: String, to out: inout String) {
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
            case 0x00 ..< 0x20, 0x2028, 0x2029:
                let h = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
