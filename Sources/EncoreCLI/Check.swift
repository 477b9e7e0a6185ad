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
import EncoreTracing
#if canImport(Glibc)
import Glibc
#endif

/// `encore check --db PATH [--config cwa|CFG.json] [--trust …]… [FILE…] [--now T] [--json]`:
/// the whole exposure check, on key files or (without FILE) on the key
/// package cache that `encore sync` keeps.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Run the exposure check: match, calculate the risk, store the result.",
        discussion: """
            Matches the store's sightings against the key FILEs (verified with the --trust keys \
            unless --no-verify), calculates CWA's v2 risk (--config: `cwa`, built in, or a JSON file as \
            `encore risk` takes), applies the tracing-time rule (UNKNOWN below \(CheckReason.hours(CheckOptions().minimumTracingSeconds)) \
            of tracing in \(CheckOptions().tracingDays) days, unless HIGH) and the freshness rule (OUTDATED when \
            the newest keys are over \(CheckReason.hours(CheckOptions().maximumKeyAgeSeconds)) old or the clock went back), \
            stores the result and says whether a notification is due (and, for UNKNOWN and OUTDATED, why). \
            --json prints the document stored with the result. Without FILE the check runs on the \
            packages `encore sync` keeps in the store (verified when downloaded), with the synced app \
            configuration's risk parameters unless --config is given. What each cached file matched is \
            kept in the store, so that such a check matches only what is new: files it has not matched, \
            and for the others the sightings added since (the result is the one matching everything again \
            gives); --full matches every cached file again. Exit status: 0 when the check ran, \
            1 when a file or the store cannot be used, 2 on usage errors.

            Examples:
              encore check --db client.db --trust 310:v1:public.pem 2026-11-2*.zip
              encore check --db client.db          # the synced packages, what is new
              encore check --db client.db --full   # the synced packages, all matched again

            """ + "\n" + StoreArguments.keyHelp
    )

    @OptionGroup var store: StoreArguments

    @Option(name: .long, help: ArgumentHelp("The risk calculation configuration: `cwa` (built in) or a JSON file (default: cwa; without FILE, the synced configuration's).",
                                            valueName: "cwa|file"))
    var config: String?

    @OptionGroup var keyFiles: KeyFileArguments

    @Flag(name: .long, help: "Without FILE: match every cached key file again, not only what is new since the last check (its kept matches are made anew).")
    var full = false

    @OptionGroup var output: JSONFlag

    func validate() throws {
        if full && !keyFiles.files.isEmpty {
            throw ValidationError("--full applies to the cached key files (no FILE): a check on FILEs always matches them all")
        }
    }

    func run() throws {
        let risk = try config.map(Risk.loadConfiguration)
        let options = try keyFiles.keyFileOptions()
        let client = try store.client(now: keyFiles.clock)
        let s = client.store
        let result: CheckResult
        do {
            if keyFiles.files.isEmpty {
                var checkOptions = CheckOptions()
                checkOptions.full = full
                result = try CachedCheck(store: s).run(risk: risk, options: checkOptions, now: try client.now())
            } else {
                result = try ExposureCheck(store: s).run(files: keyFiles.sources, keyFileOptions: options, matching: MatchingOptions(),
                                                       risk: risk ?? Risk.loadConfiguration("cwa"), now: try client.now())
            }
        } catch let e as EncoreError {
            Output.fail(keyFiles.files.isEmpty ? store.db : keyFiles.subject, e.message)
            throw ExitCode(EncoreExit.failure)
        }
        Output.write(output.json ? CheckDocument.json(result).rendered(pretty: true) + "\n" : CheckReport.text(result))
    }
}

/// How `encore check` shows a result.
enum CheckReport {
    static func text(_ r: CheckResult) -> String {
        var out = "risk: \(r.status.name)\(r.notificationDue ? " (changed: notify the user)" : "")\n"
        if let reason = r.reason { out += "why: \(reason)\n" }
        out += "active tracing in the last \(CheckOptions().tracingDays) days: \(CheckReason.hours(r.activeTracingSeconds)); exposure windows: \(r.windowCount)\n"
        out += RiskReport.text(r.assessment)
        // The check-ins' part and the combined days, when there is one.
        return r.checkIns.matches.isEmpty ? out : out + CheckInRiskReport.text(r.checkIns, combined: r.combined)
    }
}
