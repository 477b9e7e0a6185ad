import EncorePush

/// A token the sender has claimed: it alone pushes it until the lease ends.
public struct DueToken: Sendable, Equatable {
    public var id: Int64
    public var pushToken: String
    public var pushType: PushType
}

/// One claim: due tokens after a cursor, leased to one sender.
public struct ClaimRequest: Sendable {
    /// Only ids above this (the cursor of one pass over the table).
    public var after: Int64
    /// Tokens last pushed before this time are due (the start of the round).
    public var pushedBefore: Int64
    /// Registrations renewed before this are expired and never claimed.
    public var renewedAfter: Int64
    public var now: Int64
    public var leaseUntil: Int64
    public var owner: String
    public var limit: Int
}

/// Where registrations live: SQLCipher (one file, one host) or PostgreSQL
/// (several instances on one database). Both carry out the same rules
/// (`RegistrationRules`) inside one transaction per request.
public protocol RegistryStore: Sendable {
    /// Applies one registration request (an empty push token deregisters)
    /// and returns what was done. Callers answer the same whatever it was.
    @discardableResult
    func apply(_ registration: PushRegistration, now: Int64) async throws -> RegistrationPlan

    /// Claims up to `limit` due iOS/iOS-sandbox tokens with ids above the
    /// cursor, in id order: each is leased to `owner` until `leaseUntil`,
    /// so that no other sender claims it meanwhile. Android tokens are kept
    /// but never claimed (FCM sending is not part of this service).
    func claim(_ request: ClaimRequest) async throws -> [DueToken]

    /// Records what became of claimed tokens, in one transaction, and ends
    /// their leases. Push times are recorded only on rows that still have
    /// the pushed token; rejected tokens are deleted only then too (the
    /// device may have re-registered with a new token meanwhile).
    func finish(_ results: [PushResult], owner: String) async throws

    /// Deletes registrations renewed before `renewedBefore`; returns how many.
    @discardableResult
    func expire(renewedBefore: Int64) async throws -> Int

    /// Due tokens of the round (for pacing): iOS, not pushed since `pushedBefore`, not expired.
    func countDue(pushedBefore: Int64, renewedAfter: Int64) async throws -> Int

    /// Throws unless the storage answers a trivial query now (`/ready`).
    func ping() async throws

    /// Closes connections.
    func close() async
}

/// What became of one claimed token.
public struct PushResult: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// Pushed (or refused for good this round): the push time is recorded.
        case pushed
        /// To be tried again later in the round: the token stays due.
        case retry
        /// APNs rejected the token: the registration is deleted.
        case reject
    }

    public var token: DueToken
    public var action: Action
    public var outcome: String
    public var at: Int64
}
