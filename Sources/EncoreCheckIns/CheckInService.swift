import EncoreCrowdNotifier
import EncoreCrypto
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreWire

/// What matching one trace warning package did.
public struct WarningPackageOutcome: Sendable, Equatable {
    public var scan: WarningScan
    /// Warnings stored for the first time (matching a package again adds none).
    public var added: Int
    public var signature: SignatureOutcome.Status
}

/// The user's check-ins over the store: checking in from a QR code, out,
/// editing, deleting and listing (closing visits whose automatic end has
/// come, purging those past the retention), matching published warnings
/// into the store, and their presence-tracing risk.
public struct CheckInService: Sendable {
    public let store: Store

    public init(store: Store) { self.store = store }

    /// Check-ins are kept this long after they end, counted from today's UTC
    /// midnight (CWA's maxCheckInAgeInDays).
    public static let retentionSeconds: Int64 = 10 * UnixTime.day

    /// Checks in at the location of a CWA QR code (parsed and checked first:
    /// the QR statuses). Without `end` the user stays checked in until the
    /// location's automatic length has passed. `isPrivate` (CrowdNotifier
    /// venues only: a CWA check-in is matched by its location id, so it
    /// must keep it) keeps nothing of the venue: see checkIn(venue:...).
    public func checkIn(qrCode: String, start: Int64, end: Int64? = nil, now: Int64, isPrivate: Bool = false) throws -> CheckIn {
        try UnixTime.checkNow(now, "check-in")
        // SwissCovid and NotifyMe venues (CrowdNotifier) join the same list.
        if CrowdNotifierQRCode.kind(of: qrCode) != nil {
            return try checkIn(venue: CrowdNotifierQRCode.parse(qrCode), start: start, end: end, now: now, isPrivate: isPrivate)
        }
        let location = try CheckInQRCode.parse(qrCode)
        guard !isPrivate else {
            throw EncoreError(.invalidArgument, "a CWA check-in cannot be private: its warnings are found by its location id, which it keeps")
        }
        guard start >= 0 else { throw EncoreError(.checkInTimes, "a check-in cannot start before 1970 (\(start))") }
        let autoEnd = try CheckIn.automaticEnd(start: start, length: location.defaultCheckInSeconds)
        var c = CheckIn(locationId: location.locationId, locationIdHash: location.locationIdHash, payload: location.payload,
                              description: location.description, address: location.address, start: start, end: end, autoEnd: autoEnd, created: now)
        c.id = try store.addCheckIn(c)
        return c
    }

    /// Checks out: sets the end (not before the start). `qrCode`: the
    /// venue's QR code, which a private check-in needs (it kept none:
    /// checkInQRRequired without it, the check-in unchanged); given for
    /// another check-in it must be that check-in's (checkInQRMismatch).
    public func checkOut(id: Int64, end: Int64, qrCode: String? = nil) throws {
        guard let c = try store.checkIn(id: id) else { throw EncoreError(.notFound, "no check-in \(id)") }
        try update(c, start: c.start, end: end, qrCode: qrCode)
    }

    /// Sets both times (end nil: checked in again); `qrCode` as for checkOut.
    public func edit(id: Int64, start: Int64, end: Int64?, qrCode: String? = nil) throws {
        guard let c = try store.checkIn(id: id) else {
            // As before: the store names the unknown id.
            return try store.updateCheckInTimes(id: id, start: start, end: end)
        }
        try update(c, start: start, end: end, qrCode: qrCode)
    }

    private func update(_ c: CheckIn, start: Int64, end: Int64?, qrCode: String?) throws {
        guard c.kind != .cwa else {
            if let qrCode, try CheckInQRCode.parse(qrCode).payload != c.payload {
                throw EncoreError(.checkInQRMismatch, "the QR code is not the one of check-in \(c.id)")
            }
            return try store.updateCheckInTimes(id: c.id, start: start, end: end)
        }
        try updateCrowdNotifier(c, start: start, end: end, venue: venue(of: c, qrCode: qrCode))
    }

    @discardableResult
    public func delete(id: Int64) throws -> Bool { try store.deleteCheckIn(id: id) }

    /// The check-ins, oldest first, after closing the expired and purging the old.
    public func list(now: Int64) throws -> [CheckIn] {
        try housekeeping(now: now)
        return try store.checkIns()
    }

    /// Closes open check-ins whose automatic end has come and deletes those
    /// that ended before the UTC midnight `retention` before today's: the
    /// cut-off of the risk calculation (CWA's CheckInAgeFilter), so that a
    /// check-in it keeps (one ending exactly at that midnight) is still there.
    public func housekeeping(now: Int64, retention: Int64 = CheckInService.retentionSeconds) throws {
        try UnixTime.checkNow(now, "check-in housekeeping")
        try store.closeExpiredCheckIns(now: now)
        try store.purgeCheckIns(now: now, maxAge: retention + (now - UnixTime.utcMidnight(now)))
    }

    /// The seam for the sync of warnings: a trace warning package as
    /// downloaded (zip + export.sig, or empty for "no warnings"), verified
    /// with `trust` as key files are, matched against the stored check-ins
    /// (the user's own submitted ones are ignored), its warnings for them
    /// stored. Reports that fail are skipped and counted, never fatal.
    public func matchWarningPackage(_ bytes: [UInt8], trust: TrustList?, verify: Bool = true, limits: ZipLimits = .default,
                                    now: Int64) throws -> WarningPackageOutcome {
        let package = try SignedPackage(bytes: bytes, trust: trust, verify: verify, limits: limits)
        var outcome = try matchWarnings(payload: package.payload, now: now)
        outcome.signature = package.signature.status
        return outcome
    }

    /// Matches a TraceWarningPackage's bytes (export.bin, already verified).
    public func matchWarnings(payload: [UInt8], now: Int64) throws -> WarningPackageOutcome {
        try housekeeping(now: now)
        let candidates = try store.checkIns().filter { !$0.submitted && $0.kind == .cwa }
        let index = try LocationIndex(checkIns: candidates.map { (id: $0.id, locationId: $0.locationId) })
        guard !payload.isEmpty else { return WarningPackageOutcome(scan: WarningScan(), added: 0, signature: .skipped) }
        let scan = try payload.withUnsafeBytes { try TraceWarningScanner.scan(payload: $0, index: index) }
        let digest = Digest.sha256(payload)
        var rows: [CheckInWarning] = []
        for m in scan.matches {
            for id in index.entries[m.entry].checkIns {
                rows.append(CheckInWarning(checkIn: id, package: digest, item: Int64(m.item), startInterval: m.startInterval,
                                           period: m.period, transmissionRiskLevel: m.transmissionRiskLevel))
            }
        }
        let added = try store.addCheckInWarnings(rows)
        return WarningPackageOutcome(scan: scan, added: added, signature: .skipped)
    }

    /// The presence-tracing risk of the stored warnings (reads only).
    public func assessment(configuration: PresenceTracingRiskConfiguration, now: Int64) throws -> PresenceTracingAssessment {
        let checkIns = try store.checkIns().filter { !$0.submitted }
        let visits = checkIns.map { CheckInVisit(id: $0.id, locationIdHash: $0.locationIdHash, span: TimeSpan(start: $0.start, end: $0.effectiveEnd)) }
        return try PresenceTracingRisk.assess(visits: visits, warnings: try store.checkInWarnings(), configuration: configuration, now: now)
            .adding(crowdNotifier: crowdNotifierExposures())
    }
}

extension CheckIn {
    /// The one JSON form of a check-in (`encore checkin list --json`). A
    /// private visit shows its times and kind only.
    public var json: JSONValue {
        if isPrivate {
            return .object([
                ("id", .int(id)), ("start", .int(start)), ("end", .int(end)), ("autoEnd", .int(autoEnd)), ("submitted", .bool(submitted)),
                ("kind", .string(kind.name)), ("private", .bool(true)),
            ])
        }
        return .object([
            ("id", .int(id)),
            ("description", .string(description)),
            ("address", .string(address)),
            ("start", .int(start)),
            ("end", .int(end)),
            ("autoEnd", .int(autoEnd)),
            ("submitted", .bool(submitted)),
            ("locationIdHash", .string(Hex.encode(locationIdHash))),
            ("kind", .string(kind.name)),
            ("private", .bool(false)),
        ])
    }
}
