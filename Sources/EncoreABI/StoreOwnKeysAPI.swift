// encore.h section: store, part 3
import CEncoreTypes
import EncoreClient
import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// Stores one of the device's own temporary exposure keys (rolling start
/// >= 0, rolling period 1..144, created >= 0); a key with the same key_data
/// is replaced.
@c public func encore_own_key_put(_ client: encore_client_ptr?, _ key: UnsafePointer<encore_own_key>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        let k: encore_own_key = try readInput(UnsafeRawPointer(try required(key, "key")), "key")
        guard k.reserved == 0 else { throw EncoreError(.invalidArgument, "key->reserved must be 0") }
        try s.putOwnKey(OwnKey(k))
    }
}

/// Writes the number of own keys whose rolling start interval is at least
/// `since_interval` to *count (INT32_MIN or 0: all of them).
@c public func encore_own_key_count(_ client: encore_client_ptr?, _ since_interval: Int32, _ count: UnsafeMutablePointer<UInt64>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        try output(count, "count") { UInt64(try s.countOwnKeys(since: since_interval)) }
    }
}

/// Copies own keys whose rolling start interval is at least `since_interval`,
/// ordered by rolling start (then creation time, then key bytes), skipping
/// the first `first`, as every list is copied (see "Lists").
@c public func encore_own_key_copy(_ client: encore_client_ptr?, _ since_interval: Int32, _ first: UInt64, _ out: UnsafeMutablePointer<encore_own_key>?, _ element_size: Int, _ capacity: Int, _ copied: UnsafeMutablePointer<Int>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        try copyOut(first: first, out, element_size, capacity, copied, count: { try s.countOwnKeys(since: since_interval) },
                    forEach: { try s.forEachOwnKey(since: since_interval, offset: $0, limit: $1, $2) }, encore_own_key.init)
    }
}

/// Writes the own key with the latest rolling start (the newest one made
/// among equal starts) to *key (struct_size set by the caller);
/// ENCORE_ERR_NOT_FOUND when there is none.
@c public func encore_own_key_get_latest(_ client: encore_client_ptr?, _ key: UnsafeMutablePointer<encore_own_key>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        try checkOutput(key, "key")
        guard let k = try s.latestOwnKey() else { throw EncoreError(.notFound, "the store holds no own keys") }
        try writeOutput(encore_own_key(k), to: key, "key")
    }
}

extension OwnKey {
    init(_ k: encore_own_key) {
        var data = k.key_data
        self.init(keyData: withUnsafeBytes(of: &data) { KeyData($0) }, rollingStartIntervalNumber: k.rolling_start_interval_number,
                  rollingPeriod: k.rolling_period, created: k.created)
    }
}

extension encore_own_key {
    init(_ k: OwnKey) {
        self.init()
        struct_size = structSize(encore_own_key.self)
        k.keyData.withUnsafeBytes { src in withUnsafeMutableBytes(of: &key_data) { $0.copyMemory(from: src) } }
        rolling_start_interval_number = k.rollingStartIntervalNumber
        rolling_period = k.rollingPeriod
        created = k.created
    }
}
