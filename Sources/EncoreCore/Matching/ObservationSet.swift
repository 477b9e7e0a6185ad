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
    /// Sightings per 10-minute interval as a running count from
    /// `firstInterval` on: "any sighting between two interval boundaries"
    /// is two reads, where a binary search over the sightings would miss
    /// the cache a dozen times for every key.
    let firstInterval: Int64
    let runningCount: [Int32]

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
        let first = (sorted.first?.time ?? 0) / ENInterval.seconds, last = (sorted.last?.time ?? 0) / ENInterval.seconds
        var running = [Int32](repeating: 0, count: sorted.isEmpty ? 1 : Int(last - first) + 2)
        for o in sorted { running[Int(o.time / ENInterval.seconds - first) + 1] += 1 }
        for i in running.indices.dropFirst() { running[i] += running[i - 1] }
        self.firstInterval = first
        self.runningCount = running
        self.observations = sorted
        self.uniqueRPIs = rpis
        self.starts = starts
        self.members = members
        self.index = index
    }

    deinit { enc_rpi_index_free(index) }

    public var count: Int { observations.count }

    /// Whether any sighting lies in the intervals from the one holding
    /// `lower` up to the one before `upper` (exact when both are interval
    /// boundaries, as a key's validity ± drift always is).
    func hasObservation(fromInterval lower: Int64, toInterval upper: Int64) -> Bool {
        func count(before interval: Int64) -> Int32 {
            let i = interval - firstInterval
            if i <= 0 { return 0 }
            return runningCount[Int(min(i, Int64(runningCount.count - 1)))]
        }
        return count(before: upper) > count(before: lower)
    }

    func sightings(ofRPIAt i: Int) -> ArraySlice<Int> { members[starts[i] ..< starts[i + 1]] }
}
