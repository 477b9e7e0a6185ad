import EncoreExposure
import EncoreSupport

extension RiskAssessment {
    /// An assessment's one JSON form (`encore risk`, and inside the check's
    /// document). Days are "YYYY-MM-DD".
    public var json: JSONValue {
        .object([
            ("totalRiskLevel", .string(totalRiskLevel.name)),
            ("calculatedAt", .int(calculatedAt)),
            ("mostRecentDateWithLowRisk", UTCTime.dayJSON(mostRecentDateWithLowRisk)),
            ("mostRecentDateWithHighRisk", UTCTime.dayJSON(mostRecentDateWithHighRisk)),
            ("numberOfDaysWithLowRisk", .int(numberOfDaysWithLowRisk)),
            ("numberOfDaysWithHighRisk", .int(numberOfDaysWithHighRisk)),
            ("totalMinimumDistinctEncountersWithLowRisk", .int(totalMinimumDistinctEncountersWithLowRisk)),
            ("totalMinimumDistinctEncountersWithHighRisk", .int(totalMinimumDistinctEncountersWithHighRisk)),
            ("days", .array(days.map { d in
                .object([
                    ("date", UTCTime.dayJSON(d.date)),
                    ("riskLevel", .string(d.riskLevel?.name)),
                    ("normalizedTime", .number(d.normalizedTime)),
                    ("minimumDistinctEncountersWithLowRisk", .int(d.minimumDistinctEncountersWithLowRisk)),
                    ("minimumDistinctEncountersWithHighRisk", .int(d.minimumDistinctEncountersWithHighRisk)),
                ])
            })),
        ])
    }
}
