import EncoreCrypto
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

extension Store {
    /// Stores one of the device's own keys; a key with the same key bytes is
    /// replaced.
    public func putOwnKey(_ key: OwnKey) throws {
        try key.validate()
        try withConnection { c in
            let s = try c.prepare("INSERT OR REPLACE INTO own_keys (key_data, rolling_start, rolling_period, created) VALUES (?, ?, ?, ?)")
            _ = key.keyData.withUnsafeBytes { s.bind(1, blob: $0) }
            s.bind(2, Int64(key.rollingStartIntervalNumber)).bind(3, Int64(key.rollingPeriod)).bind(4, key.created)
            try s.run()
        }
    }

    /// The own key whose rolling start is `rollingStart` and whose validity
    /// holds `interval` (the newest such), or else the key `make()` returns,
    /// stored: both in one transaction, so that callers racing at midnight
    /// get the same key.
    public func ownKey(rollingStart: Int32, covering interval: UInt32, orInsert make: () throws -> OwnKey) throws -> OwnKey {
        try withConnection { c in
            try c.transaction {
                let find = try c.prepare("""
                    SELECT key_data, rolling_start, rolling_period, created FROM own_keys
                    WHERE rolling_start = ? AND rolling_start + rolling_period > ? ORDER BY created DESC LIMIT 1
                    """)
                find.bind(1, Int64(rollingStart)).bind(2, Int64(interval))
                if let existing = try find.one({ s -> OwnKey? in
                    guard let k = s.keyData(0) else { return nil }
                    return OwnKey(keyData: k, rollingStartIntervalNumber: rollingStart, rollingPeriod: Int32(clamping: s.int64(2)), created: s.int64(3))
                }), let key = existing {
                    return key
                }
                let key = try make()
                try key.validate()
                let insert = try c.prepare("INSERT INTO own_keys (key_data, rolling_start, rolling_period, created) VALUES (?, ?, ?, ?)")
                _ = key.keyData.withUnsafeBytes { insert.bind(1, blob: $0) }
                insert.bind(2, Int64(key.rollingStartIntervalNumber)).bind(3, Int64(key.rollingPeriod)).bind(4, key.created)
                try insert.run()
                return key
            }
        }
    }

    /// Stores the key fields of an exposure key as an own key made at `created`.
    public func putOwnKey(_ key: ExposureKey, created: Int64) throws {
        try putOwnKey(OwnKey(key, created: created))
    }

    /// How many own keys have a rolling start interval of at least `since`.
    public func countOwnKeys(since rollingStart: Int32 = .min) throws -> Int {
        try withConnection { c in
            let s = try c.prepare("SELECT count(*) FROM own_keys WHERE rolling_start >= ?")
            s.bind(1, Int64(rollingStart))
            return try s.one { Int($0.int64(0)) } ?? 0
        }
    }

    /// Own keys with a rolling start interval of at least `since`, ordered by
    /// rolling start (then creation time, then key bytes), skipping `offset`
    /// and returning at most `limit`.
    public func ownKeys(since rollingStart: Int32 = .min, offset: Int = 0, limit: Int = .max) throws -> [OwnKey] {
        var out: [OwnKey] = []
        try forEachOwnKey(since: rollingStart, offset: offset, limit: limit) { out.append($0) }
        return out
    }

    /// Calls `body` with own keys in the order of ownKeys(since:) (the
    /// connection is held meanwhile: do not call the store from `body`).
    public func forEachOwnKey(since rollingStart: Int32 = .min, offset: Int = 0, limit: Int = .max,
                              _ body: (OwnKey) throws -> Void) throws {
        guard offset >= 0, limit >= 0 else { throw EncoreError(.invalidArgument, "offset and limit must not be negative") }
        try withConnection { c in
            let s = try c.prepare("""
                SELECT key_data, rolling_start, rolling_period, created FROM own_keys
                WHERE rolling_start >= ? ORDER BY rolling_start, created, key_data LIMIT ? OFFSET ?
                """)
            s.bind(1, Int64(rollingStart)).bind(2, Int64(clamping: limit)).bind(3, Int64(offset))
            defer { s.reset() }
            while try s.step() { try body(try Store.ownKey(s)) }
        }
    }

    /// The own key with the latest rolling start (the newest one made when
    /// several share it); nil when there is none.
    public func latestOwnKey() throws -> OwnKey? {
        try withConnection { c in
            let s = try c.prepare("""
                SELECT key_data, rolling_start, rolling_period, created FROM own_keys
                ORDER BY rolling_start DESC, created DESC, key_data DESC LIMIT 1
                """)
            return try s.one { try Store.ownKey($0) }
        }
    }

    private static func ownKey(_ s: Statement) throws -> OwnKey {
        guard let key = s.keyData(0),
              let start = Int32(exactly: s.int64(1)), let period = Int32(exactly: s.int64(2)) else {
            throw EncoreError(.storeCorrupt, "the store is damaged: an own key row is malformed")
        }
        return OwnKey(keyData: key, rollingStartIntervalNumber: start, rollingPeriod: period, created: s.int64(3))
    }
}
