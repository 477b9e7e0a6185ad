import CEncoreShim

/// What one diagnosis key matched: its windows and v1 exposures, plus the
/// start time of each window for a stable order.
struct KeyMatch {
    var windows: [(start: Int64, window: ExposureWindow)]
    var exposuresV1: [ExposureV1]
}

/// Matches single keys against an ObservationSet. One per thread: it owns
/// the kernel's crypto state.
final class KeyMatcher {
    private let ctx: OpaquePointer
    private let set: ObservationSet
    private let options: MatchingOptions
    private let v1: V1Configuration
    private var hits = [enc_rpi_hit](repeating: enc_rpi_hit(), count: 144)

    init(set: ObservationSet, options: MatchingOptions, v1: V1Configuration) throws {
        guard let c = enc_rpi_ctx_new() else { throw EncoreError(.outOfMemory, "cannot allocate matching crypto state") }
        ctx = c
        self.set = set
        self.options = options
        self.v1 = v1
    }

    deinit { enc_rpi_ctx_free(ctx) }

    /// The key's match, or nil when nothing it broadcast was heard (within
    /// the drift, TX-power and replay rules).
    func match(_ key: ExposureKey, infectiousness: Infectiousness) throws -> KeyMatch? {
        let start = UInt32(bitPattern: key.rollingStartIntervalNumber)
        let count = UInt32(key.rollingPeriod)
        let found = key.keyData.withUnsafeBytes { tek in
            hits.withUnsafeMutableBufferPointer { buf in
                enc_match_key(ctx, set.index, tek.baseAddress?.assumingMemoryBound(to: UInt8.self), start, count,
                              buf.baseAddress, UInt32(buf.count))
            }
        }
        guard found >= 0 else { throw EncoreError(.internalError, "libcrypto failed while deriving RPIs") }
        guard found > 0 else { return nil }

        // Sightings of the derived RPIs within the drift of their interval.
        let drift = options.driftIntervals * ENInterval.seconds
        var candidates: [Observation] = []
        for h in hits.prefix(min(Int(found), hits.count)) {
            let j = Int64(start) + Int64(h.interval_offset)
            let lower = j * ENInterval.seconds - drift, upper = (j + 1) * ENInterval.seconds + drift
            for i in set.sightings(ofRPIAt: Int(h.rpi_index)) {
                let o = set.observations[i]
                if o.time >= lower && o.time < upper { candidates.append(o) }
            }
        }
        guard !candidates.isEmpty else { return nil }

        // Decrypt the metadata; keep plausible TX power; guard against replay.
        let aemk = try ENCrypto.aemk(tek: key.keyData)
        var firstSeen: [KeyData: Int64] = [:]
        for o in candidates { firstSeen[o.rpi] = min(firstSeen[o.rpi] ?? .max, o.time) }
        var sightings: [MatchedSighting] = []
        for o in candidates {
            let metadata = try ENCrypto.aem(aemk: aemk, rpi: o.rpi, metadata: o.aemBytes)
            let txPower = Int(Int8(bitPattern: metadata[1]))
            guard options.txPowerRange.contains(txPower) else { continue }
            guard o.time - (firstSeen[o.rpi] ?? o.time) <= options.replaySeconds else { continue }
            sightings.append(MatchedSighting(time: o.time, previousScan: o.previousScan,
                                             attenuation: min(max(txPower - Int(o.rssi), 0), 255),
                                             calibrationConfidence: Int((metadata[0] >> 2) & 0x3)))
        }
        guard !sightings.isEmpty else { return nil }

        let instances = WindowBuilder.scanInstances(sightings, gap: options.scanInstanceGapSeconds)
        let reportType = key.reportType == .unknown ? options.reportTypeWhenMissing : key.reportType
        return KeyMatch(windows: WindowBuilder.windows(instances, reportType: reportType, infectiousness: infectiousness,
                                                       windowSeconds: options.windowSeconds),
                        exposuresV1: V1Scoring.exposures(instances.map(\.0), transmissionRiskLevel: key.transmissionRiskLevel,
                                                         now: options.now, config: v1))
    }
}
