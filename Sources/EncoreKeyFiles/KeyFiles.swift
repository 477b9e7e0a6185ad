import CEncoreSQL
import EncoreCrypto
import EncoreStorage
import EncoreSupport

/// What the key file cache knows about one package, without its content.
public struct CachedKeyFileInfo: Equatable, Sendable {
    /// The region it was downloaded for ("DE", "EUR", ...).
    public var region: String
    /// The server's name for it: a day ("2020-06-01") or an hour of a day
    /// ("2020-06-01/hour/13") in the CWA layout.
    public var identifier: String
    /// The server's ETag, when it sent one.
    public var etag: String?
    /// SHA-256 of the content, computed by the library when it was stored.
    public var sha256: [UInt8]
    /// Bytes of content.
    public var size: Int
    /// Unix seconds it was downloaded.
    public var downloaded: Int64
}

/// The local key cache: the diagnosis key files (zip files) a host has
/// downloaded, by region and identifier, so that it downloads only what is
/// missing. A package re-published with a new ETag replaces the old one.
extension Store {
    /// Stores a downloaded package, replacing one with the same region and
    /// identifier. The library computes the content's SHA-256.
    public func putCachedKeyFile(region: String, identifier: String, etag: String?, content: UnsafeRawBufferPointer, downloaded: Int64) throws {
        try write { try $0.putCachedKeyFile(region: region, identifier: identifier, etag: etag, content: content, downloaded: downloaded) }
    }

    public func putCachedKeyFile(region: String, identifier: String, etag: String?, content: [UInt8], downloaded: Int64) throws {
        try content.withUnsafeBytes {
            try putCachedKeyFile(region: region, identifier: identifier, etag: etag, content: $0, downloaded: downloaded)
        }
    }

    /// Whether the package is cached; with an `etag`, only when it was
    /// stored with exactly that ETag (a package stored without one does not
    /// match any).
    public func hasCachedKeyFile(region: String, identifier: String, etag: String? = nil) throws -> Bool {
        try Store.checkPackageName(region, identifier)
        if let etag { try StoreText.checkName(etag, "etag", allowEmpty: true) }
        return try withConnection { c in
            let s = try c.prepare("SELECT etag FROM key_files WHERE region = ? AND identifier = ?")
            s.bind(1, text: region).bind(2, text: identifier)
            guard let stored = try s.one({ $0.text(0) }) else { return false }
            return etag == nil || stored == etag
        }
    }

    /// What is known about a cached package, nil when it is not cached.
    public func cachedKeyFileInfo(region: String, identifier: String) throws -> CachedKeyFileInfo? {
        try cachedKeyFileRow("etag, sha256, length(content), downloaded", region, identifier) { s in
            let digest = s.blob(1)
            guard digest.count == 32 else {
                throw EncoreError(.storeCorrupt, "the store is damaged: key file \(region) \(identifier) has a malformed SHA-256")
            }
            return CachedKeyFileInfo(region: region, identifier: identifier, etag: s.text(0), sha256: digest,
                                  size: Int(clamping: s.int64(2)), downloaded: s.int64(3))
        }
    }

    /// Calls `body` with the content of a cached package after checking it
    /// against its stored SHA-256 (a mismatch is `.storeCorrupt`); a
    /// package that is not cached is `.notFound`. The bytes are valid only
    /// inside `body`; the store is locked meanwhile.
    public func withCachedKeyFileContent<R>(region: String, identifier: String, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        guard let result = try withCheckedContent(region, identifier, body) else {
            throw EncoreError(.notFound, "no key file \(identifier) of region \(region) in the store")
        }
        return result
    }

    /// The content of a cached package (checked as withCachedKeyFileContent
    /// does), nil when it is not cached.
    public func cachedKeyFileContent(region: String, identifier: String) throws -> OwnedBytes? {
        try withCheckedContent(region, identifier) { try OwnedBytes(copying: $0) }
    }

    /// The identifiers of the cached packages of a region, in byte order.
    public func cachedKeyFileIdentifiers(region: String) throws -> [String] {
        try StoreText.checkName(region, "region")
        return try withConnection { c in
            let s = try c.prepare("SELECT identifier FROM key_files WHERE region = ? ORDER BY identifier")
            s.bind(1, text: region)
            defer { s.reset() }
            var out: [String] = []
            while try s.step() {
                let id = s.text(0) ?? ""
                guard !id.utf8.contains(0) else {
                    throw EncoreError(.storeCorrupt, "the store is damaged: a key file identifier of region \(region) is malformed")
                }
                out.append(id)
            }
            return out
        }
    }

    /// Every cached package's region, identifier and SHA-256, by region
    /// then identifier (byte order), without reading any content.
    public func cachedKeyFileDigests() throws -> [(region: String, identifier: String, sha256: [UInt8])] {
        try withConnection { c in
            let s = try c.prepare("SELECT region, identifier, sha256 FROM key_files ORDER BY region, identifier")
            defer { s.reset() }
            var out: [(region: String, identifier: String, sha256: [UInt8])] = []
            while try s.step() { out.append((s.text(0) ?? "", s.text(1) ?? "", s.blob(2))) }
            return out
        }
    }

    /// The regions that have cached packages, in byte order.
    public func cachedKeyFileRegions() throws -> [String] {
        try withConnection { c in
            let s = try c.prepare("SELECT DISTINCT region FROM key_files ORDER BY region")
            defer { s.reset() }
            var out: [String] = []
            while try s.step() { out.append(s.text(0) ?? "") }
            return out
        }
    }

    /// Removes a cached package; false when it was not cached.
    @discardableResult
    public func removeCachedKeyFile(region: String, identifier: String) throws -> Bool {
        try write { try $0.removeCachedKeyFile(region: region, identifier: identifier) }
    }

    /// The identifiers of `available` (what the server lists) that are not
    /// cached for `region`, in the order given, each once: what a host still
    /// has to download.
    public func missingKeyFiles(region: String, available: [String]) throws -> [String] {
        for (i, id) in available.enumerated() { try StoreText.checkName(id, "available identifier \(i)") }
        let cached = Set(try cachedKeyFileIdentifiers(region: region))
        var seen = Set<String>()
        return available.filter { !cached.contains($0) && seen.insert($0).inserted }
    }

    private static func checkPackageName(_ region: String, _ identifier: String) throws {
        try StoreText.checkName(region, "region")
        try StoreText.checkName(identifier, "identifier")
    }

    private func withCheckedContent<R>(_ region: String, _ identifier: String, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R? {
        try cachedKeyFileRow("sha256, content", region, identifier) { s in
            let stored = s.blob(0)
            let content = try s.columnBytes(1)
            guard try Digest.sha256(content) == stored else {
                throw EncoreError(.storeCorrupt, "the store is damaged: key file \(identifier) of region \(region) does not match its stored SHA-256")
            }
            return try body(content)
        }
    }

    /// Reads `columns` of one package's row (its names checked first); nil when it is not cached.
    private func cachedKeyFileRow<R>(_ columns: String, _ region: String, _ identifier: String, _ read: (Statement) throws -> R) throws -> R? {
        try Store.checkPackageName(region, identifier)
        return try withConnection { c in
            let s = try c.prepare("SELECT \(columns) FROM key_files WHERE region = ? AND identifier = ?")
            s.bind(1, text: region).bind(2, text: identifier)
            return try s.one(read)
        }
    }
}

extension Store {
    /// When the newest cached key file (of any region) was downloaded;
    /// nil when the cache is empty.
    public func newestKeyFileDownload() throws -> Int64? {
        try withConnection { c in try c.prepare("SELECT max(downloaded) FROM key_files").one { $0.optionalInt64(0) } ?? nil }
    }
}

extension Statement {
    /// A column of exactly 16 bytes as key data; nil otherwise.
    public func keyData(_ c: Int32) -> KeyData? {
        guard enc_sql_column_bytes(handle, c) == 16, let p = enc_sql_column_blob(handle, c) else { return nil }
        return KeyData(UnsafeRawBufferPointer(start: p, count: 16))
    }
}

extension StoreWriter {
    /// Stores a package (see Store.putCachedKeyFile).
    public func putCachedKeyFile(region: String, identifier: String, etag: String?, content: UnsafeRawBufferPointer, downloaded: Int64) throws {
        try StoreText.checkName(region, "region")
        try StoreText.checkName(identifier, "identifier")
        if let etag { try StoreText.checkName(etag, "etag", allowEmpty: true) }
        try StoreText.checkBlob(content.count, "key file content")
        guard downloaded >= 0 else { throw EncoreError(.invalidArgument, "the download time must not be negative") }
        let digest = try Digest.sha256(content)
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

    /// Whether the cache holds exactly these bytes (by their SHA-256)
    /// under the name, inside the write's transaction.
    public func holdsCachedKeyFile(region: String, identifier: String, sha256: [UInt8]) throws -> Bool {
        let s = try connection.prepare("SELECT 1 FROM key_files WHERE region = ? AND identifier = ? AND sha256 = ?")
        s.bind(1, text: region).bind(2, text: identifier).bind(3, blob: sha256)
        return try s.one { _ in true } ?? false
    }

    /// Removes a cached package; false when it was not cached.
    @discardableResult
    public func removeCachedKeyFile(region: String, identifier: String) throws -> Bool {
        try StoreText.checkName(region, "region")
        try StoreText.checkName(identifier, "identifier")
        return try changes("DELETE FROM key_files WHERE region = ? AND identifier = ?") { $0.bind(1, text: region).bind(2, text: identifier) } > 0
    }
}
