import EncoreSupport

/// Writes that must land together — a downloaded package and the sync state
/// that names it, a package replaced by a re-fetched one — applied by
/// `Store.write` in one transaction: all of them or, on any error or a
/// crash, none. The single-write methods of Store go through it too, so
/// each table's SQL is written once.
public struct StoreWriter {
    package let connection: Connection

    /// Sets a setting (see Store.setSetting).
    public func setSetting(_ name: String, to value: SettingValue) throws {
        switch value {
        case .integer(let v): try putSetting(name) { $0.bind(2, v) }
        case .double(let d):
            guard !d.isNaN else { throw EncoreError(.invalidArgument, "setting '\(name)': a double must not be NaN") }
            try putSetting(name) { $0.bind(2, d) }
        case .text(let t):
            try StoreText.checkDocument(t, "setting '\(name)'")
            try putSetting(name) { $0.bind(2, text: t) }
        case .blob(let b): try b.withUnsafeBytes { try setSetting(name, blob: $0) }
        }
    }

    public func setSetting(_ name: String, blob: UnsafeRawBufferPointer) throws {
        try StoreText.checkBlob(blob.count, "setting '\(name)'")
        try putSetting(name) { $0.bind(2, blob: blob) }
    }

    /// Sets a text setting unless one of that name exists (of any type):
    /// whoever writes first wins, so values made once (tokens) stay one.
    /// False when the setting existed.
    @discardableResult
    public func insertSettingIfAbsent(_ name: String, text: String) throws -> Bool {
        try StoreText.checkName(name, "setting name")
        try StoreText.checkDocument(text, "setting '\(name)'")
        return try changes("INSERT OR IGNORE INTO settings (name, value) VALUES (?, ?)") { $0.bind(1, text: name).bind(2, text: text) } > 0
    }

    /// Deletes a setting; false when there was none.
    @discardableResult
    public func deleteSetting(_ name: String) throws -> Bool {
        try StoreText.checkName(name, "setting name")
        return try changes("DELETE FROM settings WHERE name = ?") { $0.bind(1, text: name) } > 0
    }

    /// Runs one statement with its parameters bound; returns how many rows it changed.
    package func changes(_ sql: String, _ bind: (Statement) -> Statement) throws -> Int {
        try bind(try connection.prepare(sql)).run()
        return connection.changes
    }

    private func putSetting(_ name: String, _ bindValue: (Statement) -> Void) throws {
        try StoreText.checkName(name, "setting name")
        let s = try connection.prepare("INSERT OR REPLACE INTO settings (name, value) VALUES (?, ?)")
        s.bind(1, text: name)
        bindValue(s)
        try s.run()
    }
}

extension Store {
    /// Runs `body`'s writes in one transaction. `body` must not call the
    /// store itself (the store is locked while it runs).
    public func write<T>(_ body: (StoreWriter) throws -> T) throws -> T {
        try withConnection { c in try c.transaction { try body(StoreWriter(connection: c)) } }
    }
}
