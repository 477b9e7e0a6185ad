import EncoreCrypto
import EncoreStorage
import EncoreSupport
import EncoreTracing
import Testing

@Suite struct AggregationTests {
    func rpi(_ b: UInt8) -> KeyData { KeyData([UInt8](repeating: b, count: 16))! }
    let none = try! Calibration(rssiCorrection: 0)

    @Test func onePerRPIWithTypicalAndMaxRSSI() {
        let reports = [
            ScanReport(rpi: rpi(1), aem: 9, rssi: -60, time: 102),
            ScanReport(rpi: rpi(2), aem: 8, rssi: -80, time: 101),
            ScanReport(rpi: rpi(1), aem: 9, rssi: -50, time: 100),
            ScanReport(rpi: rpi(1), aem: 9, rssi: -55, time: 103),
        ]
        let a = ScanAggregation.aggregate(reports, ownRPIs: [], calibration: none)
        #expect(a.sightings.count == 2 && a.repeatedReports == 2)
        let one = a.sightings[0]
        #expect(one.rpi == rpi(1) && one.firstSeen == 100 && one.maxRSSI == -50 && one.typicalRSSI == -55 && one.reports == 3)
        #expect(a.sightings[1].rpi == rpi(2) && a.sightings[1].typicalRSSI == -80 && a.sightings[1].maxRSSI == -80)
    }

    @Test func theCorrectionIsAddedAndSaturates() throws {
        let c = try Calibration(rssiCorrection: 10)
        let a = ScanAggregation.aggregate([ScanReport(rpi: rpi(1), aem: 0, rssi: -70, time: 0),
                                           ScanReport(rpi: rpi(2), aem: 0, rssi: 126, time: 0),
                                           ScanReport(rpi: rpi(3), aem: 0, rssi: -127, time: 0)], ownRPIs: [], calibration: c)
        #expect(a.sightings.map(\.maxRSSI) == [-60, 127, -117])
    }

    @Test func ownRPIsNoRSSIAndForeignAEMsAreDropped() {
        let a = ScanAggregation.aggregate([ScanReport(rpi: rpi(1), aem: 1, rssi: -60, time: 0),
                                           ScanReport(rpi: rpi(7), aem: 1, rssi: -60, time: 0),     // own
                                           ScanReport(rpi: rpi(2), aem: 1, rssi: 127, time: 0),     // no RSSI
                                           ScanReport(rpi: rpi(1), aem: 2, rssi: -40, time: 1)],    // other AEM
                                          ownRPIs: [rpi(7)], calibration: none)
        #expect(a.sightings.count == 1 && a.sightings[0].maxRSSI == -60)
        #expect(a.ownReports == 1 && a.invalidReports == 2 && a.repeatedReports == 0)
    }

    @Test func serviceDataMustBeTwentyBytes() {
        let data = [UInt8](repeating: 5, count: 16) + [1, 2, 3, 4]
        let r = ScanReport(serviceData: data, rssi: -3, time: 9)
        #expect(r?.rpi == rpi(5) && r.map { withUnsafeBytes(of: $0.aem) { Array($0) } } == [1, 2, 3, 4])
        #expect(ScanReport(serviceData: Array(data.prefix(19)), rssi: 0, time: 0) == nil)
        #expect(ScanReport(serviceData: data + [0], rssi: 0, time: 0) == nil)
    }

    @Test func calibrationConfidenceFollowsWhatWasMeasured() throws {
        #expect(try Calibration().effectiveConfidence == 0)
        #expect(try Calibration(txPower: -20).effectiveConfidence == 1)
        #expect(try Calibration(rssiCorrection: 3).effectiveConfidence == 1)
        #expect(try Calibration(txPower: -20, rssiCorrection: 3).effectiveConfidence == 2)
        #expect(try Calibration(txPower: -20, rssiCorrection: 3, confidence: 3).effectiveConfidence == 3)
        #expect(try Calibration(confidence: 1).effectiveConfidence == 1)
        #expect(throws: EncoreError.self) { try Calibration(confidence: 4) }
        #expect(try Calibration().effectiveTxPower == Calibration.defaultTxPower)
    }
}
