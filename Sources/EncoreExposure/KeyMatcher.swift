import CEncoreShim
import EncoreCrypto
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// What one diagnosis key matched: the key and its scan instances. Its
/// windows and v1 exposures are made from them when matches are merged
/// (Matcher.merge), so that a match kept from an earlier check (the check's
/// kept matches) gives what a new one gives at any later time and with any
/// window and v1 parameters.
package struct KeyMatch {
    package var key: ExposureKey
    package var infectiousness: Infectiousness
    /// In time order; empty when the key was only heard (KeyMatcher's
    /// `reportHeard`), no sighting of it passing the TX-power and replay rules.
    package var instances: [(TimedScanInstance, calibration: Int)]

    package init(key: ExposureKey, infectiousness: Infectiousness, instances: [(TimedScanInstance, calibration: Int)]) {
        self.key = key
        self.infectiousness = infectiousness
        self.instances = instances
    }

    /// The windows, each with the time of its first scan instance.
    package func windows(_ options: MatchingOptions) -> [(start: Int64, window: ExposureWindow)] {
        let reportType = key.reportType == .unknown ? options.reportTypeWhenMissing : key.reportType
        return WindowBuilder.windows(instances, reportType: reportType, infectiousness: infectiousness, windowSeconds: options.windowSeconds)
    }

    package func exposuresV1(now: Int64, v1: V1Configuration) -> [ExposureV1] {
        V1Scoring.exposures(instances.map(\.0), transmissionRiskLevel: key.transmissionRiskLevel, now: now, config: v1)
    }
}

/// A key that passed the cheap filters, and the intervals of its validity
/// whose RPIs can match a sighting (the only ones derived).
package struct MatchCandidate {
    package var key: ExposureKey
    package var infectiousness: Infectiousness
    package var intervals: Range<Int64>
}

/// Matches keys against an SightingSet, a batch at a time. One per
/// thread: it owns the kernel's crypto state and buffers.
package final class KeyMatcher {
    private let ctx: OpaquePointer
    private let set: SightingSet
    private let days: DayFilters
    private let options: MatchingOptions
    /// Keys of which a sighting was heard within the drift give a match
    /// even when none passes the TX-power and replay rules (with no scan
    /// instances): which keys new sightings concern.
    private let reportHeard: Bool
    private var jobs: [enc_match_job] = []
    private var hits = [enc_rpi_hit](repeating: enc_rpi_hit(), count: 1024)

    /// `days`: the set's day filters for `options`' drift (shared by the threads).
    package init(set: SightingSet, days: DayFilters, options: MatchingOptions, reportHeard: Bool = false) throws {
        guard let c = enc_rpi_ctx_new() else { throw EncoreError(.outOfMemory, "cannot allocate matching crypto state") }
        ctx = c
        self.set = set
        self.days = days
        self.options = options
        self.reportHeard = reportHeard
    }

    deinit { enc_rpi_ctx_free(ctx) }

    /// The matches of a batch, as (position in `candidates`, match), for
    /// the keys of which something broadcast was heard (within the drift,
    /// TX-power and replay rules).
    package func match(_ candidates: ArraySlice<MatchCandidate>) throws -> [(Int, KeyMatch)] {
        jobs.removeAll(keepingCapacity: true)
        for c in candidates {
            var job = enc_match_job()
            c.key.keyData.withUnsafeBytes { tek in withUnsafeMutableBytes(of: &job.tek) { $0.copyMemory(from: tek) } }
            job.start = UInt32(truncatingIfNeeded: c.intervals.lowerBound) // the ENIN's bits, as the RPI holds them
            job.count = UInt32(clamping: c.intervals.count)                // ≤ 144: within the key's validity
            jobs.append(job)
        }
        var found = try runKernel()
        if found > hits.count {
            hits = [enc_rpi_hit](repeating: enc_rpi_hit(), count: found)
            found = try runKernel()
        }
        // Hits come in job order: each run of one job's hits is one key.
        var out: [(Int, KeyMatch)] = []
        var i = 0
        while i < found {
            let job = Int(hits[i].job)
            var end = i + 1
            while end < found && Int(hits[end].job) == job { end += 1 }
            let c = candidates[candidates.startIndex + job]
            if let m = try keyMatch(c, hits: hits[i ..< end]) { out.append((candidates.startIndex + job, m)) }
            i = end
        }
        return out
    }

    private func runKernel() throws -> Int {
        let n = jobs.withUnsafeBufferPointer { j in
            hits.withUnsafeMutableBufferPointer { h in enc_match_keys(ctx, set.index, days.pointer, j.baseAddress, j.count, h.baseAddress, h.count) }
        }
        guard n >= 0, let found = Int(exactly: n) else { throw EncoreError(.internalError, "libcrypto failed while deriving RPIs") }
        return found
    }

    /// The key's match from its RPIs that were heard, or nil when no
    /// sighting of them passes the drift, TX-power and replay rules.
    private func keyMatch(_ c: MatchCandidate, hits: ArraySlice<enc_rpi_hit>) throws -> KeyMatch? {
        // Sightings of the derived RPIs within the drift of their interval.
        let drift = options.driftIntervals * ENInterval.seconds
        var candidates: [Sighting] = []
        for h in hits {
            let j = c.intervals.lowerBound + Int64(h.interval_offset)
            let lower = j * ENInterval.seconds - drift, upper = (j + 1) * ENInterval.seconds + drift
            for i in set.sightings(ofRPIAt: Int(h.rpi_index)) {
                let o = set.sightings[i]
                if o.time >= lower && o.time < upper { candidates.append(o) }
            }
        }
        guard !candidates.isEmpty else { return nil }
        if reportHeard { return KeyMatch(key: c.key, infectiousness: c.infectiousness, instances: []) }

        // Decrypt the metadata; keep plausible TX power; guard against replay.
        let key = c.key
        let aemk = try ENFKeySchedule.aemk(tek: key.keyData)
        var firstSeen: [KeyData: Int64] = [:]
        for o in candidates { firstSeen[o.rpi] = min(firstSeen[o.rpi] ?? .max, o.time) }
        var sightings: [MatchedSighting] = []
        for o in candidates {
            let metadata = try ENFKeySchedule.aem(aemk: aemk, rpi: o.rpi, metadata: o.aemBytes)
            let txPower = Int(Int8(bitPattern: metadata[1]))
            guard txPower >= options.txPowerMinimum, txPower <= options.txPowerMaximum else { continue }
            guard o.time - (firstSeen[o.rpi] ?? o.time) <= options.replaySeconds else { continue }
            sightings.append(MatchedSighting(o, txPower: txPower, calibrationConfidence: Int((metadata[0] >> 2) & 0x3)))
        }
        guard !sightings.isEmpty else { return nil }
        return KeyMatch(key: key, infectiousness: c.infectiousness,
                        instances: WindowBuilder.scanInstances(sightings, gap: options.scanInstanceGapSeconds))
    }
}
