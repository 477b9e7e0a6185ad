import EncoreCrypto
import EncoreExposure
import EncoreStorage
import EncoreSupport
import EncoreTestSupport
import EncoreTracing
import Testing

/// The cap on sightings a day (issue 46): the table never holds more, what
/// it drops is counted per day, RPIs already kept keep their scans and the
/// strongest newcomers go first.
@Suite struct SightingCapTests {
    let midnight: Int64 = 19_000 * 86_400

    func rpi(_ n: Int) -> KeyData { KeyData((0 ..< 16).map { UInt8(truncatingIfNeeded: n >> ($0 % 4 * 8)) ^ UInt8($0) })! }

    /// One scan at `start` hearing devices `ids`, device n at RSSI -40 - n % 50.
    func scan(_ t: Tracer, _ start: Int64, _ ids: Range<Int>) throws -> ScanIngestResult {
        try t.ingestScan(window: ScanWindow(start: start, end: start + 4),
                         reports: ids.map { ScanReport(rpi: rpi($0), aem: 1, rssi: Int16(-40 - $0 % 50), time: start + 1) })
    }

    @Test func theCapHoldsAndCountsWhatItDrops() throws {
        let dir = TempDir()
        let s = try Store(path: dir.file("t.db"), key: .raw([UInt8](repeating: 4, count: 32)), features: [.exposure, .tracing])
        let cap = try SightingCap(perDay: 100)
        #expect(cap.newRPIs == 90)
        let t = try Tracer(store: s, sightingCap: cap)
        let t0 = midnight + 3_600
        try t.start(now: t0)
        let day = (from: midnight, to: midnight + 86_400)
        // 40 devices: all kept.
        var r = try scan(t, t0, 0 ..< 40)
        #expect(r.sightingsAdded == 40 && r.sightingsOverCap == 0)
        // The 40 again and 40 newcomers: the 40 kept RPIs' scans, then the
        // newcomers up to 90 (the strongest 10), the other 30 dropped.
        r = try scan(t, t0 + 300, 0 ..< 80)
        #expect(r.sightingsAdded == 50 && r.sightingsOverCap == 30)
        let newcomers = try s.sightings(from: t0 + 300).map(\.rpi).filter { !(0 ..< 40).map(rpi).contains($0) }
        // Devices 40...79: RSSI -40 - n % 50, the strongest are 50...59.
        #expect(Set(newcomers) == Set((50 ..< 60).map(rpi)))
        // 90 stored: the kept RPIs' scans fill up to the cap (10 of 50),
        // and no newcomer is kept past 90.
        r = try scan(t, t0 + 600, 0 ..< 100)
        #expect(r.sightingsAdded == 10 && r.sightingsOverCap == 90)
        r = try scan(t, t0 + 900, 0 ..< 100)
        #expect(r.sightingsAdded == 0 && r.sightingsOverCap == 100)
        #expect(try s.countSightings(from: day.from, to: day.to) == 100)
        // The same scan ingested again counts its drops once.
        _ = try scan(t, t0 + 900, 0 ..< 100)
        var st = try s.tracingStatus(now: t0 + 1_000)
        #expect(st.sightingsToday == 100 && st.sightingsDroppedToday == 30 + 90 + 100 && st.sightingsDroppedLast14Days == 220)
        let drops = try s.droppedSightings()
        #expect(drops.map(\.day) == [midnight] && drops.map(\.sightings) == [220])

        // The next UTC day starts afresh; yesterday's drops stay counted.
        let tomorrow = midnight + 86_400
        r = try scan(t, tomorrow + 60, 0 ..< 95)
        #expect(r.sightingsAdded == 90 && r.sightingsOverCap == 5)
        st = try s.tracingStatus(now: tomorrow + 100)
        #expect(st.sightingsToday == 90 && st.sightingsDroppedToday == 5 && st.sightingsDroppedLast14Days == 225)

        // Another tracer (a restart) reads the day from the store: still capped.
        let t2 = try Tracer(store: s, sightingCap: cap)
        try t2.start(now: tomorrow + 200)
        r = try scan(t2, tomorrow + 360, 0 ..< 100)
        #expect(r.sightingsAdded == 10 && r.sightingsOverCap == 90)
        #expect(try s.countSightings(from: tomorrow, to: tomorrow + 86_400) == 100)

        // The counts go with the days the purge removes.
        _ = try s.purge(now: tomorrow + Store.defaultRetentionSeconds, maxAge: Store.defaultRetentionSeconds)
        #expect(try s.droppedSightings().map(\.day) == [tomorrow])
    }

    @Test func aScanAcrossMidnightIsCappedPerDay() throws {
        let dir = TempDir()
        let s = try Store(path: dir.file("t.db"), key: .raw([UInt8](repeating: 4, count: 32)), features: [.exposure, .tracing])
        let t = try Tracer(store: s, sightingCap: try SightingCap(perDay: 10))
        let late = midnight + 86_400 - 2
        try t.start(now: late - 10)
        let reports = (0 ..< 30).map { ScanReport(rpi: rpi($0), aem: 1, rssi: -50, time: late + Int64($0 % 3)) }
        let r = try t.ingestScan(window: ScanWindow(start: late, end: late + 4), reports: reports)
        // 20 reports before midnight, 10 after: 9 new RPIs a day at most.
        #expect(r.sightingsAdded == 18 && r.sightingsOverCap == 12)
        #expect(try s.droppedSightings().map(\.sightings) == [11, 1])
    }

    @Test func theCapMustBeSane() {
        #expect(kind { try SightingCap(perDay: 9) } == .invalidArgument)
        #expect(kind { try SightingCap(perDay: Int(Int32.max) + 1) } == .invalidArgument)
        #expect(SightingCap.default.perDay == 200_000 && SightingCap.default.newRPIs == 180_000)
    }
}
