import EncoreCrypto
import EncoreHTTP
import EncoreStorage
import EncoreSupport

/// Where push registration keeps its state: settings named "push.*" in
/// the encrypted store. Exposure Notifications' state is the tracing
/// history's (the last tracing event); check-ins are the check-in list.
public enum PushSettings {
    static let instanceToken = "push.instance-token"
    static let registeredAt = "push.registered-at"
    static let pushToken = "push.token"
    static let pushType = "push.type"
    static let server = "push.server"
    static let api = "push.api"
    /// The user is in isolation (1) or not (0, or absent). Also read by the
    /// sync planner: no trace keys are fetched in isolation.
    public static let isolated = "push.isolated"
}

/// Retries of a registration request that got no usable answer (no
/// connection, a timeout, 429 or 5xx): `attempts` in all, the delay doubling.
public struct PushRetry: Sendable, Equatable {
    public var attempts: Int
    public var delayMilliseconds: Int

    public init(attempts: Int = 3, delayMilliseconds: Int = 1000) {
        self.attempts = attempts
        self.delayMilliseconds = delayMilliseconds
    }

    func policy() throws -> RetryPolicy {
        let p = RetryPolicy(attempts: attempts, delayMilliseconds: Int64(delayMilliseconds))
        try p.validate()
        return p
    }
}

/// What push registration knows (`encore push status`, the JSON of register).
public struct PushStatus: Sendable, Equatable {
    public var state: PushRule.State
    public var server: String?
    public var api: PushProtocol.API?
    public var pushType: PushType?
    public var hasPushToken: Bool

    public var json: JSONValue {
        .object([("registered", .bool(state.registered)), ("registeredAt", .int(state.registeredAt)), ("server", .string(server)),
                 ("api", .string(api?.rawValue)), ("pushType", .string(pushType?.rawValue)),
                 ("exposureNotifications", .bool(state.enActive)), ("checkIns", .bool(state.hasCheckIns)), ("isolated", .bool(state.isolated))])
    }
}

/// Silent-push registration over a store: the rule (PushRule) decided on
/// the store's state, the app-instance token (made once from the CSPRNG,
/// kept encrypted, sent only in these requests), and the register and
/// deregister requests through the shared transport, the state written only
/// after the server said yes.
/// What the push rule needs to know of other features (whether
/// Exposure Notifications are on, whether the user has check-ins): the
/// client answers it, so that push depends on neither.
public protocol PushFacts: Sendable {
    func exposureNotificationsActive() throws -> Bool
    func hasCheckIns() throws -> Bool
}

public struct PushService: Sendable {
    public let store: Store
    public let facts: any PushFacts
    /// 256 bits from the CSPRNG, written as 64 hex digits.
    public static let instanceTokenBytes = 32

    public init(store: Store, facts: any PushFacts) {
        self.store = store
        self.facts = facts
    }

    /// The app-instance token, made on first use. Two first uses at once
    /// agree: the first stored wins and both read it back.
    public func instanceToken() throws -> String {
        if case .text(let t)? = try store.setting(PushSettings.instanceToken) { return t }
        let made = Hex.encode(try SecureRandom.bytes(Self.instanceTokenBytes))
        _ = try store.write { w in try w.insertSettingIfAbsent(PushSettings.instanceToken, text: made) }
        guard case .text(let t)? = try store.setting(PushSettings.instanceToken) else {
            throw EncoreError(.storeFailed, "the app-instance token was not stored")
        }
        return t
    }

    public func state() throws -> PushRule.State {
        PushRule.State(enActive: try facts.exposureNotificationsActive(),
                       hasCheckIns: try facts.hasCheckIns(),
                       isolated: try isolated(),
                       registeredAt: try integer(PushSettings.registeredAt))
    }

    /// Whether the user said they are in isolation (setIsolated).
    public func isolated() throws -> Bool { (try integer(PushSettings.isolated) ?? 0) != 0 }

    public func setIsolated(_ isolated: Bool) throws {
        try store.setSetting(PushSettings.isolated, to: .integer(isolated ? 1 : 0))
    }

    public func decide(_ event: PushRule.Event, now: Int64) throws -> PushRule.Decision {
        try UnixTime.checkNow(now, "push decision")
        return PushRule.decide(try state(), event, now: now)
    }

    public func status() throws -> PushStatus {
        var type: PushType?
        if case .text(let t)? = try store.setting(PushSettings.pushType) { type = PushType(rawValue: t) }
        var api: PushProtocol.API?
        if case .text(let a)? = try store.setting(PushSettings.api) { api = PushProtocol.API(rawValue: a) }
        return PushStatus(state: try state(), server: try text(PushSettings.server), api: api, pushType: type,
                          hasPushToken: try text(PushSettings.pushToken) != nil)
    }

    /// Registers `pushToken` (or registers again: a new token, a renewal)
    /// with the server; the registration is stored only once it said yes.
    public func register(transport: any HTTPTransport, server: String, api: PushProtocol.API, pushToken: String, type: PushType,
                         retry: PushRetry = PushRetry(), now: Int64) throws -> PushStatus {
        let operation = try registerOperation(server: server, api: api, pushToken: pushToken, type: type, retry: retry, now: now)
        _ = try OperationRunner.run(operation, transport: transport, now: now)
        return try operation.outcome()
    }

    /// The registration as an operation the host drives (one request, with
    /// its retries); the registration is stored when the server's yes is fed.
    public func registerOperation(server: String, api: PushProtocol.API, pushToken: String, type: PushType,
                                  retry: PushRetry = PushRetry(), now: Int64) throws -> RequestScript<PushStatus> {
        try UnixTime.checkNow(now, "push registration")
        try PushRegistration.validatePushToken(pushToken, type: type)
        let policy = try retry.policy()
        let request = try PushProtocol.request(base: server, api: api, instanceToken: try instanceToken(), push: (pushToken, type))
        let store = self.store
        return RequestScript("push registration", [
            .real(retry: policy, { request }) { answer, now in
                try PushProtocol.check(answer, deregistration: false)
                try store.write { w in
                    try w.setSetting(PushSettings.registeredAt, to: .integer(now))
                    try w.setSetting(PushSettings.pushToken, to: .text(pushToken))
                    try w.setSetting(PushSettings.pushType, to: .text(type.rawValue))
                    try w.setSetting(PushSettings.server, to: .text(server))
                    try w.setSetting(PushSettings.api, to: .text(api.rawValue))
                }
            },
        ], render: \.json) { _ in try self.status() }
    }

    /// Deregisters with `server` (nil: the one registered with, by its
    /// API); the registration is forgotten once the server said yes.
    public func deregister(transport: any HTTPTransport, server: String? = nil, api: PushProtocol.API? = nil,
                           retry: PushRetry = PushRetry()) throws -> PushStatus {
        let operation = try deregisterOperation(server: server, api: api, retry: retry)
        _ = try OperationRunner.run(operation, transport: transport, now: 0)
        return try operation.outcome()
    }

    /// The deregistration as an operation the host drives.
    public func deregisterOperation(server: String? = nil, api: PushProtocol.API? = nil,
                                    retry: PushRetry = PushRetry()) throws -> RequestScript<PushStatus> {
        let current = try status()
        guard let base = server ?? current.server else {
            throw EncoreError(.invalidArgument, "not registered: give the server to deregister from")
        }
        let policy = try retry.policy()
        let request = try PushProtocol.request(base: base, api: api ?? current.api ?? .swisscovid, instanceToken: try instanceToken(), push: nil)
        let store = self.store
        return RequestScript("push deregistration", [
            .real(retry: policy, { request }) { answer, _ in
                try PushProtocol.check(answer, deregistration: true)
                try store.write { w in
                    for name in [PushSettings.registeredAt, PushSettings.pushToken, PushSettings.pushType, PushSettings.server, PushSettings.api] {
                        try w.deleteSetting(name)
                    }
                }
            },
        ], render: \.json) { _ in try self.status() }
    }

    private func integer(_ name: String) throws -> Int64? {
        if case .integer(let v)? = try store.setting(name) { return v }
        return nil
    }

    private func text(_ name: String) throws -> String? {
        if case .text(let t)? = try store.setting(name) { return t }
        return nil
    }
}
