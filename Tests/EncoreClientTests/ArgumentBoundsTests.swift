import EncoreCheck
import EncoreCheckIns
import EncoreClient
import EncoreExposure
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreTestSupport
import EncoreTracing
import Foundation
import Testing

/// Times, counts and offsets at the ends of their types: each is refused
/// with INVALID_ARGUMENT or handled, and none traps (a trap would end the
/// test process, not fail one test).
@Suite struct ArgumentBoundsTests {
    @Test func aNegativeNowIsRefusedBeforeAnyTimeArithmetic() throws {
        let risk = try #require(RiskConfiguration.cwa)
        let dir = TempDir()
        let store = try Store(path: dir.file("s.db"), key: .raw([UInt8](repeating: 1, count: 32)))
        for now in [Int64.min, Int64.min + 300_000, -1] {
            #expect(kind { try ExposureDetection(store: store).sightingSet(options: MatchingOptions(), now: now) } == .invalidArgument)
            #expect(kind { try Matcher.match(sightings: SightingSet([]), files: [], keyFileOptions: KeyFileOptions(verify: false),
                                             options: MatchingOptions(), now: now) } == .invalidArgument)
            #expect(kind { try RiskCalculation.calculate([], configuration: risk, now: now) } == .invalidArgument)
            #expect(kind { try WindowsJSON.windows(json: Array(#"[{"ageInDays": 1}]"#.utf8), now: now) } == .invalidArgument)
            #expect(kind { try ExposureCheck(store: store).run(files: [], keyFileOptions: KeyFileOptions(verify: false),
                                                               matching: MatchingOptions(), risk: risk, now: now) } == .invalidArgument)
        }
        #expect(try store.riskResults(offset: 0, limit: 10).isEmpty)
        // The largest time is fine: nothing is added to it.
        #expect(try RiskCalculation.calculate([], configuration: risk, now: .max).totalRiskLevel == .low)
        #expect(try ExposureDetection(store: store).sightingSet(options: MatchingOptions(), now: .max).count == 0)
    }

    @Test func checkOptionsOutOfRangeAreRefused() throws {
        let risk = try #require(RiskConfiguration.cwa)
        let dir = TempDir()
        let store = try Store(path: dir.file("s.db"), key: .raw([UInt8](repeating: 1, count: 32)))
        let bad: [(inout CheckOptions) -> Void] = [
            { $0.tracingDays = .max }, { $0.tracingDays = 3651 }, { $0.tracingDays = -1 },
            { $0.minimumTracingSeconds = -1 }, { $0.maximumKeyAgeSeconds = .min },
        ]
        for change in bad {
            var o = CheckOptions()
            change(&o)
            #expect(kind { try ExposureCheck(store: store).run(files: [], keyFileOptions: KeyFileOptions(verify: false),
                                                               matching: MatchingOptions(), risk: risk, options: o, now: 1_700_000_000) } == .invalidArgument)
        }
    }

    @Test func keysDownloadedAtTheEndOfTimeAreFreshNotAnOverflow() throws {
        let risk = try #require(RiskConfiguration.cwa)
        let dir = TempDir()
        let store = try Store(path: dir.file("s.db"), key: .raw([UInt8](repeating: 1, count: 32)))
        try store.addTracingEvent(time: 0, active: true)
        try store.putCachedKeyFile(region: "DE", identifier: "future", etag: nil, content: [1], downloaded: .max)
        for now: Int64 in [0, 2, 1_700_000_000] {
            let r = try ExposureCheck(store: store).run(files: [], keyFileOptions: KeyFileOptions(verify: false),
                                                        matching: MatchingOptions(), risk: risk, now: now)
            #expect(r.status != .outdated)
        }
    }

    @Test func trlOffsetsBeyondInt32AreRefused() throws {
        func config(_ offset: String) -> [UInt8] {
            Array(RiskConfiguration.cwaJSON.replacingOccurrences(of: "\"infectiousnessOffsetStandard\":1",
                                                                 with: "\"infectiousnessOffsetStandard\":\(offset)").utf8)
        }
        #expect(kind { try RiskConfiguration(json: config("9000000000000000000")) } == .invalidArgument)
        #expect(kind { try RiskConfiguration(json: config("2147483648")) } == .invalidArgument)
        #expect(kind { try RiskConfiguration(json: config("-2147483649")) } == .invalidArgument)
        let widest = try RiskConfiguration(json: config("2147483647"))
        #expect(widest.trlEncoding.infectiousnessOffsetStandard == Int(Int32.max))
        do {
            _ = try RiskConfiguration(json: config("2147483648"))
        } catch let e as EncoreError {
            #expect(e.message.contains("trlEncoding.infectiousnessOffsetStandard"))
        }
    }

    @Test func passphrasesLongerThanOneMiBAreRefused() throws {
        let dir = TempDir()
        let long = [UInt8](repeating: 0x61, count: StoreKey.maxPassphraseBytes + 1)
        #expect(kind { try Store(path: dir.file("long.db"), key: .passphrase(long)) } == .invalidArgument)
        let store = try Store(path: dir.file("s.db"), key: .raw([UInt8](repeating: 1, count: 32)))
        #expect(kind { try store.rekey(to: .passphrase(long)) } == .invalidArgument)
    }
}
