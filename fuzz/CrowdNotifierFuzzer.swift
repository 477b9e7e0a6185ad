// libFuzzer target for CrowdNotifier's parsers (FUZZ_TARGET=crowdnotifier
// scripts/fuzz.sh): the first byte chooses what the rest is.
//   0  a trace-key body (ProblematicEventWrapper, both event layouts),
//      its keys matched against one stored visit of the key's day, with
//      and without the identity filter
//   1  a QRCodePayload (SwissCovid, then NotifyMe), and its hour
//      identities on a day taken from its first bytes
//   2  a QR code's text
//   3  an AssociatedData, a visit record, G1/G2 points
//   4  (first byte 4 or 12 ...: & 7 == 4) keys that must open: a visit whose
//      times (across midnight or not, edited or not) and a published
//      window come from the input, the venue's real trace keys for that
//      window; every key of an hour of the visit whose window overlaps it
//      must match, identically with the identity filter, without it and as
//      a private check-in (no payload): a missed match is a finding
// An EncoreError is an expected outcome; a crash, a sanitizer report or a
// fatalError of the harness (an invariant broken) is a finding.
import CEncorePairing

private let fixture: (venue: CrowdNotifierVenue, hours: [CrowdNotifierVisitHour], keys: CrowdNotifierAuthority.VenueKeys) =
    harnessFixture("the venue and its visit") {
        let keys = try CrowdNotifierAuthority.generateKeys()
        let payload = try CrowdNotifierAuthority.payload(description: "fuzz", address: "", publicKey: keys.publicKey)
        let venue = try CrowdNotifierQRCode.venue(payload: payload, kind: .swissCovid)
        let hours = try CrowdNotifierMatcher.encryptVisit(venue, arrival: 0, departure: 3599).map {
            CrowdNotifierVisitHour(checkIn: 1, day: $0.day, ciphertext: $0.ciphertext)
        }
        return (venue, hours, keys)
    }

/// The CrowdNotifier target's input (Main.swift calls it for FUZZ_TARGET=crowdnotifier).
func fuzzCrowdNotifier(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let input = FuzzInput(data, size) else { return 0 }
    let rest = Array(input.rest)
    expecting {
        switch input.selector & 7 == 4 ? 4 : input.selector & 3 {
        case 0:
            let batch = try CrowdNotifierTraceKeys.parse(rest)
            guard batch.keys.count + batch.skipped == batch.events else { fatalError("keys + skipped != events") }
            // Keys are moved onto the visit's day so that the pairing path runs (a few per input).
            let keys = batch.keys.prefix(3).map { k -> CrowdNotifierTraceKey in
                var k = k
                k.day = 0
                return k
            }
            let out = try CrowdNotifierMatcher.match(keys: Array(keys), hours: fixture.hours)
            guard out.exposures.isEmpty else { fatalError("a fuzzed key opened the fixture's visit") }
            // The identity filter (the visit's payload known) pairs less, never differently.
            let filtered = try CrowdNotifierMatcher.match(keys: Array(keys), hours: fixture.hours, payloads: [1: fixture.venue.payload])
            guard filtered.exposures.isEmpty, filtered.invalidKeys == out.invalidKeys, filtered.pairings <= out.pairings else {
                fatalError("the identity filter changed the outcome")
            }
            let again = try CrowdNotifierTraceKeys.parse(CrowdNotifierTraceKeys.encode(batch.keys))
            guard again.keys.count == batch.keys.count else { fatalError("encode/parse changed the number of keys") }
        case 1:
            // Any payload and any stored day: the 24 hour identities, without trapping.
            let day = rest.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
            guard CrowdNotifierMatcher.identities(payload: rest, day: day).count <= 24 else { fatalError("more than 24 identities a day") }
            for kind in CrowdNotifierVenue.Kind.allCases {
                if let v = try? CrowdNotifierQRCode.venue(payload: rest, kind: kind) {
                    guard v.publicKey.count == 96 else { fatalError("a venue with a public key of \(v.publicKey.count) bytes") }
                }
            }
        case 2:
            _ = try CrowdNotifierQRCode.parse(String(decoding: rest, as: UTF8.self))
        case 4:
            try keysThatMustOpen(rest)
        default:
            _ = CrowdNotifierAssociatedData(decoding: rest)
            _ = CrowdNotifierVisitRecord(decoding: rest)
            _ = BLS.g1Nonzero(Array(rest.prefix(48)))
            _ = BLS.g2Nonzero(Array(rest.prefix(96)))
        }
    }
    return 0
}

/// Reads the input as little numbers (0 when it runs out).
private struct InputNumbers {
    var bytes: ArraySlice<UInt8>
    mutating func next(_ count: Int) -> UInt64 {
        let taken = bytes.prefix(count)
        bytes = bytes.dropFirst(count)
        return taken.reduce(0) { $0 << 8 | UInt64($1) }
    }
}

/// Mode 4: the visit and the window from the input, the trace keys real:
/// the ones that must open are known from the times alone.
private func keysThatMustOpen(_ input: [UInt8]) throws {
    var n = InputNumbers(bytes: input[...])
    let base: Int64 = 20_000 * 86400  // 2024-10-04T00:00:00Z
    func stay() -> (Int64, Int64) {
        let arrival = base + Int64(n.next(3) % (2 * 86400))
        return (arrival, arrival + Int64(n.next(2) % (4 * 3600)))
    }
    var (arrival, departure) = stay()
    let venue = fixture.venue
    var hours = try CrowdNotifierMatcher.encryptVisit(venue, checkIn: 1, arrival: arrival, departure: departure)
    if n.next(1) & 1 == 1 {
        // Edited: the hours made again for new times, as the store does.
        (arrival, departure) = stay()
        hours = try CrowdNotifierMatcher.encryptVisit(venue, checkIn: 1, arrival: arrival, departure: departure)
    }
    let start = arrival + Int64(Int16(truncatingIfNeeded: n.next(2))) * 60 / 8
    let end = start + 60 + Int64(n.next(2) % (3 * 3600))
    let layout: CrowdNotifierTraceKey.Layout = n.next(1) & 1 == 0 ? .swissCovid : .notifyMe
    let published = try CrowdNotifierAuthority.traceKeys(masterSecret: fixture.keys.masterSecret, payload: venue.payload,
                                                         start: max(0, start), end: end, message: String(decoding: n.bytes.prefix(40), as: UTF8.self),
                                                         layout: layout)
    // Through the wire, as a backend serves them.
    let keys = try CrowdNotifierTraceKeys.parse(CrowdNotifierTraceKeys.encode(published)).keys
    guard keys.count == published.count else { fatalError("trace keys lost on the wire") }
    let visited = Set(CrowdNotifierCrypto.hours(arrival: arrival, departure: departure, limit: 48).map {
        CrowdNotifierCrypto.identity(payload: venue.payload, intervalStart: $0)
    })
    let mustOpen = keys.filter { k in
        visited.contains(k.identity) && arrival < (k.end ?? end) && (k.start ?? max(0, start)) < departure
    }.map(\.identity)
    let filtered = try CrowdNotifierMatcher.match(keys: keys, hours: hours, payloads: [1: venue.payload])
    let everyPair = try CrowdNotifierMatcher.match(keys: keys, hours: hours)  // a private check-in: no payload
    guard everyPair.exposures.map(\.identity) == mustOpen else {
        fatalError("missed or extra match (every pair): \(everyPair.exposures.count) of \(mustOpen.count), visit \(arrival)-\(departure), window \(start)-\(end)")
    }
    guard filtered.exposures == everyPair.exposures, filtered.traceKeyTags == everyPair.traceKeyTags else {
        fatalError("the identity filter changed the matches: \(filtered.exposures.count) against \(everyPair.exposures.count)")
    }
}
