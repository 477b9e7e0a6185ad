import EncoreCheck
import EncoreCheckIns
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport

/// What woke the sync up.
public enum SyncTrigger: String, Sendable, CaseIterable {
    case periodic, push, appStart = "app-start", user
}

/// The network the device is on now.
public enum NetworkKind: String, Sendable, CaseIterable {
    case unmetered, metered, none
}

/// What the planner knows of past syncs (kept in the store).
public struct SyncState: Sendable, Equatable {
    /// The last CWA sync that completed, and the last attempt of any source.
    public var lastSuccess: Int64?
    public var lastAttempt: Int64?
    /// Syncs that failed in a row (any source); 0 after a success.
    public var failures = 0
    /// The newest day package in the cache ("YYYY-MM-DD").
    public var newestCachedDay: String?
    public var lastDaySyncFailed = false
    /// The configuration revoked a cached package since the last day sync.
    public var revocationPending = false
    /// DP-3T syncs that completed in the last 24 h.
    public var dp3tSyncs: [Int64] = []
    /// Per-store randomness for the backoff's jitter (devices must not retry in step).
    public var jitterSeed: UInt64 = 0
    /// The last trace-key (CrowdNotifier) sync that completed.
    public var lastTraceKeySync: Int64?
    /// SwissCovid or NotifyMe visits are stored (trace keys are fetched only then).
    public var crowdNotifierVisits = false
    /// The user is in isolation (no trace keys are fetched then).
    public var isolated = false
    /// Fetches of the app configuration that failed in a row, and the
    /// last attempt: the configuration backs off on its own while the
    /// packages are still synced (with the last verified configuration).
    public var configFailures = 0
    public var configLastAttempt: Int64?

    public init() {}
}

/// One thing a sync fetches (the packages follow from the indexes' answers).
public enum SyncStep: Sendable, Equatable {
    case appConfig
    case dayIndex
    /// Today's hour index (and its missing hours).
    case hourIndex(day: String)
    case dp3t
    /// CWA's trace warning packages (check-in warnings) not yet fetched.
    case traceWarnings
    /// CrowdNotifier trace keys since the bundle tag.
    case traceKeys

    public var name: String {
        switch self {
        case .appConfig: return "config"
        case .dayIndex: return "days"
        case .hourIndex: return "hours"
        case .dp3t: return "dp3t"
        case .traceWarnings: return "warnings"
        case .traceKeys: return "traceKeys"
        }
    }
}

/// What to fetch now, or nothing and when a sync is due.
public struct SyncPlan: Sendable, Equatable {
    public var steps: [SyncStep]
    /// When a scheduler should run the next sync (periodic trigger); nil
    /// without a network (any time one appears).
    public var nextDueAt: Int64?
    public var reason: String

    public var json: JSONValue {
        .object([("steps", .array(steps.map { s in
                    if case .hourIndex(let day) = s { return .object([("step", .string(s.name)), ("day", .string(day))]) }
                    return .object([("step", .string(s.name))])
                 })),
                 ("nextDueAt", .int(nextDueAt)), ("reason", .string(reason))])
    }
}

/// Which sources a client syncs.
public struct SyncSources: Sendable, Equatable {
    public var cwa: Bool
    public var dp3t: Bool
    /// CWA's trace warning packages, with the CWA sync.
    public var traceWarnings: Bool
    /// A CrowdNotifier trace-key backend.
    public var traceKeys: Bool

    public init(cwa: Bool, dp3t: Bool, traceWarnings: Bool = false, traceKeys: Bool = false) {
        self.cwa = cwa
        self.dp3t = dp3t
        self.traceWarnings = traceWarnings && cwa
        self.traceKeys = traceKeys
    }
}

/// The sync planner: a pure function of (state, now, trigger, network) that
/// a scheduler (WorkManager, BGTaskScheduler, a systemd timer, cron) can
/// call as often as it likes (../shared/spec/sync.md):
/// - CWA: at most hourly when periodic (Android's worker); the day index
///   only when the newest cached day is not yesterday, the last day sync
///   failed or a revocation happened; today's hour index unless metered.
/// - CWA's trace warning packages with the CWA sync (same cadence).
/// - DP-3T: at most 6 syncs in 24 h and at least 4 h apart when periodic.
/// - CrowdNotifier trace keys (SwissCovid iOS's rule): when the last sync is
///   over 2 h old, never without CrowdNotifier visits or in isolation.
/// - A push or the user syncs at once; nothing syncs without a network.
/// - Failures back off exponentially (5 min doubling to 6 h) with ±20 %
///   jitter, except for a push or the user. A configuration that cannot
///   be fetched or verified does not fail the sync: it backs off alone
///   (the same curve), and the packages are synced without it.
public enum SyncPlanner {
    public static let cwaInterval: Int64 = 3600
    public static let dp3tGap: Int64 = 4 * 3600
    public static let dp3tPerDay = 6
    public static let traceKeyInterval: Int64 = 2 * 3600
    public static let backoffBase: Int64 = 300
    public static let backoffCap: Int64 = 6 * 3600
    /// A whole sync stops cleanly after this long (Android's 480 s) and
    /// the next one resumes.
    public static let budgetSeconds: Int64 = 480

    /// Total over any state and clock: times saturate at Int64's ends (a
    /// due time past the end is "never", not a wrapped time in the past).
    public static func plan(_ s: SyncState, now: Int64, trigger: SyncTrigger, network: NetworkKind, sources: SyncSources) -> SyncPlan {
        guard network != .none else { return SyncPlan(steps: [], nextDueAt: nil, reason: "no network: sync when one is available") }
        let forced = trigger == .push || trigger == .user
        if !forced, s.failures > 0, let last = s.lastAttempt {
            let retry = last.saturatingAdding(backoff(failures: s.failures, seed: s.jitterSeed))
            if now < retry {
                return SyncPlan(steps: [], nextDueAt: retry, reason: "backing off after \(s.failures) failed sync\(s.failures == 1 ? "" : "s")")
            }
        }
        var steps: [SyncStep] = []
        var due: [Int64] = []
        var why: [String] = []
        let today = UTCTime.day(seconds: now) ?? ""
        if sources.cwa {
            let cwaDue = s.lastSuccess.map { $0.saturatingAdding(cwaInterval) } ?? now
            if forced || now >= cwaDue {
                if !forced, s.configFailures > 0, let last = s.configLastAttempt,
                   now < last.saturatingAdding(backoff(failures: s.configFailures, seed: s.jitterSeed)) {
                    why.append("the configuration is backing off after \(s.configFailures) failed fetch\(s.configFailures == 1 ? "" : "es")")
                } else {
                    steps.append(.appConfig)
                }
                let yesterday = UTCTime.day(seconds: now.saturatingSubtracting(UnixTime.day))
                if s.newestCachedDay != yesterday || s.lastDaySyncFailed || s.revocationPending { steps.append(.dayIndex) }
                if network == .unmetered { steps.append(.hourIndex(day: today)) } else { why.append("metered: no hour packages") }
                if sources.traceWarnings { steps.append(.traceWarnings) }
                due.append(now.saturatingAdding(cwaInterval))
            } else {
                due.append(cwaDue)
            }
        }
        if sources.dp3t {
            let recent = s.dp3tSyncs.filter { $0 > now.saturatingSubtracting(UnixTime.day) }.sorted()
            var dp3tDue = recent.last.map { $0.saturatingAdding(dp3tGap) } ?? now
            if recent.count >= dp3tPerDay, let oldest = recent.first { dp3tDue = max(dp3tDue, oldest.saturatingAdding(UnixTime.day)) }
            if forced || now >= dp3tDue {
                steps.append(.dp3t)
                due.append(now.saturatingAdding(dp3tGap))
            } else {
                due.append(dp3tDue)
            }
        }
        if sources.traceKeys {
            if !s.crowdNotifierVisits {
                why.append("no SwissCovid or NotifyMe check-ins: no trace keys")
            } else if s.isolated {
                why.append("in isolation: no trace keys")
            } else {
                let traceDue = s.lastTraceKeySync.map { $0.saturatingAdding(traceKeyInterval) } ?? now
                if forced || now >= traceDue {
                    steps.append(.traceKeys)
                    due.append(now.saturatingAdding(traceKeyInterval))
                } else {
                    due.append(traceDue)
                }
            }
        }
        let reason = (steps.isEmpty ? "nothing due" : "\(trigger.rawValue) sync") + (why.isEmpty ? "" : "; " + why.joined(separator: "; "))
        return SyncPlan(steps: steps, nextDueAt: due.min(), reason: reason)
    }

    /// base × 2^(failures − 1), capped, times a jitter of 0.8...1.2 drawn
    /// from the store's seed and the failure count. Total: a count below 1
    /// (which the store never keeps) backs off as one failure does.
    public static func backoff(failures: Int, seed: UInt64) -> Int64 {
        let doublings = failures > 1 ? min(failures - 1, 20) : 0
        let plain = min(backoffCap, backoffBase << Int64(doublings))
        var x = seed &+ UInt64(truncatingIfNeeded: failures) &* 0x9E37_79B9_7F4A_7C15
        x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
        x ^= x >> 31
        let jitter = 0.8 + 0.4 * Double(x >> 11) / Double(1 << 53)
        return Int64(Double(plain) * jitter)
    }
}
