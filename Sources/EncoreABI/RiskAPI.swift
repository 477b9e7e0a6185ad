// encore.h section: risk
import CEncoreTypes
import EncoreCheckIns
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreSync

public typealias encore_risk_config_ptr = OpaquePointer
public typealias encore_risk_assessment_ptr = OpaquePointer

typealias RiskConfigHandle = Held<RiskConfiguration>
typealias RiskAssessmentHandle = Held<RiskAssessment>

/// Parses a risk calculation configuration from `len` bytes of JSON (the
/// form of the conformance file's defaultRiskCalculationConfiguration). A
/// malformed configuration is ENCORE_ERR_INVALID_ARGUMENT with a message
/// naming the bad field. Release it with encore_risk_config_free().
@c public func encore_risk_config_new_json(_ json: UnsafePointer<UInt8>?, _ len: Int, _ out: UnsafeMutablePointer<encore_risk_config_ptr?>?) -> encore_status {
    guarded {
        let bytes = Array(try buffer(json, len, "json"))
        try output(out, "out") { retainedHandle(RiskConfigHandle(try RiskConfiguration(json: bytes))) }
    }
}

/// CWA's production risk calculation parameters, built into the library.
/// Release them with encore_risk_config_free().
@c public func encore_risk_config_new_cwa(_ out: UnsafeMutablePointer<encore_risk_config_ptr?>?) -> encore_status {
    guarded {
        let out = try required(out, "out")
        guard let cwa = RiskConfiguration.cwa else { throw EncoreError(.internalError, "the built-in CWA configuration does not parse") }
        out.pointee = retainedHandle(RiskConfigHandle(cwa))
    }
}

/// Releases a risk configuration; NULL does nothing.
@c public func encore_risk_config_free(_ config: encore_risk_config_ptr?) {
    release(config)
}

/// Calculates the risk of `window_count` exposure windows whose scan
/// instances are instances[first_scan_instance ..< + scan_instance_count]
/// (the layout encore_match_run() results have; `window_size` and
/// `instance_size` are sizeof the element structs, the arrays' strides),
/// at `now` (unix seconds, not negative). On success *out is an assessment
/// for encore_risk_assessment_free().
@c public func encore_risk_calculate(_ config: encore_risk_config_ptr?, _ windows: UnsafePointer<encore_exposure_window>?, _ window_size: Int, _ window_count: Int, _ instances: UnsafePointer<encore_scan_instance>?, _ instance_size: Int, _ instance_count: Int, _ now: Int64, _ out: UnsafeMutablePointer<encore_risk_assessment_ptr?>?) -> encore_status {
    guarded {
        let c = try borrow(config, as: RiskConfigHandle.self, "config").value
        let out = try required(out, "out")
        let list = try exposureWindows(readInputs(windows, elementSize: window_size, count: window_count, "windows"),
                                       readInputs(instances, elementSize: instance_size, count: instance_count, "instances"))
        out.pointee = retainedHandle(RiskAssessmentHandle(try RiskCalculation.calculate(list, configuration: c, now: now)))
    }
}

/// Calculates the risk of a match result's windows at `now` (unix seconds,
/// not negative).
@c public func encore_risk_calculate_match(_ config: encore_risk_config_ptr?, _ result: encore_match_result_ptr?, _ now: Int64, _ out: UnsafeMutablePointer<encore_risk_assessment_ptr?>?) -> encore_status {
    guarded {
        let c = try borrow(config, as: RiskConfigHandle.self, "config").value
        let r = try borrow(result, as: MatchResultHandle.self, "result")
        try output(out, "out") { retainedHandle(RiskAssessmentHandle(try RiskCalculation.calculate(r.source.windows, configuration: c, now: now))) }
    }
}

/// Releases an assessment; NULL does nothing.
@c public func encore_risk_assessment_free(_ assessment: encore_risk_assessment_ptr?) {
    release(assessment)
}

/// Writes an assessment's aggregate.
@c public func encore_risk_assessment_get_summary(_ assessment: encore_risk_assessment_ptr?, _ summary: UnsafeMutablePointer<encore_risk_summary>?) -> encore_status {
    writeHeld(assessment, as: RiskAssessmentHandle.self, "assessment", summary, "summary") { encore_risk_summary($0.value) }
}

/// Copies per-day risks first ..< first + capacity (newest first).
@c public func encore_risk_assessment_copy_days(_ assessment: encore_risk_assessment_ptr?, _ first: UInt64, _ out: UnsafeMutablePointer<encore_day_risk>?, _ element_size: Int, _ capacity: Int, _ copied: UnsafeMutablePointer<Int>?) -> encore_status {
    guarded {
        try copyOut(borrow(assessment, as: RiskAssessmentHandle.self, "assessment").value.days, first: first, out, element_size, capacity, copied) { d in
            encore_day_risk(struct_size: structSize(encore_day_risk.self), risk_level: d.riskLevel?.rawValue ?? ENCORE_RISK_NONE, date: d.date,
                            normalized_time: d.normalizedTime,
                            minimum_distinct_encounters_with_low_risk: Int32(clamping: d.minimumDistinctEncountersWithLowRisk),
                            minimum_distinct_encounters_with_high_risk: Int32(clamping: d.minimumDistinctEncountersWithHighRisk))
        }
    }
}

/// Windows from the C layout: the indexes checked here, the fields by the core.
func exposureWindows(_ windows: [encore_exposure_window], _ instances: [encore_scan_instance]) throws -> [ExposureWindow] {
    let instanceCount = instances.count
    var out: [ExposureWindow] = []
    out.reserveCapacity(windows.count)
    for (i, w) in windows.enumerated() {
        guard w.reserved == 0 else { throw EncoreError(.invalidArgument, "windows[\(i)].reserved must be 0") }
        let (end, overflow) = w.first_scan_instance.addingReportingOverflow(UInt64(w.scan_instance_count))
        guard !overflow, end <= UInt64(instanceCount) else {
            throw EncoreError(.invalidArgument, "windows[\(i)]: scan instances \(w.first_scan_instance) + \(w.scan_instance_count) lie past the \(instanceCount) given")
        }
        var scans: [ScanInstance] = []
        for s in instances[Int(w.first_scan_instance) ..< Int(end)] {
            scans.append(ScanInstance(typicalAttenuation: Int(s.typical_attenuation), minAttenuation: Int(s.min_attenuation),
                                      secondsSinceLastScan: Int(s.seconds_since_last_scan)))
        }
        out.append(try ExposureWindow(checkedDate: w.date, reportType: w.report_type, infectiousness: w.infectiousness,
                                      calibrationConfidence: Int(w.calibration_confidence), scanInstances: scans, "windows[\(i)]"))
    }
    return out
}

extension encore_risk_summary {
    init(_ a: RiskAssessment) {
        self.init()
        total_risk_level = a.totalRiskLevel.rawValue
        setOptional(&most_recent_date_with_low_risk, &has_most_recent_date_with_low_risk, a.mostRecentDateWithLowRisk)
        setOptional(&most_recent_date_with_high_risk, &has_most_recent_date_with_high_risk, a.mostRecentDateWithHighRisk)
        number_of_days_with_low_risk = Int32(clamping: a.numberOfDaysWithLowRisk)
        number_of_days_with_high_risk = Int32(clamping: a.numberOfDaysWithHighRisk)
        total_minimum_distinct_encounters_with_low_risk = Int32(clamping: a.totalMinimumDistinctEncountersWithLowRisk)
        total_minimum_distinct_encounters_with_high_risk = Int32(clamping: a.totalMinimumDistinctEncountersWithHighRisk)
        calculated_at = a.calculatedAt
        day_count = UInt64(a.days.count)
    }
}
