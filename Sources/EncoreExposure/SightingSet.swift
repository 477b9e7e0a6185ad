import CEncoreShim
import EncoreCrypto
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// The heard sightings prepared for matching: sorted by time, the intervals
/// that hold one (so a key is derived only over the intervals that can
/// match, and not at all when none can), and indexed by RPI for the C
/// kernel. Read-only, shared by every thread.
public final class SightingSet: @unchecked Sendable {
    // @unchecked: immutable after init; the C index is only read.
    public let sightings: [Sighting]    // sorted by time
    /// sightings of the heard RPI with id r (the C index's):
    /// members[starts[r] ..< starts[r + 1]], by time.
    package let starts: [Int]
    package let members: [Int]
    package let index: OpaquePointer
    /// The 10-minute intervals that hold a sighting, ascending, and their
    /// ranks: which intervals a key needs derived is a few reads.
    package let sighted: SightedIntervals

    public init(_ sightings: [Sighting]) throws {
        let sorted = sightings.sorted { ($0.time, $0.rssi) < ($1.time, $1.rssi) }
        guard let count = UInt32(exactly: sorted.count) else {
            throw EncoreError(.invalidArgument, "too many sightings to match at once (\(sorted.count))")
        }
        // The C index gives every sighting the id of its RPI; a counting
        // sort by id then groups them (in time order within an RPI)
        // without a dictionary of arrays.
        var flat = [UInt8]()
        flat.reserveCapacity(sorted.count * 16)
        for o in sorted { o.rpi.withUnsafeBytes { flat += $0 } }
        var ids = [UInt32](repeating: 0, count: sorted.count)
        guard let index = flat.withUnsafeBufferPointer({ f in
            ids.withUnsafeMutableBufferPointer { enc_rpi_index_new(f.baseAddress, count, $0.baseAddress) }
        }) else {
            throw EncoreError(.outOfMemory, "cannot allocate the RPI index")
        }
        let distinct = Int(enc_rpi_index_count(index))
        var starts = [Int](repeating: 0, count: distinct + 1)
        for id in ids { starts[Int(id) + 1] += 1 }
        for r in 0 ..< distinct { starts[r + 1] += starts[r] }
        var fill = starts, members = [Int](repeating: 0, count: sorted.count)
        for (i, id) in ids.enumerated() {
            members[fill[Int(id)]] = i
            fill[Int(id)] += 1
        }
        do {
            self.sighted = try SightedIntervals(sortedTimes: sorted.map(\.time))
        } catch {
            enc_rpi_index_free(index)
            throw error
        }
        self.sightings = sorted
        self.starts = starts
        self.members = members
        self.index = index
    }

    deinit { enc_rpi_index_free(index) }

    public var count: Int { sightings.count }

    /// The intervals of a key's validity, start ..< end, whose RPIs can
    /// match a sighting: those with a sighting within `drift` intervals.
    /// Only the ends are trimmed (a gap inside is kept); nil when none.
    package func intervalsToDerive(start: Int64, end: Int64, drift: Int64) -> Range<Int64>? {
        var lower: Int64 = 0, upper: Int64 = 0
        return enc_sighted_range(sighted.pointer, start, end, drift, &lower, &upper) != 0 ? lower ..< upper : nil
    }

    package func sightings(ofRPIAt i: Int) -> ArraySlice<Int> { members[starts[i] ..< starts[i + 1]] }

    /// The index's filter cut by day for one drift (enc_day_filters): a
    /// faster screen of derived RPIs, with the same hits.
    package func dayFilters(drift: Int64) -> DayFilters {
        var flat = [UInt8]()
        flat.reserveCapacity(sightings.count * 16)
        for o in sightings { o.rpi.withUnsafeBytes { flat += $0 } }
        let intervals = sightings.map { ENInterval.floor($0.time) }
        let pointer = flat.withUnsafeBufferPointer { f in
            intervals.withUnsafeBufferPointer { enc_day_filters_new(index, f.baseAddress, $0.baseAddress, UInt32(clamping: sightings.count), drift) }
        }
        return DayFilters(pointer)
    }
}

/// Day filters of an sighting set, or none (nil pointer: the kernel uses
/// the index's own filter). Read-only, shared by every thread.
package final class DayFilters: @unchecked Sendable {
    // @unchecked: the C object is read-only after init.
    package let pointer: OpaquePointer?

    package init(_ pointer: OpaquePointer?) { self.pointer = pointer }

    deinit { enc_day_filters_free(pointer) }
}

/// The distinct intervals that hold a sighting (enc_sighted, shared with
/// the C key walker, which uses it to skip keys before they reach Swift).
package final class SightedIntervals: @unchecked Sendable {
    // @unchecked: the C object is read-only after init.
    package let pointer: OpaquePointer

    package init(sortedTimes: [Int64]) throws {
        var distinct: [Int64] = []
        for t in sortedTimes {
            let i = ENInterval.floor(t)
            if distinct.last != i { distinct.append(i) }
        }
        guard let p = distinct.withUnsafeBufferPointer({ enc_sighted_new($0.baseAddress, $0.count) }) else {
            throw EncoreError(.outOfMemory, "cannot allocate the sighted intervals")
        }
        pointer = p
    }

    deinit { enc_sighted_free(pointer) }
}
