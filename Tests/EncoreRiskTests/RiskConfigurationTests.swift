import EncoreRisk
import EncoreSupport
import EncoreTestSupport
import Testing

/// CWA's risk configuration as its conformance file
/// (Tests/data/cwa/android-exposure-windows-risk-calculation.json) gives it
/// (the file's cases, risk on exposure windows: the client's
/// RiskCalculationTests).
@Suite struct RiskConfigurationTests {
    static func load() throws -> JSONReader {
        try JSONReader(JSONParser.parse(TestData.bytes("cwa/android-exposure-windows-risk-calculation.json")))
    }

    @Test func malformedConfigurationsNameTheBadField() throws {
        var config = String(decoding: try TestData.bytes("cwa/android-exposure-windows-risk-calculation.json"), as: UTF8.self)
        config = config.replacing("\"weight\": 0.8", with: "\"weight\": \"heavy\"")
        let reader = try JSONReader(JSONParser.parse(config)).member("defaultRiskCalculationConfiguration")
        do {
            _ = try RiskConfiguration(reader)
            Issue.record("a string weight was accepted")
        } catch let e as EncoreError {
            #expect(e.kind == .invalidArgument)
            #expect(e.message.contains("minutesAtAttenuationWeights[0].weight"))
        }
        #expect(kind { try RiskConfiguration(json: Array("{}".utf8)) } == .invalidArgument)
        #expect(kind { try RiskConfiguration(json: Array("[1,".utf8)) } == .invalidArgument)
        #expect(kind { try JSONParser.parse(String(repeating: "[", count: 10_000)) } == .invalidArgument)
    }
}

@Suite struct CWADefaultsTests {
    @Test func theBuiltInConfigurationIsTheConformanceFiles() throws {
        let file = try RiskConfigurationTests.load()
        #expect(RiskConfiguration.cwa == (try RiskConfiguration(file.member("defaultRiskCalculationConfiguration"))))
    }
}
