import EncoreSupport
import CEncoreSQL

/// The type of a stored setting. The raw values are SQLite's storage
/// classes, which the C API also uses (ENCORE_SETTING_*).
public enum SettingType: Int32, Sendable, CaseIterable {
    case integer = 1, double = 2, text = 3, blob = 4

    public var name: String {
        switch self {
        case .integer: return "integer"
        case .double: return "double"
        case .text: return "text"
        case .blob: return "blob"
        }
    }

    /// "an integer", "a double", ...: for messages.
    package var withArticle: String { self == .integer ? "an integer" : "a \(name)" }
}

/// A small typed value kept under a name.
public enum SettingValue: Equatable, Sendable {
    case integer(Int64)
    case double(Double)
    case text(String)
    case blob([UInt8])

    public var type: SettingType {
        switch self {
        case .integer: return .integer
        case .double: return .double
        case .text: return .text
        case .blob: return .blob
        }
    }
}

/// Checks for the text the store tables keep: names, identifiers, ETags and
/// documents. The C API hands text out as C strings, where a NUL inside
/// would silently cut the value short: it is refused on the way in.
package enum StoreText {
    /// The longest name, region, identifier or ETag, in UTF-8 bytes.
    package static let maxNameBytes = 1024

    package static func checkName(_ s: String, _ what: String, allowEmpty: Bool = false) throws {
        let n = s.utf8.count
        guard allowEmpty || n > 0 else { throw EncoreError(.invalidArgument, "\(what) must not be empty") }
        guard n <= maxNameBytes else { throw EncoreError(.invalidArgument, "\(what) has \(n) bytes; at most \(maxNameBytes) are allowed") }
        guard !s.utf8.contains(0) else { throw EncoreError(.invalidArgument, "\(what) must not contain a NUL character") }
    }

    package static func checkDocument(_ s: String, _ what: String) throws {
        guard s.utf8.count <= Int(Int32.max) else { throw EncoreError(.invalidArgument, "\(what) is too large") }
        guard !s.utf8.contains(0) else { throw EncoreError(.invalidArgument, "\(what) must not contain a NUL character") }
    }

    package static func checkBlob(_ count: Int, _ what: String) throws {
        guard count <= Int(Int32.max) else { throw EncoreError(.invalidArgument, "\(what) has \(count) bytes; the store keeps at most \(Int32.max)") }
    }
}

extension Store {
    /// Sets a setting, replacing any value of any type under `name`. A NaN
    /// double is refused (SQLite would keep it as NULL), and so is text
    /// with a NUL character.
    public func setSetting(_ name: String, to value: SettingValue) throws {
        try write { try $0.setSetting(name, to: value) }
    }

    /// Sets a blob setting from bytes without copying them first.
    public func setSetting(_ name: String, blob: UnsafeRawBufferPointer) throws {
        try write { try $0.setSetting(name, blob: blob) }
    }

    /// The value under `name`, nil when there is none.
    public func setting(_ name: String) throws -> SettingValue? {
        try withSetting(name) { type, s -> SettingValue in
            switch type {
            case .integer: return .integer(s.int64(1))
            case .double: return .double(s.double(1))
            case .text: return .text(s.text(1) ?? "")
            case .blob: return .blob(s.blob(1))
            }
        }
    }

    /// The type of the value under `name`, nil when there is none.
    public func settingType(_ name: String) throws -> SettingType? {
        try withSetting(name) { type, _ in type }
    }

    /// The integer under `name`: `.notFound` when there is none,
    /// `.invalidArgument` (naming the stored type) when it is not an integer.
    public func integerSetting(_ name: String) throws -> Int64 {
        try typedSetting(name, .integer) { $0.int64(1) }
    }

    /// The double under `name` (errors as integerSetting).
    public func doubleSetting(_ name: String) throws -> Double {
        try typedSetting(name, .double) { $0.double(1) }
    }

    /// The text under `name` (errors as integerSetting).
    public func textSetting(_ name: String) throws -> String {
        try typedSetting(name, .text) { $0.text(1) ?? "" }
    }

    /// The blob under `name` (errors as integerSetting).
    public func blobSetting(_ name: String) throws -> [UInt8] {
        try typedSetting(name, .blob) { $0.blob(1) }
    }

    /// Calls `body` with the bytes of the text (UTF-8, no NUL added) or blob
    /// under `name`, which must have type `type` (errors as integerSetting).
    /// The bytes are valid only inside `body`; the store is locked meanwhile.
    public func withSettingBytes<R>(_ name: String, _ type: SettingType, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        guard type == .text || type == .blob else {
            throw EncoreError(.invalidArgument, "only text and blob settings have bytes, not \(type.name) ones")
        }
        return try typedSetting(name, type) { s in try body(try s.columnBytes(1)) }
    }

    /// Deletes the setting under `name`; false when there was none.
    @discardableResult
    public func deleteSetting(_ name: String) throws -> Bool {
        try write { try $0.deleteSetting(name) }
    }

    /// The names of all settings, in byte order.
    public func settingNames() throws -> [String] {
        try withConnection { c in
            let s = try c.prepare("SELECT name FROM settings ORDER BY name")
            defer { s.reset() }
            var names: [String] = []
            while try s.step() { names.append(s.text(0) ?? "") }
            return names
        }
    }

    /// Reads the row of `name`: `body` gets its type and the statement on the
    /// row (value in column 1). nil when there is no row.
    private func withSetting<R>(_ name: String, _ body: (SettingType, Statement) throws -> R) throws -> R? {
        try StoreText.checkName(name, "setting name")
        return try withConnection { c in
            let s = try c.prepare("SELECT name, value FROM settings WHERE name = ?")
            s.bind(1, text: name)
            return try s.one { s in
                guard let type = SettingType(rawValue: enc_sql_column_type(s.handle, 1)) else {
                    throw EncoreError(.storeCorrupt, "the store is damaged: setting '\(name)' holds a value of no known type")
                }
                return try body(type, s)
            }
        }
    }

    private func typedSetting<R>(_ name: String, _ expected: SettingType, _ read: (Statement) throws -> R) throws -> R {
        let result = try withSetting(name) { type, s -> R in
            guard type == expected else {
                throw EncoreError(.invalidArgument, "setting '\(name)' holds \(type.withArticle) value, not \(expected.withArticle) one")
            }
            return try read(s)
        }
        guard let result else { throw EncoreError(.notFound, "no setting named '\(name)'") }
        return result
    }
}
