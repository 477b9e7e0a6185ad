// encore.h section: store, part 4
import CEncoreTypes
#if canImport(Glibc)
import Glibc
#endif
import EncoreClient
import EncoreCrypto
import EncoreKeyFiles
import EncoreSupport
import EncoreSync

// The key file cache (its bytes and lists: ReturnedMemoryAPI.swift).

/// Keeps a CWA key file the host downloaded itself: `content`
/// (`content_len` bytes, the zip file) of `region` (a country, or "EUR")
/// under `identifier` ("2020-06-01", or "2020-06-01/hour/13" for an hour),
/// with the server's `etag` (NULL when it sent none), at the client's time. It is kept
/// only after the verification the sync gives its own downloads: the zip,
/// every field of export.bin, and a signature by a key of `trust` (NULL:
/// the client's trust list; ENCORE_ERR_INVALID_ARGUMENT when it has none)
/// (the key file statuses otherwise, and nothing is stored). A day replaces the
/// cached hours of that day; a key file with the same name is replaced.
/// `keys` (may be NULL) receives the key file's number of keys. There is no
/// other way to put a key file into the cache.
@c public func encore_keyfile_cache_import(_ client: encore_client_ptr?, _ region: UnsafePointer<CChar>?, _ identifier: UnsafePointer<CChar>?, _ etag: UnsafePointer<CChar>?, _ content: UnsafePointer<UInt8>?, _ content_len: Int, _ trust: encore_trust_ptr?, _ keys: UnsafeMutablePointer<UInt64>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: EncoreClient.self, "client")
        let (s, now) = (c.store, try c.now())
        guard let trust = try trust.map({ try borrow($0, as: TrustList.self, "trust") }) ?? c.trust else {
            throw EncoreError(.invalidArgument, "trust is NULL and the client has no trust list (encore_client_options.trust): nothing could verify the key file")
        }
        let region = try text(region, "region"), identifier = try text(identifier, "identifier")
        let etag = try etag.map { try text($0, "etag") }
        let bytes = Array(try buffer(content, content_len, "content"))
        let kept = try KeyFileImport.keep(bytes, region: region, identifier: identifier, etag: etag, trust: trust, store: s, now: now)
        keys?.pointee = UInt64(kept.keys)
    }
}

/// Writes 1 to *has when the key file is cached, else 0. With an `etag` (not
/// NULL), only a key file stored with exactly that ETag counts: a host that
/// gets 0 downloads the key file (again).
@c public func encore_keyfile_cache_has(_ client: encore_client_ptr?, _ region: UnsafePointer<CChar>?, _ identifier: UnsafePointer<CChar>?, _ etag: UnsafePointer<CChar>?, _ has: UnsafeMutablePointer<Int32>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        let region = try text(region, "region"), identifier = try text(identifier, "identifier")
        let etag = try etag.map { try text($0, "etag") }
        try output(has, "has") { try s.hasCachedKeyFile(region: region, identifier: identifier, etag: etag) ? 1 : 0 }
    }
}

/// Copies a cached key file's content into library-owned memory in *content
/// (release it with encore_bytes_free()). The content is checked against the
/// SHA-256 computed when it was stored: a mismatch is
/// ENCORE_ERR_STORE_NOT_DATABASE (the store is damaged). A key file that is
/// not cached is ENCORE_ERR_NOT_FOUND.
@c public func encore_keyfile_cache_get(_ client: encore_client_ptr?, _ region: UnsafePointer<CChar>?, _ identifier: UnsafePointer<CChar>?, _ content: UnsafeMutablePointer<encore_bytes>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        let region = try text(region, "region"), identifier = try text(identifier, "identifier")
        try output(content, "content") { try s.withCachedKeyFileContent(region: region, identifier: identifier) { try LibraryBytes.make(copying: $0) } }
    }
}

/// Writes what is known about a cached key file to *info (struct_size set
/// by the caller) and, when `etag` is
/// not NULL, its ETag into library-owned memory in *etag (release it with
/// encore_bytes_free(); "" when info->has_etag is 0). A key file that is not
/// cached is ENCORE_ERR_NOT_FOUND.
@c public func encore_keyfile_cache_get_info(_ client: encore_client_ptr?, _ region: UnsafePointer<CChar>?, _ identifier: UnsafePointer<CChar>?, _ info: UnsafeMutablePointer<encore_cached_keyfile_info>?, _ etag: UnsafeMutablePointer<encore_bytes>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        let region = try text(region, "region"), identifier = try text(identifier, "identifier")
        try checkOutput(info, "info")
        guard let p = try s.cachedKeyFileInfo(region: region, identifier: identifier) else {
            throw EncoreError(.notFound, "no key file \(identifier) of region \(region) in the store")
        }
        var i = encore_cached_keyfile_info()
        i.downloaded = p.downloaded
        i.size = UInt64(clamping: p.size)
        p.sha256.withUnsafeBytes { src in withUnsafeMutableBytes(of: &i.sha256) { $0.copyMemory(from: src) } }
        i.has_etag = p.etag == nil ? 0 : 1
        let e = try etag.map { _ in try LibraryBytes.make(p.etag ?? "") }
        try writeOutput(i, to: info, "info")
        if let etag, let e { etag.pointee = e }
    }
}

/// Writes a new list of the identifiers of the cached key files of `region`,
/// in byte order, to *out (release it with encore_string_list_free()).
@c public func encore_keyfile_cache_list(_ client: encore_client_ptr?, _ region: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<encore_string_list_ptr?>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        let region = try text(region, "region")
        let out = try required(out, "out")
        let list = StringList(try s.cachedKeyFileIdentifiers(region: region))
        out.pointee = retainedHandle(list)
    }
}

/// Removes a cached key file. *removed (may be NULL) tells whether there was
/// one: 1, or 0 when it was not cached (not an error).
@c public func encore_keyfile_cache_remove(_ client: encore_client_ptr?, _ region: UnsafePointer<CChar>?, _ identifier: UnsafePointer<CChar>?, _ removed: UnsafeMutablePointer<Int32>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        let region = try text(region, "region"), identifier = try text(identifier, "identifier")
        let r = try s.removeCachedKeyFile(region: region, identifier: identifier)
        removed?.pointee = r ? 1 : 0
    }
}

/// Of the `count` identifiers in `available` (what the server lists; the
/// array is not modified), writes those not cached for `region` to *out as a
/// new list, in the order given and each once: what the host still has to
/// download. Release it with encore_string_list_free().
@c public func encore_keyfile_cache_list_missing(_ client: encore_client_ptr?, _ region: UnsafePointer<CChar>?, _ available: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ out: UnsafeMutablePointer<encore_string_list_ptr?>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        let region = try text(region, "region")
        try checkedCount(count, of: UnsafePointer<CChar>?.self, "count")
        if count > 0 { _ = try required(available, "available") }
        let out = try required(out, "out")
        var ids: [String] = [] // not reserved up front: `count` is only the caller's word
        if let available {
            for i in 0 ..< count { ids.append(try text(available[i], "available[\(i)]")) }
        }
        let list = StringList(try s.missingKeyFiles(region: region, available: ids))
        out.pointee = retainedHandle(list)
    }
}
