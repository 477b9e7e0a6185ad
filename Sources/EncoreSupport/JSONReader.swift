/// Reads fields of a JSON document, naming the field's path in every error
/// ("minutesAtAttenuationWeights[1].weight: expected a number").
public struct JSONReader: Sendable {
    public let value: JSONValue
    public let path: String

    public init(_ value: JSONValue, path: String = "") {
        self.value = value
        self.path = path
    }

    package func child(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    package func fail(_ what: String, at p: String? = nil) -> EncoreError {
        EncoreError(.invalidArgument, "\(p ?? (path.isEmpty ? "document" : path)): \(what)")
    }

    public func member(_ key: String) throws -> JSONReader {
        guard case .object = value else { throw fail("expected an object") }
        guard let v = value[key], v != .null else { throw fail("is missing", at: child(key)) }
        return JSONReader(v, path: child(key))
    }

    public func optionalMember(_ key: String) throws -> JSONReader? {
        guard case .object = value else { throw fail("expected an object") }
        guard let v = value[key], v != .null else { return nil }
        return JSONReader(v, path: child(key))
    }

    public func number() throws -> Double {
        guard let d = value.doubleValue else { throw fail("expected a number") }
        return d
    }

    public func integer() throws -> Int {
        switch value {
        case .integer(let i): if let v = Int(exactly: i) { return v }
        case .unsignedInteger: break
        case .number(let d): if d == d.rounded(), let v = Int(exactly: d) { return v }
        default: throw fail("expected a whole number")
        }
        throw fail("expected a whole number within 64 bits")
    }

    /// A whole number within `range`, else an error naming the range.
    public func integer(in range: ClosedRange<Int>) throws -> Int {
        let i = try integer()
        guard range.contains(i) else { throw fail("must be \(range.lowerBound)...\(range.upperBound)") }
        return i
    }

    public func bool() throws -> Bool {
        guard case .bool(let b) = value else { throw fail("expected true or false") }
        return b
    }

    public func string() throws -> String {
        guard case .string(let s) = value else { throw fail("expected a string") }
        return s
    }

    public func array() throws -> [JSONReader] {
        guard case .array(let items) = value else { throw fail("expected an array") }
        return items.enumerated().map { JSONReader($1, path: "\(path)[\($0)]") }
    }

    public func number(_ key: String) throws -> Double { try member(key).number() }
    public func integer(_ key: String) throws -> Int { try member(key).integer() }
    public func integer(_ key: String, in range: ClosedRange<Int>) throws -> Int { try member(key).integer(in: range) }
    public func array(_ key: String) throws -> [JSONReader] { try member(key).array() }
    /// An array that may be left out (empty then).
    public func optionalArray(_ key: String) throws -> [JSONReader] { try optionalMember(key)?.array() ?? [] }
}
