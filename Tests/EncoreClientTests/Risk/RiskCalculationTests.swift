import EncoreExposure
import EncoreRisk
import EncoreSupport
import EncoreTestSupport
import Testing

/// All cases of CWA's conformance file
/// (Tests/data/cwa/android-exposure-windows-risk-calculation.json): risk
/// on exposure windows read by Exposure's JSON form (the configuration's
/// own tests: EncoreRiskTests).
@Suite struct RiskCalculationTests {
    static let now: Int64 = 1_700_000_000
    static func load() throws -> JSONReader {
        try JSONReader(JSONParser.parse(TestData.bytes("cwa/android-exposure-windows-risk-calculation.json")))
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let index: Int
        let description: String
        var testDescription: String { "\(index): \(description)" }
    }

    // A file that cannot be read gives no cases, and thereAre29Cases fails.
    static let cases: [Case] = (try? load().array("testCases").enumerated().map {
        Case(index: $0, description: (try? $1.member("description").string()) ?? "?")
    }) ?? []

    @Test func thereAre29Cases() {
        #expect(Self.cases.count == 29)
    }

    @Test(arguments: cases) func conformance(_ c: Case) throws {
        let file = try Self.load()
        let config = try RiskConfiguration(file.member("defaultRiskCalculationConfiguration"))
        let t = try file.array("testCases")[c.index]
        let windows = try WindowsJSON.windows(t.member("exposureWindows"), now: Self.now)
        let r = try RiskCalculation.calculate(windows, configuration: config, now: Self.now)
        let midnight = UnixTime.utcMidnight(Self.now)
        func age(_ d: Int64?) -> Int? { d.map { Int((midnight - $0) / 86_400) } }
        func expected(_ key: String) throws -> Int? { try t.optionalMember(key)?.integer() }
        #expect(Int(r.totalRiskLevel.rawValue) == (try expected("expTotalRiskLevel")))
        #expect(age(r.mostRecentDateWithLowRisk) == (try expected("expAgeOfMostRecentDateWithLowRisk")))
        #expect(age(r.mostRecentDateWithHighRisk) == (try expected("expAgeOfMostRecentDateWithHighRisk")))
        #expect(r.numberOfDaysWithLowRisk == (try expected("expNumberOfDaysWithLowRisk")))
        #expect(r.numberOfDaysWithHighRisk == (try expected("expNumberOfDaysWithHighRisk")))
        #expect(r.totalMinimumDistinctEncountersWithLowRisk == (try expected("expTotalMinimumDistinctEncountersWithLowRisk")))
        #expect(r.totalMinimumDistinctEncountersWithHighRisk == (try expected("expTotalMinimumDistinctEncountersWithHighRisk")))
    }
}
