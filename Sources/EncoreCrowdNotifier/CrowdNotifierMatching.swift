import CEncoreProto
import EncoreCrypto
import EncoreSupport
import EncoreWire

/// The visit record m encrypted in each hour's c3 (its encoding is the
/// client's own): version 1, BE64 arrival, BE64 departure, the
/// notification key (32 bytes).
package struct CrowdNotifierVisitRecord: Sendable, Equatable {
    package var arrival: Int64
    package var departure: Int64
    package var notificationKey: [UInt8]

    package init(arrival: Int64, departure: Int64, notificationKey: [UInt8]) {
        self.arrival = arrival
        self.departure = departure
        self.notificationKey = notificationKey
    }

    static let encodedBytes = 49

    package var encoded: [UInt8] {
        [1] + CrowdNotifierCrypto.bigEndian(UInt64(bitPattern: arrival)) + CrowdNotifierCrypto.bigEndian(UInt64(bitPattern: departure)) + notificationKey
    }

    package init?(decoding b: [UInt8]) {
        guard b.count == Self.encodedBytes, b[0] == 1 else { return nil }
        func be64(_ at: Int) -> Int64 { Int64(bitPattern: b[at ..< at + 8].reduce(0) { $0 << 8 | UInt64($1) }) }
        arrival = be64(1)
        departure = be64(9)
        notificationKey = Array(b[17 ..< 49])
        guard departure >= arrival else { return nil }
    }
}

/// The associated data of a trace key, opened with a visit's notification key.
package struct CrowdNotifierAssociatedData: Sendable, Equatable {
    package var version: Int32
    package var message: String
    package var start: Int64
    package var end: Int64
    package var countryData: [UInt8]

    package init(version: Int32 = 1, message: String, start: Int64, end: Int64, countryData: [UInt8] = []) {
        self.version = version
        self.message = message
        self.start = start
        self.end = end
        self.countryData = countryData
    }

    /// SwissCovid's criticality (0 LOW, 1 HIGH) when the country data has one.
    package var criticality: UInt32? {
        guard !countryData.isEmpty,
              let s = countryData.withUnsafeBufferPointer({ cnv3__swiss_covid_associated_data__unpack(nil, $0.count, $0.baseAddress) }) else { return nil }
        defer { cnv3__swiss_covid_associated_data__free_unpacked(s, nil) }
        return s.pointee.criticality
    }

    /// SwissCovid's country data, the criticality written even when LOW (0).
    package static func swissCovidCountryData(criticality: UInt32) throws -> [UInt8] {
        let b = try ProtoBuilder()
        let m = try b.message(cnv3__swiss_covid_associated_data__init)
        ProtoBuilder.set(&m.pointee.version, &m.pointee.has_version, 1)
        ProtoBuilder.set(&m.pointee.criticality, &m.pointee.has_criticality, criticality)
        return ProtoBuilder.pack(m)
    }

    /// Every field but an empty country data written, zeros and an empty
    /// message included. Throws when the message holds a NUL.
    package var encoded: [UInt8] {
        get throws {
            let b = try ProtoBuilder()
            let m = try b.message(cnv3__associated_data__init)
            ProtoBuilder.set(&m.pointee.version, &m.pointee.has_version, version)
            m.pointee.message = try b.string(message)
            ProtoBuilder.set(&m.pointee.starttimestamp, &m.pointee.has_starttimestamp, start)
            ProtoBuilder.set(&m.pointee.endtimestamp, &m.pointee.has_endtimestamp, end)
            if !countryData.isEmpty {
                ProtoBuilder.set(&m.pointee.countrydata, &m.pointee.has_countrydata, try b.bytes(countryData))
            }
            return ProtoBuilder.pack(m)
        }
    }

    package init?(decoding b: [UInt8]) {
        guard let m = b.withUnsafeBufferPointer({ cnv3__associated_data__unpack(nil, $0.count, $0.baseAddress) }) else { return nil }
        defer { cnv3__associated_data__free_unpacked(m, nil) }
        guard let text = CrowdNotifierQRCode.text(m.pointee.message) else { return nil }
        version = m.pointee.version
        message = text
        start = m.pointee.starttimestamp
        end = m.pointee.endtimestamp
        countryData = CrowdNotifierQRCode.bytes(m.pointee.countrydata)
    }
}


/// What matching trace keys against the visits did.
public struct CrowdNotifierMatchOutcome: Sendable, Equatable {
    public var exposures: [CrowdNotifierExposure] = []
    /// For each exposure, its trace key's tag (traceKeyTag(_:)): what a
    /// private check-in's match is stored under instead of the identity.
    public var traceKeyTags: [[UInt8]] = []
    /// (key, hour) pairs of the same day whose key can open the hour (see
    /// CrowdNotifierMatcher.match), each one pairing.
    public var pairings = 0
    /// Keys of a day with visits whose secret key is not a usable point.
    public var invalidKeys = 0
    /// Keys that opened a visit but whose associated data did not open or
    /// decode, or whose time does not overlap the visit.
    public var rejected = 0

    public init() {}
}

/// Matching by day and identity: a key is tried only on the stored hours of
/// its day that its identity can open; each try is one pairing; a key that
/// opens a box is checked (c1 re-derived), its associated data opened with
/// the visit's notification key and its time overlapped with the visit.
public enum CrowdNotifierMatcher {
    /// `payloads`: the QR payload of each check-in whose hours are given
    /// (by check-in id). With it, a key is paired only with the hours its
    /// identity can open: those of a check-in whose venue has that identity
    /// for an hour of the key's day. Any other pair fails the check that
    /// re-derives c1 (r = HashToFr(x ‖ id ‖ m) binds the identity the hour
    /// was encrypted to), so the outcome is the one of pairing every
    /// same-day pair, as the SDKs do, which is what happens for hours
    /// whose check-in has no payload here.
    ///
    /// `threads` 0: one per processor (at most 8). The keys are split into
    /// contiguous chunks, taken by the threads as they become free, and
    /// the outcomes merged in key order, so the result does not depend on
    /// the number of threads. `progress` counts the keys of a day with
    /// visits (each checked, then paired with the hours it can open), from
    /// the worker threads, one call at a time, after each chunk; returning
    /// false cancels (`.cancelled`: chunks not yet begun are skipped).
    public static func match(keys: [CrowdNotifierTraceKey], hours: [CrowdNotifierVisitHour], payloads: [Int64: [UInt8]] = [:],
                             threads: Int = 0, progress: ProgressHandler? = nil) throws -> CrowdNotifierMatchOutcome {
        let threads = threads > 0 ? threads : Parallel.threads()
        // The day filter first: only keys of a day with visits are checked
        // and paired.
        let visitDays = Set(hours.map(\.day))
        let relevant = keys.filter { visitDays.contains($0.day) }
        var keyIdentities: [Int64: Set<[UInt8]>] = [:]
        for k in relevant { keyIdentities[k.day, default: []].insert(k.identity) }
        // Then the identity filter: an hour no key of its day can open is
        // left out (nil: its venue is not known, every key may open it).
        var openers: [VisitDay: Set<[UInt8]>] = [:]
        var used: [(hour: CrowdNotifierVisitHour, openers: Set<[UInt8]>?)] = []
        for h in hours {
            guard let wanted = keyIdentities[h.day] else { continue }
            let visit = VisitDay(checkIn: h.checkIn, day: h.day)
            if openers[visit] == nil, let payload = payloads[h.checkIn] { openers[visit] = identities(payload: payload, day: h.day) }
            if let ids = openers[visit], ids.isDisjoint(with: wanted) { continue }
            used.append((h, openers[visit]))
        }
        // Each hour's c1 parsed (and checked to be in G2) and its
        // Miller-loop lines computed once, on all threads, for every key
        // of its day; our own ciphertexts, so one that does not parse is
        // simply never matched.
        let prepared = Parallel.slices(count: used.count, threads: threads) { range in
            used[range].map { u -> BLS.PreparedG2? in
                if case .success(let c1) = BLS.g2Nonzero(u.hour.ciphertext.c1) { return BLS.PreparedG2(c1) }
                return nil
            }
        }.flatMap { $0 }
        var byDay: [Int64: [Candidate]] = [:]
        for (u, p) in zip(used, prepared) {
            if let p { byDay[u.hour.day, default: []].append(Candidate(hour: u.hour, c1: p, openers: u.openers)) }
        }
        let counter = ProgressCounter(progress, total: UInt64(relevant.count))
        // Keys in small chunks taken by whichever thread is free: a key
        // costs a pairing per hour it can open, and cores may differ in speed.
        let parts = Parallel.chunks(count: relevant.count, threads: threads, chunk: max(1, relevant.count / (threads * 32))) { range in
            Result {
                try counter.checkGoing()
                let found = match(relevant[range], byDay)
                try counter.addDone(UInt64(range.count))
                return found
            }
        }
        var out = CrowdNotifierMatchOutcome()
        for part in parts {
            let p = try part.get()
            out.exposures += p.exposures
            out.traceKeyTags += p.traceKeyTags
            out.pairings += p.pairings
            out.invalidKeys += p.invalidKeys
            out.rejected += p.rejected
        }
        return out
    }

    /// A check-in's hours on one day.
    private struct VisitDay: Hashable {
        let checkIn: Int64
        let day: Int64
    }

    /// A stored hour ready for pairing, and the identities that can open it
    /// (nil: any).
    private struct Candidate {
        let hour: CrowdNotifierVisitHour
        let c1: BLS.PreparedG2
        let openers: Set<[UInt8]>?
    }

    /// The identities of the 24 hours of `day` at the venue of `payload`:
    /// one of them is the identity each of its hours that day was
    /// encrypted to (whatever the visit's times were then).
    package static func identities(payload: [UInt8], day: Int64) -> Set<[UInt8]> {
        let nonces = CrowdNotifierCrypto.nonces(payload: payload)
        let preId = CrowdNotifierCrypto.preId(payload: payload, nonces: nonces)
        return Set((0 ..< 24).map { h -> [UInt8] in
            // Wrapping: a stored day is a real one, but nothing may trap.
            let start = day &+ Int64(h) &* CrowdNotifierCrypto.intervalSeconds
            return CrowdNotifierCrypto.identity(preId: preId, intervalStart: start,
                                                timeKey: CrowdNotifierCrypto.timeKey(intervalStart: start, nonces: nonces))
        })
    }

    private static func match(_ keys: ArraySlice<CrowdNotifierTraceKey>, _ byDay: [Int64: [Candidate]]) -> CrowdNotifierMatchOutcome {
        var out = CrowdNotifierMatchOutcome()
        for key in keys {
            // sk checked (on the curve, in G1, not the identity) once per
            // key of a day with visits, whether or not it can open one: a
            // backend's unusable keys are counted the same either way
            guard case .success(let sk) = BLS.g1Nonzero(key.secretKey) else {
                out.invalidKeys += 1
                continue
            }
            let candidates = (byDay[key.day] ?? []).filter { $0.openers?.contains(key.identity) ?? true }
            if candidates.isEmpty { continue }
            let pairings = BLS.pairings(sk, candidates.map(\.c1))
            for (candidate, pairing) in zip(candidates, pairings) {
                let h = candidate.hour
                out.pairings += 1
                guard case .success(let m) = CrowdNotifierIBE.decrypt(pairing: pairing, identity: key.identity, h.ciphertext) else { continue }
                guard let record = CrowdNotifierVisitRecord(decoding: m),
                      let plain = CrowdNotifierCrypto.open(key.encryptedAssociatedData, nonce: key.nonce, key: record.notificationKey),
                      let ad = CrowdNotifierAssociatedData(decoding: plain) else {
                    out.rejected += 1
                    continue
                }
                let start = key.start ?? ad.start, end = key.end ?? ad.end
                guard record.arrival < end, start < record.departure else {
                    out.rejected += 1
                    continue
                }
                out.exposures.append(CrowdNotifierExposure(checkIn: h.checkIn, identity: key.identity, day: key.day, arrival: record.arrival,
                                                           departure: record.departure, start: start, end: end, message: ad.message,
                                                           criticality: ad.criticality))
                out.traceKeyTags.append(traceKeyTag(key))
            }
        }
        return out
    }

    /// A trace key's tag: SHA-256("encore-CN-trace-key" ‖ its nonce ‖ its
    /// sealed associated data). The same for the same published key, and
    /// not computable from the venue's QR code (unlike the identity), so
    /// a private visit's match is kept once per key without naming the venue.
    package static func traceKeyTag(_ key: CrowdNotifierTraceKey) -> [UInt8] {
        Digest.sha256(Array("encore-CN-trace-key".utf8) + key.nonce + key.encryptedAssociatedData)
    }

    /// The hourly ciphertexts of a visit at a venue: for each hour it
    /// touches, the record encrypted to that hour's identity, as the store
    /// keeps them (under the check-in `checkIn`).
    public static func encryptVisit(_ venue: CrowdNotifierVenue, checkIn: Int64 = 0, arrival: Int64, departure: Int64) throws -> [CrowdNotifierVisitHour] {
        guard case .success(let mpk) = BLS.g2Nonzero(venue.publicKey) else { throw EncoreError(.cnPublicKey, "the venue's public key is not a usable G2 point") }
        let count = CrowdNotifierCrypto.hourCount(arrival: arrival, departure: departure)
        guard count > 0 else { throw EncoreError(.checkInTimes, "a visit cannot end before it starts") }
        guard count <= maxHours else {
            throw EncoreError(.checkInTimes, "a CrowdNotifier check-in lasts at most \(maxHours - 1) hours; this one touches \(count)")
        }
        let hours = CrowdNotifierCrypto.hours(arrival: arrival, departure: departure, limit: Int64(maxHours))
        let nonces = CrowdNotifierCrypto.nonces(payload: venue.payload)
        let preId = CrowdNotifierCrypto.preId(payload: venue.payload, nonces: nonces)
        let record = CrowdNotifierVisitRecord(arrival: arrival, departure: departure, notificationKey: nonces.notificationKey).encoded
        return try hours.map { start in
            let id = CrowdNotifierCrypto.identity(preId: preId, intervalStart: start, timeKey: CrowdNotifierCrypto.timeKey(intervalStart: start, nonces: nonces))
            return CrowdNotifierVisitHour(checkIn: checkIn, day: UnixTime.utcMidnight(start),
                                          ciphertext: try CrowdNotifierIBE.encrypt(mpk: mpk, identity: id, message: record))
        }
    }

    /// A visit touches at most this many hours (a day, and the hour it
    /// began in): longer stays are refused rather than stored partly.
    static let maxHours = 25
}
