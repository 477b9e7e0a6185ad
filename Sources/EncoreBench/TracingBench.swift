import EncoreClient
import EncoreCrypto
import EncoreExposure
import EncoreFixtures
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport
import EncoreTracing
#if canImport(Glibc)
import Glibc
#endif

/// A crowded day of tracing into the store: 500 devices around all day, a
/// 4-second scan every 5 minutes (288 scans), each device heard about 16
/// times a scan (it advertises every 250 ms) with an RPI that changes every
/// 10 to 20 minutes. Each scan goes through Tracer.ingestScan (folding
/// the reports, the device's own RPIs, one transaction); the baseline is the
/// store's own insert rate for the same rows, one transaction a scan too,
/// measured in the same run. Every run writes a fresh store.
enum TracingBench {
    static let devices = 500
    static let scans = 288
    static let reportsPerDevice = 16

    static func run(devices: Int, runs requested: Int, dir given: String?) throws -> (ok: Bool, summary: [String]) {
        let runs = max(1, min(requested, 5))
        let dir = try given ?? Files.temporaryDirectory()
        if given != nil { mkdir(dir, 0o755) }
        defer { if given == nil { rmdir(dir) } }
        let t0: Int64 = 1_700_006_400 - 1_700_006_400 % 86_400   // a UTC midnight
        print("\n== tracing: a crowded day, \(devices) devices, \(scans) scans of 4 s every 5 min, "
            + "\(reportsPerDevice) reports a device a scan; \(runs) runs after one warm-up; medians (best in brackets)")
        let day = (0 ..< scans).map { makeScan($0, devices: devices, t0: t0) }
        let reports = day.reduce(0) { $0 + $1.reports.count }
        // The baseline's rows: what the tracing stores (one per device a scan).
        let rows: [[Sighting]] = day.map { scan in
            var seen: [KeyData: Sighting] = [:]
            for r in scan.reports where seen[r.rpi] == nil {
                seen[r.rpi] = Sighting(time: r.time, rpi: r.rpi, aem: r.aem, rssi: Int8(clamping: r.rssi), previousScan: scan.window.start - 300)
            }
            return Array(seen.values)
        }
        let sightings = rows.reduce(0) { $0 + $1.count }
        var ok = true
        var tracing = Samples(), store = Samples(), fold = Samples()
        var storeBytes = 0
        let path = dir + "/tracing-bench.db"
        for run in 0 ... runs {
            StoreBench.remove(path)
            let s1 = try Store(path: path, key: .raw(StoreBench.rawKey))
            let tracer = try Tracer(store: s1, random: seededRandomSeconds(seed: 1))
            try tracer.start(now: t0)
            _ = try tracer.advertisement(now: t0)
            var added = 0, overCap = 0
            let ingest = try Timing.time {
                for scan in day {
                    let r = try tracer.ingestScan(window: scan.window, reports: scan.reports)
                    added += r.sightingsAdded
                    overCap += r.sightingsOverCap
                }
            }
            let stored = try s1.countSightings()
            if added != sightings || stored != sightings || overCap != 0 {
                print("ERROR: the tracing stored \(added) sightings of \(sightings) (\(overCap) over the cap)")
                ok = false
            }
            // The day's store on disk (the database and its journal): what
            // the cap on a day's sightings bounds.
            storeBytes = ["", "-wal", "-journal"].reduce(0) { $0 + fileBytes(path + $1) }
            StoreBench.remove(path)
            let s2 = try Store(path: path, key: .raw(StoreBench.rawKey))
            let insert = try Timing.time {
                for batch in rows { try s2.addSightings(batch) }
            }
            if try s2.countSightings() != sightings { ok = false }
            // Folding the reports alone (no store): what the ingestion adds.
            let calibration = tracer.calibration
            var folded = 0
            let folding = Timing.time {
                for scan in day { folded += ScanAggregation.aggregate(scan.reports, ownRPIs: [], calibration: calibration).sightings.count }
            }
            if folded != sightings { ok = false }
            if run > 0 {
                tracing.add(ingest)
                store.add(insert)
                fold.add(folding)
            }
        }
        StoreBench.remove(path)
        let tracingRate = Double(sightings) / tracing.median, storeRate = Double(sightings) / store.median
        print(Format.padRight("", 44) + Format.padLeft("median", 11) + Format.padLeft("(best)", 13) + Format.padLeft("sightings/s", 14))
        for (name, s) in [("  tracing: \(Format.grouped(reports)) reports → sightings", tracing),
                          ("  store: insert the same \(Format.grouped(sightings)) rows", store),
                          ("  of the tracing: folding the reports alone", fold)] {
            print(Format.padRight(name, 44) + Format.padLeft(Format.ms(s.median), 11) + Format.padLeft("(" + Format.ms(s.best) + ")", 13)
                + Format.padLeft(Format.grouped(Int(Double(sightings) / s.median)), 14))
        }
        let ratio = tracingRate / storeRate
        print("  tracing / store insert: \(Format.ratio(ratio)); \(Format.grouped(Int(Double(reports) / tracing.median))) reports/s; "
            + "a day's ingestion \(Format.ms(tracing.median)) (\(Format.fixed(tracing.median / Double(scans) * 1_000, 2)) ms a scan)")
        print("  the day's store: \(Format.mb(storeBytes)), \(storeBytes / max(sightings, 1)) bytes a sighting; at the cap "
            + "(\(Format.grouped(SightingCap.defaultPerDay)) a day) 14 days take about "
            + "\(Format.mb(storeBytes / max(sightings, 1) * SightingCap.defaultPerDay * 14))")
        let summary = ["tracing, a crowded day (\(devices) devices, \(scans) scans, \(Format.grouped(reports)) reports, "
            + "\(Format.grouped(sightings)) sightings): \(Format.grouped(Int(tracingRate))) sightings/s = \(Format.ratio(ratio)) "
            + "the store's own insert rate (\(Format.grouped(Int(storeRate))) rows/s)"]
        return (ok, summary)
    }

    static func fileBytes(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : 0
    }

    /// One scan's reports: every device, about 16 times, in the 4 seconds,
    /// with its RPI of the moment (a new one every 10 to 20 minutes).
    static func makeScan(_ k: Int, devices: Int, t0: Int64) -> (window: ScanWindow, reports: [ScanReport]) {
        let start = t0 + Int64(k) * 300
        var rng = SplitMix64(seed: UInt64(k) &* 0x2545_F491_4F6C_DD1D)
        var reports: [ScanReport] = []
        reports.reserveCapacity(devices * reportsPerDevice)
        for d in 0 ..< devices {
            // Device d rotates every 600 + (d % 601) seconds from its own offset.
            let period = Int64(600 + d % 601), epoch = (start + Int64(d) * 37) / period
            var id = SplitMix64(seed: UInt64(d) << 32 ^ UInt64(epoch))
            let words = (id.next(), id.next())
            let rpi = withUnsafeBytes(of: words) { KeyData($0) }
            let aem = UInt32(truncatingIfNeeded: id.next())
            let base = -50 - Int(rng.next() % 40)
            for i in 0 ..< reportsPerDevice {
                reports.append(ScanReport(rpi: rpi, aem: aem, rssi: Int16(base - Int(rng.next() % 8)), time: start + Int64(i / 4)))
            }
        }
        // Reports arrive interleaved, as the radio hears them.
        for i in stride(from: reports.count - 1, to: 0, by: -1) { reports.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
        return (ScanWindow(start: start, end: start + 4), reports)
    }
}
