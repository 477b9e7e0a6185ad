/// When a client registers for silent pushes, and when it deregisters:
/// ../shared/spec/push.md's table as a pure function of the state and an
/// event. Check-in-only users (EN off) are woken by pushes; users with EN on
/// get background time from the framework and need none.
public enum PushRule {
    /// Registrations are renewed at app start when older than this.
    public static let renewalSeconds: Int64 = 14 * 86_400

    public enum Event: String, Sendable, CaseIterable {
        /// The app (or the host's process) starts.
        case appStart = "app-start"
        /// A check-out: a new check-in is stored.
        case checkout
        /// The user turns Exposure Notifications on, or off, in the app.
        case enOn = "en-on", enOff = "en-off"
        /// The OS gave a new push token.
        case tokenChanged = "token-changed"
    }

    public enum Action: String, Sendable {
        case register, deregister, none
    }

    public struct State: Sendable, Equatable {
        public var enActive: Bool
        public var hasCheckIns: Bool
        public var isolated: Bool
        /// Unix seconds of the last successful registration; nil when not registered.
        public var registeredAt: Int64?

        public init(enActive: Bool, hasCheckIns: Bool, isolated: Bool, registeredAt: Int64?) {
            self.enActive = enActive
            self.hasCheckIns = hasCheckIns
            self.isolated = isolated
            self.registeredAt = registeredAt
        }

        public var registered: Bool { registeredAt != nil }
    }

    public struct Decision: Sendable, Equatable {
        public var action: Action
        /// Why, in words (for logs and `encore push decide`).
        public var reason: String
    }

    public static func decide(_ s: State, _ event: Event, now: Int64) -> Decision {
        switch event {
        case .checkout:
            if s.enActive { return Decision(action: .none, reason: "Exposure Notifications are on") }
            if s.registered { return Decision(action: .none, reason: "registered already") }
            return Decision(action: .register, reason: "a check-in was stored while Exposure Notifications are off")
        case .enOff:
            if !s.hasCheckIns { return Decision(action: .none, reason: "no check-ins are stored") }
            if s.registered { return Decision(action: .none, reason: "registered already") }
            return Decision(action: .register, reason: "Exposure Notifications were turned off with check-ins stored")
        case .enOn:
            if s.registered { return Decision(action: .deregister, reason: "Exposure Notifications were turned on") }
            return Decision(action: .none, reason: "not registered")
        case .tokenChanged:
            if s.registered { return Decision(action: .register, reason: "the push token changed") }
            return Decision(action: .none, reason: "not registered")
        case .appStart:
            if s.enActive {
                if s.registered { return Decision(action: .deregister, reason: "Exposure Notifications are on") }
                return Decision(action: .none, reason: "Exposure Notifications are on")
            }
            if !s.hasCheckIns { return Decision(action: .none, reason: "no check-ins are stored") }
            if s.isolated { return Decision(action: .none, reason: "the user is in isolation") }
            guard let at = s.registeredAt else {
                return Decision(action: .register, reason: "check-ins are stored, Exposure Notifications are off and there is no registration")
            }
            // Overflow-safe age: times are the host's, not checked elsewhere.
            let (age, overflow) = now.subtractingReportingOverflow(at)
            if !overflow && age > renewalSeconds {
                return Decision(action: .register, reason: "the registration is older than 14 days")
            }
            return Decision(action: .none, reason: "registered within the last 14 days")
        }
    }
}
