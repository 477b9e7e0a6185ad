import EncoreExposure
import EncoreKeyFiles
import EncoreSupport
import Testing

/// Exposure windows in their JSON form (the conformance tests' and the
/// host's): days as text both ways, the unix seconds of a midnight still read.
@Suite struct WindowsJSONTests {
    @Test func windowsRoundTripThroughTheirJSONForm() throws {
        let windows = [ExposureWindow(date: 19_000 * 86_400, reportType: .confirmedTest, infectiousness: .high, calibrationConfidence: 2,
                                      scanInstances: [ScanInstance(typicalAttenuation: 55, minAttenuation: 50, secondsSinceLastScan: 240)])]
        let json = WindowsJSON.json(windows)
        #expect(json.rendered.contains(#""date":"2022-01-08""#))
        #expect(try WindowsJSON.windows(JSONReader(JSONParser.parse(json.rendered)), now: 19_010 * 86_400) == windows)
        // The unix seconds of a midnight still read; a day that is not one fails.
        let old = #"[{"date": 1641600000, "reportType": 1, "infectiousness": 2, "calibrationConfidence": 2, "scanInstances": []}]"#
        #expect(try WindowsJSON.windows(json: Array(old.utf8), now: 0)[0].date == 1_641_600_000)
        let bad = #"[{"date": "2022-02-30", "reportType": 1, "infectiousness": 2, "calibrationConfidence": 2, "scanInstances": []}]"#
        #expect(throws: EncoreError.self) { try WindowsJSON.windows(json: Array(bad.utf8), now: 0) }
    }
}
