import ArgumentParser
import EncoreCore
#if canImport(Glibc)
import Glibc
#endif

/// `encore check --db PATH --config CFG.json [--trust …]… FILE… [--now T] [--json]`:
/// the whole exposure check.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Run the exposure check: match, calculate the risk, store the result.",
        discussion: """
            Matches the store's sightings against the key FILEs (verified with the --trust keys \
            unless --no-verify), calculates CWA's v2 risk with CFG.json, applies the tracing-time \
            rule (UNKNOWN below 24 h of tracing in 14 days, unless HIGH) and the freshness rule \
            (OUTDATED when the newest keys are over 48 h old or the clock went back), stores the result \
            and says whether a notification is due. Exit status: 0 when the check ran, 1 when a file or \
            the store cannot be used, 2 on usage errors.

            """ + StoreArguments.keyHelp
    )

    @OptionGroup var store: StoreArguments

    @Option(name: .long, help: ArgumentHelp("The risk calculation configuration (JSON).", valueName: "file"))
    var config: String

    @OptionGroup var keyFiles: KeyFileArguments

    @Flag(name: .long, help: "Print one JSON object instead of text.")
    var json = false

    func run() throws {
        let risk = try Risk.loadConfiguration(config)
        let options = try keyFiles.keyFileOptions()
        let s = try store.open()
        let result: CheckResult
        do {
            result = try ExposureCheck(store: s).run(files: keyFiles.sources, keyFileOptions: options, matching: MatchingOptions(), risk: risk,
                                                   now: keyFiles.clock.value)
        } catch let e as EncoreError {
            Output.fail(keyFiles.subject, e.message)
            throw ExitCode(EncoreExit.failure)
        }
        Output.write(json ? JSONWriter.render(CheckReport.json(result)) + "\n" : CheckReport.text(result))
    }
}

/// How `encore check` shows a result.
enum CheckReport {
    static func json(_ r: CheckResult) -> JSON {
        guard case .object(let risk) = RiskReport.json(r.assessment) else { return .null }
        return .object([
            ("status", .string(r.status.name)),
            ("notificationDue", .bool(r.notificationDue)),
            ("calculatedAt", .int(r.calculatedAt)),
            ("activeTracingSeconds", .int(r.activeTracingSeconds)),
            ("newestKeys", .int(r.newestKeys)),
            ("exposureWindowCount", .int(r.windowCount)),
            ("storedResultId", .int(r.storedResultID)),
        ] + risk + [("summaryV1", DetectReport.summary(r.summaryV1))])
    }

    static func text(_ r: CheckResult) -> String {
        var out = "risk: \(r.status.name)\(r.notificationDue ? " (changed: notify the user)" : "")\n"
        out += "active tracing in the last 14 days: \(r.activeTracingSeconds / 3600) h; exposure windows: \(r.windowCount)\n"
        return out + RiskReport.text(r.assessment)
    }
}
