import EncoreModel
import EncoreSupport

/// Writes that must land together — a downloaded package and the sync state
/// that names it, a package replaced by a re-fetched one — applied by
/// `Store.write` in one transaction: all of them or, on any error or a
/// crash, none. The single-write methods of Store go through it too, so
/// each table's SQL is written once.
public struct StoreWriter {
    let connection: Connection

    /// Stores a package (see Store.putCachedKeyFile).
    public func putCachedKeyFile(region: String, identifier: String, etag: String?, content: UnsafeRawBufferPointer, downloaded: Int64) throws {
        try StoreText.checkName(region, "region")
        try StoreText.checkName(identifier, "identifier")
        if let etag { try StoreText.checkName(etag, "etag", allowEmpty: true) }
        try StoreText.checkBlob(content.count, "key file content")
        guard downloaded >= 0 else { throw EncoreError(.invalidArgument, "the download time must not be negative") }
        let digest = try PackageDigest.sha256(content)
        let s = try connection.prepare("""
            INSERT OR REPLACE INTO key_files (region, identifier, etag, sha256, content, downloaded)
            VALUES (?, ?, ?, ?, ?, ?)
            """)
        s.bind(1, text: region).bind(2, text: identifier).bind(3, text: etag)
        s.bind(4, blob: digest).bind(5, blob: content).bind(6, downloaded)
        try s.run()
    }

    public func putCachedKeyFile(region: String, identifier: String, etag: String?, content: [UInt8], downloaded: Int64) throws {
        try content.withUnsafeBytes { try putCachedKeyFile(region: region, identifier: identifier, etag: etag, content: $0, downloaded: downloaded) }
    }

    /// Removes a cached package; false when it was not cached.
    @discardableResult
    public func removeCachedKeyFile(region: String, identifier: String) throws -> Bool {
        try StoreText.checkName(region, "region")
        try StoreText.checkName(identifier, "identifier")
        return try changes("DELETE FROM key_files WHERE region = ? AND identifier = ?") { $0.bind(1, text: region).bind(2, text: identifier) } > 0
    }

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

    /// Deletes the check-in warnings that came from one trace warning
    /// package (by the SHA-256 of its export.bin); returns how many.
    @discardableResult
    public func removeCheckInWarnings(package: [UInt8]) throws -> Int {
        try changes("DELETE FROM check_in_warnings WHERE package = ?") { $0.bind(1, blob: package) }
    }

    /// Deletes a setting; false when there was none.
    @discardableResult
    public func deleteSetting(_ name: String) throws -> Bool {
        try StoreText.checkName(name, "setting name")
        return try changes("DELETE FROM settings WHERE name = ?") { $0.bind(1, text: name) } > 0
    }

    /// Runs one statement with its parameters bound; returns how many rows it changed.
    private func changes(_ sql: String, _ bind: (Statement) -> Statement) throws -> Int {
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
