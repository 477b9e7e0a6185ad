import EncoreExposure
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// What ingesting one scan did.
public struct ScanIngestResult: Equatable, Sendable {
    /// Reports given.
    public var reports = 0
    /// Sightings written (one per RPI heard; those already stored, as when
    /// a scan is ingested twice, are not counted).
    public var sightingsAdded = 0
    /// Sightings that were stored already.
    public var sightingsAlreadyStored = 0
    /// Sightings the cap on sightings a day dropped (SightingCap).
    public var sightingsOverCap = 0
    public var ownReports = 0
    public var repeatedReports = 0
    public var invalidReports = 0
    public init() {}
}

/// The tracing feature over a store, without I/O: the host (a daemon over
/// BlueZ, an Android or raw-HCI host) asks it what to broadcast and when
/// to scan, hands it what it heard, and tells it when tracing starts and
/// stops. Time is always passed in. Thread safe: calls are serialised.
///
/// The host's loop:
///   start(now) → advertisement(now) → broadcast it until its validUntil,
///   then advertisement(now) again (a new payload: rotate the address too);
///   nextScan(now) → scan in the window → ingestScan(window, reports);
///   stop(now) whenever scanning stops for any reason (adapter off, BlueZ
///   gone, shutdown), start(now) when it resumes.
public final class Tracer: Sendable {
    public let store: Store
    public let scanSchedule: ScanSchedule
    public let rotation: RotationSchedule
    public let sightingCap: SightingCap
    private let random: RandomSeconds
    private let state: Locked<State>

    private struct State {
        var active = false
        var calibration: Calibration
        var advertisement: Advertisement?
        /// Start of the last scan ingested since tracing (re)started, and
        /// the previous scan it was stored with (a scan ingested again, as
        /// after a host's retry, gets the same and so adds nothing).
        var lastScanStart: Int64?
        var lastScanPrevious: Int64?
        /// The device's own RPIs of the retention window, kept between scans.
        var ownRPIs = OwnRPIs()
        /// The UTC day the last scan stored sightings in, for the cap
        /// (read again from the store at each start and on a new day).
        var cappedDay: CappedDay?
    }

    /// A tracer over `store`, with the calibration the store holds.
    /// `random` draws the rotation times (the system's CSPRNG by default);
    /// `sightingCap` bounds the sightings stored per day.
    public init(store: Store, scanSchedule: ScanSchedule = .enf, rotation: RotationSchedule = .enf,
                sightingCap: SightingCap = .default, random: @escaping RandomSeconds = systemRandomSeconds) throws {
        try scanSchedule.validate()
        guard rotation.minimumSeconds >= 1, rotation.maximumSeconds >= rotation.minimumSeconds, rotation.maximumSeconds <= 86_400 else {
            throw EncoreError(.invalidArgument, "a rotation schedule needs 1 <= minimum <= maximum <= 86400 seconds")
        }
        self.store = store
        self.scanSchedule = scanSchedule
        self.rotation = rotation
        self.sightingCap = sightingCap
        self.random = random
        self.state = Locked(State(calibration: try store.tracingCalibration()))
    }

    public var isActive: Bool { state.withLock { $0.active } }

    public var calibration: Calibration { state.withLock { $0.calibration } }

    /// Stores a new calibration; the next payload carries it (the current
    /// one stays until its time, so the RPI does not change early).
    public func setCalibration(_ c: Calibration) throws {
        try state.withLock { s in
            try store.setTracingCalibration(c)
            s.calibration = c
        }
    }

    /// Tracing (scanning and broadcasting) starts at `now`: recorded in the
    /// tracing history. A history still "on" from a run that ended without
    /// stop() (a crash, a power cut) is closed first at that run's last
    /// scan, so the time in between does not count as traced.
    public func start(now: Int64) throws {
        try state.withLock { s in
            guard !s.active else { return }
            try closeStaleRun(now: now)
            try store.addTracingEvent(time: now, active: true)
            s.active = true
            s.advertisement = nil
            s.cappedDay = nil
            (s.lastScanStart, s.lastScanPrevious) = (nil, nil)
        }
    }

    /// Tracing stops at `now` (for any reason): recorded in the history.
    /// The advertisement is dropped: the next start() makes a new one.
    /// On a stopped tracer it only closes a run a crash left open (call it
    /// when the radio cannot be used from the outset, so the history does
    /// not count that time as traced).
    public func stop(now: Int64) throws {
        try state.withLock { s in
            guard s.active else { return try closeStaleRun(now: now) }
            try store.addTracingEvent(time: now, active: false)
            s.active = false
            s.advertisement = nil
            (s.lastScanStart, s.lastScanPrevious) = (nil, nil)
        }
    }

    /// An "on" the history ends with while this tracer is off is a run
    /// that ended without stop(): closed at its last scan (or at its start
    /// when it never scanned), never later than `now`.
    private func closeStaleRun(now: Int64) throws {
        guard now >= 0 else { throw EncoreError(.invalidArgument, "tracing event: the time must not be negative") }
        guard let last = try store.lastTracingEvent(), last.active else { return }
        let lastScan = try store.tracingLastScan()
        let end = min(max(lastScan ?? last.time, last.time), now)
        try store.addTracingEvent(time: max(0, end), active: false)
    }

    /// The payload to broadcast at `now`: the current one while it is
    /// valid, else a new one (today's key, the RPI of now's interval, a new
    /// validity). The host re-registers its advertisement (and so changes
    /// the address) whenever `since` changes. .tracingInactive before start().
    public func advertisement(now: Int64) throws -> Advertisement {
        try state.withLock { s in
            guard s.active else { throw EncoreError(.tracingInactive, "tracing is off: start it before asking for an advertisement") }
            if let a = s.advertisement, now >= a.since, now < a.validUntil { return a }
            let a = try makeAdvertisement(now: now, calibration: s.calibration)
            s.advertisement = a
            return a
        }
    }

    /// A new payload at `now` whatever the current one's validity (when the
    /// host had to register its advertisement again, e.g. after BlueZ
    /// came back).
    public func rotate(now: Int64) throws -> Advertisement {
        try state.withLock { s in
            guard s.active else { throw EncoreError(.tracingInactive, "tracing is off: start it before asking for an advertisement") }
            let a = try makeAdvertisement(now: now, calibration: s.calibration)
            s.advertisement = a
            return a
        }
    }

    private func makeAdvertisement(now: Int64, calibration: Calibration) throws -> Advertisement {
        guard let interval = ENInterval.number(unixSeconds: now) else {
            throw EncoreError(.invalidArgument, "now (\(now)) is outside the range of interval numbers")
        }
        let payload = try OwnKeySchedule(store: store).advertisement(now: now, txPower: calibration.effectiveTxPower,
                                                                    calibrationConfidence: calibration.effectiveConfidence)
        return Advertisement(payload: payload, interval: interval, since: now, validUntil: rotation.validUntil(rotation: now, random: random))
    }

    /// The next scan window from `now`. .tracingInactive before start().
    public func nextScan(now: Int64) throws -> ScanWindow {
        try state.withLock { s in
            guard s.active else { throw EncoreError(.tracingInactive, "tracing is off: start it before scanning") }
            return scanSchedule.nextWindow(lastScanStart: s.lastScanStart, now: now)
        }
    }

    /// Stores what one scan in `window` heard: one sighting per RPI (first
    /// heard, the maximal and the typical corrected RSSI, the previous
    /// scan's start as prev_scan), in one transaction; the device's own
    /// RPIs (any it broadcast in the store's retention window), repeats and
    /// reports without an RSSI dropped, and sightings over the cap on a
    /// day's sightings dropped and counted (SightingCap). Call it before
    /// stop(). A report's time must not be negative.
    public func ingestScan(window: ScanWindow, reports: [ScanReport]) throws -> ScanIngestResult {
        try state.withLock { s in
            guard s.active else { throw EncoreError(.tracingInactive, "tracing is off: scans are ingested while it is on") }
            guard window.start >= 0, window.end >= window.start else {
                throw EncoreError(.invalidArgument, "a scan window needs 0 <= start <= end")
            }
            for (i, r) in reports.enumerated() where r.time < 0 {
                throw EncoreError(.invalidArgument, "report \(i): the time must not be negative")
            }
            // Own RPIs of the retention window before the earliest report.
            try s.ownRPIs.update(store: store, since: reports.reduce(window.start) { min($0, $1.time) })
            let folded = ScanAggregation.aggregate(reports, ownRPIs: s.ownRPIs.all, calibration: s.calibration)
            let repeated = window.start == s.lastScanStart
            // A scan before the last one (the clock was set back) has no
            // known previous scan, as the first one after a start.
            let backwards = s.lastScanStart.map { window.start < $0 } ?? false
            let previous = repeated ? s.lastScanPrevious : backwards ? nil : s.lastScanStart
            let rows = folded.sightings.map {
                Sighting(time: $0.firstSeen, rpi: $0.rpi, aem: $0.aem, rssi: $0.maxRSSI, typicalRSSI: $0.typicalRSSI, previousScan: previous)
            }
            // By UTC day (a scan across midnight has two), each day's cap.
            var days: [CappedDay] = []
            var admitted: [(keep: [Sighting], dropped: Int)] = []
            for (day, dayRows) in Self.byDay(rows) {
                let known = s.cappedDay?.day == day ? s.cappedDay : nil
                let d = try known ?? store.cappedDay(day)
                days.append(d)
                admitted.append(d.admit(dayRows, cap: sightingCap))
            }
            var result = ScanIngestResult()
            result.reports = reports.count
            // The sightings, the drops (a scan ingested again counted them
            // already) and the last scan's time in one transaction (one
            // commit a scan: the store syncs each to disk).
            let added = try store.write { w in
                var added: [Int] = []
                for (d, a) in zip(days, admitted) {
                    added.append(try w.addSightings(a.keep))
                    if !repeated { try w.addDroppedSightings(day: d.day, count: a.dropped) }
                }
                try w.setSetting(TracingSettingNames.lastScan, to: .integer(window.end))
                return added
            }
            for i in days.indices { days[i].kept(admitted[i].keep, added: added[i]) }
            if let last = days.last { s.cappedDay = last }
            result.sightingsAdded = added.reduce(0, +)
            result.sightingsOverCap = admitted.reduce(0) { $0 + $1.dropped }
            result.sightingsAlreadyStored = rows.count - result.sightingsOverCap - result.sightingsAdded
            result.ownReports = folded.ownReports
            result.repeatedReports = folded.repeatedReports
            result.invalidReports = folded.invalidReports
            if !repeated { (s.lastScanStart, s.lastScanPrevious) = (window.start, previous) }
            return result
        }
    }
}

extension Tracer {
    /// `rows` grouped by the UTC day of their time, in day order.
    static func byDay(_ rows: [Sighting]) -> [(Int64, [Sighting])] {
        guard let first = rows.first else { return [] }
        let day = UnixTime.utcMidnight(first.time)
        if rows.allSatisfy({ UnixTime.utcMidnight($0.time) == day }) { return [(day, rows)] }
        return Dictionary(grouping: rows) { UnixTime.utcMidnight($0.time) }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}

extension Store {
    /// The sightings the store holds on the UTC day starting at `day`, for the cap.
    func cappedDay(_ day: Int64) throws -> CappedDay {
        var d = CappedDay(day: day, stored: 0, rpis: [])
        try forEachSighting(from: day, to: day.saturatingAdding(UnixTime.day)) { o in
            d.stored += 1
            d.rpis.insert(o.rpi)
        }
        return d
    }

    /// The end of the last scan ingested (unix seconds), nil when none.
    public func tracingLastScan() throws -> Int64? {
        guard let v = try setting(TracingSettingNames.lastScan) else { return nil }
        guard case .integer(let t) = v else { throw EncoreError(.storeCorrupt, "the store is damaged: the last scan time is not an integer") }
        return t
    }
}
