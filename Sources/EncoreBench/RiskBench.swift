import EncoreExposure
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport

/// Risk calculation over 10 000 exposure windows (issue target: well under
/// 10 ms), against a same-run baseline: one pass summing the windows' scan
/// seconds (the least any calculation must do).
enum RiskBench {
    static func run(windows count: Int = 10_000, runs: Int = 15) throws -> (ok: Bool, summary: [String]) {
        guard let config = RiskConfiguration.cwa else { throw EncoreError(.internalError, "built-in configuration") }
        let now: Int64 = 1_700_000_000
        var rng = XorShift(seed: 7)
        let windows: [ExposureWindow] = (0 ..< count).map { _ in
            ExposureWindow(date: now / 86_400 * 86_400 - Int64(rng.next() % 14) * 86_400,
                           reportType: [.confirmedTest, .selfReport, .recursive][Int(rng.next() % 3)],
                           infectiousness: rng.next() % 2 == 0 ? .standard : .high, calibrationConfidence: Int(rng.next() % 4),
                           scanInstances: (0 ..< 1 + Int(rng.next() % 8)).map { _ in
                               ScanInstance(typicalAttenuation: 40 + Int(rng.next() % 40), minAttenuation: 35 + Int(rng.next() % 40),
                                            secondsSinceLastScan: 60 * (1 + Int(rng.next() % 5)))
                           })
        }
        var calc = Samples(), base = Samples()
        var sink = 0
        for _ in 0 ..< runs {
            calc.add(try Timing.time { sink &+= try RiskCalculation.calculate(windows, configuration: config, now: now).days.count })
            base.add(Timing.time { sink &+= windows.reduce(0) { $0 &+ $1.scanInstances.reduce(0) { $0 &+ $1.secondsSinceLastScan } } })
        }
        let ms = calc.median * 1000
        let pass = ms < 10
        let line = "risk calculation, \(count) windows: \(Format.fixed(ms, 2)) ms (target well under 10 ms): \(pass ? "PASS" : "FAIL")"
        print("""
            == risk calculation (CWA v2, built-in configuration)
            \(count) windows, \(runs) runs, medians: calculate \(Format.fixed(ms, 2)) ms (best \(Format.fixed(calc.best * 1000, 2)) ms), \
            baseline pass over the windows \(Format.fixed(base.median * 1000, 3)) ms = \(Format.fixed(calc.median / base.median, 1))× the baseline
            target well under 10 ms: \(pass ? "PASS" : "FAIL")  (\(sink % 2))
            """)
        return (pass, [line])
    }
}
