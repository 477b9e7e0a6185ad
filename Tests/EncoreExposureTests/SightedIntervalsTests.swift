import EncoreExposure
import EncoreSupport
import CEncoreShim
import Testing

/// enc_sighted_range against a brute-force reading of its rule: interval j
/// of a key is worth deriving when a sighting lies within `drift` intervals
/// of it; only the ends are trimmed.
@Suite struct SightedIntervalsTests {
    func reference(_ sighted: [Int64], start: Int64, end: Int64, drift: Int64) -> Range<Int64>? {
        let useful = (start ..< end).filter { j in sighted.contains { abs($0 - j) <= drift } }
        guard let lo = useful.first, let hi = useful.last else { return nil }
        return lo ..< hi + 1
    }

    func range(_ s: SightedIntervals, start: Int64, end: Int64, drift: Int64) -> Range<Int64>? {
        var lo: Int64 = 0, hi: Int64 = 0
        return enc_sighted_range(s.pointer, start, end, drift, &lo, &hi) != 0 ? lo ..< hi : nil
    }

    /// Both the rank table (a span under 455 days) and the binary search
    /// (sightings years apart, as a wrong clock leaves them).
    @Test(arguments: [false, true]) func agreesWithBruteForce(wide: Bool) throws {
        var rng = SplitMix64(seed: wide ? 2 : 1)
        for round in 0 ..< 40 {
            var intervals = Set<Int64>()
            let base: Int64 = 2_650_000
            for _ in 0 ..< Int(rng.next() % 30) { intervals.insert(base + Int64(rng.next() % 600)) }
            if wide { intervals.insert(base + 5_000_000); intervals.insert(17) }
            let sorted = intervals.sorted()
            let set = try SightedIntervals(sortedTimes: sorted.flatMap { [$0 * 600, $0 * 600 + 599] })
            for _ in 0 ..< 200 {
                let start = base - 50 + Int64(rng.next() % 700), period = Int64(1 + rng.next() % 144), drift = Int64(rng.next() % 15)
                #expect(range(set, start: start, end: start + period, drift: drift)
                        == reference(sorted, start: start, end: start + period, drift: drift), "round \(round)")
            }
        }
    }

    @Test func noSightingsMatchNothing() throws {
        let set = try SightedIntervals(sortedTimes: [])
        #expect(range(set, start: 2_650_000, end: 2_650_144, drift: 12) == nil)
    }

    /// Times far apart (as the store allows) cost a small table or none,
    /// never one as long as their span.
    @Test func extremeTimesNeedNoHugeTable() throws {
        let set = try SightedIntervals(sortedTimes: [0, 1_600_000_000, Int64.max / 2, Int64.max])
        let found = try #require(range(set, start: 2_666_666, end: 2_666_666 + 144, drift: 12))
        #expect(found.lowerBound == 2_666_666 && found.upperBound == 2_666_666 + 13)
    }
}
