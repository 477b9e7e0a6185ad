import EncorePush

/// What the registry stores about one device, and nothing more: the push
/// token and its type, the SHA-256 of the app-instance token, when it was
/// registered and last renewed, when it was last pushed and how that went.
public struct StoredRegistration: Sendable, Equatable {
    public var id: Int64
    public var instanceHash: InstanceTokenHash
    public var pushToken: String
    public var pushType: PushType
    public var registeredAt: Int64
    public var renewedAt: Int64

    public init(id: Int64, instanceHash: InstanceTokenHash, pushToken: String, pushType: PushType, registeredAt: Int64, renewedAt: Int64) {
        self.id = id
        self.instanceHash = instanceHash
        self.pushToken = pushToken
        self.pushType = pushType
        self.registeredAt = registeredAt
        self.renewedAt = renewedAt
    }
}

/// What one registration request changes. The storage back-ends look up the
/// rows the request touches and carry out the plan only on those rows as
/// they were looked up (SQLCipher: in one transaction; PostgreSQL: a write
/// conditional on the look-up, planned again when the rows changed).
public enum RegistrationPlan: Sendable, Equatable {
    /// A new row for this instance.
    case insert
    /// This instance's row (by id) gets the token and type, renewed now.
    case update(id: Int64)
    /// Nothing changes (the push token belongs to another instance).
    case ignore
    /// This instance's row (by id) is deleted.
    case delete(id: Int64)
    /// A deregistration of an instance that has no registration.
    case none
}

/// The registration rules, without I/O.
///
/// Takeover rule: a push token already held by ANOTHER instance is not
/// moved. The request gets the same success answer as any other (no
/// oracle telling a stranger that the token is registered), but nothing
/// changes: neither the holder's row nor the requester's own row. The
/// holder keeps the token until it deletes it, the registration expires
/// (not renewed within the expiry period), or APNs rejects the token. The
/// pushes are empty, so the device behind the token is woken either way;
/// SwissCovid's backend instead let anyone who knew a push token delete or
/// take over its registration.
public enum RegistrationRules {
    /// - Parameters:
    ///   - requester: the hash of the request's instance token.
    ///   - pushToken: the request's push token ("" deregisters).
    ///   - own: the requester's row, if it has one.
    ///   - tokenHolder: the row that holds `pushToken`, if any.
    public static func plan(requester: InstanceTokenHash, pushToken: String,
                            own: StoredRegistration?, tokenHolder: StoredRegistration?) -> RegistrationPlan {
        if pushToken.isEmpty {
            // An empty token deletes and never inserts (SwissCovid inserted an empty row).
            return own.map { .delete(id: $0.id) } ?? RegistrationPlan.none
        }
        if let holder = tokenHolder, !holder.instanceHash.matches(requester) {
            return .ignore
        }
        if let own { return .update(id: own.id) }
        return .insert
    }
}

/// Registrations the client has not renewed for longer than its renewal
/// period (14 days) plus a margin are deleted: a device that vanished is
/// not pushed forever.
public struct ExpiryPolicy: Sendable, Equatable {
    /// The client renews at least every 14 days.
    public static let clientRenewalSeconds: Int64 = 14 * 86_400
    /// Default: 14 days + 7 days of margin (an app not opened for a while).
    public static let defaultSeconds: Int64 = 21 * 86_400

    public let maxAgeSeconds: Int64

    public init(maxAgeSeconds: Int64 = ExpiryPolicy.defaultSeconds) {
        self.maxAgeSeconds = max(1, maxAgeSeconds)
    }

    /// Rows renewed before this time are expired at `now`.
    public func cutoff(now: Int64) -> Int64 { now - maxAgeSeconds }

    public func isExpired(renewedAt: Int64, now: Int64) -> Bool { renewedAt < cutoff(now: now) }
}
