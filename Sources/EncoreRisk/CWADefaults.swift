import EncoreExposure

/// CWA's production risk calculation parameters (the configuration of its
/// conformance file, from the server's v2 risk-calculation-parameters.yaml),
/// built in so that a host can run the exposure check without shipping them.
extension RiskConfiguration {
    public static let cwaJSON = #"{"minutesAtAttenuationFilters":[],"trlFilters":[],"minutesAtAttenuationWeights":[{"attenuationRange":{"min":0,"max":63,"maxExclusive":true},"weight":0.8},{"attenuationRange":{"min":63,"max":73,"maxExclusive":true},"weight":1},{"attenuationRange":{"min":73,"max":79,"maxExclusive":true},"weight":0.1}],"normalizedTimePerEWToRiskLevelMapping":[{"normalizedTimeRange":{"min":0,"max":9,"maxExclusive":true},"riskLevel":1},{"normalizedTimeRange":{"min":9,"max":9999},"riskLevel":2}],"normalizedTimePerDayToRiskLevelMapping":[{"normalizedTimeRange":{"min":5,"max":9,"maxExclusive":true},"riskLevel":1},{"normalizedTimeRange":{"min":9,"max":99999},"riskLevel":2}],"trlEncoding":{"infectiousnessOffsetStandard":1,"infectiousnessOffsetHigh":2,"reportTypeOffsetRecursive":0,"reportTypeOffsetSelfReport":2,"reportTypeOffsetConfirmedClinicalDiagnosis":4,"reportTypeOffsetConfirmedTest":6},"transmissionRiskValueMapping":[{"transmissionRiskLevel":1,"transmissionRiskValue":0},{"transmissionRiskLevel":2,"transmissionRiskValue":0},{"transmissionRiskLevel":3,"transmissionRiskValue":0.6},{"transmissionRiskLevel":4,"transmissionRiskValue":0.8},{"transmissionRiskLevel":5,"transmissionRiskValue":1},{"transmissionRiskLevel":6,"transmissionRiskValue":1.2},{"transmissionRiskLevel":7,"transmissionRiskValue":1.4},{"transmissionRiskLevel":8,"transmissionRiskValue":1.6}]}"#

    /// Parsed once; the text above is known to be valid (a test proves it).
    public static let cwa: RiskConfiguration? = try? RiskConfiguration(json: Array(cwaJSON.utf8))
}
