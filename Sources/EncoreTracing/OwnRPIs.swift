import EncoreExposure
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

enum OwnRPIs {
    /// The RPIs this device broadcast in the intervals from `from` to `to`
    /// (unix seconds), one interval of slack either side (a payload made
    /// late in an interval is still sent in the next): derived from the
    /// own keys, so a report of the device's own advertisement, which a
    /// second adapter of the same host hears, is never a sighting.
    static func broadcast(store: Store, from: Int64, to: Int64) throws -> Set<KeyData> {
        guard from <= to, let first = ENInterval.number(unixSeconds: max(0, from.saturatingSubtracting(ENInterval.seconds))),
              let last = ENInterval.number(unixSeconds: to.saturatingAdding(ENInterval.seconds)) else { return [] }
        // At most one day's keys and the day before: a scan is seconds long.
        guard last - first <= 2 * ENInterval.rollingPeriod else {
            throw EncoreError(.invalidArgument, "a scan must not span more than a day (from \(from) to \(to))")
        }
        let since = Int32(clamping: Int64(ENInterval.dayStart(first)) - Int64(ENInterval.rollingPeriod))
        var out: Set<KeyData> = []
        for key in try store.ownKeys(since: since) {
            let start = Int64(key.rollingStartIntervalNumber), end = start + Int64(key.rollingPeriod)
            let lo = max(start, Int64(first)), hi = min(end, Int64(last) + 1)
            guard lo < hi, let s = UInt32(exactly: lo) else { continue }
            let rpik = try ENCrypto.rpik(tek: key.keyData)
            out.formUnion(try ENCrypto.rpis(rpik: rpik, start: s, count: Int(hi - lo)))
        }
        return out
    }
}
