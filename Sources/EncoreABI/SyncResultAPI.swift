// encore.h section: sync, part 2
import CEncoreTypes
import EncoreClient
import EncoreCrypto
import EncoreHTTP
import EncoreKeyFiles
import EncoreSupport
import EncoreSync

// The sync's result as structs: its items and the configuration it went on
// with, made from the same SyncReport as its JSON (encore_sync_result_get_json).

/// ENCORE_SYNC_CONFIG_* of the configuration a sync went on with.
func configurationUsed(_ source: SyncConfigurationUse.Source?) -> Int32 {
    switch source {
    case nil: return ENCORE_SYNC_CONFIG_NONE
    case .fetched?: return ENCORE_SYNC_CONFIG_FETCHED
    case .unchanged?: return ENCORE_SYNC_CONFIG_UNCHANGED
    case .lastVerified?: return ENCORE_SYNC_CONFIG_LAST_VERIFIED
    case .builtIn?: return ENCORE_SYNC_CONFIG_BUILT_IN
    }
}

private let itemKinds: [SyncItem.Kind: Int32] = [.day: ENCORE_SYNC_ITEM_DAY, .hour: ENCORE_SYNC_ITEM_HOUR, .config: ENCORE_SYNC_ITEM_CONFIG,
                                                  .dp3t: ENCORE_SYNC_ITEM_DP3T, .warnings: ENCORE_SYNC_ITEM_WARNINGS,
                                                  .traceKeys: ENCORE_SYNC_ITEM_TRACE_KEYS]
private let itemOutcomes: [SyncItem.Outcome: Int32] = [.fetched: ENCORE_SYNC_OUTCOME_FETCHED, .cached: ENCORE_SYNC_OUTCOME_CACHED,
                                                       .failed: ENCORE_SYNC_OUTCOME_FAILED]

/// The C form of one item; its tag is made by `own` (the caller's bytes).
func syncItem(_ item: SyncItem, own: (String) throws -> encore_bytes) throws -> encore_sync_item {
    guard let kind = itemKinds[item.kind], let outcome = itemOutcomes[item.outcome] else {
        throw EncoreError(.internalError, "sync item \(item.kind.rawValue)/\(item.outcome.rawValue) has no C value")
    }
    var c = encore_sync_item()
    c.struct_size = structSize(encore_sync_item.self)
    c.kind = kind
    c.outcome = outcome
    c.status = item.failure.map { statusCode($0.kind) } ?? ENCORE_OK
    c.day = item.day.flatMap(UTCTime.midnight(ofDay:)) ?? -1
    c.hour = item.hour.map { Int32(clamping: $0) } ?? -1
    c.interval = item.interval ?? -1
    c.keys = UInt64(clamping: item.keys)
    c.matches = UInt64(clamping: item.matches ?? 0)
    c.bytes = UInt64(clamping: item.bytes)
    c.tag = try own(item.etag)
    return c
}

/// Copies items first ..< first + capacity of what a sync asked for, in
/// order (see "Lists"; summary.item_count tells how many): every key file,
/// the configuration, each DP-3T or CrowdNotifier bundle and trace warning
/// package, with its outcome (fetched, cached, or failed without failing
/// the sync, with the status of its failure). Each element's tag is copied
/// into an encore_bytes the caller owns: release it with encore_bytes_free()
/// (also after the result is freed); a failed call leaves nothing to free.
/// ENCORE_ERR_INVALID_ARGUMENT for an element_size below
/// sizeof(encore_sync_item) of its first version. The JSON's "items" are
/// the same items. Thread-safe (the result is immutable).
@c public func encore_sync_result_copy_items(_ result: encore_sync_result_ptr?, _ first: UInt64, _ out: UnsafeMutablePointer<encore_sync_item>?, _ element_size: Int, _ capacity: Int, _ copied: UnsafeMutablePointer<Int>?) -> encore_status {
    guarded {
        let r = try borrow(result, as: SyncResultHandle.self, "result").value
        try copyOutOwning(r.items, first: first, out, element_size, capacity, copied, syncItem)
    }
}

/// Writes which app configuration the sync went on with and why
/// (configuration->used ENCORE_SYNC_CONFIG_NONE without a CWA sync; the
/// JSON's "configuration" says the same). configuration->struct_size must
/// be set by the caller (ENCORE_ERR_INVALID_ARGUMENT when it is too small).
/// configuration->reason is the caller's: release it with
/// encore_bytes_free(); nothing is written on failure. Thread-safe.
@c public func encore_sync_result_get_configuration(_ result: encore_sync_result_ptr?, _ configuration: UnsafeMutablePointer<encore_sync_configuration>?) -> encore_status {
    guarded {
        let r = try borrow(result, as: SyncResultHandle.self, "result").value
        try checkOutput(configuration, "configuration")
        var out = encore_sync_configuration()
        out.struct_size = structSize(encore_sync_configuration.self)
        out.used = configurationUsed(r.configuration?.source)
        out.failures = UInt32(clamping: r.configuration?.failures ?? 0)
        out.reason = try LibraryBytes.make(r.configuration?.reason ?? "")
        try writeOwnedOutput(out, to: configuration, "configuration", owned: [out.reason])
    }
}

/// The sync's warnings, in words (a clock far off the server's, a time
/// budget that ran out, a bundle tag a backend refused; the JSON's
/// "warnings"), as a string list for encore_string_list_free() (empty when
/// there were none). Thread-safe.
@c public func encore_sync_result_get_warnings(_ result: encore_sync_result_ptr?, _ out: UnsafeMutablePointer<encore_string_list_ptr?>?) -> encore_status {
    guarded {
        let r = try borrow(result, as: SyncResultHandle.self, "result").value
        try output(out, "out") { retainedHandle(StringList(r.warnings)) }
    }
}
