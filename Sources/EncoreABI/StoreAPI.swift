// encore.h section: store, part 1
import CEncoreTypes
import EncoreCheck
import EncoreCheckIns
import EncoreClient
import EncoreCrypto
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreSync
import EncoreTracing

public typealias encore_store_ptr = OpaquePointer

func storeKey(_ pointer: UnsafePointer<encore_store_key>?, _ name: String) throws -> StoreKey {
    let k: encore_store_key = try readInput(UnsafeRawPointer(try required(pointer, name)), name)
    let bytes = Array(try buffer(k.data, k.length, "\(name).data"))
    switch k.kind {
    case ENCORE_KEY_PASSPHRASE: return .passphrase(bytes)
    case ENCORE_KEY_RAW: return .raw(bytes)
    default: throw EncoreError(.invalidArgument, "\(name).kind must be ENCORE_KEY_PASSPHRASE or ENCORE_KEY_RAW, not \(k.kind)")
    }
}

func storeOptions(_ pointer: UnsafePointer<encore_store_options>?) throws -> StoreOptions {
    guard let pointer else { return StoreOptions() }
    let o = try checkedStruct(pointer, "encore_store_options_init")
    guard o.create <= 1, o.reserved == 0, o.busy_timeout_ms >= 0 else {
        throw EncoreError(.invalidArgument, "store options: create must be 0 or 1, reserved 0, busy_timeout_ms not negative")
    }
    return StoreOptions(create: o.create == 1, busyTimeoutMilliseconds: o.busy_timeout_ms)
}

/// Writes the default store options to *options (pass sizeof *options):
/// create a missing file, wait up to 5000 ms for another process's lock.
@c public func encore_store_options_init(_ options: UnsafeMutablePointer<encore_store_options>?, _ struct_size: Int) -> encore_status {
    initOptions(options, "options", struct_size) { o in
        o.create = 1
        o.busy_timeout_ms = StoreOptions().busyTimeoutMilliseconds
    }
}

/// Opens the encrypted store at `path` (created when missing unless the
/// options forbid it; `options` may be NULL). A wrong key gives
/// ENCORE_ERR_STORE_WRONG_KEY (only when the key does not open the first
/// page), a file that is not a store ENCORE_ERR_STORE_NOT_DATABASE, a
/// damaged store (its first page opens, a later one or its length is
/// broken) ENCORE_ERR_STORE_CORRUPT, a store of a newer encore
/// ENCORE_ERR_STORE_TOO_NEW, an empty file ENCORE_ERR_STORE_MISSING even
/// with create (an empty file is never made a store: it may be a store
/// lost on disk); in all these cases the file is not modified.
/// Release the handle with encore_store_close().
@c public func encore_store_open(_ path: UnsafePointer<CChar>?, _ key: UnsafePointer<encore_store_key>?, _ options: UnsafePointer<encore_store_options>?, _ out: UnsafeMutablePointer<encore_store_ptr?>?) -> encore_status {
    guarded {
        let path = try text(path, "path")
        let key = try storeKey(key, "key")
        try output(out, "out") { retainedHandle(try Store(path: path, key: key, options: storeOptions(options))) }
    }
}

/// Closes the store's database and releases the handle; NULL does
/// nothing. Everything committed is on disk. A call under way on another
/// thread (through a client) finishes first. Clients made on the store
/// stay valid handles, but every call of theirs that needs the store then
/// fails with ENCORE_ERR_STORE_CLOSED; free them as usual.
@c public func encore_store_close(_ store: encore_store_ptr?) {
    guard let store else { return }
    Unmanaged<Store>.fromOpaque(UnsafeRawPointer(store)).takeUnretainedValue().close()
    release(store)
}

/// Re-encrypts the store under a new key (passphrase or raw).
@c public func encore_store_rekey(_ store: encore_store_ptr?, _ new_key: UnsafePointer<encore_store_key>?) -> encore_status {
    guarded {
        try borrow(store, as: Store.self, "store").rekey(to: storeKey(new_key, "new_key"))
    }
}

/// Writes the store's schema version to *version: the format of the
/// store's engine (7 since each feature's tables have a version of their
/// own, kept in the store; `encore store info` lists them).
@c public func encore_store_get_schema_version(_ store: encore_store_ptr?, _ version: UnsafeMutablePointer<UInt32>?) -> encore_status {
    guarded {
        let s = try borrow(store, as: Store.self, "store")
        try output(version, "version") { UInt32(clamping: try s.schemaVersion) }
    }
}

/// Checks the store for damage: every table read row by row and every index
/// walked (each page's MAC checked as it is decrypted), then SQLite's
/// integrity check.
/// ENCORE_OK when the store is sound; else ENCORE_ERR_STORE_CORRUPT with
/// what is damaged, in words (which table where known), in the error
/// message, one finding after another separated by "; ". Writes nothing.
/// A store too damaged to open fails encore_store_open() with
/// ENCORE_ERR_STORE_CORRUPT already; encore_store_salvage() copies what is left.
@c public func encore_store_check_integrity(_ store: encore_store_ptr?) -> encore_status {
    guarded {
        let found = try borrow(store, as: Store.self, "store").damage()
        guard found.isEmpty else {
            throw EncoreError(.storeCorrupt, "the store is damaged: " + found.joined(separator: "; "))
        }
    }
}

/// Copies every row that can still be read of the (damaged) store at
/// `path` (opened with `key`, read-only: it is never written) into a new
/// store at `new_path`, encrypted with `new_key` (the same key or
/// another), with every feature's tables at this encore's version; table
/// by table, in rowid order, stepping over the stretches that cannot be
/// read. `new_path` must not exist (ENCORE_ERR_INVALID_ARGUMENT); on any
/// failure nothing is left there. A wrong key is ENCORE_ERR_STORE_WRONG_KEY,
/// a damaged list of tables ENCORE_ERR_STORE_CORRUPT (nothing to copy).
/// `report` (may be NULL) receives, in library memory for
/// encore_bytes_free(), what was copied and lost as JSON (what `encore
/// store salvage --json` prints): {"complete", "rowsCopied", "tables":
/// [{"name", "complete", "copied", "refused", "unreadable": [{"from", "to"}],
/// "lostAtMost", "note"}]}; "lostAtMost" is null when nothing bounds the loss.
@c public func encore_store_salvage(_ path: UnsafePointer<CChar>?, _ key: UnsafePointer<encore_store_key>?, _ new_path: UnsafePointer<CChar>?, _ new_key: UnsafePointer<encore_store_key>?, _ report: UnsafeMutablePointer<encore_bytes>?) -> encore_status {
    guarded {
        let path = try text(path, "path")
        let key = try storeKey(key, "key")
        let newPath = try text(new_path, "new_path")
        let newKey = try storeKey(new_key, "new_key")
        let result = try StoreSalvage.salvage(from: path, key: key, to: newPath, newKey: newKey)
        if let report { report.pointee = try LibraryBytes.make(result.json.rendered) }
    }
}

/// Deletes what is older than now - max_age_seconds (14 days:
/// 1209600) from every table, keeping the newest risk result and the
/// tracing state at the cut-off; freed bytes are zeroed. `counts` may be
/// NULL (else its struct_size set by the caller: checked before anything
/// is deleted).
@c public func encore_store_purge(_ store: encore_store_ptr?, _ now: Int64, _ max_age_seconds: Int64, _ counts: UnsafeMutablePointer<encore_purge_counts>?) -> encore_status {
    guarded {
        let s = try borrow(store, as: Store.self, "store")
        if let counts { try checkOutput(counts, "counts") }
        let n = try s.purge(now: now, maxAge: max_age_seconds)
        if let counts {
            try writeOutput(encore_purge_counts(struct_size: 0, reserved: 0, sightings: UInt64(n["sightings"]), own_keys: UInt64(n["ownKeys"]),
                                                keyfiles: UInt64(n["keyFiles"]), tracing_events: UInt64(n["tracingEvents"]),
                                                risk_results: UInt64(n["riskResults"])), to: counts, "counts")
        }
    }
}

/// Adds `count` sightings (`element_size` bytes apart: pass sizeof
/// *sightings) in one transaction: all or, on any error, none.
/// Sightings identical to stored ones are kept once; *added (may be NULL)
/// tells how many were new.
@c public func encore_sighting_add(_ client: encore_client_ptr?, _ sightings: UnsafePointer<encore_sighting>?, _ element_size: Int, _ count: Int, _ added: UnsafeMutablePointer<Int>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        let given: [encore_sighting] = try readInputs(sightings, elementSize: element_size, count: count, "sightings")
        let rows = try given.enumerated().map { i, o in
            guard o.has_prev_scan <= 1, o.has_typical_rssi <= 1, o.reserved.0 == 0, o.reserved.1 == 0, o.reserved2 == 0,
                  withUnsafeBytes(of: o.reserved3, { $0.allSatisfy { $0 == 0 } }) else {
                throw EncoreError(.invalidArgument, "sightings[\(i)]: has_prev_scan and has_typical_rssi must be 0 or 1 and reserved bytes 0")
            }
            return Sighting(o)
        }
        let n = try s.addSightings(rows)
        added?.pointee = n
    }
}

/// Writes the number of sightings with from <= time < to to *count.
@c public func encore_sighting_count(_ client: encore_client_ptr?, _ from: Int64, _ to: Int64, _ count: UnsafeMutablePointer<UInt64>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        try output(count, "count") { UInt64(try s.countSightings(from: from, to: to)) }
    }
}

/// Copies sightings with from <= time < to, in time order, from index
/// `first` on, as every list is copied (see "Lists").
@c public func encore_sighting_copy(_ client: encore_client_ptr?, _ from: Int64, _ to: Int64, _ first: UInt64, _ out: UnsafeMutablePointer<encore_sighting>?, _ element_size: Int, _ capacity: Int, _ copied: UnsafeMutablePointer<Int>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        try copyOut(first: first, out, element_size, capacity, copied, count: { try s.countSightings(from: from, to: to) },
                    forEach: { try s.forEachSighting(from: from, to: to, offset: $0, limit: $1, $2) }, encore_sighting.init)
    }
}

extension Sighting {
    init(_ o: encore_sighting) {
        var rpi = o.rpi
        var aem = o.aem
        self.init(time: o.time, rpi: withUnsafeBytes(of: &rpi) { KeyData($0) },
                  aem: withUnsafeBytes(of: &aem) { $0.loadUnaligned(as: UInt32.self) },
                  rssi: o.rssi, typicalRSSI: o.has_typical_rssi == 1 ? o.typical_rssi : nil,
                  previousScan: o.has_prev_scan == 1 ? o.prev_scan : nil)
    }
}

extension encore_sighting {
    init(_ o: Sighting) {
        self.init()
        struct_size = structSize(encore_sighting.self)
        time = o.time
        prev_scan = o.previousScan ?? 0
        has_prev_scan = o.previousScan == nil ? 0 : 1
        rssi = o.rssi
        has_typical_rssi = o.typicalRSSI == o.rssi ? 0 : 1
        typical_rssi = o.typicalRSSI == o.rssi ? 0 : o.typicalRSSI
        o.rpi.withUnsafeBytes { src in withUnsafeMutableBytes(of: &rpi) { $0.copyMemory(from: src) } }
        withUnsafeBytes(of: o.aem) { src in withUnsafeMutableBytes(of: &aem) { $0.copyMemory(from: src) } }
    }
}
