// encore.h section: crowdnotifier, part 1
// The C functions that match CrowdNotifier trace keys against the visits in
// a client's store (issue 17); the store-free rest of CrowdNotifier:
// CrowdNotifierAPI.swift.
import CEncoreTypes
import EncoreCheckIns
import EncoreClient
import EncoreSupport

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
