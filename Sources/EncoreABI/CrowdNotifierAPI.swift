// encore.h section: crowdnotifier, part 2
// The C functions of CrowdNotifier v3 (SwissCovid, NotifyMe; issue 17) that
// need no store: a venue's QR code, the crypto, the authority's side.
// Checking in at their QR codes goes through encore_checkin_add()
// (CheckInAPI.swift); trace keys matched into a client's store:
// CrowdNotifierMatchAPI.swift.
import CEncoreTypes
import EncoreCrowdNotifier
import EncoreSupport

/// Writes `bytes` into a caller's buffer of exactly their size.
private func fill(_ out: UnsafeMutablePointer<UInt8>?, _ length: Int, _ bytes: [UInt8], _ name: String) throws {
    let p = try required(out, name)
    guard length == bytes.count else { throw EncoreError(.invalidArgument, "\(name) is \(bytes.count) bytes, not \(length)") }
    bytes.withUnsafeBufferPointer { p.update(from: $0.baseAddress!, count: $0.count) }
}

private func venueKind(_ kind: Int32) throws -> CrowdNotifierVenue.Kind {
    switch kind {
    case ENCORE_CROWDNOTIFIER_SWISSCOVID: return .swissCovid
    case ENCORE_CROWDNOTIFIER_NOTIFYME: return .notifyMe
    default: throw EncoreError(.invalidArgument, "kind is ENCORE_CROWDNOTIFIER_SWISSCOVID or ENCORE_CROWDNOTIFIER_NOTIFYME, not \(kind)")
    }
}

// MARK: - Venues

/// Reads a SwissCovid or NotifyMe QR code (the venue's public key
/// validated) and writes its kind (ENCORE_CROWDNOTIFIER_*). The QR
/// statuses of encore_trace_location_parse(), and
/// ENCORE_ERR_CN_PUBLIC_KEY for a public key that is not a point of G2.
@c public func encore_crowdnotifier_get_venue_kind(_ qr_code: UnsafePointer<CChar>?, _ kind: UnsafeMutablePointer<Int32>?) -> encore_status {
    guarded {
        let t = try text(qr_code, "qr_code")
        try output(kind, "kind") { try CrowdNotifierQRCode.parse(t).kind == .swissCovid ? ENCORE_CROWDNOTIFIER_SWISSCOVID : ENCORE_CROWDNOTIFIER_NOTIFYME }
    }
}

// MARK: - The crypto (known answers, cross-checks, hosts' own use)

/// The identity (32 bytes) of the hour starting at `interval_start` (a
/// multiple of 3600) at the venue of a QRCodePayload's bytes.
@c public func encore_crowdnotifier_derive_identity(_ payload: UnsafePointer<UInt8>?, _ length: Int, _ interval_start: Int64, _ identity: UnsafeMutablePointer<UInt8>?, _ identity_length: Int) -> encore_status {
    guarded {
        let p = Array(try buffer(payload, length, "payload"))
        guard interval_start >= 0, interval_start % 3600 == 0 else { throw EncoreError(.invalidArgument, "interval_start must be a non-negative multiple of 3600") }
        try fill(identity, identity_length, CrowdNotifierCrypto.identity(payload: p, intervalStart: interval_start), "identity")
    }
}

/// Encrypts `message` to `identity` under a venue public key (96 bytes):
/// c1 (96) ‖ c2 (32) ‖ nonce (24) ‖ c3, in library memory for
/// encore_bytes_free(). ENCORE_ERR_CN_PUBLIC_KEY for a key that is not a
/// non-zero point of G2.
@c public func encore_crowdnotifier_encrypt(_ public_key: UnsafePointer<UInt8>?, _ public_key_length: Int, _ identity: UnsafePointer<UInt8>?, _ identity_length: Int, _ message: UnsafePointer<UInt8>?, _ message_length: Int, _ out: UnsafeMutablePointer<encore_bytes>?) -> encore_status {
    guarded {
        let key = Array(try buffer(public_key, public_key_length, "public_key"))
        let id = Array(try buffer(identity, identity_length, "identity")), m = Array(try buffer(message, message_length, "message"))
        _ = try required(out, "out")
        let c = try CrowdNotifierIBE.encrypt(publicKey: key, identity: id, message: m)
        try output(out, "out") { try (c.c1 + c.c2 + c.nonce + c.c3).withUnsafeBytes { try LibraryBytes.make(copying: $0) } }
    }
}

/// Decrypts c1 ‖ c2 ‖ nonce ‖ c3 with a trace key's secret key (48
/// bytes) for `identity`; the message in library memory for
/// encore_bytes_free(). ENCORE_ERR_TRACE_KEY_INVALID for a secret key that
/// is not a non-zero point of G1 (off the curve, outside the subgroup, the
/// identity, not 48 bytes); ENCORE_ERR_CN_NO_MATCH when it does not open
/// the ciphertext or the c1 re-check fails.
@c public func encore_crowdnotifier_decrypt(_ secret_key: UnsafePointer<UInt8>?, _ secret_key_length: Int, _ identity: UnsafePointer<UInt8>?, _ identity_length: Int, _ ciphertext: UnsafePointer<UInt8>?, _ ciphertext_length: Int, _ out: UnsafeMutablePointer<encore_bytes>?) -> encore_status {
    guarded {
        let sk = Array(try buffer(secret_key, secret_key_length, "secret_key")), id = Array(try buffer(identity, identity_length, "identity"))
        let c = Array(try buffer(ciphertext, ciphertext_length, "ciphertext"))
        _ = try required(out, "out")
        guard c.count >= 96 + 32 + 24 + 16 else { throw EncoreError(.cnNoMatch, "a ciphertext has at least 168 bytes, not \(c.count)") }
        let parts = CrowdNotifierCiphertext(c1: Array(c[0 ..< 96]), c2: Array(c[96 ..< 128]), c3: Array(c[152...]), nonce: Array(c[128 ..< 152]))
        let m = try CrowdNotifierIBE.decrypt(secretKey: sk, identity: id, parts)
        try output(out, "out") { try m.withUnsafeBytes { try LibraryBytes.make(copying: $0) } }
    }
}

// MARK: - The authority's side

/// A new venue: its master secret (32 bytes; keep it secret) and public
/// key (96 bytes) into the caller's buffers.
@c public func encore_crowdnotifier_keys_generate(_ secret: UnsafeMutablePointer<UInt8>?, _ secret_length: Int, _ public_key: UnsafeMutablePointer<UInt8>?, _ public_key_length: Int) -> encore_status {
    guarded {
        _ = try required(secret, "secret")
        _ = try required(public_key, "public_key")
        guard secret_length == 32, public_key_length == 96 else { throw EncoreError(.invalidArgument, "secret is 32 bytes and public_key 96") }
        let k = try CrowdNotifierAuthority.generateKeys()
        try fill(secret, secret_length, k.masterSecret, "secret")
        try fill(public_key, public_key_length, k.publicKey, "public_key")
    }
}

/// The public key (96 bytes) of a master secret (32 bytes);
/// ENCORE_ERR_CN_SECRET for one that is zero or not below r.
@c public func encore_crowdnotifier_derive_public_key(_ secret: UnsafePointer<UInt8>?, _ secret_length: Int, _ public_key: UnsafeMutablePointer<UInt8>?, _ public_key_length: Int) -> encore_status {
    guarded {
        let s = Array(try buffer(secret, secret_length, "secret"))
        _ = try required(public_key, "public_key")
        guard public_key_length == 96 else { throw EncoreError(.invalidArgument, "public_key is 96 bytes, not \(public_key_length)") }
        try fill(public_key, public_key_length, try CrowdNotifierAuthority.publicKey(masterSecret: s), "public_key")
    }
}

/// The QR code (URL text) of a venue: `kind` ENCORE_CROWDNOTIFIER_*, a
/// name (1..100 characters), an address, `start`/`end` 0 for a permanent
/// place, its public key (96 bytes); in library memory for encore_bytes_free().
@c public func encore_crowdnotifier_make_qr_code(_ kind: Int32, _ name: UnsafePointer<CChar>?, _ address: UnsafePointer<CChar>?, _ start: Int64, _ end: Int64, _ public_key: UnsafePointer<UInt8>?, _ public_key_length: Int, _ out: UnsafeMutablePointer<encore_bytes>?) -> encore_status {
    guarded {
        let k = try venueKind(kind)
        let n = try text(name, "name"), a = try text(address, "address")
        let key = Array(try buffer(public_key, public_key_length, "public_key"))
        _ = try required(out, "out")
        let payload = try CrowdNotifierAuthority.payload(description: n, address: a, start: start, end: end, publicKey: key, kind: k)
        try output(out, "out") { try LibraryBytes.make(CrowdNotifierQRCode.text(payload: payload, kind: k)) }
    }
}

/// The trace keys (a ProblematicEventWrapper) of the venue of `qr_code`
/// for [start, end] with `message`: one per hour touched, in the layout of
/// `layout` (ENCORE_CROWDNOTIFIER_SWISSCOVID: day + SwissCovid's HIGH
/// criticality; _NOTIFYME: start/end times); in library memory for
/// encore_bytes_free(). ENCORE_ERR_CN_SECRET when the secret is not the
/// venue's.
@c public func encore_crowdnotifier_make_trace_keys(_ secret: UnsafePointer<UInt8>?, _ secret_length: Int, _ qr_code: UnsafePointer<CChar>?, _ start: Int64, _ end: Int64, _ message: UnsafePointer<CChar>?, _ layout: Int32, _ out: UnsafeMutablePointer<encore_bytes>?) -> encore_status {
    guarded {
        let s = Array(try buffer(secret, secret_length, "secret"))
        let venue = try CrowdNotifierQRCode.parse(try text(qr_code, "qr_code"))
        let m = try text(message, "message")
        let l: CrowdNotifierTraceKey.Layout = try venueKind(layout) == .swissCovid ? .swissCovid : .notifyMe
        _ = try required(out, "out")
        guard try CrowdNotifierAuthority.publicKey(masterSecret: s) == venue.publicKey else {
            throw EncoreError(.cnSecret, "the master secret is not the one of this venue's public key")
        }
        let keys = try CrowdNotifierAuthority.traceKeys(masterSecret: s, payload: venue.payload, start: start, end: end, message: m,
                                                        criticality: l == .swissCovid ? 1 : nil, layout: l)
        try output(out, "out") { try CrowdNotifierTraceKeys.encode(keys).withUnsafeBytes { try LibraryBytes.make(copying: $0) } }
    }
}
