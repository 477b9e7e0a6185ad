import EncoreCheck
import EncoreClient
import EncoreSupport
import EncoreSync
import EncoreTestResults

/// When the service's background work is next due, read from the store
/// (the library decides each: the sync planner, the check's freshness
/// rule, the test's polling schedule). Due times, not counts: a clock
/// that jumped two days finds one sync due, not forty-eight.
public struct DeviceAgenda: Sendable, Equatable {
    /// The planner's next periodic sync (now when steps are due); nil: no
    /// server to sync with.
    public var syncAt: Int64?
    /// When the last result would turn outdated (its newest keys grow too
    /// old): a check then, unless a sync brought newer keys before.
    public var checkAt: Int64?
    /// When the registered test's result is to be polled again.
    public var pollAt: Int64?
    /// The planner's plan at that moment (its nextDueAt is NextSync).
    public var plan: SyncPlan?

    public init() {}

    /// `syncOptions`: the periodic sync's (its trigger is set here).
    public static func read(_ client: EncoreClient, now: Int64, syncOptions: SyncOptions = SyncOptions(),
                            checkOptions: CheckOptions = CheckOptions()) throws -> DeviceAgenda {
        var a = DeviceAgenda()
        let servers = client.syncServers
        if servers.distribution != nil || servers.dp3t != nil || servers.crowdNotifier != nil {
            var options = syncOptions
            options.trigger = .periodic
            let plan = try client.syncPlan(options)
            a.plan = plan
            a.syncAt = plan.steps.isEmpty ? plan.nextDueAt : now
        }
        if let last = try client.store.lastRiskResult(), let newest = try newestKeys(last.document) {
            let outdatedAt = newest.saturatingAdding(checkOptions.maximumKeyAgeSeconds).saturatingAdding(1)
            if last.time < outdatedAt { a.checkAt = outdatedAt }
        }
        if client.servers.verification != nil {
            let test = try TestResultService.status(of: client.store, now: now)
            if test.registered, test.submittedAt == nil { a.pollAt = test.nextPollAt }
        }
        return a
    }

    /// What the store says now: the properties the bus shows and the agenda.
    public static func snapshot(_ client: EncoreClient, syncOptions: SyncOptions) throws -> (DeviceProperties, DeviceAgenda) {
        let now = try client.now()
        let agenda = try read(client, now: now, syncOptions: syncOptions)
        let settings = try DeviceSettings.read(client.store)
        return (try DeviceProperties.read(client, now: now, settings: settings, plan: agenda.plan), agenda)
    }

    /// The earliest of the due times.
    public var next: Int64? { [syncAt, checkAt, pollAt].compactMap { $0 }.min() }

    static func newestKeys(_ document: String) throws -> Int64? {
        guard case .integer(let t)? = try JSONReader(try JSONParser.parse(document)).optionalMember("newestKeys")?.value else { return nil }
        return t
    }
}
