import EncoreKeyFiles

/// One ENF v1 exposure: a matched key on one UTC day.
public struct ExposureV1: Equatable, Sendable {
    public var date: Int64
    public var durationSeconds: Int
    public var attenuationValue: Int
    /// Seconds at attenuation ≤ X, in (X, Y], > Y; each capped at 1800.
    public var attenuationDurations: [Int]
    public var transmissionRiskLevel: Int32
    /// The product of the four level values (0 below the minimum score).
    public var totalRiskScore: Int

    public init(date: Int64, durationSeconds: Int, attenuationValue: Int, attenuationDurations: [Int],
                transmissionRiskLevel: Int32, totalRiskScore: Int) {
        self.date = date
        self.durationSeconds = durationSeconds
        self.attenuationValue = attenuationValue
        self.attenuationDurations = attenuationDurations
        self.transmissionRiskLevel = transmissionRiskLevel
        self.totalRiskScore = totalRiskScore
    }
}

/// The ENF v1 exposure summary.
public struct ExposureSummaryV1: Equatable, Sendable {
    public var matchedKeyCount = 0
    public var daysSinceLastExposure = 0
    public var maximumRiskScore = 0
    public var maximumRiskScoreFullRange = 0
    public var riskScoreSumFullRange = 0
    public var attenuationDurations = [0, 0, 0]
    public init() {}
}
