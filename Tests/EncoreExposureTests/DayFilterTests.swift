import EncoreCrypto
import EncoreExposure
import EncoreStorage
import CEncoreShim
import Testing

/// enc_day_filters: the index's filter cut by day must screen out nothing a
/// match within the drift needs, and must be left out (NULL) where it cannot
/// be built, so that the index's own filter is used.
@Suite struct DayFilterTests {
    struct Sighting { var rpi: KeyData; var interval: Int64 }

    static let day0: Int64 = 2_650_032 / 144 * 144

    func job(_ tek: KeyData, start: Int64, count: Int64) -> enc_match_job {
        var job = enc_match_job()
        tek.withUnsafeBytes { t in withUnsafeMutableBytes(of: &job.tek) { $0.copyMemory(from: t) } }
        job.start = UInt32(start)
        job.count = UInt32(count)
        return job
    }

    /// (job, interval offset, RPI id) of every hit.
    func hits(_ jobs: [enc_match_job], _ index: OpaquePointer, _ days: OpaquePointer?) throws -> [[UInt32]] {
        let ctx = try #require(enc_rpi_ctx_new())
        defer { enc_rpi_ctx_free(ctx) }
        var hits = [enc_rpi_hit](repeating: enc_rpi_hit(), count: 4096)
        let n = enc_match_keys(ctx, index, days, jobs, jobs.count, &hits, hits.count)
        try #require(n >= 0 && n <= hits.count)
        return hits.prefix(Int(n)).map { [$0.job, $0.interval_offset, $0.rpi_index] }
    }

    /// Keys starting anywhere in a day (at its start, one interval in, at its
    /// last interval), of lengths 1 to 144, whose RPIs are heard at either
    /// end of the drift or on time; strangers on every day; and one key heard only three
    /// days late, which the index's filter passes and a day's filter drops.
    @Test(arguments: [0, 1, 12, 144] as [Int64]) func everyRPIHeardWithinTheDriftIsFound(drift: Int64) throws {
        var jobs: [enc_match_job] = [], heard: [Sighting] = []
        let shapes: [(offset: Int64, count: Int64)] = [(0, 144), (1, 144), (143, 144), (72, 1), (0, 1), (143, 1), (50, 17), (130, 30)]
        // One key per shape and per end of the drift: an RPI heard only at
        // that end must pass its day's filter on its own.
        for (k, shape) in shapes.enumerated() {
            for (e, delta) in [-drift, 0, drift].enumerated() {
                let tek = TestKeys.tek(7_000 + 3 * k + e)
                let start = Self.day0 + 144 * Int64(k % 5) + shape.offset
                jobs.append(job(tek, start: start, count: shape.count))
                let rpis = try ENFKeySchedule.rpis(rpik: ENFKeySchedule.rpik(tek: tek), start: UInt32(start), count: Int(shape.count))
                for j in Set([0, Int(shape.count) / 2, Int(shape.count) - 1]) {
                    heard.append(Sighting(rpi: rpis[j], interval: start + Int64(j) + delta))
                }
            }
        }
        let late = TestKeys.tek(7_999), lateStart = Self.day0 + 144
        jobs.append(job(late, start: lateStart, count: 144))
        let lateRPIs = try ENFKeySchedule.rpis(rpik: ENFKeySchedule.rpik(tek: late), start: UInt32(lateStart), count: 144)
        heard.append(Sighting(rpi: lateRPIs[5], interval: lateStart + 5 + 3 * 144 + drift + 1))
        for i in 0 ..< 3_000 { heard.append(Sighting(rpi: TestKeys.tek(80_000 + i), interval: Self.day0 - 200 + Int64(i % 1_400))) }
        heard.sort { $0.interval < $1.interval }

        let flat = heard.flatMap(\.rpi.bytes), intervals = heard.map(\.interval)
        var ids = [UInt32](repeating: 0, count: heard.count)
        let index = try #require(flat.withUnsafeBufferPointer { enc_rpi_index_new($0.baseAddress, UInt32(heard.count), &ids) })
        defer { enc_rpi_index_free(index) }
        let days = try #require(enc_day_filters_new(index, flat, intervals, UInt32(heard.count), drift))
        defer { enc_day_filters_free(days) }

        let all = try hits(jobs, index, nil), screened = try hits(jobs, index, days)
        func withinDrift(_ h: [UInt32]) -> Bool {
            let interval = Int64(jobs[Int(h[0])].start) + Int64(h[1])
            return heard.indices.contains { ids[$0] == h[2] && abs(heard[$0].interval - interval) <= drift }
        }
        let needed = all.filter(withinDrift)
        #expect(needed.count == all.count - 1)              // all but the late key's
        #expect(needed == screened, "drift \(drift)")       // kept, in the same order, and nothing more
        #expect(all.contains { $0[0] == UInt32(jobs.count - 1) } && !screened.contains { $0[0] == UInt32(jobs.count - 1) })
    }

    /// Where day filters cannot be built the answer is NULL, never a wrong filter.
    @Test func theyAreLeftOutWhereTheyCannotBeBuilt() throws {
        let rpis = (0 ..< 3).map { TestKeys.tek(60_000 + $0) }
        let flat = rpis.flatMap(\.bytes)
        let index = try #require(flat.withUnsafeBufferPointer { enc_rpi_index_new($0.baseAddress, 3, nil) })
        defer { enc_rpi_index_free(index) }
        func build(_ intervals: [Int64], drift: Int64 = 12, rpis bytes: [UInt8]? = nil) -> Bool {
            let d = enc_day_filters_new(index, bytes ?? flat, intervals, UInt32(intervals.count), drift)
            enc_day_filters_free(d)
            return d != nil
        }
        let d = Self.day0
        #expect(build([d, d + 1, d + 500]))
        #expect(!build([d, d + 1, d + 500], drift: 145))
        #expect(!build([d, d + 1, d + 500], drift: -1))
        #expect(!build([d + 1, d, d + 500]))                                  // not ascending
        #expect(!build([d, d + 1, d + 144 * 4_096]))                          // too many days
        #expect(!build([-1, d, d + 1]))                                       // before 1970
        #expect(!build([d, d + 1, Int64(UInt32.max)]))                        // beyond 32-bit interval numbers
        #expect(build([d, d + 1, d + 2], rpis: rpis.reversed().flatMap(\.bytes)))      // any order of the RPIs is fine
        let stranger = [TestKeys.tek(61_000), rpis[1], rpis[2]].flatMap(\.bytes)
        #expect(!build([d, d + 1, d + 2], rpis: stranger))                   // sightings not of the index
        #expect(enc_day_filters_new(index, flat, [d], 0, 12) == nil)
        enc_day_filters_free(nil)
    }
}
