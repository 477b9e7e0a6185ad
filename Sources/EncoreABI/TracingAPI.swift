// encore.h section: tracing
import CEncoreTypes
import EncoreClient
import EncoreCrypto
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport
import EncoreSync
import EncoreTracing

// The tracing feature (EncoreTracing) for C: a tracer handle over a store,
// what to broadcast, when to scan, one scan's reports in, the calibration,
// the adapter name and the status. No function here logs or keeps a
// report's bytes beyond the store.

public typealias encore_tracer_ptr = OpaquePointer

/// Writes the default tracer options to *options (pass sizeof *options):
/// 4-second scans every 300 s, payloads of 600 to 1200 s, rotation times
/// from the system's CSPRNG.
@c public func encore_tracer_options_init(_ options: UnsafeMutablePointer<encore_tracer_options>?, _ struct_size: Int) -> encore_status {
    initOptions(options, "options", struct_size) { o in
        o.scan_window_seconds = ScanSchedule.enf.windowSeconds
        o.scan_period_seconds = ScanSchedule.enf.periodSeconds
        o.rotation_min_seconds = RotationSchedule.enf.minimumSeconds
        o.rotation_max_seconds = RotationSchedule.enf.maximumSeconds
        o.max_sightings_per_day = UInt64(SightingCap.defaultPerDay)
    }
}

/// Makes a tracer over `store` (kept open until the tracer is freed) with
/// the calibration the store holds; `options` may be NULL (the defaults).
/// A schedule out of its bounds (see encore_tracer_options) is
/// ENCORE_ERR_INVALID_ARGUMENT. Tracing starts with encore_tracer_start().
/// Release it with encore_tracer_free(). The tracer is thread safe.
@c public func encore_tracer_new(_ client: encore_client_ptr?, _ options: UnsafePointer<encore_tracer_options>?, _ out: UnsafeMutablePointer<encore_tracer_ptr?>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        var scan = ScanSchedule.enf, rotation = RotationSchedule.enf
        var random = systemRandomSeconds
        var cap = SightingCap.default
        // A struct of before the cap reads 0 there: the default.
        if let o: encore_tracer_options = try readInput(options, "options") {
            guard o.has_random_seed <= 1 else { throw EncoreError(.invalidArgument, "options.has_random_seed must be 0 or 1") }
            scan = ScanSchedule(windowSeconds: o.scan_window_seconds, periodSeconds: o.scan_period_seconds)
            rotation = RotationSchedule(minimumSeconds: o.rotation_min_seconds, maximumSeconds: o.rotation_max_seconds)
            if o.has_random_seed == 1 { random = seededRandomSeconds(seed: o.random_seed) }
            if o.max_sightings_per_day != 0 {
                guard let n = Int(exactly: o.max_sightings_per_day) else {
                    throw EncoreError(.invalidArgument, "options.max_sightings_per_day must be 10 to \(Int32.max)")
                }
                cap = try SightingCap(perDay: n)
            }
        }
        try output(out, "out") { retainedHandle(try Tracer(store: s, scanSchedule: scan, rotation: rotation, sightingCap: cap, random: random)) }
    }
}

/// Releases a tracer (NULL does nothing). It does not record tracing as
/// off: call encore_tracer_stop() first.
@c public func encore_tracer_free(_ tracer: encore_tracer_ptr?) {
    release(tracer)
}

/// Tracing starts at `now` (unix seconds, not negative): "on" in the
/// tracing history. A history left "on" by a run that never stopped (a
/// crash) is first closed at that run's last scan. Starting a started
/// tracer does nothing.
@c public func encore_tracer_start(_ tracer: encore_tracer_ptr?, _ now: Int64) -> encore_status {
    guarded { try borrow(tracer, as: Tracer.self, "tracer").start(now: now) }
}

/// Tracing stops at `now`, for any reason (adapter off or removed, BlueZ
/// gone, shutdown): "off" in the tracing history. Ingest the pending scan
/// first. Stopping a stopped tracer does nothing.
@c public func encore_tracer_stop(_ tracer: encore_tracer_ptr?, _ now: Int64) -> encore_status {
    guarded { try borrow(tracer, as: Tracer.self, "tracer").stop(now: now) }
}

/// Writes the payload to broadcast at `now` to *advertisement: the current
/// one while now < its valid_until, else a new one (today's key, a new
/// validity of 10 to 20 minutes cut at the UTC day's end). Register the
/// advertisement again (and change the address) whenever `since` changes.
/// ENCORE_ERR_TRACING_INACTIVE before encore_tracer_start().
@c public func encore_tracer_get_advertisement(_ tracer: encore_tracer_ptr?, _ now: Int64, _ advertisement: UnsafeMutablePointer<encore_advertisement>?) -> encore_status {
    guarded {
        let t = try borrow(tracer, as: Tracer.self, "tracer")
        try checkOutput(advertisement, "advertisement")
        try writeOutput(encore_advertisement(try t.advertisement(now: now)), to: advertisement, "advertisement")
    }
}

/// As encore_tracer_get_advertisement(), but always a new payload (after
/// the host had to register its advertisement again).
@c public func encore_tracer_rotate(_ tracer: encore_tracer_ptr?, _ now: Int64, _ advertisement: UnsafeMutablePointer<encore_advertisement>?) -> encore_status {
    guarded {
        let t = try borrow(tracer, as: Tracer.self, "tracer")
        try checkOutput(advertisement, "advertisement")
        try writeOutput(encore_advertisement(try t.rotate(now: now)), to: advertisement, "advertisement")
    }
}

/// Writes the next scan window from `now` to *window: at once for the
/// first scan, else a period after the last ingested scan began.
/// ENCORE_ERR_TRACING_INACTIVE before encore_tracer_start().
@c public func encore_tracer_next_scan(_ tracer: encore_tracer_ptr?, _ now: Int64, _ window: UnsafeMutablePointer<encore_scan_window>?) -> encore_status {
    guarded {
        let t = try borrow(tracer, as: Tracer.self, "tracer")
        try checkOutput(window, "window")
        let w = try t.nextScan(now: now)
        try writeOutput(encore_scan_window(struct_size: 0, reserved: 0, start: w.start, end: w.end), to: window, "window")
    }
}

/// Stores what one scan in *window heard: `count` reports (`element_size`
/// bytes apart: pass sizeof *reports) become one sighting per RPI (first
/// heard, the maximal and the mean RSSI after the calibration's correction,
/// the previous scan's start), written in one transaction: all or none. The
/// device's own RPIs, repeats and reports without an RSSI are dropped, and
/// sightings past the tracer's max_sightings_per_day (counted per day in the
/// status). *result (may be NULL) tells what happened.
/// ENCORE_ERR_TRACING_INACTIVE while off.
@c public func encore_tracer_ingest_scan(_ tracer: encore_tracer_ptr?, _ window: UnsafePointer<encore_scan_window>?, _ reports: UnsafePointer<encore_scan_report>?, _ element_size: Int, _ count: Int, _ result: UnsafeMutablePointer<encore_scan_result>?) -> encore_status {
    guarded {
        let t = try borrow(tracer, as: Tracer.self, "tracer")
        guard let w: encore_scan_window = try readInput(window, "window") else { throw EncoreError(.invalidArgument, "window must not be NULL") }
        guard w.reserved == 0 else { throw EncoreError(.invalidArgument, "window.reserved must be 0") }
        if let result { try checkOutput(result, "result") }
        let given: [encore_scan_report] = try readInputs(reports, elementSize: element_size, count: count, "reports")
        let parsed = try given.enumerated().map { i, r -> ScanReport in
            guard r.reserved == 0, r.reserved2 == 0 else { throw EncoreError(.invalidArgument, "reports[\(i)]: reserved fields must be 0") }
            return ScanReport(r)
        }
        let r = try t.ingestScan(window: ScanWindow(start: w.start, end: w.end), reports: parsed)
        if let result {
            try writeOutput(encore_scan_result(struct_size: 0, reserved: 0, reports: UInt64(r.reports), sightings_added: UInt64(r.sightingsAdded),
                                               sightings_already_stored: UInt64(r.sightingsAlreadyStored), own_reports: UInt64(r.ownReports),
                                               repeated_reports: UInt64(r.repeatedReports), invalid_reports: UInt64(r.invalidReports),
                                               sightings_over_cap: UInt64(r.sightingsOverCap)),
                            to: result, "result")
        }
    }
}

/// Stores the device's calibration (has_* 0: not measured, the default
/// applies; effective_* must be 0); the next payload carries it.
@c public func encore_tracer_set_calibration(_ tracer: encore_tracer_ptr?, _ calibration: UnsafePointer<encore_tracing_calibration>?) -> encore_status {
    guarded {
        let t = try borrow(tracer, as: Tracer.self, "tracer")
        guard let c: encore_tracing_calibration = try readInput(calibration, "calibration") else {
            throw EncoreError(.invalidArgument, "calibration must not be NULL")
        }
        try t.setCalibration(try Calibration(c))
    }
}

/// Writes the stored calibration, and what it amounts to (effective_*), to
/// *calibration.
@c public func encore_tracing_get_calibration(_ client: encore_client_ptr?, _ calibration: UnsafeMutablePointer<encore_tracing_calibration>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        try checkOutput(calibration, "calibration")
        try writeOutput(encore_tracing_calibration(try s.tracingCalibration()), to: calibration, "calibration")
    }
}

/// Records the name of the adapter the host traces with (1 to 64 bytes of
/// UTF-8, e.g. "hci0"), shown by the status; NULL removes it.
@c public func encore_tracing_set_adapter(_ client: encore_client_ptr?, _ name: UnsafePointer<CChar>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        try s.setTracingAdapter(name == nil ? nil : try text(name, "name"))
    }
}

/// Copies the recorded adapter name into library-owned memory in *name
/// (NUL-terminated; release it with encore_bytes_free()).
/// ENCORE_ERR_NOT_FOUND when none was recorded.
@c public func encore_tracing_get_adapter(_ client: encore_client_ptr?, _ name: UnsafeMutablePointer<encore_bytes>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        try output(name, "name") {
            guard let adapter = try s.tracingAdapter() else { throw EncoreError(.notFound, "no tracing adapter was recorded") }
            return try LibraryBytes.make(adapter)
        }
    }
}

/// Writes the tracing status at the client's time to *status: on or off and since
/// when, the last scan, the distinct RPIs heard in the last hour and 14
/// days, the tracing time in the last 14 days, today's sightings and the
/// sightings the cap dropped today and in the days kept.
@c public func encore_tracing_get_status(_ client: encore_client_ptr?, _ status: UnsafeMutablePointer<encore_tracing_status>?) -> encore_status {
    guarded {
        let (s, now) = try clientStoreNow(client)
        try checkOutput(status, "status")
        let st = try s.tracingStatus(now: now)
        try writeOutput(encore_tracing_status(struct_size: 0, active: st.active ? 1 : 0, has_since: st.since == nil ? 0 : 1,
                                              has_last_scan: st.lastScan == nil ? 0 : 1, since: st.since ?? 0, last_scan: st.lastScan ?? 0,
                                              rpis_last_hour: UInt64(st.rpisLastHour), rpis_last_14_days: UInt64(st.rpisLast14Days),
                                              active_seconds_last_14_days: st.activeSecondsLast14Days,
                                              sightings_today: UInt64(st.sightingsToday), sightings_dropped_today: UInt64(st.sightingsDroppedToday),
                                              sightings_dropped_last_14_days: UInt64(st.sightingsDroppedLast14Days)), to: status, "status")
    }
}

extension encore_advertisement {
    init(_ a: Advertisement) {
        self.init()
        interval = a.interval
        since = a.since
        valid_until = a.validUntil
        withUnsafeMutableBytes(of: &payload) { $0.copyBytes(from: a.payload.prefix(20)) }
    }
}

extension ScanReport {
    init(_ r: encore_scan_report) {
        var rpi = r.rpi, aem = r.aem
        self.init(rpi: withUnsafeBytes(of: &rpi) { KeyData($0) }, aem: withUnsafeBytes(of: &aem) { $0.loadUnaligned(as: UInt32.self) },
                  rssi: r.rssi, time: r.time)
    }
}

extension Calibration {
    init(_ c: encore_tracing_calibration) throws {
        guard [c.has_tx_power, c.has_rssi_correction, c.has_confidence].allSatisfy({ $0 == 0 || $0 == 1 }),
              c.effective_tx_power == 0, c.effective_rssi_correction == 0, c.effective_confidence == 0 else {
            throw EncoreError(.invalidArgument, "calibration: has_* must be 0 or 1 and effective_* 0")
        }
        func int8(_ has: Int32, _ v: Int32, _ name: String) throws -> Int8? {
            guard has == 1 else { return nil }
            guard let x = Int8(exactly: v) else { throw EncoreError(.invalidArgument, "calibration.\(name) must be -128...127, not \(v)") }
            return x
        }
        let confidence: UInt8?
        if c.has_confidence == 1 {
            guard let x = UInt8(exactly: c.confidence), x <= 3 else { throw EncoreError(.invalidArgument, "calibration.confidence must be 0...3, not \(c.confidence)") }
            confidence = x
        } else {
            confidence = nil
        }
        try self.init(txPower: int8(c.has_tx_power, c.tx_power, "tx_power"), rssiCorrection: int8(c.has_rssi_correction, c.rssi_correction, "rssi_correction"),
                      confidence: confidence)
    }
}

extension encore_tracing_calibration {
    init(_ c: Calibration) {
        self.init()
        setOptional(&tx_power, &has_tx_power, c.txPower.map { Int32($0) })
        setOptional(&rssi_correction, &has_rssi_correction, c.rssiCorrection.map { Int32($0) })
        setOptional(&confidence, &has_confidence, c.confidence.map { Int32($0) })
        effective_tx_power = Int32(c.effectiveTxPower)
        effective_rssi_correction = Int32(c.effectiveRSSICorrection)
        effective_confidence = Int32(c.effectiveConfidence)
    }
}
