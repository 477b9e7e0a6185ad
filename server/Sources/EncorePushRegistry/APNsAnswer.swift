import EncoreSupport

/// What one APNs answer means for the token and for the sender, without I/O.
public enum APNsVerdict: Sendable, Equatable {
    /// 200: pushed.
    case delivered
    /// The token is dead or not ours (400 BadDeviceToken, 410 Unregistered,
    /// 400 DeviceTokenNotForTopic): the registration is deleted.
    case rejectToken
    /// 429 or 5xx (or no answer): try again later in the round, slow down.
    case retryLater
    /// The provider token was refused as expired: make a new one, retry.
    case refreshProviderToken
    /// The APNs server could not be trusted (TLS): nothing is sent until
    /// the configuration is fixed; the sender stops.
    case untrusted
    /// Any other refusal (a bad topic, a bad provider token, ...): recorded,
    /// not retried this round, the token kept.
    case failed
}

public struct APNsAnswer: Sendable, Equatable {
    public var status: Int
    public var reason: String?

    public init(status: Int, reason: String?) {
        self.status = status
        self.reason = reason
    }

    /// Reads an APNs error body: `{"reason": "..."}` (plus a timestamp for 410).
    public init(status: Int, body: [UInt8]) {
        self.status = status
        if !body.isEmpty, let json = try? JSONParser.parse(body), case .string(let r)? = json["reason"] {
            reason = String(r.prefix(100))
        } else {
            reason = nil
        }
    }

    public var verdict: APNsVerdict {
        switch (status, reason) {
        case (200, _): return .delivered
        case (410, _): return .rejectToken
        case (400, "BadDeviceToken"?), (400, "DeviceTokenNotForTopic"?): return .rejectToken
        case (403, "ExpiredProviderToken"?): return .refreshProviderToken
        case (429, _), (500 ... 599, _): return .retryLater
        case (-1, _): return .untrusted
        case (0, _): return .retryLater // no answer (connection refused, reset, timed out)
        default: return .failed
        }
    }

    /// The outcome text stored with the token ("200", "410 Unregistered", ...).
    public var outcome: String { reason.map { "\(status) \($0)" } ?? "\(status)" }
}

/// Exponential back-off after 429/5xx answers: 1 s doubling to 60 s, back
/// to nothing after a success.
public struct Backoff: Sendable, Equatable {
    public static let first: Double = 1
    public static let maximum: Double = 60
    public private(set) var current: Double = 0

    public init() {}

    public mutating func failed() { current = current == 0 ? Self.first : min(Self.maximum, current * 2) }
    public mutating func succeeded() { current = 0 }
}
