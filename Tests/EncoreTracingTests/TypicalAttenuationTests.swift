import EncoreCrypto
import EncoreSupport
import EncoreTracing
import Testing

/// A scan's reports give a typical RSSI from which the matching's
/// TX power − RSSI is the spec's rounded mean attenuation (ENF:
/// typicalAttenuation), beside the strongest (minAttenuation).
@Suite struct TypicalAttenuationTests {
    func rpi(_ b: UInt8) -> KeyData { KeyData([UInt8](repeating: b, count: 16))! }

    func folded(_ rssis: [Int16], correction: Int8 = 0) throws -> ScanSighting {
        let reports = rssis.enumerated().map { ScanReport(rpi: rpi(1), aem: 7, rssi: $1, time: 100 + Int64($0)) }
        let a = ScanAggregation.aggregate(reports, ownRPIs: [], calibration: try Calibration(rssiCorrection: correction))
        return try #require(a.sightings.first)
    }

    /// What the window builder does with per-report attenuations.
    func meanAttenuation(_ rssis: [Int16], correction: Int, txPower: Int) -> Int {
        let a = rssis.map { min(max(txPower - (Int($0) + correction), 0), 255) }
        return Int((Double(a.reduce(0, +)) / Double(a.count)).rounded())
    }

    @Test func theMeanIsInDecibelsNotMilliwatts() throws {
        let s = try folded([-50, -90])
        // The dB mean; a mean of milliwatts would give about -53 (the strong report rules it).
        #expect(s.typicalRSSI == -70 && s.maxRSSI == -50)
    }

    @Test func theCorrectionApplies() throws {
        let s = try folded([-50, -90, -61], correction: 4)
        #expect(s.maxRSSI == -46 && s.typicalRSSI == -63 && s.reports == 3)       // (-46 - 86 - 57) / 3
    }

    @Test func halvesRoundToTheLargerAttenuation() throws {
        // Attenuations (TX -20) 40 and 41: 40.5 rounds to 41, RSSI -61.
        #expect(try folded([-60, -61]).typicalRSSI == -61)
        // An RSSI mean above zero (a strong correction): TX 10, attenuations 10 and 9 → 10.
        #expect(try folded([0, 1]).typicalRSSI == 0)
        #expect(try folded([-7, -8, -8]).typicalRSSI == -8)
    }

    /// Over many scans: TX power − typical RSSI is the rounded mean of the
    /// reports' attenuations (each at or above 0), min from the strongest.
    @Test func typicalAttenuationIsTheMeanOfTheReportsAttenuations() throws {
        var rng = SplitMix64(seed: 46)
        for _ in 0 ..< 500 {
            let n = 1 + Int(rng.next() % 20), correction = Int(rng.next() % 10)
            let rssis = (0 ..< n).map { _ in Int16(-40 - Int(rng.next() % 60)) }
            let txPower = -30 + Int(rng.next() % 20)
            let s = try folded(rssis, correction: Int8(correction))
            #expect(txPower - Int(s.typicalRSSI) == meanAttenuation(rssis, correction: correction, txPower: txPower), "\(rssis)")
            #expect(txPower - Int(s.maxRSSI) == rssis.map { txPower - (Int($0) + correction) }.min())
        }
    }
}
