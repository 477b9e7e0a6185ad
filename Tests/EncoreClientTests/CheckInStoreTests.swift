import EncoreCheck
import EncoreCheckIns
import EncoreCheckInsFixtures
import EncoreClient
import EncoreCrowdNotifier
import EncoreCrypto
import EncoreExposure
import EncoreFixtures
import EncoreKeyFiles
import EncoreKeyFilesFixtures
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreSync
import EncoreTestResults
import EncoreTestSupport
import Foundation
import Testing

/// Check-ins in the encrypted store, the check's combined result, and the
/// reports of a submission.
@Suite struct CheckInStoreTests {
    static let key = StoreKey.raw([UInt8](repeating: 3, count: 32))
    static let start = Int64(CheckInSamples.interval) * 600 // 2023-11-15T10:00Z
    static let cwa = PresenceTracingRiskConfiguration.cwa!
    static let qr = CheckInSamples.qr(CheckInSamples.payload(description: "Konzerthaus Nord"))

    @Test func checkInOutEditDeleteList() throws {
        let dir = TempDir()
        let store = try Store(path: dir.file("s.db"), key: Self.key)
        #expect(try store.schemaVersion == Store.latestSchemaVersion)
        let service = CheckInService(store: store)
        let open = try service.checkIn(qrCode: Self.qr, start: Self.start, now: Self.start)
        // No default length, no event: CWA's 15 minutes.
        #expect(open.end == nil && open.autoEnd == Self.start + 900)
        let closed = try service.checkIn(qrCode: CheckInSamples.realQR, start: Self.start, end: Self.start + 600, now: Self.start)
        #expect(kind { try service.checkOut(id: open.id, end: Self.start - 1) } == .checkInTimes)
        #expect(kind { try service.checkOut(id: 999, end: Self.start) } == .notFound)
        #expect(kind { _ = try service.checkIn(qrCode: Self.qr, start: Self.start, end: Self.start - 60, now: Self.start) } == .checkInTimes)
        #expect(kind { _ = try service.checkIn(qrCode: "https://e.coronawarn.app?v=3#CAES", start: 0, now: 0) } == .qrVersion)
        // The open one closes by itself after the location's default length.
        #expect(try service.list(now: Self.start + 899).first { $0.id == open.id }?.end == nil)
        #expect(try service.list(now: Self.start + 900).first { $0.id == open.id }?.end == Self.start + 900)
        try service.edit(id: closed.id, start: Self.start + 60, end: Self.start + 1260)
        #expect(try store.checkIn(id: closed.id)?.start == Self.start + 60)
        #expect(try service.delete(id: closed.id))
        #expect(try !service.delete(id: closed.id))
        // Purged when they ended before the UTC midnight 10 days before today's
        // (the risk calculation's cut-off): here from the 11th midnight after.
        let purgeDay = UnixTime.utcMidnight(Self.start) + 11 * UnixTime.day
        #expect(try service.list(now: purgeDay - 1).count == 1)
        #expect(try service.list(now: purgeDay).isEmpty)
        // An event of 50 minutes without a default length: 45 minutes (CWA rounds to 15).
        let eventStore = try Store(path: dir.file("event.db"), key: Self.key)
        let t: UInt64 = 1_700_000_000
        let start = Int64(t)
        let event = try CheckInService(store: eventStore).checkIn(qrCode: CheckInSamples.qr(CheckInSamples.payload(start: t, end: t + 50 * 60)), start: start, now: start + 60)
        #expect(event.autoEnd == start + 45 * 60)
    }

    @Test func nothingInClearOnDisk() throws {
        let dir = TempDir()
        let path = dir.file("s.db")
        do {
            let store = try Store(path: path, key: Self.key)
            _ = try CheckInService(store: store).checkIn(qrCode: Self.qr, start: Self.start, end: Self.start + 600, now: Self.start)
            try store.checkpoint()
        }
        for file in [path, path + "-wal"] {
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            #expect(data.range(of: Data("Konzerthaus".utf8)) == nil, "\(file)")
        }
    }

    /// A check-in, a warning package made with the spec's crypto, and the
    /// exposure check: the match, its minutes and the combined HIGH day.
    @Test func theCheckCombinesCheckIns() throws {
        let dir = TempDir()
        let store = try Store(path: dir.file("s.db"), key: Self.key)
        let service = CheckInService(store: store)
        let c = try service.checkIn(qrCode: CheckInSamples.realQR, start: Self.start, end: Self.start + 3600, now: Self.start)
        let location = try CheckInQRCode.parse(CheckInSamples.realQR)
        let report = try TraceWarningWriter.report(locationId: location.locationId, startInterval: CheckInSamples.interval + 1, period: 2,
                                                   transmissionRiskLevel: 8)
        let now = Self.start + 2 * 3600
        _ = try service.matchWarnings(payload: TraceWarningWriter.package(reports: [report]), now: now)
        let cwa = try #require(RiskConfiguration.cwa)
        let result = try ExposureCheck(store: store).run(files: [], keyFileOptions: KeyFileOptions(verify: false), matching: MatchingOptions(),
                                                         risk: cwa, now: now)
        #expect(result.status == .high)
        #expect(result.checkIns.matches.count == 1 && result.checkIns.matches[0].checkIn == c.id && result.checkIns.matches[0].overlapMinutes == 20)
        #expect(result.combined.count == 1 && result.combined[0].riskLevel == .high && result.combined[0].checkIns == .high)
        let doc = try JSONReader(JSONParser.parse(Array(CheckDocument.json(result).rendered.utf8)))
        #expect(try doc.member("checkIns").array("matches").count == 1)
        #expect(try doc.member("combined").member("totalRiskLevel").string() == "HIGH")
        #expect(try doc.member("status").string() == "HIGH")
        // A warning of TRL 2 (worth 0) alone: FAILED, as CWA's apps say.
        let dir2 = TempDir()
        let store2 = try Store(path: dir2.file("s.db"), key: Self.key)
        _ = try CheckInService(store: store2).checkIn(qrCode: CheckInSamples.realQR, start: Self.start, end: Self.start + 3600, now: Self.start)
        let trl2 = try TraceWarningWriter.report(locationId: location.locationId, startInterval: CheckInSamples.interval, period: 2, transmissionRiskLevel: 2)
        _ = try CheckInService(store: store2).matchWarnings(payload: TraceWarningWriter.package(reports: [trl2]), now: now)
        let failed = try ExposureCheck(store: store2).run(files: [], keyFileOptions: KeyFileOptions(verify: false), matching: MatchingOptions(), risk: cwa, now: now)
        #expect(failed.status == .failed && failed.reason != nil)
    }

    @Test func reportsForSubmission() throws {
        let dir = TempDir()
        let store = try Store(path: dir.file("s.db"), key: Self.key)
        let service = CheckInService(store: store)
        let location = try CheckInQRCode.parse(CheckInSamples.realQR)
        // 23:50 → 00:30 UTC: split at midnight into two reports.
        let midnight = UnixTime.utcMidnight(Self.start) + UnixTime.day
        let c = try service.checkIn(qrCode: CheckInSamples.realQR, start: midnight - 600, end: midnight + 1800, now: midnight)
        _ = try service.checkIn(qrCode: Self.qr, start: midnight + 3600, end: midnight + 3900, now: midnight) // 5 minutes: dropped
        let now = midnight + UnixTime.day
        let reports = try CheckInSubmission.reports(store.checkIns(), now: now, symptoms: .noInformation)
        #expect(reports.count == 2)
        #expect(Set(reports.map(\.checkIn)) == [c.id])
        // Derived: 40 minutes + 30 of decay = 70 minutes from 23:50, 10 before and 60 after midnight.
        #expect(reports.map { Int64($0.startInterval) * 600 }.sorted() == [midnight - 600, midnight])
        #expect(reports.map(\.period).sorted() == [1, 6])
        // TRL by age (no information: 6 a day ago, 7 two days ago); each decrypts with the location's keys.
        for r in reports {
            #expect(r.transmissionRiskLevel == (Int64(r.startInterval) * 600 >= midnight ? 6 : 7))
            let opened = try r.protected.iv.withUnsafeBytes { i in try r.protected.encryptedCheckInRecord.withUnsafeBytes { s in
                try r.protected.mac.withUnsafeBytes { try CheckInCrypto.open(iv: i, ciphertext: s, mac: $0, keys: CheckInCrypto.Keys(locationId: location.locationId)) } } }
            let record = try #require(CheckInRecordCodec.decode(try opened.get()))
            #expect(record.start == UInt64(r.startInterval) && record.period == UInt64(r.period))
        }
        // At most 20 a day.
        for i in 0 ..< 25 {
            _ = try service.checkIn(qrCode: Self.qr, start: midnight + 7200 + Int64(i) * 60, end: midnight + 7200 + Int64(i) * 60 + 1200, now: midnight)
        }
        let many = try CheckInSubmission.reports(store.checkIns(), now: now, symptoms: .noInformation)
        let perDay = Dictionary(grouping: many) { Int64($0.startInterval) * 600 / UnixTime.day }.mapValues(\.count)
        #expect(perDay.values.allSatisfy { $0 <= 20 } && perDay[midnight / UnixTime.day] == 20)
        // In the payload (field 8), padded to a multiple of 1000 bytes.
        let payload = try SubmissionPayload(keys: [], checkInProtectedReports: many.map(\.protected)).encoded()
        #expect(payload.count % SubmissionPayload.paddedBytes == 0 && payload.count > SubmissionPayload.paddedBytes)
        for n in 0 ..< 40 {
            let p = try SubmissionPayload(keys: [], checkInProtectedReports: Array(many.prefix(n % many.count).map(\.protected))).encoded()
            #expect(p.count % SubmissionPayload.paddedBytes == 0)
        }
    }

    @Test func combinedPerDate() throws {
        #expect(CombinedRisk.combine(.high, .low) == .high)
        #expect(CombinedRisk.combine(.low, .high) == .high)
        #expect(CombinedRisk.combine(.high, .failed) == .failed)
        #expect(CombinedRisk.combine(nil, nil) == .low)
        #expect(CombinedRisk.combine(.low, .low) == .low)
    }

    @Test func signedPackagesThroughTheStore() throws {
        let dir = TempDir()
        let store = try Store(path: dir.file("s.db"), key: .raw([UInt8](repeating: 2, count: 32)))
        let service = CheckInService(store: store)
        let start = Int64(CheckInSamples.interval) * 600
        let qr = CheckInSamples.qr(CheckInSamples.payload())
        let c = try service.checkIn(qrCode: qr, start: start, end: start + 1800, now: start + 3600)
        let signer = try PrivateKey()
        let info = Fixtures.info(id: "262")
        let trust = try Fixtures.trust(signer, id: "262")
        let zip = try TraceWarningWriter.signedPackage(TraceWarningWriter.package(reports: [try TraceWarningWriter.report(locationId: TraceLocation.locationId(payload: CheckInSamples.payload()), startInterval: CheckInSamples.interval,
                                                                                                          period: 3, transmissionRiskLevel: 6)]), signer: signer, info: info)
        let now = start + 7200
        let first = try service.matchWarningPackage(zip, trust: trust, now: now)
        #expect(first.signature == .verified && first.added == 1 && first.scan.matches.count == 1)
        // Again: nothing new.
        #expect(try service.matchWarningPackage(zip, trust: trust, now: now).added == 0)
        // Untrusted, tampered: refused; the empty package: nothing.
        #expect(kind { _ = try service.matchWarningPackage(zip, trust: TrustList(), now: now) } == .signatureUntrusted)
        #expect(try service.matchWarningPackage([], trust: trust, now: now).scan.matches.isEmpty)
        let a = try service.assessment(configuration: Self.cwa, now: now)
        #expect(a.matches.count == 1 && a.matches[0].checkIn == c.id && a.matches[0].overlapMinutes == 30)
        #expect(a.totalRiskLevel == .high) // 1.2 × 30 = 36
        // Once submitted, the user's own check-in is not matched.
        try store.markCheckInsSubmitted([c.id])
        #expect(try service.assessment(configuration: Self.cwa, now: now).matches.isEmpty)
    }

    /// "Every check-in the user consented to share is marked submitted, including the ones these time
    /// rules drop, and a submitted check-in is never matched against warnings."
    @Test func sharedCheckInsIncludeThoseTheTimeRulesDrop() throws {
        let dir = TempDir()
        let store = try Store(path: dir.file("s.db"), key: Self.key)
        let service = CheckInService(store: store)
        let now: Int64 = 1_700_006_400 + 20 * 3600
        let qr = CheckInSamples.qr(CheckInSamples.payload())
        let long = try service.checkIn(qrCode: qr, start: now - 4 * 3600, end: now - 3 * 3600, now: now)
        let short = try service.checkIn(qrCode: qr, start: now - 2 * 3600, end: now - 2 * 3600 + 300, now: now) // 5 minutes: dropped
        _ = try service.checkIn(qrCode: CheckInSamples.qr(CheckInSamples.payload(description: "Later")), start: now + 3600, end: now + 7200, now: now) // not begun: not shared
        let shared = CheckInSubmission.shared(try store.checkIns(), now: now)
        #expect(shared.map(\.id) == [long.id, short.id])
        let reports = try CheckInSubmission.reports(shared, now: now, symptoms: .noInformation)
        #expect(Set(reports.map(\.checkIn)) == [long.id])
        try store.markCheckInsSubmitted(shared.map(\.id))
        // A warning over both visits matches neither; submitted ones are not shared again.
        let warning = try TraceWarningWriter.report(locationId: TraceLocation.locationId(payload: CheckInSamples.payload()),
                                                   startInterval: UInt32((now - 5 * 3600) / 600), period: 30, transmissionRiskLevel: 8)
        let outcome = try service.matchWarnings(payload: TraceWarningWriter.package(reports: [warning]), now: now)
        #expect(outcome.added == 0)
        #expect(try service.assessment(configuration: Self.cwa, now: now).matches.isEmpty)
        #expect(CheckInSubmission.shared(try store.checkIns(), now: now).isEmpty)
    }
}
