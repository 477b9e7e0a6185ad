import ArgumentParser
import EncoreCheck
import EncoreCheckIns
import EncoreClient
import EncoreCommandSupport
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreSync
#if canImport(Glibc)
import Glibc
#endif

/// `encore match --db PATH [--trust …]… FILE… [--now T] [--json]`: the
/// exposure check's matching step, on the store's sightings.
struct MatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "match",
        abstract: "Match the store's sightings against key files: exposure windows and the v1 summary.",
        discussion: """
            Opens each FILE in turn (verified with the keys given by --trust unless --no-verify), \
            matches its keys against the sightings in the store, and prints the exposure windows \
            (in the form `encore risk --windows` reads) and the ENF v1 summary. \
            Exit status: 0 when matching ran (whether or not anything matched), 1 when a file or the \
            store cannot be used, 2 on usage errors.

            Example:
              encore match --db client.db --trust 310:v1:public.pem --json 2026-11-24.zip > windows.json

            """ + "\n" + StoreArguments.keyHelp,
        aliases: ["detect"]
    )

    @OptionGroup var store: StoreArguments

    @OptionGroup var keyFiles: KeyFileArguments

    func validate() throws { try keyFiles.requireFiles() }

    @OptionGroup var output: JSONFlag

    func run() throws {
        let fileOptions = try keyFiles.keyFileOptions()
        let client = try store.client(now: keyFiles.clock)
        let s = client.store
        let options = MatchingOptions(), now = try client.now()
        let result: MatchResult
        do {
            result = try ExposureDetection(store: s).match(files: keyFiles.sources, keyFileOptions: fileOptions, options: options, now: now)
        } catch let e as EncoreError {
            Output.fail(keyFiles.subject, e.message)
            throw ExitCode(EncoreExit.failure)
        }
        Output.write(output.json ? result.json(now: now).rendered(pretty: true) + "\n" : DetectReport.text(result))
    }
}

/// How `encore match` shows a match result.
enum DetectReport {
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
