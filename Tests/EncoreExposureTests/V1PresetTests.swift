import EncoreExposure
import Testing

@Suite struct V1PresetTests {
    @Test func theCWAPresetPassesValidation() throws {
        let c = V1Configuration.cwa
        let checked = try V1Configuration(attenuationLevelValues: c.attenuationLevelValues, daysSinceLastExposureLevelValues: c.daysSinceLastExposureLevelValues,
                                          durationLevelValues: c.durationLevelValues, transmissionRiskLevelValues: c.transmissionRiskLevelValues,
                                          minimumRiskScore: c.minimumRiskScore, attenuationDurationThresholds: c.attenuationDurationThresholds)
        #expect(checked == c)
    }
}
