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
        self.sighted = try SightedIntervals(sortedTimes: sorted.map(\.time))
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
        var lower: Int64 = 0, upper: Int64 = 0
        return enc_sighted_range(sighted.pointer, start, end, drift, &lower, &upper) != 0 ? lower ..< upper : nil
    }

    func sightings(ofRPIAt i: Int) -> ArraySlice<Int> { members[starts[i] ..< starts[i + 1]] }
}

/// The distinct intervals that hold a sighting (enc_sighted, shared with
/// the C key walker, which uses it to skip keys before they reach Swift).
final class SightedIntervals: @unchecked Sendable {
    // @unchecked: the C object is read-only after init.
    let pointer: OpaquePointer

    init(sortedTimes: [Int64]) throws {
        var distinct: [Int64] = []
        for t in sortedTimes {
            let i = t / ENInterval.seconds - (t % ENInterval.seconds < 0 ? 1 : 0)   // floor, for any Int64
            if distinct.last != i { distinct.append(i) }
        }
        guard let p = distinct.withUnsafeBufferPointer({ enc_sighted_new($0.baseAddress, $0.count) }) else {
            throw EncoreError(.outOfMemory, "cannot allocate the sighted intervals")
        }
        pointer = p
    }

    deinit { enc_sighted_free(pointer) }
}
