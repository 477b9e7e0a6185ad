import EncoreCrowdNotifier
import EncoreCrypto
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreWire

/// What matching one body of trace keys did.
public struct TraceKeyMatchOutcome: Sendable, Equatable {
    /// Events in the body, and those skipped (fields of the wrong shape).
    public var events: Int
    public var skipped: Int
    /// Keys of a day with visits whose secret key is not a usable point.
    public var invalidKeys: Int
    /// Pairings computed: (key, visit hour) pairs of the same day whose key
    /// can open the hour (its identity is the venue's for an hour of that day).
    public var pairings: Int
    /// Every match, and those not stored before: the ones to notify (each
    /// (visit, trace key) once, however often the keys come again).
    public var matches: [CrowdNotifierExposure]
    public var new: [CrowdNotifierExposure]
}

/// CrowdNotifier venues in the check-in list: checking in (each hour of
/// the visit encrypted to the hour's identity under the venue's key), new
/// times re-encrypted, trace keys matched by day and identity into the store.
extension CheckInService {
    /// The setting under which the trace keys' bundle tag is kept (was
    /// "sync.crowdnotifier.bundleTag": a step of the tables renames it).
    public static let traceKeyBundleTagSetting = "checkins.crowdnotifier.bundleTag"

    static func kind(_ k: CrowdNotifierVenue.Kind) -> CheckInKind { k == .swissCovid ? .swissCovid : .notifyMe }

    static func hours(_ venue: CrowdNotifierVenue, arrival: Int64, departure: Int64) throws -> [CrowdNotifierVisitHour] {
        try CrowdNotifierMatcher.encryptVisit(venue, arrival: arrival, departure: departure)
    }

    /// Checks in at a SwissCovid or NotifyMe venue (its QR code parsed
    /// already). An open visit is encrypted until its automatic end, and
    /// again when it closes or its times change. A private check-in keeps
    /// what the SDKs keep: its hours (the day, c1, c2, c3, the nonce) and,
    /// in its row, its kind and times; nothing of the venue.
    func checkIn(venue: CrowdNotifierVenue, start: Int64, end: Int64?, now: Int64, isPrivate: Bool = false) throws -> CheckIn {
        guard start >= 0 else { throw EncoreError(.checkInTimes, "a check-in cannot start before 1970 (\(start))") }
        let autoEnd = try CheckIn.automaticEnd(start: start, length: venue.location.crowdNotifierAutomaticLength(checkInAt: start))
        if let end, end < start { throw EncoreError(.checkInTimes, "a check-in cannot end before it starts") }
        let l = venue.location
        var c = isPrivate
            ? CheckIn.privateVisit(kind: Self.kind(venue.kind), start: start, end: end, autoEnd: autoEnd, created: now)
            : CheckIn(locationId: l.locationId, locationIdHash: l.locationIdHash, payload: l.payload, description: l.description,
                      address: l.address, start: start, end: end, autoEnd: autoEnd, created: now, kind: Self.kind(venue.kind))
        c.id = try store.addCrowdNotifierCheckIn(c, hours: Self.hours(venue, arrival: start, departure: end ?? autoEnd))
        return c
    }

    /// The venue a CrowdNotifier check-in's hours are made for: from its
    /// stored payload, or (a private one, which has none) from `qrCode`,
    /// which must then be given and of the check-in's app. Nothing kept can
    /// tell whether it is the venue first scanned: a check that could would
    /// let anyone holding a venue's poster test the store for a visit.
    func venue(of c: CheckIn, qrCode: String?) throws -> CrowdNotifierVenue {
        let kind: CrowdNotifierVenue.Kind = c.kind == .swissCovid ? .swissCovid : .notifyMe
        guard let qrCode else {
            guard !c.isPrivate else {
                throw EncoreError(.checkInQRRequired, "check-in \(c.id) is private: it kept nothing of its venue, so checking out or editing it needs the venue's QR code again")
            }
            return try CrowdNotifierQRCode.venue(payload: c.payload, kind: kind)
        }
        guard CrowdNotifierQRCode.kind(of: qrCode) == kind else {
            throw EncoreError(.checkInQRMismatch, "check-in \(c.id) is a \(c.kind.name) check-in: the QR code is not one of its app")
        }
        let venue = try CrowdNotifierQRCode.parse(qrCode)
        if !c.isPrivate, venue.payload != c.payload {
            throw EncoreError(.checkInQRMismatch, "the QR code is not the one of check-in \(c.id)")
        }
        return venue
    }

    /// New times for a CrowdNotifier check-in: its hours made again for `venue`.
    func updateCrowdNotifier(_ c: CheckIn, start: Int64, end: Int64?, venue: CrowdNotifierVenue) throws {
        guard start >= 0 else { throw EncoreError(.checkInTimes, "the check-in's start (\(start)) is out of range") }
        let autoEnd = try CheckIn.automaticEnd(start: start, length: c.autoEnd - c.start)
        if let end, end < start { throw EncoreError(.checkInTimes, "a check-in cannot end before it starts") }
        try store.updateCrowdNotifierCheckIn(id: c.id, start: start, end: end, autoEnd: autoEnd,
                                             hours: Self.hours(venue, arrival: start, departure: end ?? autoEnd))
    }

    /// Trace keys a host fetched itself, verified as the sync verifies them:
    /// `signature` is the answer's `Signature` header, a JWT that must
    /// verify with the backend's `key` and whose content hash must be the
    /// body's SHA-256; then matched as matchTraceKeys(_:contentHash:) does.
    public func matchSignedTraceKeys(_ body: [UInt8], signature: String, key: PublicKey, bundleTag: String? = nil,
                                     now: Int64, threads: Int = 0, progress: ProgressHandler? = nil) throws -> TraceKeyMatchOutcome {
        try matchTraceKeys(body, contentHash: try JWS.signedContentHash(signature, key: key), bundleTag: bundleTag, now: now,
                           threads: threads, progress: progress)
    }

    /// The seam of the trace-key sync: a body of `GET /v3/traceKeys` (a
    /// ProblematicEventWrapper; its JWT checked by the caller: the sync, or
    /// matchSignedTraceKeys, which passes the JWT's content hash as
    /// `contentHash`, checked against the body's SHA-256) matched against the stored
    /// visits by day and identity; matches stored once per (visit, identity). When
    /// `bundleTag` is given it is stored after the body was processed.
    /// `threads` and `progress` as CrowdNotifierMatcher.match takes them; a
    /// cancelled match stores nothing (expired visits are still removed
    /// first, as every call does).
    public func matchTraceKeys(_ body: [UInt8], contentHash: [UInt8]? = nil, bundleTag: String? = nil, now: Int64,
                               threads: Int = 0, progress: ProgressHandler? = nil) throws -> TraceKeyMatchOutcome {
        try UnixTime.checkNow(now, "trace-key matching")
        guard threads >= 0, threads <= Parallel.maxThreads else {   // the key files' limit
            throw EncoreError(.invalidArgument, "threads is \(threads): 0 (one per core) to \(Parallel.maxThreads)")
        }
        if let contentHash, contentHash != Digest.sha256(body) {
            throw EncoreError(.traceKeysContentHash, "the trace keys' SHA-256 is not the content hash of their signature")
        }
        let batch = try CrowdNotifierTraceKeys.parse(body)
        try housekeeping(now: now)
        let days = Set(batch.keys.map(\.day))
        let hours = try store.crowdNotifierHours(days: days)
        // The check-ins' QR payloads: each key is then paired only with the
        // hours its identity can open.
        let outcome = try CrowdNotifierMatcher.match(keys: batch.keys, hours: hours, payloads: try store.crowdNotifierPayloads(),
                                                     threads: threads, progress: progress)
        // A private visit's match is kept (and reported) under its trace
        // key's tag, not the identity, which would name the venue.
        let privateVisits = Set(try store.checkIns().filter(\.isPrivate).map(\.id))
        let matches = zip(outcome.exposures, outcome.traceKeyTags).map { e, tag -> CrowdNotifierExposure in
            var e = e
            if privateVisits.contains(e.checkIn) { e.identity = tag }
            return e
        }
        let new = try store.addCrowdNotifierExposures(matches, created: now)
        if let bundleTag { try store.setSetting(Self.traceKeyBundleTagSetting, to: .text(bundleTag)) }
        return TraceKeyMatchOutcome(events: batch.events, skipped: batch.skipped, invalidKeys: outcome.invalidKeys, pairings: outcome.pairings,
                                    matches: matches, new: new)
    }

    /// The bundle tag stored by the last trace-key body processed (nil: fetch everything).
    public func traceKeyBundleTag() throws -> String? {
        if case .text(let t)? = try store.setting(Self.traceKeyBundleTagSetting) { return t }
        return nil
    }

    /// The stored CrowdNotifier matches, newest day first.
    public func crowdNotifierExposures() throws -> [CrowdNotifierExposure] {
        try store.crowdNotifierExposures()
    }
}
