import EncoreCrypto
import EncoreExposure
import EncoreStorage
import EncoreSupport
import EncoreTestSupport
import Testing

@Suite struct OwnKeyScheduleTests {
    let day: Int64 = 86_400
    let t0: Int64 = 19_000 * 86_400 + 3_600      // 01:00 UTC on a day

    func store(_ dir: TempDir) throws -> Store { try Store(path: dir.file("k.db"), key: .raw([UInt8](repeating: 3, count: 32)), features: [.exposure]) }

    @Test func oneKeyPerUTCDayStartingAtMidnight() throws {
        let dir = TempDir()
        let s = try store(dir)
        let a = try OwnKeySchedule(store: s).currentKey(now: t0)
        #expect(a.rollingStartIntervalNumber == Int32((t0 - 3_600) / 600) && a.rollingPeriod == 144)
        #expect(try OwnKeySchedule(store: s).currentKey(now: t0 + 20 * 3_600) == a)          // same day
        let b = try OwnKeySchedule(store: s).currentKey(now: t0 + day)                       // next day
        #expect(b.keyData != a.keyData && b.rollingStartIntervalNumber == a.rollingStartIntervalNumber + 144)
        #expect(try s.countOwnKeys() == 2)
    }

    @Test func racingCallersGetTheSameKey() async throws {
        let dir = TempDir()
        let s = try store(dir)
        let keys = try await withThrowingTaskGroup(of: OwnKey.self) { group in
            for _ in 0 ..< 8 { group.addTask { try OwnKeySchedule(store: s).currentKey(now: self.t0) } }
            return try await group.reduce(into: [OwnKey]()) { $0.append($1) }
        }
        #expect(Set(keys.map(\.keyData)).count == 1)
        #expect(try s.countOwnKeys() == 1)
    }

    @Test func theAdvertisementIsTheRPIAndAEMOfNow() throws {
        let dir = TempDir()
        let s = try store(dir)
        let payload = try OwnKeySchedule(store: s).advertisement(now: t0 + 1_234, txPower: -8, calibrationConfidence: 2)
        #expect(payload.count == 20)
        let key = try OwnKeySchedule(store: s).currentKey(now: t0)
        let interval = UInt32((t0 + 1_234) / 600)
        let rpi = try ENFKeySchedule.rpi(rpik: ENFKeySchedule.rpik(tek: key.keyData), interval: interval)
        #expect(Array(payload.prefix(16)) == rpi.bytes)
        let metadata = try ENFKeySchedule.aem(aemk: ENFKeySchedule.aemk(tek: key.keyData), rpi: rpi, metadata: Array(payload.suffix(4)))
        #expect(metadata == [0x40 | (2 << 2), UInt8(bitPattern: -8), 0, 0])
    }

    // The history for a submission, and the keys in a key file: the client's OwnKeysInKeyFilesTests.
}
