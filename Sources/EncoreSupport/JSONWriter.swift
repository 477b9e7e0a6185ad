/// Compact JSON text of a JSONValue (for documents the library stores).
/// Whole numbers within ±2^53 are written without a fraction.
extension JSONValue {
    public var rendered: String {
        var out = ""
        write(to: &out)
        return out
    }

    /// A number from an integer (exact up to 2^53, as JSON readers assume).
    public static func int<I: BinaryInteger>(_ v: I) -> JSONValue { .number(Double(v)) }
    public static func optional(_ v: Int64?) -> JSONValue { v.map { .number(Double($0)) } ?? .null }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let d):
            if !d.isFinite { out += "null" } else if d == d.rounded(), abs(d) < 9_007_199_254_740_992 { out += String(Int64(d)) } else { out += d.description }
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let items):
            out += "["
            for (i, v) in items.enumerated() {
                if i > 0 { out += "," }
                v.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, (k, v)) in members.enumerated() {
                if i > 0 { out += "," }
                JSONValue.writeString(k, to: &out)
                out += ":"
                v.write(to: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20:
                let h = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
            default: out.unicodeScalars.append(u)
            }
        }
        out += "\""
    }
}
