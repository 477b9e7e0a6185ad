import EncoreCheckIns
import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreSupport

/// A positive user's check-ins as CheckInProtectedReports for
/// SubmissionPayload field 8 (../shared/spec/checkins.md): each visit's
/// times derived as CWA derives them (too short: dropped; aerosol decay
/// added; aligned to 10-minute intervals), split at UTC midnight, each part
/// given the transmission risk level of its day's age from the same vector
/// as keys, parts whose transmission risk value is 0 dropped, at most
/// `maxPerDay` a day (the longest), encrypted under the location's keys
/// with a fresh IV, and shuffled.
public enum CheckInSubmission {
    public static let maxPerDay = 20

    /// A report and what it says (for `encore checkin report`).
    public struct Report: Sendable, Equatable {
        public var checkIn: Int64
        public var startInterval: UInt32
        public var period: UInt32
        public var transmissionRiskLevel: UInt32
        public var protected: SubmissionPayload.ProtectedReport

        public var json: JSONValue {
            .object([
                ("checkin", .int(checkIn)),
                ("locationIdHash", .string(Hex.encode(protected.locationIdHash))),
                ("startIntervalNumber", .int(Int64(startInterval))),
                ("period", .int(Int64(period))),
                ("start", .string(UTCTime.iso8601(seconds: Int64(startInterval) * UTCTime.intervalSeconds))),
                ("transmissionRiskLevel", .int(Int64(transmissionRiskLevel))),
                ("iv", .string(Hex.encode(protected.iv))),
                ("encryptedCheckInRecord", .string(Hex.encode(protected.encryptedCheckInRecord))),
                ("mac", .string(Hex.encode(protected.mac))),
            ])
        }
    }

    /// `{"reports": [...]}`: what `encore checkin report --json` prints.
    public static func json(_ reports: [Report]) -> JSONValue { .object([("reports", .array(reports.map(\.json)))]) }

    /// The check-ins a submission at `now` shares (the user consents to
    /// share these): CWA check-ins not submitted before that have begun.
    /// All of them are marked submitted afterwards, also those the time
    /// rules leave without a report (too short, too old): CWA's apps do the
    /// same, and never match warnings against them.
    public static func shared(_ checkIns: [CheckIn], now: Int64) -> [CheckIn] {
        checkIns.filter { !$0.submitted && $0.start < now && $0.kind == .cwa }
    }

    /// The reports of `checkIns` not submitted before, as a submission at
    /// `now` sends them. An open check-in counts until now (or its automatic end).
    public static func reports(_ checkIns: [CheckIn], now: Int64, symptoms: Symptoms,
                               parameters: CheckInSubmissionParameters = .cwa,
                               risk: PresenceTracingRiskConfiguration? = .cwa) throws -> [Report] {
        try UnixTime.checkNow(now, "check-in reports")
        guard let risk else { throw EncoreError(.internalError, "the built-in presence-tracing parameters do not parse") }
        let today = UnixTime.utcMidnight(now) / UnixTime.day
        var byDay: [Int64: [Report]] = [:]
        for c in shared(checkIns, now: now) {
            let visit = TimeSpan(start: c.start, end: min(c.effectiveEnd, now))
            guard let derived = try parameters.derive(visit) else { continue }
            let keys = CheckInCrypto.Keys(locationId: c.locationId)
            for part in derived.splitAtUTCMidnight() {
                let day = UnixTime.utcMidnight(part.start) / UnixTime.day
                let trl = KeyEnrichment.values(keyDay: day, today: today, symptoms: symptoms).trl
                guard trl > 0, risk.transmissionRiskValue(UInt32(trl)) > 0 else { continue }
                let start = part.start / UTCTime.intervalSeconds, period = (part.end - part.start) / UTCTime.intervalSeconds
                guard period > 0, let s = UInt32(exactly: start), let p = UInt32(exactly: period) else { continue }
                let record = CheckInRecordCodec.encode(startInterval: s, period: p, transmissionRiskLevel: UInt32(trl))
                let iv = try SecureRandom.bytes(CheckInCrypto.ivBytes)
                let sealed = try CheckInCrypto.encrypt(record: record, keys: keys, iv: iv)
                byDay[day, default: []].append(Report(
                    checkIn: c.id, startInterval: s, period: p, transmissionRiskLevel: UInt32(trl),
                    protected: SubmissionPayload.ProtectedReport(locationIdHash: c.locationIdHash, iv: iv, encryptedCheckInRecord: sealed.ciphertext, mac: sealed.mac)))
            }
        }
        // The longest visits of a crowded day; ties in random order.
        var out = byDay.values.flatMap { $0.shuffled().sorted { $0.period > $1.period }.prefix(maxPerDay) }
        out.shuffle()
        return out
    }
}
