import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncoreSupport

/// A lab result as CWA's verification server reports it: 0...4 for PCR
/// tests, 5...9 the same five for rapid antigen tests.
public struct TestResult: Sendable, Equatable {
    public enum Value: Int32, Sendable, CaseIterable {
        case pending = 0, negative, positive, invalid, redeemed

        public var name: String {
            switch self {
            case .pending: return "PENDING"
            case .negative: return "NEGATIVE"
            case .positive: return "POSITIVE"
            case .invalid: return "INVALID"
            case .redeemed: return "REDEEMED"
            }
        }
    }

    public var value: Value
    public var rapid: Bool

    public init(value: Value, rapid: Bool) {
        self.value = value
        self.rapid = rapid
    }

    /// The server's code; nil for anything outside 0...9 (a protocol error).
    public init?(code: Int64) {
        guard (0 ... 9).contains(code), let v = Value(rawValue: Int32(code % 5)) else { return nil }
        self.init(value: v, rapid: code >= 5)
    }

    public var code: Int32 { value.rawValue + (rapid ? 5 : 0) }

    /// The server's code as the apps file it for the kind of test that was
    /// registered (Android's toValidatedRaResult / toValidatedPcrResult):
    /// a rapid antigen test takes 5...9 as named, 0 as pending and 4 as
    /// redeemed, and counts a PCR verdict (1...3) as invalid; a PCR test
    /// (lab or rapid PCR) takes 0...4 and counts 5...9 as invalid. nil for
    /// anything outside 0...9 (a protocol error: the old state stays).
    public static func validated(code: Int64, rapidAntigen: Bool) -> TestResult? {
        guard let raw = TestResult(code: code) else { return nil }
        if rapidAntigen {
            if raw.rapid || raw.value == .pending || raw.value == .redeemed { return TestResult(value: raw.value, rapid: true) }
            return TestResult(value: .invalid, rapid: true)
        }
        return raw.rapid ? TestResult(value: .invalid, rapid: false) : raw
    }

    /// Final: no further polling (everything but PENDING).
    public var isFinal: Bool { value != .pending }
}

/// When to ask for a result again (Android's intervals): PCR tests every
/// 120 min; rapid tests every 15 min for the first 90 min after
/// registration, every 90 min after that; never once the result is final.
public enum PollingSchedule {
    public static let pcrInterval: Int64 = 120 * 60
    public static let rapidEarlyInterval: Int64 = 15 * 60
    public static let rapidEarlyPeriod: Int64 = 90 * 60
    public static let rapidLateInterval: Int64 = 90 * 60

    /// The next time a poll is due after one at `lastPoll` (the registration
    /// when there was none), or nil when no more polls are due.
    public static func nextPoll(rapid: Bool, registeredAt: Int64, lastPoll: Int64?, result: TestResult?) -> Int64? {
        if let result, result.isFinal { return nil }
        let last = lastPoll ?? registeredAt
        guard rapid else { return last.saturatingAdding(pcrInterval) }
        let early = last < registeredAt.saturatingAdding(rapidEarlyPeriod)
        return last.saturatingAdding(early ? rapidEarlyInterval : rapidLateInterval)
    }
}
