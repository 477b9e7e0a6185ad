import CEncoreTypes
#if canImport(Glibc)
import Glibc
#endif
import EncoreExposure
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

// Opaque handles: a C caller holds an unmanaged reference to a Swift object.
// scripts/gen-header.py maps each `<name>_ptr` alias to the C type `<name> *`.
public typealias encore_trust_ptr = OpaquePointer
public typealias encore_keyfile_ptr = OpaquePointer

/// The object behind a handle that holds one value of the core, immutable
/// after init (hence @unchecked: the values are read, never changed).
final class Held<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Hands an object to C with one retain; `release` gives it back.
func retainedHandle(_ object: AnyObject) -> OpaquePointer {
    OpaquePointer(Unmanaged.passRetained(object).toOpaque())
}

func borrow<T: AnyObject>(_ handle: OpaquePointer?, as type: T.Type, _ name: String) throws -> T {
    guard let handle else { throw EncoreError(.invalidArgument, "\(name) must not be NULL") }
    return Unmanaged<T>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
}

func release(_ handle: OpaquePointer?) {
    guard let handle else { return }
    Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(handle)).release()
}

/// Writes how many items a list handle holds to *count (each `…_list_count`).
func heldCount<Item>(_ list: OpaquePointer?, as type: Held<[Item]>.Type, _ count: UnsafeMutablePointer<Int>?) -> encore_status {
    guarded {
        let items = try borrow(list, as: type, "list").value
        try output(count, "count") { items.count }
    }
}

/// Writes an output struct that a handle holds to *out (a `…_get_…` that
/// only reads the handle; see writeOutput).
func writeHeld<H: AnyObject, T>(_ handle: OpaquePointer?, as type: H.Type, _ handleName: String,
                                _ out: UnsafeMutablePointer<T>?, _ outName: String, _ field: (H) -> T) -> encore_status {
    guarded { try writeOutput(field(try borrow(handle, as: type, handleName)), to: out, outName) }
}

/// NUL-terminated copies of strings that C reads through pointers which
/// must stay valid for the life of a handle.
final class CStrings: @unchecked Sendable {
    // @unchecked: filled once in init, then only read.
    private var storage: [UnsafeMutablePointer<CChar>] = []

    func keep(_ s: String?) -> UnsafePointer<CChar>? {
        guard let s else { return nil }
        guard let p = strdup(s) else { return nil }
        storage.append(p)
        return UnsafePointer(p)
    }

    deinit { storage.forEach { free($0) } }
}
