import EncoreHTTP
import EncoreSupport
import EncoreSync
import Testing

/// The sync planner's rules case by case, and the distribution protocol's
/// parsing of hostile answers.
@Suite struct SyncPlannerTests {
    static let now: Int64 = 1_795_500_000
    static let cwa = SyncSources(cwa: true, dp3t: false)
    static let dp3t = SyncSources(cwa: false, dp3t: true)
    static var yesterday: String { UTCTime.day(seconds: now - 86_400) ?? "" }

    func plan(_ s: SyncState, at t: Int64 = now, _ trigger: SyncTrigger = .periodic, _ network: NetworkKind = .unmetered,
              _ sources: SyncSources = cwa) -> SyncPlan {
        SyncPlanner.plan(s, now: t, trigger: trigger, network: network, sources: sources)
    }

    @Test func aFirstSyncFetchesEverything() {
        let p = plan(SyncState())
        #expect(p.steps == [.appConfig, .dayIndex, .hourIndex(day: UTCTime.day(seconds: Self.now) ?? "")])
        #expect(p.nextDueAt == Self.now + 3600)
    }

    /// A configuration that failed backs off alone: the packages are
    /// planned as usual; a push or the user tries it at once.
    @Test func aFailingConfigurationBacksOffAlone() {
        var s = SyncState()
        s.lastSuccess = Self.now - 3600
        s.newestCachedDay = Self.yesterday
        s.configFailures = 5
        s.configLastAttempt = Self.now - 3600
        let wait = SyncPlanner.backoff(failures: 5, seed: s.jitterSeed)
        #expect(wait > 3600)
        let waiting = plan(s)
        #expect(waiting.steps == [.hourIndex(day: UTCTime.day(seconds: Self.now) ?? "")])
        #expect(waiting.reason.contains("configuration is backing off after 5 failed fetches"))
        #expect(plan(s, .user).steps.first == .appConfig)
        #expect(plan(s, .push).steps.first == .appConfig)
        // Its backoff over (to the second), the configuration is planned again.
        #expect(plan(s, at: Self.now - 3600 + wait - 1).steps.first != .appConfig)
        #expect(plan(s, at: Self.now - 3600 + wait).steps.first == .appConfig)
        // The sync's own failures are another matter: they stop everything.
        s.configFailures = 0
        #expect(plan(s).steps.first == .appConfig)
    }

    @Test func theDayIndexOnlyWhenNeeded() {
        var s = SyncState()
        s.lastSuccess = Self.now - 3601
        s.newestCachedDay = Self.yesterday
        #expect(!plan(s).steps.contains(.dayIndex))
        s.lastDaySyncFailed = true
        #expect(plan(s).steps.contains(.dayIndex))
        s.lastDaySyncFailed = false
        s.revocationPending = true
        #expect(plan(s).steps.contains(.dayIndex))
        s.revocationPending = false
        s.newestCachedDay = UTCTime.day(seconds: Self.now - 3 * 86_400)
        #expect(plan(s).steps.contains(.dayIndex))
    }

    @Test func periodicSyncsAreHourlyAndForcedOnesAreNot() {
        var s = SyncState()
        s.lastSuccess = Self.now - 600
        s.newestCachedDay = Self.yesterday
        let p = plan(s)
        #expect(p.steps.isEmpty && p.nextDueAt == Self.now - 600 + 3600 && p.reason == "nothing due")
        #expect(!plan(s, .push).steps.isEmpty)
        #expect(!plan(s, .user).steps.isEmpty)
        #expect(plan(s, .appStart).steps.isEmpty)
        #expect(!plan(s, at: Self.now - 600 + 3600).steps.isEmpty)
    }

    @Test func meteredSkipsHoursAndNoNetworkSyncsNothing() {
        #expect(!plan(SyncState(), .user, .metered).steps.contains { if case .hourIndex = $0 { true } else { false } })
        let none = plan(SyncState(), .push, .none)
        #expect(none.steps.isEmpty && none.nextDueAt == nil)
    }

    /// Any count and any clock plan without trapping (found by the protocols fuzzer).
    @Test func theBackoffAndThePlanAreTotal() {
        for failures in [Int.min, -1, 0, 1, Int.max] {
            let b = SyncPlanner.backoff(failures: failures, seed: .max)
            #expect(b >= Int64(0.8 * Double(SyncPlanner.backoffBase)) && b <= Int64(1.2 * Double(SyncPlanner.backoffCap)))
            var s = SyncState()
            s.failures = failures
            s.configFailures = failures
            for t in [Int64.min, -1, Int64.max] {
                s.lastAttempt = t
                s.configLastAttempt = t
                for now in [Int64.min, 0, Int64.max] { _ = plan(s, at: now) }
            }
        }
    }

    @Test func failuresBackOffExponentiallyWithJitterAndACap() {
        var s = SyncState()
        s.jitterSeed = 42
        var last: Int64 = 0
        for failures in 1 ... 12 {
            let b = SyncPlanner.backoff(failures: failures, seed: 42)
            let plain = min(SyncPlanner.backoffCap, SyncPlanner.backoffBase << Int64(failures - 1))
            #expect(Double(b) >= 0.8 * Double(plain) && Double(b) <= 1.2 * Double(plain))
            if plain < SyncPlanner.backoffCap { #expect(b > last / 2) }
            last = b
        }
        // Devices do not retry in step: other seeds, other waits.
        #expect(Set((0 ..< 20).map { SyncPlanner.backoff(failures: 3, seed: UInt64($0)) }).count > 10)
        s.failures = 2
        s.lastAttempt = Self.now
        let p = plan(s, at: Self.now + 60)
        #expect(p.steps.isEmpty && p.reason.contains("backing off"))
        #expect(p.nextDueAt == Self.now + SyncPlanner.backoff(failures: 2, seed: 42))
        #expect(!plan(s, at: Self.now + 60, .user).steps.isEmpty)
        // Huge failure counts and times do not overflow.
        s.failures = Int.max
        s.lastAttempt = Int64.max - 10
        _ = plan(s, at: Self.now)
    }

    @Test func dp3tAtMostSixADayFourHoursApart() {
        var s = SyncState()
        #expect(plan(s, .periodic, .unmetered, Self.dp3t).steps == [.dp3t])
        s.dp3tSyncs = [Self.now - 3 * 3600]
        let p = plan(s, .periodic, .unmetered, Self.dp3t)
        #expect(p.steps.isEmpty && p.nextDueAt == Self.now + 3600)
        // Six in the last 24 h, the newest 4 h ago: the next waits for the oldest to age out.
        s.dp3tSyncs = (0 ..< 6).map { Self.now - 4 * 3600 - Int64($0) * 3 * 3600 }
        let full = plan(s, .periodic, .unmetered, Self.dp3t)
        #expect(full.steps.isEmpty && full.nextDueAt == Self.now - 4 * 3600 - 15 * 3600 + 86_400)
        #expect(plan(s, .push, .unmetered, Self.dp3t).steps == [.dp3t])
    }

    @Test func hostileIndexesAndAnswers() throws {
        func answer(_ body: String, status: Int = 200, headers: [HTTPHeader] = []) -> HTTPResponse {
            HTTPResponse(status: status, headers: headers, body: Array(body.utf8))
        }
        #expect(try DistributionProtocol.days(from: answer(#"["2026-11-20","2026-11-19","2026-11-20"]"#)) == ["2026-11-19", "2026-11-20"])
        for bad in [#"["2026-13-01"]"#, #"[1]"#, #"{"a":1}"#, "", "[", #"["../etc"]"#] {
            #expect(throws: EncoreError.self) { try DistributionProtocol.days(from: answer(bad)) }
        }
        #expect(try DistributionProtocol.hours(from: answer("[3,1,1]")) == [1, 3])
        #expect(try DistributionProtocol.hours(from: answer("", status: 404)) == [])
        for bad in ["[24]", "[-1]", "[1.5]", #"["1"]"#, "[1e30]"] {
            #expect(throws: EncoreError.self) { try DistributionProtocol.hours(from: answer(bad)) }
        }
        #expect(throws: EncoreError.self) { try DistributionProtocol.package(from: answer("zip"), "a package") }
        #expect(throws: EncoreError.self) { try DistributionProtocol.days(from: answer("[]", status: 500)) }
        #expect(DistributionProtocol.serverDate(answer("", headers: [HTTPHeader("Date", "Wed, 25 Nov 2026 08:49:37 GMT")]))
            == UTCTime.seconds(ofISO8601: "2026-11-25T08:49:37Z"))
        for bad in ["Wed, 25 Nov 2026 08:49:37 CET", "25 Nov 2026", "Wed, 99 Nov 2026 08:49:37 GMT", "Wed, 25 Foo 2026 08:49:37 GMT"] {
            #expect(DistributionProtocol.serverDate(answer("", headers: [HTTPHeader("Date", bad)])) == nil)
        }
        #expect(throws: EncoreError.self) { try DistributionProtocol.checkCountry("eur") }
        #expect(throws: EncoreError.self) { try DistributionProtocol.checkCountry("EU/R") }
        #expect(throws: EncoreError.self) { try DP3TProtocol.exposed(base: "https://x", lastKeyBundleTag: "12&a=b") }
    }
}

/// The planner's check-in steps: warnings with the CWA sync, trace keys by SwissCovid's rule.
@Suite struct SyncPlannerCheckInTests {
    static let now: Int64 = 1_795_500_000

    @Test func warningsGoWithTheCWASync() {
        let sources = SyncSources(cwa: true, dp3t: false, traceWarnings: true)
        #expect(SyncPlanner.plan(SyncState(), now: Self.now, trigger: .periodic, network: .metered, sources: sources).steps.last == .traceWarnings)
        var s = SyncState()
        s.lastSuccess = Self.now - 60
        #expect(SyncPlanner.plan(s, now: Self.now, trigger: .periodic, network: .unmetered, sources: sources).steps == [])
        // Without the CWA sync there are none.
        #expect(!SyncSources(cwa: false, dp3t: true, traceWarnings: true).traceWarnings)
    }

    @Test func traceKeysEvery2HoursWithVisitsAndNotInIsolation() {
        let sources = SyncSources(cwa: false, dp3t: false, traceKeys: true)
        func steps(_ s: SyncState, _ trigger: SyncTrigger = .periodic) -> [SyncStep] {
            SyncPlanner.plan(s, now: Self.now, trigger: trigger, network: .metered, sources: sources).steps
        }
        var s = SyncState()
        #expect(steps(s) == [])
        s.crowdNotifierVisits = true
        #expect(steps(s) == [.traceKeys])
        s.lastTraceKeySync = Self.now - 7199
        #expect(steps(s) == [])
        #expect(SyncPlanner.plan(s, now: Self.now, trigger: .periodic, network: .metered, sources: sources).nextDueAt == Self.now + 1)
        #expect(steps(s, .push) == [.traceKeys])
        s.lastTraceKeySync = Self.now - 7200
        #expect(steps(s) == [.traceKeys])
        s.isolated = true
        #expect(steps(s, .push) == [])
        #expect(SyncPlanner.plan(s, now: Self.now, trigger: .periodic, network: .metered, sources: sources).reason.contains("isolation"))
    }
}
