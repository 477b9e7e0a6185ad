import EncoreCrowdNotifier
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
#if canImport(Glibc)
import Glibc
#endif

/// The user's locations by locationIdHash, for matching published warnings
/// at the speed of reading them: an open-addressing table on the hash's
/// first 8 bytes (uniform, being a hash), a full 32-byte comparison only on
/// a hit, so a report for someone else's location costs one load and a
/// compare. Each location's keys are derived once, however many check-ins
/// and reports it has.
public struct LocationIndex: Sendable {
    public struct Entry: Sendable {
        public let locationIdHash: [UInt8]
        public let keys: CheckInCrypto.Keys
        /// The caller's ids of the check-ins at this location.
        public internal(set) var checkIns: [Int64]
    }

    public private(set) var entries: [Entry] = []
    private var prefixes: [UInt64]
    /// Entry index + 1 per slot; 0 is an empty slot.
    private var slots: [Int32]
    private let mask: Int

    /// `checkIns`: (the caller's id, the location id) of each check-in.
    public init(checkIns: [(id: Int64, locationId: [UInt8])]) throws {
        var capacity = 16
        while capacity < checkIns.count * 4 { capacity *= 2 }
        mask = capacity - 1
        prefixes = [UInt64](repeating: 0, count: capacity)
        slots = [Int32](repeating: 0, count: capacity)
        for c in checkIns {
            guard c.locationId.count == 32 else { throw EncoreError(.invalidArgument, "a location id is 32 bytes, not \(c.locationId.count)") }
            let hash = TraceLocation.locationIdHash(c.locationId)
            if let e = hash.withUnsafeBytes({ lookup($0.baseAddress.map { UnsafeRawPointer($0) }) }) {
                entries[e].checkIns.append(c.id)
                continue
            }
            guard entries.count < Int(Int32.max) else { throw EncoreError(.invalidArgument, "too many locations") }
            entries.append(Entry(locationIdHash: hash, keys: CheckInCrypto.Keys(locationId: c.locationId), checkIns: [c.id]))
            let prefix = hash.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            var i = Int(truncatingIfNeeded: prefix) & mask
            while slots[i] != 0 { i = (i + 1) & mask }
            slots[i] = Int32(entries.count)
            prefixes[i] = prefix
        }
    }

    public var isEmpty: Bool { entries.isEmpty }

    /// The entry whose hash is the 32 bytes at `hash`, if any.
    @inline(__always)
    public func lookup(_ hash: UnsafeRawPointer?) -> Int? {
        guard let hash else { return nil }
        let prefix = hash.loadUnaligned(as: UInt64.self)
        var i = Int(truncatingIfNeeded: prefix) & mask
        while true {
            let slot = slots[i]
            if slot == 0 { return nil }
            if prefixes[i] == prefix {
                let e = Int(slot) - 1
                let equal = entries[e].locationIdHash.withUnsafeBytes { b in b.baseAddress.map { memcmp($0, hash, 32) == 0 } ?? false }
                if equal { return e }
            }
            i = (i + 1) & mask
        }
    }
}
