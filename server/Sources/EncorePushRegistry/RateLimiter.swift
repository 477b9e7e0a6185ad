import EncoreSupport

/// A token bucket: `capacity` requests at once, refilled at `perSecond`.
/// Plain value, no clock of its own, so that the rule can be tested.
public struct TokenBucket: Sendable, Equatable {
    public let capacity: Double
    public let perSecond: Double
    public private(set) var tokens: Double
    public private(set) var updated: Double

    public init(capacity: Double, perSecond: Double, now: Double) {
        self.capacity = max(1, capacity)
        self.perSecond = max(1e-9, perSecond)
        tokens = self.capacity
        updated = now
    }

    /// Takes one token if there is one: nil when allowed, else the seconds
    /// until one is available (for Retry-After).
    public mutating func take(now: Double) -> Double? {
        refill(now: now)
        if tokens >= 1 {
            tokens -= 1
            return nil
        }
        return (1 - tokens) / perSecond
    }

    public mutating func refill(now: Double) {
        if now > updated {
            tokens = min(capacity, tokens + (now - updated) * perSecond)
            updated = now
        }
    }

    /// Full again: the bucket can be forgotten.
    public func isFull(now: Double) -> Bool { tokens + (now - updated) * perSecond >= capacity }
}

/// Per-source rate limit: one token bucket per remote address, kept in
/// memory by each instance (behind a load balancer each instance limits
/// what it sees). Full buckets are dropped so that memory stays bounded by
/// the sources active within one refill period.
public final class RateLimiter: Sendable {
    public struct Configuration: Sendable {
        /// Requests per minute per source once the burst is used (default 30).
        public var perMinute: Double
        /// Requests a source may make at once (default: the per-minute figure).
        public var burst: Double

        public init(perMinute: Double = 30, burst: Double? = nil) {
            self.perMinute = perMinute
            self.burst = burst ?? perMinute
        }
    }

    public let configuration: Configuration
    private let state = Locked<(buckets: [String: TokenBucket], lastSweep: Double)>(([:], 0))
    /// How often full buckets are dropped (seconds).
    private let sweepEvery: Double = 60

    public init(_ configuration: Configuration) {
        self.configuration = configuration
    }

    /// nil when the request may go ahead, else the seconds to wait.
    public func check(source: String, now: Double) -> Double? {
        guard configuration.perMinute > 0 else { return nil } // 0 turns the limit off
        return state.withLock { s in
            if now - s.lastSweep >= sweepEvery {
                s.buckets = s.buckets.filter { !$0.value.isFull(now: now) }
                s.lastSweep = now
            }
            var bucket = s.buckets[source] ?? TokenBucket(capacity: configuration.burst, perSecond: configuration.perMinute / 60, now: now)
            let wait = bucket.take(now: now)
            s.buckets[source] = bucket
            return wait
        }
    }
}
