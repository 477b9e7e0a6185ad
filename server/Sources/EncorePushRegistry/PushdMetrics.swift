import CoreMetrics
import EncorePush

/// The service's metrics, through swift-metrics (exported by
/// `encore-pushd` in Prometheus' text format on a listener of their own;
/// without one, swift-metrics' no-op backend). Every label set is fixed
/// and small: no token, address or free text becomes a label.
public enum PushdMetrics {
    // The fixed label sets' handles are made once, at first use (after
    // the backend is bootstrapped at start): a request then costs an atomic
    // add, not a look-up in the backend's registry.
    static let registrationOutcomes = handles(["inserted", "updated", "takeover_refused", "deleted", "nothing_to_delete"]) {
        Counter(label: "encore_pushd_registrations_total", dimensions: [("outcome", $0)])
    }
    static let refusalReasons = handles(["rate_limited", "too_large", "media_type", "unauthorized", "bad_version", "bad_message",
                                         "bad_token", "storage_unavailable"]) {
        Counter(label: "encore_pushd_refusals_total", dimensions: [("reason", $0)])
    }
    static let storageOperations = handles(["apply", "claim", "finish", "expire", "count_due", "ping"]) {
        Timer(label: "encore_pushd_storage_seconds", dimensions: [("operation", $0)])
    }

    static func handles<T>(_ names: [String], _ make: (String) -> T) -> [String: T] {
        Dictionary(uniqueKeysWithValues: names.map { ($0, make($0)) })
    }

    /// Registration requests carried out, by what they did.
    public static func registration(_ plan: RegistrationPlan) {
        let outcome: String
        switch plan {
        case .insert: outcome = "inserted"
        case .update: outcome = "updated"
        case .ignore: outcome = "takeover_refused"
        case .delete: outcome = "deleted"
        case .none: outcome = "nothing_to_delete"
        }
        registrationOutcomes[outcome]?.increment()
    }

    /// Requests refused, by reason (`RegistryAnswer.reason`, one of `refusalReasons`).
    public static func refusal(_ reason: String) {
        (refusalReasons[reason] ?? Counter(label: "encore_pushd_refusals_total", dimensions: [("reason", reason)])).increment()
    }

    /// Pushes, by APNs' answer: its status and reason (letters only, at most
    /// 40: APNs' reasons are a short fixed list; anything else is "other").
    public static func push(status: Int, reason: String?) {
        var answer = String(status)
        if let reason {
            let ok = reason.utf8.count <= 40 && reason.utf8.allSatisfy { ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z") }
            answer += " " + (ok ? reason : "other")
        }
        Counter(label: "encore_pushd_pushes_total", dimensions: [("answer", answer)]).increment()
    }

    /// One pass of a sender over the due tokens (a round's work, or part of it).
    public static func pass(seconds: Double) {
        Timer(label: "encore_pushd_round_duration_seconds").recordNanoseconds(Int64(max(0, seconds) * 1e9))
    }

    /// Tokens due and not pushed yet in the current round.
    public static func queueDepth(_ due: Int) {
        Gauge(label: "encore_pushd_queue_depth").record(due)
    }

    /// Seconds from `start` to now.
    public static func seconds(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// One storage operation's time, by operation.
    public static func storage(_ operation: String, seconds: Double) {
        (storageOperations[operation] ?? Timer(label: "encore_pushd_storage_seconds", dimensions: [("operation", operation)]))
            .recordNanoseconds(Int64(max(0, seconds) * 1e9))
    }
}

/// A store that times every operation (PushdMetrics.storage): the
/// back-ends stay free of metrics.
public struct MeteredStore: RegistryStore {
    public let inner: any RegistryStore

    public init(_ inner: any RegistryStore) { self.inner = inner }

    private func timed<T>(_ operation: String, _ body: () async throws -> T) async throws -> T {
        let start = ContinuousClock.now
        defer { PushdMetrics.storage(operation, seconds: PushdMetrics.seconds(since: start)) }
        return try await body()
    }

    public func apply(_ registration: PushRegistration, now: Int64) async throws -> RegistrationPlan {
        try await timed("apply") { try await inner.apply(registration, now: now) }
    }

    public func claim(_ request: ClaimRequest) async throws -> [DueToken] {
        try await timed("claim") { try await inner.claim(request) }
    }

    public func finish(_ results: [PushResult], owner: String) async throws {
        try await timed("finish") { try await inner.finish(results, owner: owner) }
    }

    public func expire(renewedBefore: Int64) async throws -> Int {
        try await timed("expire") { try await inner.expire(renewedBefore: renewedBefore) }
    }

    public func countDue(pushedBefore: Int64, renewedAfter: Int64) async throws -> Int {
        try await timed("count_due") { try await inner.countDue(pushedBefore: pushedBefore, renewedAfter: renewedAfter) }
    }

    public func ping() async throws {
        try await timed("ping") { try await inner.ping() }
    }

    public func close() async { await inner.close() }
}
