import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// ENF v1 risk scoring parameters: for each factor, the level value (0...8)
/// of each of its eight buckets, in the spec's bucket order.
public struct V1Configuration: Equatable, Sendable {
    /// Buckets: > 73, (63, 73], (51, 63], (33, 51], (27, 33], (15, 27], (10, 15], ≤ 10 dB.
    public var attenuationLevelValues: [Int]
    /// Buckets: ≥ 14, 12-13, 10-11, 8-9, 6-7, 4-5, 2-3, 0-1 days.
    public var daysSinceLastExposureLevelValues: [Int]
    /// Buckets: 0, ≤ 5, ≤ 10, ≤ 15, ≤ 20, ≤ 25, ≤ 30, > 30 minutes.
    public var durationLevelValues: [Int]
    /// Transmission risk levels 1...8.
    public var transmissionRiskLevelValues: [Int]
    /// Scores below this count as 0.
    public var minimumRiskScore: Int
    /// Attenuation duration thresholds X < Y (dB).
    public var attenuationDurationThresholds: (low: Int, high: Int)

    public init(attenuationLevelValues: [Int], daysSinceLastExposureLevelValues: [Int], durationLevelValues: [Int],
                transmissionRiskLevelValues: [Int], minimumRiskScore: Int, attenuationDurationThresholds: (low: Int, high: Int)) throws {
        for (name, v) in [("attenuation", attenuationLevelValues), ("days", daysSinceLastExposureLevelValues),
                          ("duration", durationLevelValues), ("transmission risk", transmissionRiskLevelValues)] {
            guard v.count == 8, v.allSatisfy({ (0 ... 8).contains($0) }) else {
                throw EncoreError(.invalidArgument, "v1 \(name) level values: 8 values of 0...8 are needed")
            }
        }
        guard minimumRiskScore >= 0, attenuationDurationThresholds.low <= attenuationDurationThresholds.high else {
            throw EncoreError(.invalidArgument, "v1 configuration: minimum risk score must not be negative and thresholds ordered")
        }
        self.attenuationLevelValues = attenuationLevelValues
        self.daysSinceLastExposureLevelValues = daysSinceLastExposureLevelValues
        self.durationLevelValues = durationLevelValues
        self.transmissionRiskLevelValues = transmissionRiskLevelValues
        self.minimumRiskScore = minimumRiskScore
        self.attenuationDurationThresholds = attenuationDurationThresholds
    }

    /// CWA's final values (server-config exposure-config.yaml,
    /// attenuation-duration.yaml; minimum risk score 11 from app-config.yaml).
    public static let cwa = V1Configuration(
        unchecked: [0, 2, 2, 2, 2, 2, 2, 2], [5, 5, 5, 5, 5, 5, 5, 5], [0, 0, 0, 1, 1, 1, 1, 1], [0, 0, 3, 4, 5, 6, 7, 8],
        minimumRiskScore: 11, thresholds: (55, 63))

    /// For literal presets (a test checks them against the validating init).
    private init(unchecked attenuation: [Int], _ days: [Int], _ duration: [Int], _ trl: [Int], minimumRiskScore: Int, thresholds: (Int, Int)) {
        attenuationLevelValues = attenuation
        daysSinceLastExposureLevelValues = days
        durationLevelValues = duration
        transmissionRiskLevelValues = trl
        self.minimumRiskScore = minimumRiskScore
        attenuationDurationThresholds = thresholds
    }

    public static func == (a: V1Configuration, b: V1Configuration) -> Bool {
        a.attenuationLevelValues == b.attenuationLevelValues && a.daysSinceLastExposureLevelValues == b.daysSinceLastExposureLevelValues
            && a.durationLevelValues == b.durationLevelValues && a.transmissionRiskLevelValues == b.transmissionRiskLevelValues
            && a.minimumRiskScore == b.minimumRiskScore && a.attenuationDurationThresholds == b.attenuationDurationThresholds
    }
}


package enum V1Scoring {
    package static let durationCap = 1800

    /// The v1 exposures of one matched key: its scan instances grouped by UTC day.
    package static func exposures(_ instances: [TimedScanInstance], transmissionRiskLevel: Int32, now: Int64,
                          config: V1Configuration) -> [ExposureV1] {
        var byDay: [Int64: [ScanInstance]] = [:]
        for t in instances { byDay[UnixTime.utcMidnight(t.start), default: []].append(t.instance) }
        return byDay.keys.sorted().map { date in
            let list = byDay[date] ?? []
            let duration = list.reduce(0) { $0 + $1.secondsSinceLastScan }
            let weighted = list.reduce(0) { $0 + $1.typicalAttenuation * $1.secondsSinceLastScan }
            let attenuation = duration > 0 ? Int((Double(weighted) / Double(duration)).rounded())
                : Int((Double(list.reduce(0) { $0 + $1.typicalAttenuation }) / Double(max(list.count, 1))).rounded())
            var buckets = [0, 0, 0]
            for s in list {
                let b = s.typicalAttenuation <= config.attenuationDurationThresholds.low ? 0
                    : s.typicalAttenuation <= config.attenuationDurationThresholds.high ? 1 : 2
                buckets[b] += s.secondsSinceLastScan
            }
            buckets = buckets.map { min($0, durationCap) }
            let days = Int(max(0, (UnixTime.utcMidnight(now) - date) / UnixTime.day))
            var score = config.attenuationLevelValues[attenuationBucket(attenuation)]
                * config.daysSinceLastExposureLevelValues[daysBucket(days)]
                * config.durationLevelValues[durationBucket(duration)]
                * config.transmissionRiskLevelValues[Int(min(max(transmissionRiskLevel, 1), 8)) - 1]
            if score < config.minimumRiskScore { score = 0 }
            return ExposureV1(date: date, durationSeconds: duration, attenuationValue: attenuation, attenuationDurations: buckets,
                              transmissionRiskLevel: transmissionRiskLevel, totalRiskScore: score)
        }
    }

    package static func summary(_ exposures: [ExposureV1], matchedKeys: Int, now: Int64) -> ExposureSummaryV1 {
        var s = ExposureSummaryV1()
        s.matchedKeyCount = matchedKeys
        guard let latest = exposures.map(\.date).max() else { return s }
        s.daysSinceLastExposure = Int(max(0, (UnixTime.utcMidnight(now) - latest) / UnixTime.day))
        s.maximumRiskScoreFullRange = exposures.map(\.totalRiskScore).max() ?? 0
        s.maximumRiskScore = min(255, s.maximumRiskScoreFullRange)
        s.riskScoreSumFullRange = exposures.reduce(0) { $0 + $1.totalRiskScore }
        for e in exposures { for i in 0 ..< 3 { s.attenuationDurations[i] += e.attenuationDurations[i] } }
        s.attenuationDurations = s.attenuationDurations.map { min($0, durationCap) }
        return s
    }

    package static func attenuationBucket(_ a: Int) -> Int {
        switch a {
        case 74...: return 0
        case 64 ... 73: return 1
        case 52 ... 63: return 2
        case 34 ... 51: return 3
        case 28 ... 33: return 4
        case 16 ... 27: return 5
        case 11 ... 15: return 6
        default: return 7
        }
    }

    package static func daysBucket(_ d: Int) -> Int {
        d >= 14 ? 0 : 7 - d / 2
    }

    package static func durationBucket(_ seconds: Int) -> Int {
        guard seconds > 0 else { return 0 }
        let minutes = Double(seconds) / 60
        for (i, limit) in [5.0, 10, 15, 20, 25, 30].enumerated() where minutes <= limit { return i + 1 }
        return 7
    }
}
