import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreKeyFilesFixtures
import EncoreSupport

/// Someone a simulated user met: their temporary exposure key for one UTC
/// day, how their device broadcast it, and what the user's device heard of
/// it. One type for the tests, the bench and the demo.
package struct SimulatedContact: Sendable {
    package var tek: KeyData
    /// The key's rolling start interval (the first of its UTC day).
    package var start: UInt32
    package var period: Int32 = 144
    package var txPower: Int8 = -10
    package var calibration: UInt8 = 1
    package var dsos: Int32? = 1
    package var reportType: ReportType = .confirmedTest
    package var trl: Int32 = 6

    /// The contact's key of UTC day number `day`.
    package init(tek: KeyData, day: UInt32) {
        self.tek = tek
        start = day * ENInterval.rollingPeriod
    }

    /// The key as the health authority publishes it.
    package var key: ExposureKey {
        ExposureKey(keyData: tek, transmissionRiskLevel: trl, rollingStartIntervalNumber: Int32(start), rollingPeriod: period,
                    reportType: reportType, daysSinceOnsetOfSymptoms: dsos)
    }

    /// The AEM metadata the contact broadcast: version 1.0, calibration, TX power.
    package var metadata: [UInt8] { [0x40 | (calibration << 2), UInt8(bitPattern: txPower), 0, 0] }

    /// What the user heard at `heardAt` (their clock) of the broadcast the
    /// contact made at `sentAt` (the contact's clock).
    package func sighting(sentAt: Int64, heardAt: Int64? = nil, rssi: Int8, previousScan: Int64? = nil,
                          metadata: [UInt8]? = nil) throws -> Sighting {
        let rpi = try ENFKeySchedule.rpi(rpik: ENFKeySchedule.rpik(tek: tek), interval: UInt32(sentAt / ENInterval.seconds))
        let aem = try ENFKeySchedule.aem(aemk: ENFKeySchedule.aemk(tek: tek), rpi: rpi, metadata: metadata ?? self.metadata)
        return try Sighting(time: heardAt ?? sentAt, rpi: rpi, aemBytes: aem, rssi: rssi, previousScan: previousScan)
    }

    /// One sighting per scan, `spacing` seconds apart from `from` (no
    /// clock drift), each noting the scan one spacing before.
    package func sightings(from: Int64, scans: Int, spacing: Int64, rssi: Int8) throws -> [Sighting] {
        let rpik = try ENFKeySchedule.rpik(tek: tek), aemk = try ENFKeySchedule.aemk(tek: tek)
        return try (0 ..< scans).map { i in
            let t = from + Int64(i) * spacing
            let rpi = try ENFKeySchedule.rpi(rpik: rpik, interval: UInt32(t / ENInterval.seconds))
            return try Sighting(time: t, rpi: rpi, aemBytes: ENFKeySchedule.aem(aemk: aemk, rpi: rpi, metadata: metadata),
                                   rssi: rssi, previousScan: t - spacing)
        }
    }
}

/// The key files of a simulated health authority: one signed file per UTC
/// day, random keys with the contacts' keys among them.
package enum SimulatedKeyFiles {
    /// 16 key bytes from `rng`.
    package static func randomKey(_ rng: inout SplitMix64) -> KeyData {
        var raw = (rng.next(), rng.next())
        return withUnsafeBytes(of: &raw) { KeyData($0) }
    }

    /// A signed key file of UTC day number `day`: `others` random keys of
    /// that day (transmission risk 1...8, days since onset -1...3), and
    /// `keys` each at a random position.
    package static func day(_ day: Int64, others: Int, keys: [ExposureKey], rng: inout SplitMix64, signer: PrivateKey,
                            info: SignatureInfo, region: String = "DE") throws -> [UInt8] {
        var all: [ExposureKey] = []
        all.reserveCapacity(others + keys.count)
        for _ in 0 ..< others {
            all.append(ExposureKey(keyData: randomKey(&rng), transmissionRiskLevel: Int32(rng.next() % 8) + 1,
                                   rollingStartIntervalNumber: Int32(day * 144), rollingPeriod: 144, reportType: .confirmedTest,
                                   daysSinceOnsetOfSymptoms: Int32(rng.next() % 5) - 1))
        }
        for k in keys { all.insert(k, at: Int(rng.next() % UInt64(all.count + 1))) }
        var meta = ExportMetadata()
        meta.startTimestamp = UInt64(day * UnixTime.day)
        meta.endTimestamp = UInt64((day + 1) * UnixTime.day)
        meta.region = region
        meta.batchNum = 1
        meta.batchSize = 1
        return try ExportWriter.signedKeyFile(metadata: meta, keys: all, signer: signer, info: info)
    }
}
