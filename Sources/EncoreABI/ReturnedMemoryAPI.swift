// encore.h section: general, part 2
import CEncoreTypes
#if canImport(Glibc)
import Glibc
#endif
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport
import EncoreSync

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

/// The object behind an encore_string_list handle: a snapshot of strings.
final class StringList: Sendable {
    let items: [String]
    init(_ strings: [String]) { items = strings }
}

/// copyOut of items whose elements hold encore_bytes the caller owns
/// (`own` makes each one): when an element fails, the bytes made in this
/// call are freed and the slots written zeroed, so a failed call leaves the
/// caller nothing to free.
func copyOutOwning<Item, C>(_ items: [Item], first: UInt64, _ out: UnsafeMutablePointer<C>?, _ elementSize: Int, _ capacity: Int,
                            _ copied: UnsafeMutablePointer<Int>?,
                            _ convert: (Item, _ own: (String) throws -> encore_bytes) throws -> C) throws {
    var made: [encore_bytes] = []
    var written = 0
    let own: (String) throws -> encore_bytes = { text in
        let b = try LibraryBytes.make(text)
        made.append(b)
        return b
    }
    do {
        try copyOut(items, first: first, out, elementSize, capacity, copied) { item in
            let element = try convert(item, own)
            written += 1
            return element
        }
    } catch {
        made.forEach { if let data = $0.data { LibraryBytes.release(data) } }
        if let out, written > 0 { UnsafeMutableRawPointer(out).initializeMemory(as: UInt8.self, repeating: 0, count: elementSize * written) }
        throw error
    }
}

/// writeOutput of a struct holding encore_bytes the caller is to own
/// (`owned`): when the struct cannot be written they are freed, so a failed
/// call leaves the caller nothing to free.
func writeOwnedOutput<T>(_ value: T, to pointer: UnsafeMutablePointer<T>?, _ name: String, owned: [encore_bytes]) throws {
    do {
        try writeOutput(value, to: pointer, name)
    } catch {
        owned.forEach { if let data = $0.data { LibraryBytes.release(data) } }
        throw error
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
        try required(count, "count").pointee = l.items.count
    }
}

/// Copies strings first ..< first + capacity of a list (see "Lists"), each
/// into an encore_bytes the caller owns (UTF-8, NUL-terminated; release
/// each with encore_bytes_free(), also after the list is freed). Pass
/// sizeof(encore_bytes) as element_size.
@c public func encore_string_list_copy(_ list: encore_string_list_ptr?, _ first: UInt64, _ out: UnsafeMutablePointer<encore_bytes>?, _ element_size: Int, _ capacity: Int, _ copied: UnsafeMutablePointer<Int>?) -> encore_status {
    guarded {
        let l = try borrow(list, as: StringList.self, "list")
        try copyOutOwning(l.items, first: first, out, element_size, capacity, copied) { s, own in try own(s) }
    }
}

/// Releases a string list; NULL does nothing. Strings copied out of it stay
/// the caller's.
@c public func encore_string_list_free(_ list: encore_string_list_ptr?) {
    release(list)
}
