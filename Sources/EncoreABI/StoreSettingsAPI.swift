import CEncoreTypes
import EncoreCheck
import EncoreCheckIns
import EncoreClient
import EncoreCrypto
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncorePush
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreSync
import EncoreTestResults
import EncoreTracing
import EncoreWire

// The host's settings: small typed values under a name (NUL-terminated
// UTF-8, 1 to 1024 bytes). Setting a value replaces any value of any type
// under the name. Reading with the wrong type is ENCORE_ERR_INVALID_ARGUMENT
// (the message names the stored type); reading a missing name is
// ENCORE_ERR_NOT_FOUND. Names starting "sync.", "push.", "tracing." or "encore." are the
// library's own (each feature's StoreTables.settingPrefixes): every function here refuses them
// (ENCORE_ERR_INVALID_ARGUMENT) and the list leaves them out.

/// A host's setting name, read from C and checked against the library's own.
func hostSettingName(_ name: UnsafePointer<CChar>?, of store: Store) throws -> String {
    let n = try text(name, "name")
    try store.checkHostSettingName(n)
    return n
}

/// Sets the setting `name` to an integer.
@c public func encore_store_set_setting_int64(_ store: encore_store_ptr?, _ name: UnsafePointer<CChar>?, _ value: Int64) -> encore_status {
    guarded {
        let s = try borrow(store, as: Store.self, "store")
        try s.setSetting(try hostSettingName(name, of: s), to: .integer(value))
    }
}

/// Writes the integer setting `name` to *value. ENCORE_ERR_NOT_FOUND when
/// there is no such setting; ENCORE_ERR_INVALID_ARGUMENT, naming the stored
/// type, when it holds another type (so for every _get_setting_ function).
@c public func encore_store_get_setting_int64(_ store: encore_store_ptr?, _ name: UnsafePointer<CChar>?, _ value: UnsafeMutablePointer<Int64>?) -> encore_status {
    guarded {
        let s = try borrow(store, as: Store.self, "store")
        let name = try hostSettingName(name, of: s)
        try output(value, "value") { try s.integerSetting(name) }
    }
}

/// Sets the setting `name` to a double (NaN is ENCORE_ERR_INVALID_ARGUMENT).
@c public func encore_store_set_setting_double(_ store: encore_store_ptr?, _ name: UnsafePointer<CChar>?, _ value: Double) -> encore_status {
    guarded {
        let s = try borrow(store, as: Store.self, "store")
        try s.setSetting(try hostSettingName(name, of: s), to: .double(value))
    }
}

/// Writes the double setting `name` to *value.
@c public func encore_store_get_setting_double(_ store: encore_store_ptr?, _ name: UnsafePointer<CChar>?, _ value: UnsafeMutablePointer<Double>?) -> encore_status {
    guarded {
        let s = try borrow(store, as: Store.self, "store")
        let name = try hostSettingName(name, of: s)
        try output(value, "value") { try s.doubleSetting(name) }
    }
}

/// Sets the setting `name` to text (NUL-terminated UTF-8).
@c public func encore_store_set_setting_text(_ store: encore_store_ptr?, _ name: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?) -> encore_status {
    guarded {
        let s = try borrow(store, as: Store.self, "store")
        let name = try hostSettingName(name, of: s)
        try s.setSetting(name, to: .text(try text(value, "value")))
    }
}

/// Copies the text setting `name` into library-owned memory in *value
/// (NUL-terminated; release it with encore_bytes_free()).
@c public func encore_store_get_setting_text(_ store: encore_store_ptr?, _ name: UnsafePointer<CChar>?, _ value: UnsafeMutablePointer<encore_bytes>?) -> encore_status {
    guarded {
        let s = try borrow(store, as: Store.self, "store")
        let name = try hostSettingName(name, of: s)
        try output(value, "value") { try s.withSettingBytes(name, .text) { try LibraryBytes.make(copying: $0) } }
    }
}

/// Sets the setting `name` to `length` bytes (NULL is allowed for 0 bytes).
@c public func encore_store_set_setting_blob(_ store: encore_store_ptr?, _ name: UnsafePointer<CChar>?, _ value: UnsafePointer<UInt8>?, _ length: Int) -> encore_status {
    guarded {
        let s = try borrow(store, as: Store.self, "store")
        let name = try hostSettingName(name, of: s)
        try s.setSetting(name, blob: try buffer(value, length, "value"))
    }
}

/// Copies the blob setting `name` into library-owned memory in *value
/// (release it with encore_bytes_free()).
@c public func encore_store_get_setting_blob(_ store: encore_store_ptr?, _ name: UnsafePointer<CChar>?, _ value: UnsafeMutablePointer<encore_bytes>?) -> encore_status {
    guarded {
        let s = try borrow(store, as: Store.self, "store")
        let name = try hostSettingName(name, of: s)
        try output(value, "value") { try s.withSettingBytes(name, .blob) { try LibraryBytes.make(copying: $0) } }
    }
}

/// Writes the type of the setting `name` (ENCORE_SETTING_*) to *type;
/// ENCORE_ERR_NOT_FOUND when there is no such setting.
@c public func encore_store_get_setting_type(_ store: encore_store_ptr?, _ name: UnsafePointer<CChar>?, _ type: UnsafeMutablePointer<Int32>?) -> encore_status {
    guarded {
        let s = try borrow(store, as: Store.self, "store")
        let name = try hostSettingName(name, of: s)
        let out = try required(type, "type")
        guard let t = try s.settingType(name) else { throw EncoreError(.notFound, "no setting named '\(name)'") }
        out.pointee = t.rawValue
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
