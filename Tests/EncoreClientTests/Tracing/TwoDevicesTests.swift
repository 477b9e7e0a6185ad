import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreKeyFilesFixtures
import EncoreStorage
import EncoreTestSupport
import EncoreTracing
import Testing

/// Two devices through the library alone (no radio): B's tracer ingests what
/// A's tracer broadcasts, A's keys are published, and B's matching finds
/// the encounter with the attenuations (typical and minimum) A's TX power
/// and B's RSSIs and correction imply, in scan instances 5 minutes apart.
@Suite struct TwoDevicesTests {
    let midnight: Int64 = 19_000 * 86_400

    @Test func bHearsAAndMatchesItsKeys() throws {
        let dir = TempDir()
        let a = try Store(path: dir.file("a.db"), key: .raw([UInt8](repeating: 1, count: 32)), features: [.exposure, .tracing])
        let b = try Store(path: dir.file("b.db"), key: .raw([UInt8](repeating: 2, count: 32)), features: [.exposure, .tracing])
        let ta = try Tracer(store: a, random: { ($0.lowerBound + $0.upperBound) / 2 })
        let tb = try Tracer(store: b)
        try ta.setCalibration(Calibration(txPower: -15))                 // LOW confidence: one value measured
        try tb.setCalibration(Calibration(rssiCorrection: 5))
        let t0 = midnight + 10 * 3_600
        try ta.start(now: t0)
        try tb.start(now: t0)
        var now = t0
        var payloads: Set<[UInt8]> = []
        for _ in 0 ..< 6 {
            let w = try tb.nextScan(now: now)
            let ad = try ta.advertisement(now: w.start)
            payloads.insert(ad.payload)
            let heard = (0 ..< 3).map { ScanReport(serviceData: ad.payload, rssi: Int16(-62 + $0), time: w.start + Int64($0))! }
            _ = try tb.ingestScan(window: w, reports: heard)
            now = w.end
        }
        #expect(payloads.count == 2)                                      // 25 minutes: one rotation at 15
        try ta.stop(now: now)
        try tb.stop(now: now)

        var keys = try OwnKeySchedule(store: a).keyHistory(now: now, days: 0)
        for i in keys.indices {
            keys[i].reportType = .confirmedTest
            keys[i].daysSinceOnsetOfSymptoms = 1
            keys[i].transmissionRiskLevel = 5
        }
        let signer = try PrivateKey()
        let zip = try ExportWriter.signedKeyFile(metadata: Fixtures.metadata(), keys: keys, signer: signer, info: Fixtures.info())
        let result = try Matcher.match(sightings: SightingSet(b.sightings()), files: [.bytes(zip)],
                                       keyFileOptions: KeyFileOptions(trust: Fixtures.trust(signer)), options: MatchingOptions(),
                                       now: now + 3_600)
        #expect(result.windows.count == 1)
        let w = try #require(result.windows.first)
        #expect(w.calibrationConfidence == 1)
        // Attenuation = A's TX power − (B's strongest RSSI + B's correction) = −15 − (−60 + 5).
        #expect(w.scanInstances.map(\.minAttenuation) == Array(repeating: 40, count: 6))
        // Typical: the mean of the three reports, −15 − (−61 + 5) (issue 46: it was the minimum).
        #expect(w.scanInstances.map(\.typicalAttenuation) == Array(repeating: 41, count: 6))
        #expect(w.scanInstances.map(\.secondsSinceLastScan) == [120, 300, 300, 300, 300, 300])
    }
}
