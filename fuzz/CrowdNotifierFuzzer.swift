// libFuzzer target for CrowdNotifier's parsers (FUZZ_TARGET=crowdnotifier
// scripts/fuzz.sh): the first byte chooses what the rest is.
//   0  a trace-key body (ProblematicEventWrapper, both event layouts),
//      its keys matched against one stored visit of the key's day, with
//      and without the identity filter
//   1  a QRCodePayload (SwissCovid, then NotifyMe), and its hour
//      identities on a day taken from its first bytes
//   2  a QR code's text
//   3  an AssociatedData, a visit record, G1/G2 points
// An EncoreError is an expected outcome; a crash, a sanitizer report or a
// fatalError of the harness (an invariant broken) is a finding.
import CEncorePairing

private let fixture: (venue: CrowdNotifierVenue, hours: [CrowdNotifierVisitHour]) = {
    do {
        let keys = try CrowdNotifierAuthority.generateKeys()
        let payload = try CrowdNotifierAuthority.payload(description: "fuzz", address: "", publicKey: keys.publicKey)
        let venue = try CrowdNotifierQRCode.venue(payload: payload, kind: .swissCovid)
        let hours = try CrowdNotifierMatcher.encryptVisit(venue, arrival: 0, departure: 3599).map {
            CrowdNotifierVisitHour(checkIn: 1, day: $0.day, ciphertext: $0.ciphertext)
        }
        return (venue, hours)
    } catch {
        fatalError("fuzz harness: cannot make the fixture: \(error)")
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let rest = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    do {
        switch data[0] & 3 {
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
        default:
            _ = CrowdNotifierAssociatedData(decoding: rest)
            _ = CrowdNotifierVisitRecord(decoding: rest)
            _ = BLS.g1Nonzero(Array(rest.prefix(48)))
            _ = BLS.g2Nonzero(Array(rest.prefix(96)))
        }
    } catch is EncoreError {
        return 0
    } catch {
        fatalError("fuzz harness: an error that is not an EncoreError: \(error)")
    }
    return 0
}
