import EncoreCrypto
import EncoreKeyFiles
import EncoreRisk
import EncoreSupport

/// A risk level of presence tracing, or the CWA apps' "calculation failed":
/// a normalized time the configuration maps to no level.
public enum CheckInRiskLevel: Int32, Sendable, Equatable {
    case low = 1, high = 2, failed = 3

    public init(_ level: RiskLevel?) { self = level.map { $0 == .high ? .high : .low } ?? .failed }

    public var name: String {
        switch self {
        case .low: return "LOW"
        case .high: return "HIGH"
        case .failed: return "FAILED"
        }
    }
}

/// CWA's PresenceTracingRiskCalculationParameters in the JSON form of the
/// configuration (what AppConfiguration.presenceTracingRisk gives once the
/// app configuration is synced, or a file).
public struct PresenceTracingRiskConfiguration: Sendable, Equatable {
    public struct TransmissionRiskValue: Sendable, Equatable {
        public var level: Int
        public var value: Double
    }

    public struct LevelMapping: Sendable, Equatable {
        public var normalizedTimeRange: ValueRange
        public var riskLevel: RiskLevel
    }

    public var transmissionRiskValueMapping: [TransmissionRiskValue]
    public var normalizedTimePerCheckInToRiskLevelMapping: [LevelMapping]
    public var normalizedTimePerDayToRiskLevelMapping: [LevelMapping]
    /// Check-ins older than this many days are purged and not assessed.
    public var maxCheckInAgeInDays: Int

    /// CWA's production parameters (v2_presence-tracing-parameters.yaml):
    /// TRL 1, 2 → 0; 3 → 0.6; 4 → 0.8; 5 → 1.0; 6 → 1.2; 7 → 1.4; 8 → 1.6;
    /// per check-in and per day (0, 10) LOW, [10, 999999] HIGH; 10 days.
    public static let cwaJSON = #"{"transmissionRiskValueMapping":[{"transmissionRiskLevel":1,"transmissionRiskValue":0},{"transmissionRiskLevel":2,"transmissionRiskValue":0},{"transmissionRiskLevel":3,"transmissionRiskValue":0.6},{"transmissionRiskLevel":4,"transmissionRiskValue":0.8},{"transmissionRiskLevel":5,"transmissionRiskValue":1},{"transmissionRiskLevel":6,"transmissionRiskValue":1.2},{"transmissionRiskLevel":7,"transmissionRiskValue":1.4},{"transmissionRiskLevel":8,"transmissionRiskValue":1.6}],"normalizedTimePerCheckInToRiskLevelMapping":[{"normalizedTimeRange":{"min":0,"minExclusive":true,"max":10,"maxExclusive":true},"riskLevel":1},{"normalizedTimeRange":{"min":10,"max":999999},"riskLevel":2}],"normalizedTimePerDayToRiskLevelMapping":[{"normalizedTimeRange":{"min":0,"minExclusive":true,"max":10,"maxExclusive":true},"riskLevel":1},{"normalizedTimeRange":{"min":10,"max":999999},"riskLevel":2}],"maxCheckInAgeInDays":10}"#

    /// Parsed once; the text above is valid (a test proves it).
    public static let cwa: PresenceTracingRiskConfiguration? = try? PresenceTracingRiskConfiguration(json: Array(cwaJSON.utf8))

    public init(json bytes: [UInt8]) throws {
        try self.init(JSONReader(JSONParser.parse(bytes)))
    }

    public init(_ r: JSONReader) throws {
        transmissionRiskValueMapping = try r.array("transmissionRiskValueMapping").map {
            let v = TransmissionRiskValue(level: try $0.integer("transmissionRiskLevel", in: 0 ... 8), value: try $0.number("transmissionRiskValue"))
            guard v.value.isFinite, v.value >= 0 else { throw $0.fail("transmissionRiskValue must be finite and not negative") }
            return v
        }
        func mappings(_ key: String) throws -> [LevelMapping] {
            try r.array(key).map { LevelMapping(normalizedTimeRange: try ValueRange($0.member("normalizedTimeRange")), riskLevel: try RiskLevel($0.member("riskLevel"))) }
        }
        normalizedTimePerCheckInToRiskLevelMapping = try mappings("normalizedTimePerCheckInToRiskLevelMapping")
        normalizedTimePerDayToRiskLevelMapping = try mappings("normalizedTimePerDayToRiskLevelMapping")
        let age = try r.optionalMember("maxCheckInAgeInDays")?.integer(in: 0 ... 3650) ?? 0
        maxCheckInAgeInDays = age == 0 ? 10 : age
    }

    /// The value of a transmission risk level; levels not listed give 0.
    public func transmissionRiskValue(_ trl: UInt32) -> Double {
        transmissionRiskValueMapping.first { $0.level == Int(trl) }?.value ?? 0
    }

    /// The level `mapping` gives a normalized time (FAILED: none).
    public func level(_ mapping: [LevelMapping], _ normalizedTime: Double) -> CheckInRiskLevel {
        CheckInRiskLevel(mapping.first { $0.normalizedTimeRange.contains(normalizedTime) }?.riskLevel)
    }
}
