import EncoreExposure
import EncoreSupport

/// A range of values, as CWA's configuration writes it.
public struct ValueRange: Equatable, Sendable {
    public var min: Double
    public var max: Double
    public var minExclusive = false
    public var maxExclusive = false

    public init(min: Double, max: Double, minExclusive: Bool = false, maxExclusive: Bool = false) {
        self.min = min
        self.max = max
        self.minExclusive = minExclusive
        self.maxExclusive = maxExclusive
    }

    public func contains(_ v: Double) -> Bool {
        let below = minExclusive ? v <= min : v < min
        let above = maxExclusive ? v >= max : v > max
        return !below && !above
    }

    package init(_ r: JSONReader) throws {
        self.init(min: try r.number("min"), max: try r.number("max"),
                  minExclusive: try r.optionalMember("minExclusive")?.bool() ?? false,
                  maxExclusive: try r.optionalMember("maxExclusive")?.bool() ?? false)
        guard self.min <= self.max else { throw r.fail("min is greater than max") }
    }
}

/// The risk levels of CWA's v2 model.
public enum RiskLevel: Int32, Sendable, Comparable {
    case low = 1, high = 2

    public var name: String { self == .high ? "HIGH" : "LOW" }
    public static func < (a: RiskLevel, b: RiskLevel) -> Bool { a.rawValue < b.rawValue }

    package init(_ r: JSONReader) throws {
        guard let level = RiskLevel(rawValue: Int32(clamping: try r.integer())) else { throw r.fail("risk level must be 1 (LOW) or 2 (HIGH)") }
        self = level
    }
}

/// CWA's RiskCalculationParameters (../shared/spec/risk.md), read from the
/// JSON form of the conformance file's defaultRiskCalculationConfiguration.
public struct RiskConfiguration: Equatable, Sendable {
    public struct AttenuationFilter: Equatable, Sendable { public var attenuationRange: ValueRange; public var dropIfMinutesInRange: ValueRange }
    public struct AttenuationWeight: Equatable, Sendable { public var attenuationRange: ValueRange; public var weight: Double }
    public struct LevelMapping: Equatable, Sendable { public var normalizedTimeRange: ValueRange; public var riskLevel: RiskLevel }
    public struct TRLEncoding: Equatable, Sendable {
        public var infectiousnessOffsetStandard: Int, infectiousnessOffsetHigh: Int
        public var reportTypeOffsetRecursive: Int, reportTypeOffsetSelfReport: Int
        public var reportTypeOffsetConfirmedClinicalDiagnosis: Int, reportTypeOffsetConfirmedTest: Int
    }

    public var minutesAtAttenuationFilters: [AttenuationFilter]
    public var trlFilters: [ValueRange]
    public var minutesAtAttenuationWeights: [AttenuationWeight]
    public var normalizedTimePerEWToRiskLevelMapping: [LevelMapping]
    public var normalizedTimePerDayToRiskLevelMapping: [LevelMapping]
    public var trlEncoding: TRLEncoding
    /// transmission risk level → value; levels not listed give 0.
    public var transmissionRiskValueMapping: [(level: Int, value: Double)]
    /// Windows older than this many days are ignored (0 in the JSON means 14).
    public var maxEncounterAgeInDays: Int

    public init(json bytes: [UInt8]) throws {
        try self.init(JSONReader(JSONParser.parse(bytes)))
    }

    public init(_ r: JSONReader) throws {
        minutesAtAttenuationFilters = try r.optionalArray("minutesAtAttenuationFilters").map {
            AttenuationFilter(attenuationRange: try ValueRange($0.member("attenuationRange")),
                              dropIfMinutesInRange: try ValueRange($0.member("dropIfMinutesInRange")))
        }
        trlFilters = try r.optionalArray("trlFilters").map { try ValueRange($0.member("dropIfTrlInRange")) }
        minutesAtAttenuationWeights = try r.array("minutesAtAttenuationWeights").map {
            AttenuationWeight(attenuationRange: try ValueRange($0.member("attenuationRange")), weight: try $0.number("weight"))
        }
        func mappings(_ key: String) throws -> [LevelMapping] {
            try r.array(key).map { LevelMapping(normalizedTimeRange: try ValueRange($0.member("normalizedTimeRange")),
                                                riskLevel: try RiskLevel($0.member("riskLevel"))) }
        }
        normalizedTimePerEWToRiskLevelMapping = try mappings("normalizedTimePerEWToRiskLevelMapping")
        normalizedTimePerDayToRiskLevelMapping = try mappings("normalizedTimePerDayToRiskLevelMapping")
        let t = try r.member("trlEncoding")
        // int32 in CWA's protobuf; the bound also keeps offset sums from overflowing.
        func offset(_ key: String) throws -> Int { try t.integer(key, in: Int(Int32.min) ... Int(Int32.max)) }
        trlEncoding = TRLEncoding(
            infectiousnessOffsetStandard: try offset("infectiousnessOffsetStandard"), infectiousnessOffsetHigh: try offset("infectiousnessOffsetHigh"),
            reportTypeOffsetRecursive: try offset("reportTypeOffsetRecursive"), reportTypeOffsetSelfReport: try offset("reportTypeOffsetSelfReport"),
            reportTypeOffsetConfirmedClinicalDiagnosis: try offset("reportTypeOffsetConfirmedClinicalDiagnosis"),
            reportTypeOffsetConfirmedTest: try offset("reportTypeOffsetConfirmedTest"))
        transmissionRiskValueMapping = try r.array("transmissionRiskValueMapping").map {
            (try $0.integer("transmissionRiskLevel"), try $0.number("transmissionRiskValue"))
        }
        let age = try r.optionalMember("maxEncounterAgeInDays")?.integer(in: 0 ... 3650) ?? 0
        maxEncounterAgeInDays = age == 0 ? 14 : age
    }

    public static func == (a: RiskConfiguration, b: RiskConfiguration) -> Bool {
        a.minutesAtAttenuationFilters == b.minutesAtAttenuationFilters && a.trlFilters == b.trlFilters
            && a.minutesAtAttenuationWeights == b.minutesAtAttenuationWeights
            && a.normalizedTimePerEWToRiskLevelMapping == b.normalizedTimePerEWToRiskLevelMapping
            && a.normalizedTimePerDayToRiskLevelMapping == b.normalizedTimePerDayToRiskLevelMapping
            && a.trlEncoding == b.trlEncoding && a.maxEncounterAgeInDays == b.maxEncounterAgeInDays
            && a.transmissionRiskValueMapping.elementsEqual(b.transmissionRiskValueMapping) { $0.level == $1.level && $0.value == $1.value }
    }
}
