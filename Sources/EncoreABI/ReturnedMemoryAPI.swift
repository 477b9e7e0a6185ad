import CEncoreTypes
#if canImport(Glibc)
import Glibc
#endif
import EncoreCore

// Memory the library hands out: bytes (encore_bytes) and lists of strings
// (encore_string_list), each released by the library's own free function.
// Every function that hands out bytes or a list of strings uses these.


public typealias encore_string_list_ptr = OpaquePointer

/// The buffers behind encore_bytes. A hidden 16-byte header in front of
/// `data` holds the size of the allocation, so that encore_bytes_free wipes
/// and frees exactly what was allocated whatever the caller did to `length`.
/// One NUL byte follows the bytes, so text is a C string as it is.
enum LibraryBytes {
    static let header = 16

    static func make(copying source: UnsafeRawBufferPointer) throws -> encore_bytes {
        let (total, overflow) = source.count.addingReportingOverflow(header + 1)
        guard !overflow, let base = malloc(total) else {
            throw EncoreError(.outOfMemory, "cannot allocate \(source.count) bytes for a result")
        }
        base.storeBytes(of: total, as: Int.self)
        let data = base + header
        if let from = source.baseAddress, source.count > 0 { data.copyMemory(from: from, byteCount: source.count) }
        (data + source.count).storeBytes(of: 0, as: UInt8.self)
        return encore_bytes(data: data.assumingMemoryBound(to: UInt8.self), length: source.count)
    }

    static func make(_ text: String) throws -> encore_bytes {
        var text = text
        return try text.withUTF8 { try make(copying: UnsafeRawBufferPointer($0)) }
    }

    static func release(_ data: UnsafeMutablePointer<UInt8>) {
        let base = UnsafeMutableRawPointer(data) - header
        explicit_bzero(base, base.load(as: Int.self))
        free(base)
    }
}

/// The object behind an encore_string_list handle: NUL-terminated copies,
/// immutable once made.
final class StringList: @unchecked Sendable {
    // @unchecked: filled in init, then only read.
    private let items: [UnsafeMutablePointer<CChar>]

    init(_ strings: [String]) throws {
        var made: [UnsafeMutablePointer<CChar>] = []
        made.reserveCapacity(strings.count)
        for s in strings {
            guard let p = strdup(s) else {
                made.forEach { free($0) }
                throw EncoreError(.outOfMemory, "cannot allocate a list of \(strings.count) strings")
            }
            made.append(p)
        }
        items = made
    }

    deinit { items.forEach { free($0) } }

    var count: Int { items.count }

    func item(_ index: Int) throws -> UnsafePointer<CChar> {
        guard index >= 0, index < items.count else {
            throw EncoreError(.outOfRange, "index \(UInt(bitPattern: index)) is past the end of the list (\(items.count) strings)")
        }
        return UnsafePointer(items[index])
    }
}

/// A caller's array capacity or count of `T`s: not "negative" (a huge
/// size_t) and not beyond what memory can hold.
func checkedCount<T>(_ n: Int, of type: T.Type, _ name: String) throws {
    guard n >= 0, n <= Int.max / MemoryLayout<T>.stride else {
        throw EncoreError(.invalidArgument, "\(name) \(UInt(bitPattern: n)) is too large")
    }
}

/// Wipes and frees memory the library handed out in *bytes, then zeroes
/// *bytes. NULL, and a zeroed struct, do nothing.
@c public func encore_bytes_free(_ bytes: UnsafeMutablePointer<encore_bytes>?) {
    guard let bytes else { return }
    if let data = bytes.pointee.data { LibraryBytes.release(data) }
    bytes.pointee = encore_bytes()
}

/// Writes the number of strings in a list to *count.
@c public func encore_string_list_count(_ list: encore_string_list_ptr?, _ count: UnsafeMutablePointer<Int>?) -> encore_status {
    guarded {
        let l = try borrow(list, as: StringList.self, "list")
        try required(count, "count").pointee = l.count
    }
}

/// Writes string `index` of a list (UTF-8, NUL-terminated) to *item; it
/// stays valid until the list is freed. An index past the end is
/// ENCORE_ERR_OUT_OF_RANGE.
@c public func encore_string_list_get(_ list: encore_string_list_ptr?, _ index: Int, _ item: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> encore_status {
    guarded {
        let l = try borrow(list, as: StringList.self, "list")
        try output(item, "item") { try l.item(index) }
    }
}

/// Releases a string list; NULL does nothing. Its strings become invalid.
@c public func encore_string_list_free(_ list: encore_string_list_ptr?) {
    release(list)
}

// ---- Key package cache ----------------------------------------------------
