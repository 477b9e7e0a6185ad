import EncoreExposure
import EncoreKeyFiles
import EncoreSupport

/// The risk of one UTC day.
public struct DayRisk: Equatable, Sendable {
    public var date: Int64
    /// nil when the day's normalized time maps to no level.
    public var riskLevel: RiskLevel?
    /// Σ of the day's windows' normalized time, rounded to one decimal.
    public var normalizedTime: Double
    public var minimumDistinctEncountersWithLowRisk: Int
    public var minimumDistinctEncountersWithHighRisk: Int
}

/// The aggregate CWA's v2 model computes from exposure windows.
public struct RiskAssessment: Equatable, Sendable {
    public var totalRiskLevel: RiskLevel
    public var mostRecentDateWithLowRisk: Int64?
    public var mostRecentDateWithHighRisk: Int64?
    public var numberOfDaysWithLowRisk: Int
    public var numberOfDaysWithHighRisk: Int
    public var totalMinimumDistinctEncountersWithLowRisk: Int
    public var totalMinimumDistinctEncountersWithHighRisk: Int
    /// Days that had windows, newest first.
    public var days: [DayRisk]
    /// When the result was computed (the `now` of the calculation).
    public var calculatedAt: Int64
}

/// CWA risk calculation v2 over exposure windows, exactly as
/// ../shared/spec/risk.md says. Pure: windows and a configuration in, a
/// result out.
public enum RiskCalculation {
    /// One window's part: nil when a filter drops it or no level fits.
    package struct WindowRisk {
        package var date: Int64
        package var transmissionRiskLevel: Int
        package var calibrationConfidence: Int
        package var normalizedTime: Double
        package var level: RiskLevel
    }

    public static func calculate(_ windows: [ExposureWindow], configuration c: RiskConfiguration, now: Int64) throws -> RiskAssessment {
        try UnixTime.checkNow(now, "risk calculation")
        let oldest = UnixTime.utcMidnight(now) - Int64(c.maxEncounterAgeInDays) * UnixTime.day
        var byDate: [Int64: [WindowRisk]] = [:]
        for w in windows where w.date >= oldest {
            if let r = risk(of: w, c) { byDate[r.date, default: []].append(r) }
        }
        var days: [DayRisk] = []
        for (date, list) in byDate {
            let normalizedTime = (list.reduce(0.0) { $0 + $1.normalizedTime } * 10).rounded() / 10
            let level = c.normalizedTimePerDayToRiskLevelMapping.first { $0.normalizedTimeRange.contains(normalizedTime) }?.riskLevel
            func encounters(_ l: RiskLevel) -> Int {
                guard level != nil else { return 0 }
                return Set(list.filter { $0.level == l }.map { [$0.transmissionRiskLevel, $0.calibrationConfidence] }).count
            }
            days.append(DayRisk(date: date, riskLevel: level, normalizedTime: normalizedTime,
                                minimumDistinctEncountersWithLowRisk: encounters(.low), minimumDistinctEncountersWithHighRisk: encounters(.high)))
        }
        days.sort { $0.date > $1.date }
        let low = days.filter { $0.riskLevel == .low }, high = days.filter { $0.riskLevel == .high }
        return RiskAssessment(
            totalRiskLevel: high.isEmpty ? .low : .high,
            mostRecentDateWithLowRisk: low.first?.date, mostRecentDateWithHighRisk: high.first?.date,
            numberOfDaysWithLowRisk: low.count, numberOfDaysWithHighRisk: high.count,
            totalMinimumDistinctEncountersWithLowRisk: days.reduce(0) { $0 + $1.minimumDistinctEncountersWithLowRisk },
            totalMinimumDistinctEncountersWithHighRisk: days.reduce(0) { $0 + $1.minimumDistinctEncountersWithHighRisk },
            days: days, calculatedAt: now)
    }

    package static func risk(of w: ExposureWindow, _ c: RiskConfiguration) -> WindowRisk? {
        let seconds = { (s: ScanInstance) in Double(max(s.secondsSinceLastScan, 0)) }
        for f in c.minutesAtAttenuationFilters {
            let minutes = w.scanInstances.filter { f.attenuationRange.contains(Double($0.minAttenuation)) }.reduce(0.0) { $0 + seconds($1) } / 60
            if f.dropIfMinutesInRange.contains(minutes) { return nil }
        }
        let trl = transmissionRiskLevel(w, c.trlEncoding)
        if c.trlFilters.contains(where: { $0.contains(Double(trl)) }) { return nil }
        let trv = c.transmissionRiskValueMapping.first { $0.level == trl }?.value ?? 0
        let weightedMinutes = w.scanInstances.reduce(0.0) { sum, s in
            let weight = c.minutesAtAttenuationWeights.first { $0.attenuationRange.contains(Double(s.minAttenuation)) }?.weight ?? 0
            return sum + seconds(s) * weight
        } / 60
        let normalizedTime = trv * weightedMinutes
        guard let level = c.normalizedTimePerEWToRiskLevelMapping.first(where: { $0.normalizedTimeRange.contains(normalizedTime) })?.riskLevel else {
            return nil
        }
        return WindowRisk(date: w.date, transmissionRiskLevel: trl, calibrationConfidence: w.calibrationConfidence,
                          normalizedTime: normalizedTime, level: level)
    }

    /// TRL = report type offset + infectiousness offset (HIGH → high, else standard).
    package static func transmissionRiskLevel(_ w: ExposureWindow, _ e: RiskConfiguration.TRLEncoding) -> Int {
        let reportOffset: Int
        switch w.reportType {
        case .confirmedTest: reportOffset = e.reportTypeOffsetConfirmedTest
        case .confirmedClinicalDiagnosis: reportOffset = e.reportTypeOffsetConfirmedClinicalDiagnosis
        case .selfReport: reportOffset = e.reportTypeOffsetSelfReport
        case .recursive: reportOffset = e.reportTypeOffsetRecursive
        case .unknown, .revoked: reportOffset = 0
        }
        return reportOffset + (w.infectiousness == .high ? e.infectiousnessOffsetHigh : e.infectiousnessOffsetStandard)
    }
}
