import EncoreCheck
import EncoreClient
import EncoreStorage
import EncoreSupport
import EncoreSync
import EncoreTestResults

/// The properties of org.encore.Exposure1 (docs/device.md), read from the
/// store by the service's worker and handed to its loop, which answers
/// every Get from them: a read never waits on the store.
public struct DeviceProperties: Sendable, Equatable {
    public var enabled = true
    /// active, disabled, bluetooth-off, no-adapter, cannot-advertise.
    public var state = "active"
    /// low, high, unknown, outdated.
    public var riskLevel = "unknown"
    /// YYYY-MM-DD, or empty.
    public var lastExposureDay = ""
    /// Unix seconds, 0 for never.
    public var lastSync: Int64 = 0
    public var lastCheck: Int64 = 0
    public var nextSync: Int64 = 0
    /// none, pending, positive, negative, invalid, redeemed, submitted.
    public var testState = "none"

    public init() {}

    /// The properties as the store has them at `now`.
    public static func read(_ client: EncoreClient, now: Int64, settings: DeviceSettings, plan: SyncPlan?) throws -> DeviceProperties {
        var p = DeviceProperties()
        p.enabled = settings.enabled
        p.state = settings.enabled ? "active" : "disabled"
        if let last = try client.store.lastRiskResult() {
            p.riskLevel = riskLevel(CheckStatus(rawValue: last.level))
            p.lastCheck = max(0, last.time)
            p.lastExposureDay = (try? highRiskDay(document: last.document)) ?? ""
        }
        p.lastSync = max(0, try client.store.lastSyncSuccess() ?? 0)
        p.nextSync = max(0, plan?.nextDueAt ?? 0)
        p.testState = testState(try TestResultService.status(of: client.store, now: now))
        return p
    }

    /// FAILED (a check-in risk no level maps) says nothing: unknown.
    static func riskLevel(_ status: CheckStatus?) -> String {
        switch status {
        case .low: return "low"
        case .high: return "high"
        case .outdated: return "outdated"
        case .unknown, .failed, nil: return "unknown"
        }
    }

    /// The latest day with a high risk, from a stored check's document.
    static func highRiskDay(document: String) throws -> String? {
        let doc = JSONReader(try JSONParser.parse(document))
        guard let day = try doc.member("assessment").optionalMember("mostRecentDateWithHighRisk") else { return nil }
        return try? day.string()
    }

    static func testState(_ s: TestStatus) -> String {
        guard s.registered else { return "none" }
        if s.submittedAt != nil { return "submitted" }
        switch s.result?.value {
        case nil, .pending?: return "pending"
        case .positive?: return "positive"
        case .negative?: return "negative"
        case .invalid?: return "invalid"
        case .redeemed?: return "redeemed"
        }
    }
}

/// What the service keeps of its own in the store.
public struct DeviceSettings: Sendable, Equatable {
    /// Tracing is wanted (true until the user turns it off: installing
    /// and enabling the service is the opt-in).
    public var enabled = true

    static let enabledName = "device.enabled"

    public init() {}

    public static func read(_ store: Store) throws -> DeviceSettings {
        var s = DeviceSettings()
        if case .integer(let v)? = try store.setting(enabledName) { s.enabled = v != 0 }
        return s
    }

    public func write(_ store: Store) throws {
        try store.setSetting(Self.enabledName, to: .integer(enabled ? 1 : 0))
    }
}
