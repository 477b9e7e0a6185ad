import EncoreStorage
import EncoreSupport
import EncoreTracing
import Testing

@Suite struct ScheduleTests {
    let midnight: Int64 = 19_000 * 86_400

    @Test func rotationIsTenToTwentyMinutesAfterTheLast() {
        let r = RotationSchedule.enf
        let t = midnight + 3_600
        #expect(r.validUntil(rotation: t, random: { $0.lowerBound }) == t + 600)
        #expect(r.validUntil(rotation: t, random: { $0.upperBound }) == t + 1_200)
        #expect(r.validUntil(rotation: t, random: { _ in 900 }) == t + 900)
        // A draw outside the range it was given is clamped into it.
        #expect(r.validUntil(rotation: t, random: { _ in 5 }) == t + 600)
        #expect(r.validUntil(rotation: t, random: { _ in 99_999 }) == t + 1_200)
    }

    @Test func rotationAlwaysHappensAtTheDaysEnd() {
        let r = RotationSchedule.enf
        let late = midnight + 86_400 - 700     // 11 min 40 s before the next midnight
        #expect(r.validUntil(rotation: late, random: { $0.upperBound }) == midnight + 86_400)
        #expect(r.validUntil(rotation: late, random: { $0.lowerBound }) == late + 600)
    }

    @Test func seededDrawsAreInRangeAndRepeatable() {
        let a = seededRandomSeconds(seed: 7), b = seededRandomSeconds(seed: 7)
        let xs = (0 ..< 200).map { _ in a(600 ... 1_200) }
        #expect(xs == (0 ..< 200).map { _ in b(600 ... 1_200) })
        #expect(xs.allSatisfy { (600 ... 1_200).contains($0) })
        #expect(Set(xs).count > 100)
        // Rotation times drawn by the system average about 15 minutes.
        let mean = (0 ..< 2_000).map { _ in systemRandomSeconds(600 ... 1_200) }.reduce(0, +) / 2_000
        #expect((840 ... 960).contains(mean))
    }

    @Test func scansAreFourSecondsEveryFiveMinutes() {
        let s = ScanSchedule.enf
        #expect(s.windowSeconds == 4 && s.periodSeconds == 300)
        let t = midnight + 100
        #expect(s.nextWindow(lastScanStart: nil, now: t) == ScanWindow(start: t, end: t + 4))
        #expect(s.nextWindow(lastScanStart: t, now: t + 10) == ScanWindow(start: t + 300, end: t + 304))
        // Late (the host slept): at once, not a period after the late time.
        #expect(s.nextWindow(lastScanStart: t, now: t + 1_000) == ScanWindow(start: t + 1_000, end: t + 1_004))
        // The clock set back an hour: a scan at once, not an hour's wait.
        #expect(s.nextWindow(lastScanStart: t, now: t - 3_600) == ScanWindow(start: t - 3_600, end: t - 3_596))
    }
}
