// encore.h section: store, part 6
import CEncoreTypes
import EncoreClient
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

// The host's settings: small typed values under a name (NUL-terminated
// UTF-8, 1 to 1024 bytes). Setting a value replaces any value of any type
// under the name. Reading with the wrong type is ENCORE_ERR_INVALID_ARGUMENT
// (the message names the stored type); reading a missing name is
// ENCORE_ERR_NOT_FOUND. Names starting "sync.", "push.", "tracing.", "checkins." or "encore." (each feature's StoreTables.settingPrefixes) are the
// library's own: every function here refuses them
// (ENCORE_ERR_INVALID_ARGUMENT) and the list leaves them out.

/// A host's setting name, read from C and checked against the library's own.
func hostSettingName(_ name: UnsafePointer<CChar>?, of store: Store) throws -> String {
    let n = try text(name, "name")
    try store.checkHostSettingName(n)
    return n
}

/// Sets the setting `name` to `value` (its `type` says which field holds
/// it; see encore_setting_value), replacing any value of any type under
/// the name. A NaN double, text that is not UTF-8 or holds a NUL, and an
/// unknown type are ENCORE_ERR_INVALID_ARGUMENT. Thread-safe as the store is.
@c public func encore_store_set_setting(_ store: encore_store_ptr?, _ name: UnsafePointer<CChar>?, _ value: UnsafePointer<encore_setting_value>?) -> encore_status {
    guarded {
        let s = try borrow(store, as: Store.self, "store")
        let name = try hostSettingName(name, of: s)
        let v: encore_setting_value = try readInput(UnsafeRawPointer(try required(value, "value")), "value")
        switch SettingType(rawValue: v.type) {
        case .integer: try s.setSetting(name, to: .integer(v.integer))
        case .double: try s.setSetting(name, to: .double(v.real))
        case .text:
            guard let text = String(validating: try buffer(v.data, v.length, "value->data"), as: UTF8.self) else {
                throw EncoreError(.invalidArgument, "value->data is not UTF-8 text")
            }
            try s.setSetting(name, to: .text(text))
        case .blob: try s.setSetting(name, blob: try buffer(v.data, v.length, "value->data"))
        case nil: throw EncoreError(.invalidArgument, "value->type must be ENCORE_SETTING_*, not \(v.type)")
        }
    }
}

/// Reads the setting `name` into *value (its struct_size set by the
/// caller): its type, and its integer or double, or the length of its text
/// or blob, whose bytes are copied into library-owned memory in *bytes
/// (text NUL-terminated; release it with encore_bytes_free()). `bytes` may
/// be NULL to learn the type and length only. ENCORE_ERR_NOT_FOUND when
/// there is no such setting. Thread-safe as the store is.
@c public func encore_store_get_setting(_ store: encore_store_ptr?, _ name: UnsafePointer<CChar>?, _ value: UnsafeMutablePointer<encore_setting_value>?, _ bytes: UnsafeMutablePointer<encore_bytes>?) -> encore_status {
    guarded {
        let s = try borrow(store, as: Store.self, "store")
        let name = try hostSettingName(name, of: s)
        try checkOutput(value, "value")
        guard let stored = try s.setting(name) else { throw EncoreError(.notFound, "no setting named '\(name)'") }
        var out = encore_setting_value()
        out.type = stored.type.rawValue
        var copy: encore_bytes?
        switch stored {
        case .integer(let i): out.integer = i
        case .double(let d): out.real = d
        case .text(let t):
            out.length = t.utf8.count
            if bytes != nil { copy = try Array(t.utf8).withUnsafeBytes { try LibraryBytes.make(copying: $0) } }
        case .blob(let b):
            out.length = b.count
            if bytes != nil { copy = try b.withUnsafeBytes { try LibraryBytes.make(copying: $0) } }
        }
        try writeOutput(out, to: value, "value")
        if let copy, let bytes { bytes.pointee = copy }
    }
}

/// Deletes the setting `name`. *deleted (may be NULL) tells whether there
/// was one: 1, or 0 when there was none (not an error).
@c public func encore_store_delete_setting(_ store: encore_store_ptr?, _ name: UnsafePointer<CChar>?, _ deleted: UnsafeMutablePointer<Int32>?) -> encore_status {
    guarded {
        let s = try borrow(store, as: Store.self, "store")
        let d = try s.deleteSetting(try hostSettingName(name, of: s))
        deleted?.pointee = d ? 1 : 0
    }
}

/// Writes a new list of the names of the host's settings, in byte order, to *out
/// (release it with encore_string_list_free()).
@c public func encore_store_list_settings(_ store: encore_store_ptr?, _ out: UnsafeMutablePointer<encore_string_list_ptr?>?) -> encore_status {
    guarded {
        let s = try borrow(store, as: Store.self, "store")
        try output(out, "out") { retainedHandle(StringList(try s.settingNames().filter { !s.isLibrarySetting($0) })) }
    }
}
