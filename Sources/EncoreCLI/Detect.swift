import ArgumentParser
import EncoreCore
#if canImport(Glibc)
import Glibc
#endif

/// `encore detect --db PATH [--trust …]… FILE… [--now T] [--json]`: the
/// exposure check's matching step, on the store's sightings.
struct Detect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract: "Match the store's sightings against key files: exposure windows and the v1 summary.",
        discussion: """
            Opens each FILE in turn (verified with the keys given by --trust unless --no-verify), \
            matches its keys against the sightings in the store, and prints the exposure windows \
            (in the form `encore risk --windows` reads) and the ENF v1 summary. \
            Exit status: 0 when matching ran (whether or not anything matched), 1 when a file or the \
            store cannot be used, 2 on usage errors.

            """ + StoreArguments.keyHelp
    )

    @OptionGroup var store: StoreArguments

    @OptionGroup var keyFiles: KeyFileArguments

    @Flag(name: .long, help: "Print one JSON object instead of text.")
    var json = false

    func run() throws {
        let fileOptions = try keyFiles.keyFileOptions()
        let s = try store.open()
        let options = MatchingOptions(), now = keyFiles.clock.value
        let result: MatchResult
        do {
            result = try ExposureDetection(store: s).match(files: keyFiles.sources, keyFileOptions: fileOptions, options: options, now: now)
        } catch let e as EncoreError {
            Output.fail(keyFiles.subject, e.message)
            throw ExitCode(EncoreExit.failure)
        }
        Output.write(json ? JSONWriter.render(DetectReport.json(result, now: now)) + "\n" : DetectReport.text(result))
    }
}

/// How `encore detect` shows a match result.
enum DetectReport {
    static func json(_ r: MatchResult, now: Int64) -> JSON {
        .object([
            ("now", .int(now)),
            ("exposureWindows", .array(r.windows.map(window))),
            ("summary", summary(r.summaryV1)),
            ("statistics", statistics(r.statistics)),
        ])
    }

    /// A window in the conformance file's form, with `date` as unix seconds.
    static func window(_ w: ExposureWindow) -> JSON {
        .object([
            ("date", .int(w.date)),
            ("reportType", .int(w.reportType.rawValue)),
            ("infectiousness", .int(w.infectiousness.rawValue)),
            ("calibrationConfidence", .int(w.calibrationConfidence)),
            ("scanInstances", .array(w.scanInstances.map {
                .object([("minAttenuation", .int($0.minAttenuation)), ("typicalAttenuation", .int($0.typicalAttenuation)),
                         ("secondsSinceLastScan", .int($0.secondsSinceLastScan))])
            })),
        ])
    }

    static func summary(_ s: ExposureSummaryV1) -> JSON {
        .object([
            ("matchedKeyCount", .int(s.matchedKeyCount)),
            ("daysSinceLastExposure", .int(s.daysSinceLastExposure)),
            ("maximumRiskScore", .int(s.maximumRiskScore)),
            ("maximumRiskScoreFullRange", .int(s.maximumRiskScoreFullRange)),
            ("riskScoreSumFullRange", .int(s.riskScoreSumFullRange)),
            ("attenuationDurations", .array(s.attenuationDurations.map { .int($0) })),
        ])
    }

    static func statistics(_ t: MatchStatistics) -> JSON {
        .object([
            ("files", .int(t.files)), ("keys", .int(t.keys)), ("skippedOld", .int(t.skippedOld)),
            ("skippedRevoked", .int(t.skippedRevoked)), ("skippedNotInfectious", .int(t.skippedNotInfectious)),
            ("skippedNoSightings", .int(t.skippedNoSightings)), ("derived", .int(t.derived)), ("matchedKeys", .int(t.matchedKeys)),
        ])
    }

    static func text(_ r: MatchResult) -> String {
        var out = "\(r.statistics.keys) keys in \(r.statistics.files) files, \(r.statistics.matchedKeys) matched, \(r.windows.count) exposure windows\n"
        for w in r.windows {
            let minutes = w.scanInstances.reduce(0) { $0 + $1.secondsSinceLastScan } / 60
            let minimum = w.scanInstances.map(\.minAttenuation).min() ?? 0
            out += "  \(UTCTime.iso8601(seconds: w.date)?.prefix(10) ?? "?")  \(w.reportType.name), infectiousness \(w.infectiousness.name), "
            out += "\(w.scanInstances.count) scans, ~\(minutes) min, min attenuation \(minimum) dB\n"
        }
        let s = r.summaryV1
        out += "v1 summary: matched keys \(s.matchedKeyCount), days since last exposure \(s.daysSinceLastExposure), "
        out += "maximum risk score \(s.maximumRiskScore) (full range \(s.maximumRiskScoreFullRange)), sum \(s.riskScoreSumFullRange), "
        out += "attenuation durations \(s.attenuationDurations.map(String.init).joined(separator: "/")) s\n"
        return out
    }
}
