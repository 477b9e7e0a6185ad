import CEncoreShim

/// The heard sightings prepared for matching: sorted by time, the intervals
/// that hold one (so a key is derived only over the intervals that can
/// match, and not at all when none can), and indexed by RPI for the C
/// kernel. Read-only, shared by every thread.
public final class ObservationSet: @unchecked Sendable {
    // @unchecked: immutable after init; the C index is only read.
    public let observations: [Observation]    // sorted by time
    let uniqueRPIs: [KeyData]
    /// observations of uniqueRPIs[i]: members[starts[i] ..< starts[i + 1]], by time.
    let starts: [Int]
    let members: [Int]
    let index: OpaquePointer
    /// The 10-minute intervals that hold a sighting, ascending, and their
    /// ranks: which intervals a key needs derived is a few reads.
    let sighted: SightedIntervals

    public init(_ observations: [Observation]) throws {
        let sorted = observations.sorted { ($0.time, $0.rssi) < ($1.time, $1.rssi) }
        var byRPI: [KeyData: [Int]] = [:]
        for (i, o) in sorted.enumerated() { byRPI[o.rpi, default: []].append(i) }
        var rpis: [KeyData] = [], starts: [Int] = [0], members: [Int] = []
        rpis.reserveCapacity(byRPI.count)
        members.reserveCapacity(sorted.count)
        for (rpi, list) in byRPI {
            rpis.append(rpi)
            members += list
            starts.append(members.count)
        }
        var flat = [UInt8]()
        flat.reserveCapacity(rpis.count * 16)
        for r in rpis { r.withUnsafeBytes { flat += $0 } }
        guard let index = flat.withUnsafeBufferPointer({ enc_rpi_index_new($0.baseAddress, UInt32(rpis.count)) }) else {
            throw EncoreError(.outOfMemory, "cannot allocate the RPI index")
        }
        self.sighted = SightedIntervals(sortedTimes: sorted.map(\.time))
        self.observations = sorted
        self.uniqueRPIs = rpis
        self.starts = starts
        self.members = members
        self.index = index
    }

    deinit { enc_rpi_index_free(index) }

    public var count: Int { observations.count }

    /// The intervals of a key's validity, start ..< end, whose RPIs can
    /// match a sighting: those with a sighting within `drift` intervals.
    /// Only the ends are trimmed (a gap inside is kept); nil when none.
    func intervalsToDerive(start: Int64, end: Int64, drift: Int64) -> Range<Int64>? {
        guard let first = sighted.first(atOrAfter: start - drift), first < end + drift,
              let last = sighted.last(before: end + drift) else { return nil }
        let lower = max(start, first - drift), upper = min(end, last + drift + 1)
        return lower < upper ? lower ..< upper : nil
    }

    func sightings(ofRPIAt i: Int) -> ArraySlice<Int> { members[starts[i] ..< starts[i + 1]] }
}

/// The distinct intervals that hold a sighting, and the rank of any
/// interval among them (how many sighted intervals come before it). Over a
/// span of up to `denseLimit` intervals the ranks are a table, so a query is
/// one read where a binary search would take a dozen; sightings spread
/// wider (a clock set years off) fall back to the binary search rather than
/// a table of that size.
struct SightedIntervals {
    static let denseLimit: Int64 = 1 << 16   // 455 days
    let intervals: [Int64]
    private let base: Int64
    private let ranks: [Int32]

    init(sortedTimes: [Int64]) {
        var distinct: [Int64] = []
        for t in sortedTimes {
            let i = t / ENInterval.seconds - (t % ENInterval.seconds < 0 ? 1 : 0)   // floor, for any Int64
            if distinct.last != i { distinct.append(i) }
        }
        intervals = distinct
        base = distinct.first ?? 0
        if let last = distinct.last, last - base < Self.denseLimit {
            var table = [Int32](repeating: 0, count: Int(last - base) + 2)
            var next = 0
            for i in table.indices {
                table[i] = Int32(next)
                if next < distinct.count && distinct[next] == base + Int64(i) { next += 1 }
            }
            ranks = table
        } else {
            ranks = []
        }
    }

    /// How many sighted intervals are below `interval`.
    func rank(_ interval: Int64) -> Int {
        if !ranks.isEmpty {
            if interval <= base { return 0 }
            let i = interval - base
            return i < Int64(ranks.count) ? Int(ranks[Int(i)]) : intervals.count
        }
        var lo = 0, hi = intervals.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if intervals[mid] < interval { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    func first(atOrAfter interval: Int64) -> Int64? {
        let r = rank(interval)
        return r < intervals.count ? intervals[r] : nil
    }

    func last(before interval: Int64) -> Int64? {
        let r = rank(interval)
        return r > 0 ? intervals[r - 1] : nil
    }
}
