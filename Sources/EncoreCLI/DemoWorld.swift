import EncoreFixtures
import EncoreCore

/// The demo's simulated world: a user's 14 days of sightings (strangers
/// heard in passing, and encounters with three people who later report a
/// positive test) and the signed daily key files a health authority would
/// publish with the three people's keys among many others.
struct DemoWorld {
    struct Person {
        let name: String
        let tek: KeyData
        let day: Int64            // UTC day number of the encounter
        let startHour: Int64
        let minutes: Int64
        let rssi: Int8
        let daysSinceOnset: Int32
        let reportType: ReportType
    }

    let today: Int64              // UTC day number of "now"
    let now: Int64
    var rng: SplitMix64 // the demo is the same every run

    init(now: Int64, seed: UInt64 = 2020) {
        self.now = now
        today = now / 86_400
        rng = SplitMix64(seed: seed)
    }

    mutating func people() -> [Person] {
        [Person(name: "Anna (met 10 days ago, 25 minutes at a café table)", tek: randomKey(), day: today - 10, startHour: 9, minutes: 25,
                rssi: -62, daysSinceOnset: 1, reportType: .confirmedTest),
         Person(name: "Ben (met 4 days ago, 45 minutes on a train)", tek: randomKey(), day: today - 4, startHour: 17, minutes: 45,
                rssi: -68, daysSinceOnset: 2, reportType: .confirmedTest),
         Person(name: "Cleo (met yesterday, 6 minutes passing in a corridor)", tek: randomKey(), day: today - 1, startHour: 13, minutes: 6,
                rssi: -80, daysSinceOnset: 1, reportType: .selfReport)]
    }

    mutating func randomKey() -> KeyData {
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0 ..< 16 { bytes[i] = UInt8(truncatingIfNeeded: rng.next()) }
        return bytes.withUnsafeBytes { KeyData($0) }
    }

    /// What the user's phone heard: one scan every 4 minutes during each
    /// encounter, plus strangers all day long.
    mutating func sightings(of people: [Person], strangersPerDay: Int) throws -> [Observation] {
        var out: [Observation] = []
        for p in people {
            let rpik = try ENCrypto.rpik(tek: p.tek), aemk = try ENCrypto.aemk(tek: p.tek)
            var t = p.day * 86_400 + p.startHour * 3600
            let end = t + p.minutes * 60
            while t < end {
                let rpi = try ENCrypto.rpi(rpik: rpik, interval: UInt32(t / 600))
                let aem = try ENCrypto.aem(aemk: aemk, rpi: rpi, metadata: [0x40 | (1 << 2), UInt8(bitPattern: -12), 0, 0])
                out.append(try Observation(time: t, rpi: rpi, aemBytes: aem, rssi: p.rssi, previousScan: t - 240))
                t += 240
            }
        }
        for day in (today - 13) ... today {
            for _ in 0 ..< strangersPerDay {
                let t = day * 86_400 + Int64(rng.next() % 86_400)
                out.append(Observation(time: t, rpi: randomKey(), aem: UInt32(truncatingIfNeeded: rng.next()),
                                       rssi: Int8(-50 - Int(rng.next() % 45)), previousScan: t - 240))
            }
        }
        return out.filter { $0.time < now }
    }

    /// One signed key file per UTC day of the last 14, `othersPerDay` random
    /// keys in each, and each person's key of the encounter day in the file
    /// of that day.
    mutating func keyFiles(people: [Person], othersPerDay: Int, signer: PrivateKey, info: SignatureInfo) throws -> [(day: Int64, zip: [UInt8])] {
        var files: [(Int64, [UInt8])] = []
        for day in (today - 14) ..< today {
            var keys: [ExposureKey] = []
            keys.reserveCapacity(othersPerDay + 1)
            for _ in 0 ..< othersPerDay {
                keys.append(ExposureKey(keyData: randomKey(), transmissionRiskLevel: Int32(rng.next() % 8) + 1,
                                        rollingStartIntervalNumber: Int32(day * 144), rollingPeriod: 144, reportType: .confirmedTest,
                                        daysSinceOnsetOfSymptoms: Int32(rng.next() % 5) - 1))
            }
            for p in people where p.day == day {
                keys.insert(ExposureKey(keyData: p.tek, transmissionRiskLevel: 6, rollingStartIntervalNumber: Int32(day * 144),
                                        reportType: p.reportType, daysSinceOnsetOfSymptoms: p.daysSinceOnset),
                            at: Int(rng.next() % UInt64(keys.count + 1)))
            }
            var meta = ExportMetadata()
            meta.startTimestamp = UInt64(day * 86_400)
            meta.endTimestamp = UInt64((day + 1) * 86_400)
            meta.region = "DE"
            meta.batchNum = 1
            meta.batchSize = 1
            files.append((day, try ExportWriter.signedKeyFile(metadata: meta, keys: keys, signer: signer, info: info)))
        }
        return files
    }
}
