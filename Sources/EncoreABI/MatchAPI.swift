// encore.h section: match
import CEncoreTypes
import EncoreCheck
import EncoreClient
import EncoreCrypto
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreSync

public typealias encore_match_result_ptr = OpaquePointer

/// A match's results flattened for C: windows point into one list of scan
/// instances.
final class MatchResultHandle: @unchecked Sendable {
    // @unchecked: immutable after init.
    let windows: [encore_exposure_window]
    let scanInstances: [encore_scan_instance]
    let exposures: [encore_exposure_v1]
    let summary: encore_summary_v1
    let stats: encore_match_stats
    /// The core's result, for calculations on it (risk).
    let source: MatchResult

    init(_ r: MatchResult) {
        source = r
        var windows: [encore_exposure_window] = [], instances: [encore_scan_instance] = []
        for w in r.windows {
            windows.append(encore_exposure_window(struct_size: structSize(encore_exposure_window.self), report_type: w.reportType.rawValue, date: w.date,
                                                  infectiousness: w.infectiousness.rawValue, calibration_confidence: Int32(w.calibrationConfidence),
                                                  scan_instance_count: UInt32(w.scanInstances.count), reserved: 0,
                                                  first_scan_instance: UInt64(instances.count)))
            instances += w.scanInstances.map {
                encore_scan_instance(struct_size: structSize(encore_scan_instance.self), typical_attenuation: Int32($0.typicalAttenuation), min_attenuation: Int32($0.minAttenuation),
                                     seconds_since_last_scan: Int32($0.secondsSinceLastScan))
            }
        }
        self.windows = windows
        scanInstances = instances
        exposures = r.exposuresV1.map { e in
            encore_exposure_v1(struct_size: structSize(encore_exposure_v1.self), duration_seconds: Int32(clamping: e.durationSeconds), date: e.date,
                               attenuation_value: Int32(clamping: e.attenuationValue),
                               attenuation_durations: (Int32(e.attenuationDurations[0]), Int32(e.attenuationDurations[1]), Int32(e.attenuationDurations[2])),
                               transmission_risk_level: e.transmissionRiskLevel, total_risk_score: Int32(clamping: e.totalRiskScore))
        }
        let s = r.summaryV1
        summary = encore_summary_v1(struct_size: structSize(encore_summary_v1.self), matched_key_count: Int32(clamping: s.matchedKeyCount), days_since_last_exposure: Int32(clamping: s.daysSinceLastExposure),
                                    maximum_risk_score: Int32(clamping: s.maximumRiskScore), maximum_risk_score_full_range: Int32(clamping: s.maximumRiskScoreFullRange),
                                    risk_score_sum_full_range: Int32(clamping: s.riskScoreSumFullRange),
                                    attenuation_durations: (Int32(s.attenuationDurations[0]), Int32(s.attenuationDurations[1]), Int32(s.attenuationDurations[2])))
        let t = r.statistics
        stats = encore_match_stats(struct_size: UInt32(MemoryLayout<encore_match_stats>.size), reserved: 0, windows: UInt64(windows.count), scan_instances: UInt64(instances.count), exposures_v1: UInt64(exposures.count),
                                   files: UInt64(t.files), keys: UInt64(t.keys), skipped_old: UInt64(t.skippedOld), skipped_revoked: UInt64(t.skippedRevoked),
                                   skipped_not_infectious: UInt64(t.skippedNotInfectious), skipped_no_sightings: UInt64(t.skippedNoSightings),
                                   derived: UInt64(t.derived), matched_keys: UInt64(t.matchedKeys))
    }
}

/// Writes the default matching options to *options (pass sizeof
/// *options): drift 12 intervals, TX power -60...20 dBm, replay 1200 s,
/// keys up to 14 days old, UNKNOWN report type as CONFIRMED_TEST, CWA's
/// infectiousness map (dsos 1 STANDARD, 2 HIGH, else NONE), CWA's v1
/// values, one thread per core, default key file options. `now` is
/// ignored since 1.1 (pass 0): a match or check runs at the client's time.
@c public func encore_match_options_init(_ options: UnsafeMutablePointer<encore_match_options>?, _ struct_size: Int, _ now: Int64) -> encore_status {
    initOptions(options, "options", struct_size) { o in
        let d = MatchingOptions()
        o.drift_intervals = Int32(d.driftIntervals)
        o.tx_power_min = Int32(d.txPowerMinimum)
        o.tx_power_max = Int32(d.txPowerMaximum)
        o.replay_seconds = Int32(d.replaySeconds)
        o.max_key_age_days = Int32(d.maxKeyAgeDays)
        o.report_type_when_missing = d.reportTypeWhenMissing.rawValue
        o.infectiousness_when_dsos_missing = d.infectiousnessWhenDaysSinceOnsetMissing.rawValue
        withUnsafeMutableBytes(of: &o.infectiousness_by_dsos) { bytes in
            for (dsos, inf) in d.infectiousnessForDaysSinceOnset where (-14 ... 14).contains(dsos) {
                bytes[Int(dsos) + 14] = UInt8(inf.rawValue)
            }
        }
    }
}

/// The core's matching parameters from the C options, for `client`: the
/// key files' trust is the client's unless the options name one.
/// (reserved_now, once the time, is ignored: the client's clock is.)
func matchingParameters(_ pointer: UnsafePointer<encore_match_options>?, client: EncoreClient) throws
    -> (MatchingOptions, KeyFileOptions, V1Configuration, threads: Int, ProgressHandler?)
{
    let p = try required(pointer, "options")
    let o = try checkedStruct(p, "encore_match_options_init")
    guard o.reserved == 0, o.reserved2 == (0, 0, 0) else { throw EncoreError(.invalidArgument, "options: reserved fields must be 0") }
    guard let reportType = ReportType(rawValue: o.report_type_when_missing),
          let whenMissing = Infectiousness(rawValue: o.infectiousness_when_dsos_missing) else {
        throw EncoreError(.invalidArgument, "options: report_type_when_missing or infectiousness_when_dsos_missing out of range")
    }
    var m = MatchingOptions()
    m.driftIntervals = Int64(o.drift_intervals)
    m.txPowerMinimum = Int(o.tx_power_min)
    m.txPowerMaximum = Int(o.tx_power_max)
    m.replaySeconds = Int64(o.replay_seconds)
    m.maxKeyAgeDays = Int64(o.max_key_age_days)
    m.reportTypeWhenMissing = reportType
    m.infectiousnessWhenDaysSinceOnsetMissing = whenMissing
    m.infectiousnessForDaysSinceOnset = [:]
    try withUnsafeBytes(of: o.infectiousness_by_dsos) { bytes in
        for (i, b) in bytes.enumerated() {
            guard let inf = Infectiousness(rawValue: Int32(b)) else {
                throw EncoreError(.invalidArgument, "options: infectiousness_by_dsos[\(i)] is \(b), not an ENCORE_INFECTIOUSNESS_*")
            }
            if inf != .none { m.infectiousnessForDaysSinceOnset[Int32(i) - 14] = inf }
        }
    }
    let v1 = try readInput(o.v1, "options->v1").map(v1Configuration) ?? .cwa
    return (m, try keyFileOptions(o.keyfile_options, client: client), v1, Int(o.threads), progressHandler(o.progress, o.progress_context))
}

func v1Configuration(_ c: encore_v1_config) throws -> V1Configuration {
    func array<T>(_ tuple: T) -> [Int] { withUnsafeBytes(of: tuple) { Array($0.bindMemory(to: Int32.self)).map(Int.init) } }
    return try V1Configuration(
        attenuationLevelValues: array(c.attenuation_level_values),
        daysSinceLastExposureLevelValues: array(c.days_since_last_exposure_level_values),
        durationLevelValues: array(c.duration_level_values),
        transmissionRiskLevelValues: array(c.transmission_risk_level_values),
        minimumRiskScore: Int(c.minimum_risk_score),
        attenuationDurationThresholds: (Int(c.attenuation_duration_thresholds.0), Int(c.attenuation_duration_thresholds.1)))
}

/// Matches the store's sightings against the keys of `count` key files
/// (paths or bytes; `source_size` is sizeof(encore_key_source), the
/// array's stride) at the client's time, each checked as
/// options->keyfile_options says (by default a signature by a key of the
/// client's trust list is required); any file that fails fails the
/// call with its status. Files are streamed, not gathered: every core is
/// used, each thread holding at most two files at a time, so memory does
/// not grow with the number of files or keys. Up to 24 MB of freed file
/// buffers are kept for the next files and calls. The store is only read,
/// so a cancelled run changes nothing. On success *out is a result for
/// encore_match_result_free().
@c public func encore_match_run(_ client: encore_client_ptr?, _ sources: UnsafePointer<encore_key_source>?, _ source_size: Int, _ count: Int, _ options: UnsafePointer<encore_match_options>?, _ out: UnsafeMutablePointer<encore_match_result_ptr?>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: EncoreClient.self, "client")
        let s = c.store
        let out = try required(out, "out")
        let files = try keySources(sources, source_size, count)
        let (matching, keyFiles, v1, threads, progress) = try matchingParameters(options, client: c)
        let now = try c.now()
        let result = try ExposureDetection(store: s).match(files: files, keyFileOptions: keyFiles, options: matching, now: now,
                                                           v1: v1, threads: threads, progress: progress)
        out.pointee = retainedHandle(MatchResultHandle(result))
    }
}

/// Key file sources from the C array (`size` bytes apart): each a path or bytes.
func keySources(_ sources: UnsafePointer<encore_key_source>?, _ size: Int, _ count: Int) throws -> [KeyFileSource] {
    var files: [KeyFileSource] = []
    for (i, src) in try readInputs(sources, elementSize: size, count: count, "sources").enumerated() {
        guard src.reserved == 0 else { throw EncoreError(.invalidArgument, "sources[\(i)].reserved must be 0") }
        if let path = src.path {
            guard src.data == nil, src.length == 0 else {
                throw EncoreError(.invalidArgument, "sources[\(i)]: give a path or data, not both")
            }
            files.append(.path(try text(path, "sources[\(i)].path")))
        } else {
            files.append(.bytes(Array(try buffer(src.data, src.length, "sources[\(i)].data"))))
        }
    }
    return files
}

/// Releases a match result; NULL does nothing.
@c public func encore_match_result_free(_ result: encore_match_result_ptr?) {
    release(result)
}

/// Writes the sizes of the result's lists and what happened to the keys.
@c public func encore_match_result_get_stats(_ result: encore_match_result_ptr?, _ stats: UnsafeMutablePointer<encore_match_stats>?) -> encore_status {
    writeHeld(result, as: MatchResultHandle.self, "result", stats, "stats") { $0.stats }
}

/// Writes the ENF v1 exposure summary.
@c public func encore_match_result_get_summary_v1(_ result: encore_match_result_ptr?, _ summary: UnsafeMutablePointer<encore_summary_v1>?) -> encore_status {
    writeHeld(result, as: MatchResultHandle.self, "result", summary, "summary") { $0.summary }
}

/// Copies exposure windows first ..< first + capacity (sorted by time), as
/// every list is copied (see "Lists").
@c public func encore_match_result_copy_windows(_ result: encore_match_result_ptr?, _ first: UInt64, _ out: UnsafeMutablePointer<encore_exposure_window>?, _ element_size: Int, _ capacity: Int, _ copied: UnsafeMutablePointer<Int>?) -> encore_status {
    guarded { try copyOut(borrow(result, as: MatchResultHandle.self, "result").windows, first: first, out, element_size, capacity, copied) { $0 } }
}

/// Copies scan instances first ..< first + capacity (see encore_exposure_window).
@c public func encore_match_result_copy_scan_instances(_ result: encore_match_result_ptr?, _ first: UInt64, _ out: UnsafeMutablePointer<encore_scan_instance>?, _ element_size: Int, _ capacity: Int, _ copied: UnsafeMutablePointer<Int>?) -> encore_status {
    guarded { try copyOut(borrow(result, as: MatchResultHandle.self, "result").scanInstances, first: first, out, element_size, capacity, copied) { $0 } }
}

/// Copies ENF v1 exposures first ..< first + capacity (sorted by date).
@c public func encore_match_result_copy_exposures_v1(_ result: encore_match_result_ptr?, _ first: UInt64, _ out: UnsafeMutablePointer<encore_exposure_v1>?, _ element_size: Int, _ capacity: Int, _ copied: UnsafeMutablePointer<Int>?) -> encore_status {
    guarded { try copyOut(borrow(result, as: MatchResultHandle.self, "result").exposures, first: first, out, element_size, capacity, copied) { $0 } }
}
