import EncoreSupport

extension ExposureSummaryV1 {
    /// The summary's one JSON form (in the results of matching and of the check).
    public var json: JSONValue {
        .object([
            ("matchedKeyCount", .int(matchedKeyCount)),
            ("daysSinceLastExposure", .int(daysSinceLastExposure)),
            ("maximumRiskScore", .int(maximumRiskScore)),
            ("maximumRiskScoreFullRange", .int(maximumRiskScoreFullRange)),
            ("riskScoreSumFullRange", .int(riskScoreSumFullRange)),
            ("attenuationDurations", .array(attenuationDurations.map { .int($0) })),
        ])
    }
}
