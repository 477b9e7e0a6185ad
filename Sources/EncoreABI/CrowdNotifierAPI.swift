// The C functions of CrowdNotifier v3 check-ins (SwissCovid, NotifyMe; issue 17).
// Checking in at their QR codes goes through encore_checkin_add().
import CEncoreTypes
import EncoreCheck
import EncoreCheckIns
import EncoreClient
import EncoreCrowdNotifier
import EncoreCrypto
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncorePush
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreSync
import EncoreTestResults
import EncoreTracing
import EncoreWire

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

// MARK: - Trace keys (the client's side)

/// Writes the default trace-key match options to *options (pass sizeof
/// *options): one thread per core, no progress.
@c public func encore_trace_key_match_options_init(_ options: UnsafeMutablePointer<encore_trace_key_match_options>?, _ struct_size: Int) -> encore_status {
    initOptions(options, "options", struct_size) { _ in }
}

/// Trace keys the host fetched itself (a body of GET /v3/traceKeys: a
/// ProblematicEventWrapper, either layout of ProblematicEvent), verified as
/// the sync verifies them: `signature` is the answer's `Signature` header, a
/// JWT that must verify with the client's CrowdNotifier key
/// (encore_client_options.crowdnotifier_public_key; ENCORE_ERR_SIGNATURE_*
/// otherwise) and whose content hash must be the body's SHA-256
/// (ENCORE_ERR_TRACE_KEYS_CONTENT_HASH). The keys are then matched against
/// the stored SwissCovid and NotifyMe check-ins by day and identity (a key
/// is paired only with the hours of a visit whose venue has its identity
/// that day: the outcome of pairing every same-day pair, as the SDKs do,
/// at a fraction of the cost), at the client's time. Matches are stored
/// once per (visit, trace key); summary->new_matches counts the ones to
/// notify. `bundle_tag` (the answer's x-key-bundle-tag; may be NULL: keep
/// the stored one) is stored after the body was processed.
/// ENCORE_ERR_TRACE_KEYS_MALFORMED, _TOO_LARGE for bodies that cannot be
/// used; events of a wrong shape and keys that are not points of G1 are
/// skipped and counted. `summary` may be NULL. The same as
/// encore_crowdnotifier_match_trace_keys_with_options() with NULL options.
@c public func encore_crowdnotifier_match_trace_keys(_ client: encore_client_ptr?, _ body: UnsafePointer<UInt8>?, _ length: Int, _ signature: UnsafePointer<CChar>?, _ bundle_tag: UnsafePointer<CChar>?, _ summary: UnsafeMutablePointer<encore_trace_key_match_summary>?) -> encore_status {
    encore_crowdnotifier_match_trace_keys_with_options(client, body, length, signature, bundle_tag, nil, summary)
}

/// encore_crowdnotifier_match_trace_keys() with options (NULL: the
/// defaults): the threads the matching runs on, and a progress callback
/// that may cancel (ENCORE_ERR_CANCELLED). A cancelled match stores neither
/// matches nor the bundle tag (expired visits are still removed, as every
/// call removes them first).
@c public func encore_crowdnotifier_match_trace_keys_with_options(_ client: encore_client_ptr?, _ body: UnsafePointer<UInt8>?, _ length: Int, _ signature: UnsafePointer<CChar>?, _ bundle_tag: UnsafePointer<CChar>?, _ options: UnsafePointer<encore_trace_key_match_options>?, _ summary: UnsafeMutablePointer<encore_trace_key_match_summary>?) -> encore_status {
    guarded {
        let c = try borrow(client, as: EncoreClient.self, "client")
        let bytes = Array(try buffer(body, length, "body"))
        let token = try text(signature, "signature")
        let tag = try bundle_tag.map { try text($0, "bundle_tag") }
        // Only the caller's struct_size bytes are read.
        let given = try readInput(options, "options")
        let threads = Int(given?.threads ?? 0)
        let progress = progressHandler(given?.progress, given?.progress_context)
        guard let key = c.servers.crowdNotifierKey else {
            throw EncoreError(.invalidArgument, "the client has no CrowdNotifier key (encore_client_options.crowdnotifier_public_key)")
        }
        // The summary's size is checked before the store changes.
        if let summary { try checkOutput(summary, "summary") }
        let o = try CheckInService(store: c.store).matchSignedTraceKeys(bytes, signature: token, key: key, bundleTag: tag, now: try c.now(),
                                                                        threads: threads, progress: progress)
        if summary != nil {
            var m = encore_trace_key_match_summary()
            m.events = UInt64(o.events)
            m.skipped = UInt64(o.skipped)
            m.invalid_keys = UInt64(o.invalidKeys)
            m.pairings = UInt64(o.pairings)
            m.matches = UInt64(o.matches.count)
            m.new_matches = UInt64(o.new.count)
            try writeOutput(m, to: summary, "summary")
        }
    }
}

/// The bundle tag stored with the last trace-key body (for
/// ?lastKeyBundleTag=), in library memory for encore_bytes_free();
/// ENCORE_ERR_NOT_FOUND when none is stored (fetch everything).
@c public func encore_crowdnotifier_get_bundle_tag(_ client: encore_client_ptr?, _ out: UnsafeMutablePointer<encore_bytes>?) -> encore_status {
    guarded {
        let s = try clientStore(client)
        _ = try required(out, "out")
        guard let tag = try CheckInService(store: s).traceKeyBundleTag() else { throw EncoreError(.notFound, "no trace-key bundle tag is stored") }
        try output(out, "out") { try LibraryBytes.make(tag) }
    }
}

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
