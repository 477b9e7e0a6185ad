import ArgumentParser
import EncoreCheck
import EncoreCheckIns
import EncoreClient
import EncoreCommandSupport
import EncoreCrowdNotifier
import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncorePush
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreSync
import EncoreTestResults
import EncoreTracing
import EncoreWire

/// `encore checkin match --db DB [--trust ...]... FILE... [--now T] [--config cwa|FILE] [--json]`.
struct CheckInMatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "match",
        abstract: "Match trace warning packages against the check-ins; print the presence-tracing risk.",
        discussion: """
            Each FILE is a trace warning package (a zip of export.bin + export.sig; an empty file is \
            the empty package), verified with the --trust keys (always: --no-verify is refused, \
            nothing unverified is stored). Warnings for the \
            check-ins' locations are stored (matching a package again adds nothing); reports that \
            fail (wrong lengths, MAC, padding) are skipped and counted. Then the risk of all stored \
            warnings is printed: per match its overlap in minutes, per UTC day the normalized time and \
            level (--config: `cwa`, CWA's production parameters, or a JSON file of \
            PresenceTracingRiskCalculationParameters). `encore check` combines the same with the \
            exposure windows. Exit status: 0 when matched, 1 when a package or the store cannot be \
            used, 2 on usage errors.

            Example:
              encore checkin match --db client.db --trust 262:v1:public.pem twp-2026-11-25-18.zip --json
            """
    )

    @OptionGroup var store: StoreArguments

    @Option(name: .long, help: ArgumentHelp("The presence-tracing risk parameters: `cwa` (built in) or a JSON file.", valueName: "cwa|file"))
    var config = "cwa"

    @OptionGroup var packages: KeyFileArguments

    @Option(name: .customLong("trace-keys"), help: ArgumentHelp("CrowdNotifier trace keys (a ProblematicEventWrapper, as GET /v3/traceKeys answers) to match against the SwissCovid and NotifyMe check-ins; with --signature and --crowdnotifier-key.", valueName: "file"))
    var traceKeys: String?

    @Option(name: .customLong("signature"), help: ArgumentHelp("The trace keys' answer's Signature header (a JWT whose content-hash is the body's SHA-256), in a file.", valueName: "file"))
    var signature: String?

    @Option(name: .customLong("crowdnotifier-key"), help: ArgumentHelp("The public key (PEM) the CrowdNotifier backend signs its answers' JWTs with.", valueName: "pem-file"))
    var crowdnotifierKey: String?

    func validate() throws {
        if traceKeys == nil { try packages.requireFiles() }
        if packages.noVerify { throw ValidationError("--no-verify: warnings are stored only from verified packages") }
        guard (traceKeys == nil) == (signature == nil) && (traceKeys == nil) == (crowdnotifierKey == nil) else {
            throw ValidationError("--trace-keys, --signature and --crowdnotifier-key go together: trace keys are matched only verified")
        }
    }

    /// Matches the trace keys of `file` once their --signature verified with the --crowdnotifier-key.
    private func matchSignedTraceKeys(_ file: String, _ service: CheckInService, now: Int64) throws -> TraceKeyMatchOutcome {
        let key = try publicKeyFile(crowdnotifierKey ?? "", "--crowdnotifier-key")
        let body = Array(try FileReader.read(path: file, maxSize: UInt64(CrowdNotifierTraceKeys.maxBodyBytes)).bytes)
        let text = try FileReader.read(path: signature ?? "", maxSize: 16 << 10).withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        let token = text.split(whereSeparator: { $0.isWhitespace }).first.map(String.init) ?? ""
        return try service.matchSignedTraceKeys(body, signature: token, key: key, now: now)
    }

    @OptionGroup var output: JSONFlag

    static func loadConfiguration(_ name: String) throws -> PresenceTracingRiskConfiguration {
        do {
            if name == "cwa" {
                guard let c = PresenceTracingRiskConfiguration.cwa else { throw EncoreError(.internalError, "the built-in parameters do not parse") }
                return c
            }
            let r = try JSONReader(JSONParser.parse(FileReader.read(path: name, maxSize: 16 << 20).bytes))
            return try PresenceTracingRiskConfiguration(try Risk.unwrap(r, "presenceTracingRiskCalculationParameters"))
        } catch let e as EncoreError {
            Output.fail(name, e.message)
            throw ExitCode(EncoreExit.failure)
        }
    }

    func run() throws {
        let configuration = try Self.loadConfiguration(config)
        let options = try packages.keyFileOptions()
        let client = try store.client(now: packages.clock)
        let s = client.store
        let service = CheckInService(store: s)
        let now = try client.now()
        var skipped = 0
        for file in packages.files {
            let outcome = try talking(file) {
                let bytes = try FileReader.read(path: file, maxSize: options.limits.maxTotalSize, tooLarge: .zipLimit).bytes
                return try service.matchWarningPackage(Array(bytes), trust: options.trust, verify: true,
                                                       limits: options.limits, now: now)
            }
            skipped += outcome.scan.skipped
        }
        let traced = try traceKeys.map { file in
            try talking(file) { try matchSignedTraceKeys(file, service, now: now) }
        }
        let assessment = try talking("check-ins") { try service.assessment(configuration: configuration, now: now) }
        guard output.json else {
            Output.write(CheckInRiskReport.text(assessment, skipped: skipped) + (traced.map(CheckInRiskReport.text) ?? ""))
            return
        }
        var document = assessment.json(skippedReports: skipped)
        if let traced, case .object(var members) = document {
            members.append(("traceKeys", CheckInRiskReport.json(traced)))
            document = .object(members)
        }
        Output.write(document.rendered(pretty: true) + "\n")
    }
}

/// How the presence-tracing risk reads as text (`checkin match`, `check`).
enum CheckInRiskReport {
    static func text(_ a: PresenceTracingAssessment, skipped: Int? = nil) -> String {
        var out = "check-in risk: \(a.totalRiskLevel.name)\n"
        if let skipped, skipped > 0 { out += "skipped reports: \(skipped)\n" }
        for m in a.matches {
            out += "  check-in \(m.checkIn) on \(UTCTime.day(seconds: m.date) ?? "?"): \(m.overlapMinutes) min overlap, TRL \(m.transmissionRiskLevel), normalized time \(PresenceTracingAssessment.rounded(m.normalizedTime))\n"
        }
        for d in a.days {
            out += "  \(UTCTime.day(seconds: d.date) ?? "?"): \(d.riskLevel.name) (normalized time \(PresenceTracingAssessment.rounded(d.normalizedTime)))\n"
        }
        return out
    }

    /// What a body of CrowdNotifier trace keys did.
    static func text(_ t: TraceKeyMatchOutcome) -> String {
        var out = "trace keys: \(t.events) events, \(t.matches.count) matches (\(t.new.count) new), \(t.pairings) pairings"
        out += (t.skipped + t.invalidKeys > 0 ? ", \(t.skipped) skipped, \(t.invalidKeys) invalid keys" : "") + "\n"
        for e in t.matches {
            out += "  check-in \(e.checkIn) on \(UTCTime.day(seconds: e.day) ?? "?"): \(CheckReason.time(e.start)) – \(CheckReason.time(e.end))"
            out += e.message.isEmpty ? "\n" : ": \(Output.oneLine(e.message))\n"
        }
        return out
    }

    static func json(_ t: TraceKeyMatchOutcome) -> JSONValue {
        .object([("events", .int(Int64(t.events))), ("skipped", .int(Int64(t.skipped))), ("invalidKeys", .int(Int64(t.invalidKeys))),
                 ("pairings", .int(Int64(t.pairings))), ("matches", .int(Int64(t.matches.count))), ("new", .array(t.new.map(\.json)))])
    }

    /// The check's view: the check-ins' risk, then each date combined with the windows'.
    static func text(_ a: PresenceTracingAssessment, combined: [CombinedDayRisk]) -> String {
        var out = text(a)
        for d in combined {
            out += "combined \(UTCTime.day(seconds: d.date) ?? "?"): \(d.riskLevel.name) (exposure windows \(d.exposureWindows?.name ?? "-"), check-ins \(d.checkIns?.name ?? "-"))\n"
        }
        return out
    }
}
