import CEncoreProto
import EncoreCheck
import EncoreCheckIns
import EncoreClient
import EncoreCrowdNotifier
import EncoreCrypto
import EncoreFixtures
import EncoreKeyFiles
import EncoreKeyFilesFixtures
import EncoreStorage
import EncoreSupport
import EncoreSync
import EncoreTestResults
import EncoreWire
#if canImport(Glibc)
import Glibc
#endif

/// Matching trace warning packages (issue 16): one package of 1 000 000
/// CheckInProtectedReports against 200 check-ins, reports/s of the scan
/// (walk every report, probe the location index, authenticate and decrypt
/// the user's) against SHA-256 of the same export.bin in the same run. The
/// target: the index makes a report for someone else's place cost no more
/// than reading it, ≥ 0.5× SHA-256's throughput. Then once end to end
/// through the store: a signed zip inflated, verified, scanned and its
/// warnings stored (CheckInService.matchWarningPackage), for information.
enum CheckInBench {
    static let defaultReports = 1_000_000
    static let checkIns = 200
    static let target = 0.5

    /// 200 places as their QR codes describe them; the check-ins are at these.
    static func locations(_ rng: inout XorShift) throws -> [TraceLocation] {
        try (0 ..< checkIns).map { i in
            let b = try ProtoBuilder()
            let place = try b.message(cwapt__trace_location__init)
            place.pointee.version = 1
            place.pointee.description = try b.string("Bench place \(i)")
            place.pointee.address = try b.string("Street \(i)")
            let crowd = try b.message(cwapt__crowd_notifier_data__init)
            crowd.pointee.version = 1
            crowd.pointee.publickey = try b.bytes([4] + (0 ..< 64).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
            crowd.pointee.cryptographicseed = try b.bytes((0 ..< 16).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
            let payload = try b.message(cwapt__qrcode_payload__init)
            payload.pointee.version = 1
            payload.pointee.locationdata = place
            payload.pointee.crowdnotifierdata = crowd
            return try CheckInQRCode.location(payload: ProtoBuilder.pack(payload))
        }
    }

    /// A TraceWarningPackage of `count` reports: one for each of the user's
    /// places (MACs right: these are decrypted), spread evenly, the rest for
    /// other places (random bytes of the right lengths, as real reports
    /// look to anyone without the location's id).
    static func package(reports count: Int, for places: [TraceLocation], at interval: UInt32, _ rng: inout XorShift) throws -> [UInt8] {
        // The reports are made one by one as protobuf-c's writer takes
        // them (never all of them as Swift arrays at once).
        var local = rng
        defer { rng = local }
        func random(_ n: Int) -> [UInt8] { (0 ..< n).map { _ in UInt8(truncatingIfNeeded: local.next()) } }
        let every = max(1, count / max(1, places.count))
        var next = 0
        var failure: Error?
        let reports = (0 ..< count).lazy.map { i -> SubmissionPayload.ProtectedReport in
            if i % every == every / 2, next < places.count {
                do {
                    let report = try TraceWarningWriter.report(locationId: places[next].locationId, startInterval: interval, period: 6,
                                                               transmissionRiskLevel: 7, iv: random(16))
                    next += 1
                    return report
                } catch {
                    failure = failure ?? error
                }
            }
            return SubmissionPayload.ProtectedReport(locationIdHash: random(32), iv: random(16), encryptedCheckInRecord: random(16), mac: random(32))
        }
        let bytes = TraceWarningWriter.package(intervalNumber: UInt32(UInt64(interval) / 6), reports: reports)
        if let failure { throw failure }
        return bytes
    }

    static func run(reports count: Int, runs requested: Int, dir given: String?) throws -> (ok: Bool, summary: [String]) {
        let runs = max(1, requested)
        var rng = XorShift(seed: 16)
        let places = try locations(&rng)
        let now: Int64 = 1_762_632_000 // 2025-11-08 20:00 UTC
        let interval = UInt32(now / 600 - 42) // 13:00
        print("\n== check-ins: a trace warning package of \(Format.grouped(count)) protected reports against \(checkIns) check-ins")
        print("generating ...", terminator: "")
        fflush(nil)
        var payload: [UInt8] = []
        let generation = try Timing.time { payload = try package(reports: count, for: places, at: interval, &rng) }
        print(" \(Format.fixed(generation, 1)) s (export.bin \(Format.mb(payload.count)))")

        let index = try LocationIndex(checkIns: places.enumerated().map { (id: Int64($0.offset + 1), locationId: $0.element.locationId) })
        var scanTimes = Samples(), shaTimes = Samples()
        var ok = true
        var sink: UInt8 = 0
        for run in 0 ... runs {
            var scanned = WarningScan()
            let s = try Timing.time { scanned = try payload.withUnsafeBytes { try TraceWarningScanner.scan(payload: $0, index: index) } }
            let h = try Timing.time { sink ^= try payload.withUnsafeBytes { try Baseline.sha256($0) } }
            // Every run must find exactly the user's reports.
            let expected = min(places.count, count)
            if scanned.reports != count || scanned.matches.count != expected || scanned.skipped != 0 {
                print("scan found \(scanned.matches.count) of \(expected) matches in \(scanned.reports) reports, skipped \(scanned.skipped): WRONG")
                ok = false
            }
            if run > 0 { // the first run warms up
                scanTimes.add(s)
                shaTimes.add(h)
            }
        }
        let reportsPerSecond = Double(count) / scanTimes.median
        let shaReportsPerSecond = Double(count) / shaTimes.median
        let ratio = shaTimes.median / scanTimes.median
        let pass = ratio >= target && ok
        print("""
            \(runs) runs after one warm-up, medians (best in brackets):
              scan (index probe per report, \(min(places.count, count)) decrypted): \(Format.ms(scanTimes.median)) (\(Format.ms(scanTimes.best))) \
            = \(Format.fixed(reportsPerSecond / 1e6, 2)) M reports/s, \(Format.mbps(bytes: payload.count, seconds: scanTimes.median))
              SHA-256 of the same bytes:  \(Format.ms(shaTimes.median)) (\(Format.ms(shaTimes.best))) \
            = \(Format.fixed(shaReportsPerSecond / 1e6, 2)) M reports/s, \(Format.mbps(bytes: payload.count, seconds: shaTimes.median))
              scan throughput / SHA-256 throughput: \(Format.ratio(ratio)) (target ≥ \(Format.ratio(target))): \(pass ? "PASS" : "FAIL")  (\(sink % 2))
            """)
        var summary = ["check-ins: \(Format.grouped(count)) reports against \(checkIns) check-ins: \(Format.fixed(reportsPerSecond / 1e6, 2)) M reports/s, "
            + "\(Format.ratio(ratio)) SHA-256's throughput (target ≥ \(Format.ratio(target))): \(pass ? "PASS" : "FAIL")"]

        // End to end, once: the signed zip as the sync would hand it over.
        let dir = try given ?? Files.temporaryDirectory()
        if given != nil { mkdir(dir, 0o755) }
        defer { if given == nil { rmdir(dir) } }
        let path = dir + "/checkin-bench.db"
        remove(path)
        defer { remove(path) }
        let signer = try PrivateKey()
        let trust = TrustList()
        try trust.add(id: Generator.keyID, version: Generator.keyVersion, material: signer.publicKeyPEM())
        let zip = try TraceWarningWriter.signedPackage(payload, signer: signer, info: Generator.signatureInfo)
        let store = try Store(path: path, key: .raw(StoreBench.rawKey))
        let service = CheckInService(store: store)
        for p in places {
            _ = try service.checkIn(qrCode: CheckInQRCode.text(payload: p.payload), start: Int64(interval) * 600 - 1800, end: Int64(interval) * 600 + 1800, now: now)
        }
        var outcome: WarningPackageOutcome?
        let e2e = try Timing.time { outcome = try service.matchWarningPackage(zip, trust: trust, now: now) }
        let stored = outcome?.added ?? -1
        if stored != min(places.count, count) || outcome?.signature != .verified {
            print("end to end stored \(stored) warnings: WRONG")
            ok = false
        }
        let line = "end to end (zip \(Format.mb(zip.count)) inflated, signature verified, scanned, \(stored) warnings stored in the encrypted store): "
            + "\(Format.ms(e2e)) = \(Format.fixed(Double(count) / e2e / 1e6, 2)) M reports/s (no target)"
        print("  " + line)
        summary.append("check-ins " + line)
        return (pass && ok, summary)
    }
}
