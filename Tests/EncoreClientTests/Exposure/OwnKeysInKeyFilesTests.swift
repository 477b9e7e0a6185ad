import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreKeyFilesFixtures
import EncoreStorage
import EncoreTestSupport
import Testing

/// The device's own keys as a key file carries them (Exposure with
/// KeyFiles' keys and files): its history for a submission, which goes
/// through a signed file unchanged, and what another device heard of its
/// advertisements matches the published keys.
@Suite struct OwnKeysInKeyFilesTests {
    let day: Int64 = 86_400
    let t0: Int64 = 19_000 * 86_400 + 3_600      // 01:00 UTC on a day

    func store(_ dir: TempDir) throws -> Store { try Store(path: dir.file("k.db"), key: .raw([UInt8](repeating: 3, count: 32)), features: [.exposure]) }

    @Test func historyHoldsTheLast14DaysForSubmission() throws {
        let dir = TempDir()
        let s = try store(dir)
        for d in 0 ..< 20 { _ = try OwnKeySchedule(store: s).currentKey(now: t0 + Int64(d) * day) }
        let now = t0 + 19 * day
        let history = try OwnKeySchedule(store: s).keyHistory(now: now)
        #expect(history.count == 15) // today and the 14 days before
        #expect(history.first?.rollingStartIntervalNumber == Int32((now - 3_600) / 600) - 14 * 144)
        // The keys a contact's device would match: every one derives RPIs.
        let signer = try PrivateKey()
        let zip = try ExportWriter.signedKeyFile(metadata: Fixtures.metadata(), keys: history, signer: signer, info: Fixtures.info())
        #expect(try KeyFile(bytes: zip, options: KeyFileOptions(trust: Fixtures.trust(signer))).keys() == history)
    }

    @Test func ownAdvertisementsHeardByAnotherDeviceMatch() throws {
        // Device A broadcasts; device B hears it; A's keys are published.
        let dirA = TempDir(), dirB = TempDir()
        let a = try store(dirA), b = try store(dirB)
        var heard: [Sighting] = []
        for i in 0 ..< 5 {
            let t = t0 + Int64(i) * 300
            let p = try OwnKeySchedule(store: a).advertisement(now: t, txPower: -10)
            heard.append(Sighting(time: t, rpi: KeyData(Array(p.prefix(16)))!, aem: p.suffix(4).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) },
                                     rssi: -70, previousScan: t - 300))
        }
        try b.addSightings(heard)
        var keys = try OwnKeySchedule(store: a).keyHistory(now: t0)
        keys = keys.map { var k = $0; k.daysSinceOnsetOfSymptoms = 1; k.reportType = .confirmedTest; return k }
        let signer = try PrivateKey()
        let zip = try ExportWriter.signedKeyFile(metadata: Fixtures.metadata(), keys: keys, signer: signer, info: Fixtures.info())
        var options = MatchingOptions()
        options.maxKeyAgeDays = 14
        let r = try ExposureDetection(store: b).match(files: [.bytes(zip)], keyFileOptions: KeyFileOptions(trust: Fixtures.trust(signer)),
                                                      options: options, now: t0 + day)
        #expect(r.windows.count == 1 && r.windows[0].scanInstances.count == 5)
        #expect(r.windows[0].scanInstances.allSatisfy { $0.minAttenuation == 60 && $0.secondsSinceLastScan == 300 })
    }
}
