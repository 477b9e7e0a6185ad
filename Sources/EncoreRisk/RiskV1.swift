import EncoreExposure
import EncoreSupport

/// CWA's v1 risk model (legacy) over the ENF v1 summary
/// (../shared/spec/risk.md): a score from the maximum risk score and the
/// attenuation durations, and the risk class that holds it.
public struct RiskV1Configuration: Equatable, Sendable {
    public var normalizationDivisor: Double
    /// Weights of the minutes at low, mid and high attenuation.
    public var weights: (low: Double, mid: Double, high: Double)
    public var defaultBucketOffset: Double
    /// Classes [min, max): the first holding the score gives the level.
    public var classes: [(min: Double, max: Double, level: RiskLevel)]

    /// CWA's final values (server-config attenuation-duration.yaml,
    /// risk-score-classification.yaml).
    public static let cwa = RiskV1Configuration(normalizationDivisor: 50, weights: (1.0, 0.5, 0.0), defaultBucketOffset: 0,
                                                classes: [(0, 15, .low), (15, 9999, .high)])

    public init(normalizationDivisor: Double, weights: (low: Double, mid: Double, high: Double), defaultBucketOffset: Double,
                classes: [(min: Double, max: Double, level: RiskLevel)]) {
        self.normalizationDivisor = normalizationDivisor
        self.weights = weights
        self.defaultBucketOffset = defaultBucketOffset
        self.classes = classes
    }

    /// The divisor positive, every number finite, 1...64 classes each with
    /// min < max: INVALID_ARGUMENT otherwise.
    public func validate() throws {
        let numbers = [normalizationDivisor, weights.low, weights.mid, weights.high, defaultBucketOffset]
            + classes.flatMap { [$0.min, $0.max] }
        guard numbers.allSatisfy(\.isFinite), normalizationDivisor > 0 else {
            throw EncoreError(.invalidArgument, "v1 risk configuration: numbers must be finite and the divisor greater than 0")
        }
        guard (1 ... 64).contains(classes.count), classes.allSatisfy({ $0.min < $0.max }) else {
            throw EncoreError(.invalidArgument, "v1 risk configuration: 1 to 64 classes are needed, each with min < max")
        }
    }

    public static func == (a: RiskV1Configuration, b: RiskV1Configuration) -> Bool {
        a.normalizationDivisor == b.normalizationDivisor && a.weights == b.weights && a.defaultBucketOffset == b.defaultBucketOffset
            && a.classes.elementsEqual(b.classes) { $0.min == $1.min && $0.max == $1.max && $0.level == $1.level }
    }
}

public enum RiskV1 {
    /// score = (maximumRiskScoreFullRange / divisor) × (wLow·min(d0, 30) +
    /// wMid·min(d1, 30) + wHigh·min(d2, 30) + offset), durations in
    /// minutes, rounded to two decimals; nil level when no class holds it.
    public static func score(_ s: ExposureSummaryV1, _ c: RiskV1Configuration = .cwa) -> (score: Double, level: RiskLevel?) {
        guard c.normalizationDivisor > 0 else { return (0, nil) }
        let minutes = s.attenuationDurations.map { min(Double($0) / 60, 30) }
        let weighted = c.weights.low * minutes[0] + c.weights.mid * minutes[1] + c.weights.high * minutes[2] + c.defaultBucketOffset
        let score = ((Double(s.maximumRiskScoreFullRange) / c.normalizationDivisor) * weighted * 100).rounded() / 100
        return (score, c.classes.first { score >= $0.min && score < $0.max }?.level)
    }
}
