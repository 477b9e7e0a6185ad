import CEncoreShim

/// The heard sightings prepared for matching: sorted by time (so a key whose
/// validity window holds no sighting is skipped with a binary search) and
/// indexed by RPI for the C kernel. Read-only, shared by every thread.
public final class ObservationSet: @unchecked Sendable {
    // @unchecked: immutable after init; the C index is only read.
    public let observations: [Observation]    // sorted by time
    let uniqueRPIs: [KeyData]
    /// observations of uniqueRPIs[i]: members[starts[i] ..< starts[i + 1]], by time.
    let starts: [Int]
    let members: [Int]
    let index: OpaquePointer

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
        self.observations = sorted
        self.uniqueRPIs = rpis
        self.starts = starts
        self.members = members
        self.index = index
    }

    deinit { enc_rpi_index_free(index) }

    public var count: Int { observations.count }

    /// Whether any sighting has lower ≤ time < upper.
    func hasObservation(from lower: Int64, to upper: Int64) -> Bool {
        var lo = 0, hi = observations.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if observations[mid].time < lower { lo = mid + 1 } else { hi = mid }
        }
        return lo < observations.count && observations[lo].time < upper
    }

    func sightings(ofRPIAt i: Int) -> ArraySlice<Int> { members[starts[i] ..< starts[i + 1]] }
}
