import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport
import EncoreTestSupport
import EncoreTracing
import Testing

@Suite struct TracerTests {
    let midnight: Int64 = 19_000 * 86_400
    func store(_ dir: TempDir) throws -> Store { try Store(path: dir.file("t.db"), key: .raw([UInt8](repeating: 4, count: 32)), features: [.exposure, .tracing]) }
    func rpi(_ b: UInt8) -> KeyData { KeyData([UInt8](repeating: b, count: 16))! }

    /// A tracer on a new store in `dir`, drawing `random`; started at `start` when given.
    func tracer(_ dir: TempDir, random: @escaping RandomSeconds = systemRandomSeconds, start: Int64? = nil) throws -> (Store, Tracer) {
        let s = try store(dir)
        let t = try Tracer(store: s, random: random)
        if let start { try t.start(now: start) }
        return (s, t)
    }

    /// A draw the test sets (always the range's middle: 15 minutes).
    static let middle: RandomSeconds = { ($0.lowerBound + $0.upperBound) / 2 }

    @Test func advertisementCarriesTodaysKeyAndTheCalibration() throws {
        let dir = TempDir()
        let (s, t) = try tracer(dir, random: Self.middle)
        try t.setCalibration(Calibration(txPower: -17, rssiCorrection: 2))
        try t.start(now: midnight + 3_600)
        let ad = try t.advertisement(now: midnight + 3_600)
        #expect(ad.payload.count == 20 && ad.since == midnight + 3_600 && ad.validUntil == midnight + 3_600 + 900)
        #expect(ad.interval == UInt32((midnight + 3_600) / 600))
        let key = try OwnKeySchedule(store: s).currentKey(now: midnight + 3_600)
        let rpi = try ENFKeySchedule.rpi(rpik: ENFKeySchedule.rpik(tek: key.keyData), interval: ad.interval)
        #expect(Array(ad.payload[0 ..< 16]) == rpi.bytes)
        let metadata = try ENFKeySchedule.aem(aemk: ENFKeySchedule.aemk(tek: key.keyData), rpi: rpi, metadata: Array(ad.payload[16 ..< 20]))
        #expect(metadata == [0x40 | (2 << 2), UInt8(bitPattern: -17), 0, 0])
    }

    @Test func thePayloadStaysUntilItsTimeThenRotates() throws {
        let dir = TempDir()
        let t = try Tracer(store: store(dir), random: Self.middle)
        let t0 = midnight + 7_200
        try t.start(now: t0)
        let a = try t.advertisement(now: t0)
        #expect(try t.advertisement(now: t0 + 899) == a)
        let b = try t.advertisement(now: t0 + 900)
        #expect(b.since == t0 + 900 && b.validUntil == t0 + 1_800 && b.payload != a.payload)
        #expect(b.interval == a.interval + 1)
        // A forced rotation makes a new payload at once (new validity).
        let c = try t.rotate(now: t0 + 1_000)
        #expect(c.since == t0 + 1_000 && c.validUntil == t0 + 1_900)
    }

    @Test func theDaysEndBringsTheNextKey() throws {
        let dir = TempDir()
        let late = midnight + 86_400 - 650
        let (s, t) = try tracer(dir, random: { $0.upperBound }, start: late)
        let a = try t.advertisement(now: late)
        #expect(a.validUntil == midnight + 86_400)
        let b = try t.advertisement(now: midnight + 86_400)
        #expect(b.interval == UInt32((midnight + 86_400) / 600))
        let keys = try s.ownKeys()
        #expect(keys.count == 2 && keys[1].rollingStartIntervalNumber == Int32((midnight + 86_400) / 600))
    }

    @Test func callsNeedTracingOn() throws {
        let dir = TempDir()
        let t = try Tracer(store: store(dir))
        #expect(kind { _ = try t.advertisement(now: midnight) } == .tracingInactive)
        #expect(kind { _ = try t.nextScan(now: midnight) } == .tracingInactive)
        #expect(kind { _ = try t.ingestScan(window: ScanWindow(start: 0, end: 4), reports: []) } == .tracingInactive)
        #expect(kind { _ = try Tracer(store: store(dir), scanSchedule: ScanSchedule(windowSeconds: 4, periodSeconds: 301)) } == .invalidArgument)
    }

    @Test func scansAreStoredOnePerRPIWithThePreviousScan() throws {
        let dir = TempDir()
        let t0 = midnight + 10_000
        let (s, t) = try tracer(dir, random: Self.middle, start: t0)
        let w1 = try t.nextScan(now: t0)
        #expect(w1 == ScanWindow(start: t0, end: t0 + 4))
        let r1 = try t.ingestScan(window: w1, reports: [ScanReport(rpi: rpi(1), aem: 5, rssi: -70, time: t0 + 1),
                                                        ScanReport(rpi: rpi(1), aem: 5, rssi: -60, time: t0 + 2),
                                                        ScanReport(rpi: rpi(2), aem: 6, rssi: -80, time: t0 + 3)])
        #expect(r1.reports == 3 && r1.sightingsAdded == 2 && r1.repeatedReports == 1)
        let w2 = try t.nextScan(now: t0 + 4)
        #expect(w2.start == t0 + 300)
        _ = try t.ingestScan(window: w2, reports: [ScanReport(rpi: rpi(1), aem: 5, rssi: -65, time: w2.start + 1)])
        let rows = try s.sightings()
        let correction = Int8(Calibration.defaultRSSICorrection)
        #expect(rows.count == 3)
        #expect(rows[0].time == t0 + 1 && rows[0].rssi == -60 + correction && rows[0].previousScan == nil)
        #expect(rows[2].time == t0 + 301 && rows[2].previousScan == t0)
        #expect(try s.tracingLastScan() == w2.end)
    }

    @Test func aClockSetBackScansAtOnceWithoutAPreviousScan() throws {
        let dir = TempDir()
        let t0 = midnight + 30_000
        let (s, t) = try tracer(dir, random: Self.middle, start: t0)
        let w1 = try t.nextScan(now: t0)
        _ = try t.ingestScan(window: w1, reports: [ScanReport(rpi: rpi(1), aem: 5, rssi: -70, time: t0 + 1)])
        // The clock goes back an hour: the next scan is due now, and its
        // sightings do not claim the time since a scan in the future.
        let back = t0 - 3_600
        let w2 = try t.nextScan(now: back)
        #expect(w2 == ScanWindow(start: back, end: back + 4))
        _ = try t.ingestScan(window: w2, reports: [ScanReport(rpi: rpi(2), aem: 5, rssi: -70, time: back + 1)])
        let late = try s.sightings().first { $0.time == back + 1 }
        #expect(late != nil && late?.previousScan == nil)
    }

    @Test func ownRPIsAndAScanIngestedTwiceAreDropped() throws {
        let dir = TempDir()
        let t0 = midnight + 20_000
        let (s, t) = try tracer(dir, random: Self.middle, start: t0)
        let ad = try t.advertisement(now: t0)
        let own = ScanReport(serviceData: ad.payload, rssi: -30, time: t0 + 1)!
        // The own key's RPI of the next interval too (a second adapter hears it later).
        let key = try OwnKeySchedule(store: s).currentKey(now: t0)
        let next = try ENFKeySchedule.rpi(rpik: ENFKeySchedule.rpik(tek: key.keyData), interval: ad.interval + 1)
        let w = try t.nextScan(now: t0)
        let reports = [own, ScanReport(rpi: next, aem: 0, rssi: -30, time: t0 + 2), ScanReport(rpi: rpi(3), aem: 1, rssi: -50, time: t0 + 2)]
        let r = try t.ingestScan(window: w, reports: reports)
        #expect(r.ownReports == 2 && r.sightingsAdded == 1)
        // The same scan again (a host retrying after a crash) adds nothing.
        let t2 = try Tracer(store: s, random: Self.middle)
        try t2.start(now: t0)
        let again = try t2.ingestScan(window: w, reports: reports)
        #expect(again.sightingsAdded == 0 && again.sightingsAlreadyStored == 1)
        // And within one tracer, a repeated window keeps its previous scan.
        let w2 = try t.nextScan(now: t0 + 5)
        let later = [ScanReport(rpi: rpi(4), aem: 1, rssi: -50, time: w2.start)]
        #expect(try t.ingestScan(window: w2, reports: later).sightingsAdded == 1)
        #expect(try t.ingestScan(window: w2, reports: later).sightingsAlreadyStored == 1)
        #expect(try t.nextScan(now: w2.end).start == w2.start + 300)
        #expect(try s.countSightings() == 2)
    }

    @Test func ownRPIsOfTheRetentionWindowAreDroppedWheneverHeard() throws {
        let dir = TempDir()
        let t0 = midnight + 20_000
        let (s, t) = try tracer(dir, random: Self.middle, start: t0)
        let first = try t.advertisement(now: t0)
        _ = try t.ingestScan(window: try t.nextScan(now: t0), reports: [])
        // Ten days on (a key a day since): the first RPI replayed, today's
        // current one heard by a second adapter, and another device.
        let later = t0 + 10 * 86_400
        let today = try t.advertisement(now: later)
        let w = try t.nextScan(now: later)
        let r = try t.ingestScan(window: w, reports: [ScanReport(serviceData: first.payload, rssi: -30, time: later)!,
                                                      ScanReport(serviceData: today.payload, rssi: -30, time: later + 1)!,
                                                      ScanReport(rpi: rpi(3), aem: 1, rssi: -50, time: later + 2)])
        #expect(r.ownReports == 2 && r.sightingsAdded == 1)
        #expect(try s.sightings().map(\.rpi) == [rpi(3)])
        #expect(try s.ownKeys().count == 2)
    }

    @Test func aFailedScanWritesNothing() throws {
        let dir = TempDir()
        let (s, t) = try tracer(dir, start: midnight)
        #expect(kind { _ = try t.ingestScan(window: ScanWindow(start: midnight, end: midnight + 4),
                                                 reports: [ScanReport(rpi: rpi(1), aem: 0, rssi: -50, time: midnight),
                                                           ScanReport(rpi: rpi(2), aem: 0, rssi: -50, time: -1)]) } == .invalidArgument)
        #expect(kind { _ = try t.ingestScan(window: ScanWindow(start: midnight, end: midnight - 1), reports: []) } == .invalidArgument)
        #expect(try s.countSightings() == 0)
    }

    @Test func startAndStopAreTheTracingHistory() throws {
        let dir = TempDir()
        let (s, t) = try tracer(dir, start: midnight)
        try t.start(now: midnight + 5)                      // already on: nothing
        try t.stop(now: midnight + 3_600)                   // adapter off
        try t.stop(now: midnight + 3_700)                   // already off: nothing
        try t.start(now: midnight + 7_200)                  // adapter on again
        #expect(try s.tracingEvents() == [TracingEvent(time: midnight, active: true), TracingEvent(time: midnight + 3_600, active: false),
                                          TracingEvent(time: midnight + 7_200, active: true)])
        #expect(try s.activeTracingSeconds(from: midnight, to: midnight + 10_800) == 3_600 + 3_600)
    }

    @Test func aRunThatEndedWithoutStopIsClosedAtItsLastScan() throws {
        let dir = TempDir()
        let s = try store(dir)
        do {
            let t = try Tracer(store: s)
            try t.start(now: midnight)
            let w = try t.nextScan(now: midnight + 600)
            _ = try t.ingestScan(window: w, reports: [])
        }   // crashed: no stop()
        let t = try Tracer(store: s)
        try t.start(now: midnight + 50_000)
        #expect(try s.tracingEvents() == [TracingEvent(time: midnight, active: true), TracingEvent(time: midnight + 604, active: false),
                                          TracingEvent(time: midnight + 50_000, active: true)])
        #expect(try s.activeTracingSeconds(from: midnight, to: midnight + 50_000) == 604)
    }

    @Test func stopOnAStoppedTracerClosesACrashedRun() throws {
        let dir = TempDir()
        let s = try store(dir)
        try s.addTracingEvent(time: midnight, active: true)      // a run that crashed before its first scan
        let t = try Tracer(store: s)
        try t.stop(now: midnight + 9_000)                          // the radio is off at startup
        #expect(try s.tracingEvents() == [TracingEvent(time: midnight, active: true), TracingEvent(time: midnight, active: false)])
        try t.stop(now: midnight + 9_500)                          // nothing more to close
        #expect(try s.countTracingEvents() == 2 && !(try s.tracingStatus(now: midnight + 9_500).active))
    }

    @Test func statusCountsRPIsAndKeepsTheAdapterAndCalibration() throws {
        let dir = TempDir()
        let (s, t) = try tracer(dir)
        try s.setTracingAdapter("hci1")
        try t.setCalibration(Calibration(txPower: -20))
        let t0 = midnight + 40_000
        try t.start(now: t0 - 7_200)
        _ = try t.ingestScan(window: ScanWindow(start: t0 - 7_000, end: t0 - 6_996), reports: [ScanReport(rpi: rpi(1), aem: 0, rssi: -50, time: t0 - 7_000)])
        _ = try t.ingestScan(window: ScanWindow(start: t0 - 60, end: t0 - 56), reports: [ScanReport(rpi: rpi(2), aem: 0, rssi: -50, time: t0 - 60),
                                                                                        ScanReport(rpi: rpi(3), aem: 0, rssi: -50, time: t0 - 59)])
        let st = try s.tracingStatus(now: t0)
        #expect(st.active && st.since == t0 - 7_200 && st.lastScan == t0 - 56)
        #expect(st.rpisLastHour == 2 && st.rpisLast14Days == 3 && st.activeSecondsLast14Days == 7_200)
        let measured = try Calibration(txPower: -20)
        #expect(st.adapter == "hci1" && st.calibration == measured)
        #expect(kind { try s.setTracingAdapter("") } == .invalidArgument)
        try s.setTracingAdapter(nil)
        #expect(try s.tracingAdapter() == nil)
        // The calibration survives a new tracer.
        #expect(try Tracer(store: s).calibration.effectiveTxPower == -20)
    }
}
