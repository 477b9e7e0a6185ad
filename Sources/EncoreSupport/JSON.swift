/// A JSON value: what the core reads (risk configurations, windows) and
/// the one form of every result it writes (documents, the tool's output).
/// Written without Foundation, which would multiply the library's size.
public indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// Integers are exact in both directions (the parser gives one for
    /// every integer literal within Int64; UInt64 for larger ones).
    case integer(Int64)
    case unsignedInteger(UInt64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Members in document order (duplicates: the last one wins on look-up).
    case object([(String, JSONValue)])

    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.0 == key }?.1
    }

    /// An integer of any width (nil: null).
    public static func int<I: BinaryInteger>(_ v: I?) -> JSONValue {
        guard let v else { return .null }
        if let i = Int64(exactly: v) { return .integer(i) }
        if let u = UInt64(exactly: v) { return .unsignedInteger(u) }
        return .null // wider than 64 bits: never produced
    }

    /// A string, or null.
    public static func string(_ v: String?) -> JSONValue { v.map { .string($0) } ?? .null }

    /// The value of a number of any kind as a Double (nil for other values).
    public var doubleValue: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .unsignedInteger(let u): return Double(u)
        case .number(let d): return d
        default: return nil
        }
    }

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.integer(let x), .integer(let y)): return x == y
        case (.unsignedInteger(let x), .unsignedInteger(let y)): return x == y
        case (.integer(let x), .unsignedInteger(let y)), (.unsignedInteger(let y), .integer(let x)): return x >= 0 && UInt64(x) == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)): return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default:
            // Numbers of different kinds compare by value (1 == 1.0).
            guard let x = a.doubleValue, let y = b.doubleValue else { return false }
            return x == y
        }
    }
}

/// A strict RFC 8259 parser with a depth limit, so hostile input cannot
/// exhaust the stack.
public enum JSONParser {
    public static let maxDepth = 64

    public static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        var p = Parser(bytes: bytes)
        p.skipSpace()
        let v = try p.value(depth: 0)
        p.skipSpace()
        guard p.i == bytes.count else { throw p.error("unexpected text after the JSON value") }
        return v
    }

    public static func parse(_ text: String) throws -> JSONValue { try parse(Array(text.utf8)) }

    private struct Parser {
        let bytes: [UInt8]
        var i = 0

        func error(_ what: String) -> EncoreError {
            EncoreError(.invalidArgument, "JSON: \(what) at byte \(i)")
        }

        mutating func skipSpace() {
            while i < bytes.count, [0x20, 0x09, 0x0a, 0x0d].contains(bytes[i]) { i += 1 }
        }

        mutating func value(depth: Int) throws -> JSONValue {
            guard depth < JSONParser.maxDepth else { throw error("nested deeper than \(JSONParser.maxDepth) levels") }
            guard i < bytes.count else { throw error("unexpected end") }
            switch bytes[i] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            default: return try number()
            }
        }

        mutating func literal(_ word: String) throws {
            let w = Array(word.utf8)
            guard bytes.count - i >= w.count, Array(bytes[i ..< i + w.count]) == w else { throw error("invalid literal") }
            i += w.count
        }

        mutating func object(depth: Int) throws -> JSONValue {
            i += 1
            var members: [(String, JSONValue)] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw error("expected a member name") }
                let name = try string()
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw error("expected ':'") }
                i += 1
                skipSpace()
                members.append((name, try value(depth: depth + 1)))
                skipSpace()
                guard i < bytes.count else { throw error("unexpected end in an object") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
                throw error("expected ',' or '}'")
            }
        }

        mutating func array(depth: Int) throws -> JSONValue {
            i += 1
            var items: [JSONValue] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            while true {
                skipSpace()
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard i < bytes.count else { throw error("unexpected end in an array") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
                throw error("expected ',' or ']'")
            }
        }

        mutating func number() throws -> JSONValue {
            let start = i
            if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
            let digits = { (b: UInt8) in b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
            guard i < bytes.count, digits(bytes[i]) else { throw error("invalid value") }
            if bytes[i] == UInt8(ascii: "0") { i += 1 } else { while i < bytes.count, digits(bytes[i]) { i += 1 } }
            if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
                i += 1
                guard i < bytes.count, digits(bytes[i]) else { throw error("invalid number") }
                while i < bytes.count, digits(bytes[i]) { i += 1 }
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
                i += 1
                if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
                guard i < bytes.count, digits(bytes[i]) else { throw error("invalid number") }
                while i < bytes.count, digits(bytes[i]) { i += 1 }
            }
            let text = String(decoding: bytes[start ..< i], as: UTF8.self)
            if let v = Int64(text) { return .integer(v) }
            if let v = UInt64(text) { return .unsignedInteger(v) }
            guard let v = Double(text), v.isFinite else { throw error("number out of range") }
            return .number(v)
        }

        mutating func string() throws -> String {
            i += 1
            var out: [UInt8] = []
            while true {
                guard i < bytes.count else { throw error("unterminated string") }
                let c = bytes[i]
                i += 1
                switch c {
                case UInt8(ascii: "\""):
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard i < bytes.count else { throw error("unterminated escape") }
                    let e = bytes[i]
                    i += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0c)
                    case UInt8(ascii: "n"): out.append(0x0a)
                    case UInt8(ascii: "r"): out.append(0x0d)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800 ... 0xDBFF).contains(scalar), bytes.count - i >= 6, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") {
                            i += 2
                            let low = try hex4()
                            guard (0xDC00 ... 0xDFFF).contains(low) else { throw error("invalid surrogate pair") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let u = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                        out += Array(String(Character(u)).utf8)
                    default: throw error("invalid escape")
                    }
                case 0 ..< 0x20:
                    throw error("control character in a string")
                default:
                    out.append(c)
                }
            }
        }

        mutating func hex4() throws -> UInt32 {
            guard bytes.count - i >= 4 else { throw error("short \\u escape") }
            var v: UInt32 = 0
            for _ in 0 ..< 4 {
                let c = bytes[i]
                i += 1
                let d: UInt32
                switch c {
                case UInt8(ascii: "0") ... UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
                case UInt8(ascii: "a") ... UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A") ... UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
                default: throw error("invalid hex digit in \\u escape")
                }
                v = v << 4 | d
            }
            return v
        }
    }
}
