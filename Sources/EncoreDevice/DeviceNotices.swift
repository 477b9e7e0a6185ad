/// What the session agent (encore-notify) tells the user, decided from the
/// service's properties as they change (docs/device.md): the risk rising
/// to high (once per rise: not again while it stays high, again after it
/// went low and rose), a test result being available (without saying
/// which), tracing being off because of the radio (once per change, and
/// withdrawn when tracing is back). Nothing names a place or a person.
public struct DeviceNotices: Sendable, Equatable {
    public enum Notice: Sendable, Equatable {
        case riskHigh
        case testResult
        case tracingOff(state: String)
        /// The tracing warning shown is to be closed.
        case tracingBack

        /// Which notification it replaces (one of each kind at most).
        public var slot: Int {
            switch self {
            case .riskHigh: return 1
            case .testResult: return 2
            case .tracingOff, .tracingBack: return 3
            }
        }

        /// 2: critical (the risk), 1: normal.
        public var urgency: Int32 { self == .riskHigh ? 2 : 1 }

        public var summary: String {
            switch self {
            case .riskHigh: return "Increased risk"
            case .testResult: return "Your test result is available"
            case .tracingOff, .tracingBack: return "Exposure logging is off"
            }
        }

        public var body: String {
            switch self {
            case .riskHigh: return "You had an encounter with an increased risk of infection. Open encore's status to see what to do now."
            case .testResult: return "Open encore to see it."
            case .tracingOff(let state):
                switch state {
                case "bluetooth-off": return "Bluetooth is off: turn it on so that encounters are logged."
                case "no-adapter": return "There is no Bluetooth adapter: encounters are not logged."
                default: return "The Bluetooth adapter cannot advertise: encounters are not logged."
                }
            case .tracingBack: return ""
            }
        }
    }

    /// The states in which tracing is off because of the radio.
    public static let radioOff: Set<String> = ["bluetooth-off", "no-adapter", "cannot-advertise"]
    /// The test states that are a result to tell (CWA tells these).
    public static let finalResults: Set<String> = ["positive", "negative", "invalid"]

    /// What was last seen (nil: nothing yet, since the agent started). Kept
    /// while the service is away, so that a restart posts nothing twice;
    /// the risk is the last low or high one.
    public private(set) var risk: String?
    public private(set) var test: String?
    public private(set) var state: String?

    public init() {}

    /// The properties read now; what to post (or close) for them. At the
    /// agent's start a high risk and a radio that is off are told (the
    /// user just logged in); a test result already there is not (it was
    /// told when it came, and the status shows it).
    public mutating func observe(risk newRisk: String, test newTest: String, state newState: String) -> [Notice] {
        var out: [Notice] = []
        // A rise is from low (or from nothing seen yet): unknown or outdated
        // between two highs (a check not possible for a while, a service
        // restarting) is not one.
        if newRisk == "high", risk != "high" { out.append(.riskHigh) }
        if newRisk == "high" || newRisk == "low" || risk == nil { risk = newRisk }
        if let test, test != newTest, Self.finalResults.contains(newTest) { out.append(.testResult) }
        if Self.radioOff.contains(newState), newState != state {
            out.append(.tracingOff(state: newState))
        } else if !Self.radioOff.contains(newState), let state, Self.radioOff.contains(state) {
            out.append(.tracingBack)
        }
        test = newTest
        state = newState
        return out
    }
}
