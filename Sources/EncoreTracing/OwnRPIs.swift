import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// Every RPI this device broadcast within the store's retention window
/// (14 days), so that a report of one is never a sighting, whenever it is
/// heard: a second adapter of the same host hearing the current one, or
/// someone replaying one hours or days later.
///
/// The RPIs come from the own keys (all intervals of each key, 144 AES
/// blocks a day) and are derived once per key, then kept: a scan only asks
/// the store which keys the window holds (a handful of rows), derives those
/// it has not seen (today's, after midnight) and drops with their RPIs the
/// ones that left the window. So a scan costs a lookup per report, not a
/// derivation per report or per scan.
struct OwnRPIs {
    private var byKey: [OwnKey: [KeyData]] = [:]
    private(set) var all: Set<KeyData> = []

    /// Brings the set up to the own keys valid at some point from
    /// `since - retention` on (unix seconds).
    mutating func update(store: Store, since: Int64, retention: Int64 = Store.defaultRetentionSeconds) throws {
        let cutoff = ENInterval.number(unixSeconds: max(0, since.saturatingSubtracting(retention))) ?? 0
        let firstDay = Int64(ENInterval.dayStart(cutoff)) - Int64(ENInterval.rollingPeriod)
        let keys = try store.ownKeys(since: Int32(clamping: firstDay)).filter {
            Int64($0.rollingStartIntervalNumber) + Int64($0.rollingPeriod) > Int64(cutoff)
        }
        let current = Set(keys)
        guard current != Set(byKey.keys) else { return }
        byKey = byKey.filter { current.contains($0.key) }
        for key in keys where byKey[key] == nil {
            guard let start = UInt32(exactly: key.rollingStartIntervalNumber) else { continue }
            byKey[key] = try ENFKeySchedule.rpis(rpik: ENFKeySchedule.rpik(tek: key.keyData), start: start, count: Int(key.rollingPeriod))
        }
        all = Set(byKey.values.joined())
    }
}
