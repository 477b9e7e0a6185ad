import EncoreExposure
import EncoreSupport
import Testing

/// Exposure windows in their JSON form (the conformance tests' and the
/// host's): days as text both ways, the unix seconds of a midnight still read.
@Suite struct WindowsJSONTests {
    @Test func windowsRoundTripThroughTheirJSONForm() throws {
        // A window read from its JSON form (its report type is a key's, 1: a
        // confirmed test), written again, and read back the same.
        let text = #"[{"date": "2022-01-08", "reportType": 1, "infectiousness": 2, "calibrationConfidence": 2,"#
            + #" "scanInstances": [{"typicalAttenuation": 55, "minAttenuation": 50, "secondsSinceLastScan": 240}]}]"#
        let windows = try WindowsJSON.windows(json: Array(text.utf8), now: 19_010 * 86_400)
        #expect(windows.count == 1 && windows[0].date == 19_000 * 86_400 && windows[0].infectiousness == .high && windows[0].calibrationConfidence == 2)
        #expect(windows[0].scanInstances == [ScanInstance(typicalAttenuation: 55, minAttenuation: 50, secondsSinceLastScan: 240)])
        let json = WindowsJSON.json(windows)
        #expect(json.rendered.contains(#""date":"2022-01-08""#) && json.rendered.contains(#""reportType":1"#))
        #expect(try WindowsJSON.windows(JSONReader(JSONParser.parse(json.rendered)), now: 19_010 * 86_400) == windows)
        // The unix seconds of a midnight still read; a day that is not one fails.
        let old = #"[{"date": 1641600000, "reportType": 1, "infectiousness": 2, "calibrationConfidence": 2, "scanInstances": []}]"#
        #expect(try WindowsJSON.windows(json: Array(old.utf8), now: 0)[0].date == 1_641_600_000)
        let bad = #"[{"date": "2022-02-30", "reportType": 1, "infectiousness": 2, "calibrationConfidence": 2, "scanInstances": []}]"#
        #expect(throws: EncoreError.self) { try WindowsJSON.windows(json: Array(bad.utf8), now: 0) }
    }
}
