import EncoreExposure
import EncoreStorage
import EncoreSupport

/// What microG's settings page shows, from the store: whether tracing is
/// on and since when, the RPIs heard in the last hour and 14 days, the
/// last scan, the adapter, and the calibration.
public struct TracingStatus: Equatable, Sendable {
    public var active: Bool
    /// The time of the last on/off change; nil when tracing never ran.
    public var since: Int64?
    /// The end of the last scan ingested.
    public var lastScan: Int64?
    /// Distinct RPIs heard in [now − 1 h, now] and [now − 14 days, now].
    public var rpisLastHour: Int
    public var rpisLast14Days: Int
    /// Seconds tracing was on in the last 14 days (CWA needs 24 h).
    public var activeSecondsLast14Days: Int64
    public var adapter: String?
    public var calibration: Calibration
    /// Sightings stored on now's UTC day, and those the cap on a day's
    /// sightings dropped (SightingCap) on it and in the last 14 days.
    public var sightingsToday: Int
    public var sightingsDroppedToday: Int
    public var sightingsDroppedLast14Days: Int
}

extension Store {
    public func tracingStatus(now: Int64) throws -> TracingStatus {
        let last = try lastTracingEvent()
        let fortnight = now.saturatingSubtracting(Store.defaultRetentionSeconds)
        let today = UnixTime.utcMidnight(now), tomorrow = today.saturatingAdding(UnixTime.day)
        let dropped = try droppedSightings(from: UnixTime.utcMidnight(fortnight), to: tomorrow)
        return TracingStatus(active: last?.active ?? false, since: last?.time, lastScan: try tracingLastScan(),
                             rpisLastHour: try distinctRPIs(from: now.saturatingSubtracting(3600), through: now),
                             rpisLast14Days: try distinctRPIs(from: fortnight, through: now),
                             activeSecondsLast14Days: try activeTracingSeconds(from: fortnight, to: max(fortnight, now)),
                             adapter: try tracingAdapter(), calibration: try tracingCalibration(),
                             sightingsToday: try countSightings(from: today, to: tomorrow),
                             sightingsDroppedToday: dropped.last.map { $0.day == today ? $0.sightings : 0 } ?? 0,
                             sightingsDroppedLast14Days: dropped.reduce(0) { $0.saturatingAdding($1.sightings) })
    }
}
