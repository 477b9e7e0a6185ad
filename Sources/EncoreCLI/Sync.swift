import ArgumentParser
import EncoreCheck
import EncoreCheckIns
import EncoreClient
import EncoreCommandSupport
import EncoreExposure
import EncoreFixtures
import EncoreHTTP
import EncoreKeyFiles
import EncorePush
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreSync

/// `encore sync ...`: background sync, and its planner.
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Download what was published (key files, app configuration, check-in warnings, DP-3T and CrowdNotifier keys) and run the check.",
        discussion: """
            `encore sync` (the default subcommand, `run`) fetches what is due; `encore sync plan` only says \
            what would be fetched, or when the next sync is due, for a scheduler (see docs/systemd/).

            """ + StoreArguments.keyHelp,
        subcommands: [SyncRun.self, SyncPlanCommand.self],
        defaultSubcommand: SyncRun.self
    )
}

/// What a sync talks to and how: shared by `sync` and `sync plan`.
struct SyncArguments: ParsableArguments {
    @OptionGroup var servers: SyncServerOptions

    @Option(name: .long, help: ArgumentHelp("What woke the sync: periodic, push, app-start or user (default user: at once).", valueName: "trigger"))
    var trigger = SyncTrigger.user.rawValue

    @Option(name: .long, help: ArgumentHelp("The network: unmetered, metered (no hour packages) or none.", valueName: "kind"))
    var network = NetworkKind.unmetered.rawValue

    @OptionGroup var clock: NowArgument

    func validate() throws {
        guard servers.any else { throw ValidationError("give --distribution, --dp3t, --crowdnotifier or several") }
        guard SyncTrigger(rawValue: trigger) != nil else { throw ValidationError("--trigger is periodic, push, app-start or user") }
        guard NetworkKind(rawValue: network) != nil else { throw ValidationError("--network is unmetered, metered or none") }
    }

    /// How this one sync runs.
    func options() -> SyncOptions {
        var o = SyncOptions()
        o.traceWarnings = !servers.noWarnings
        o.trigger = SyncTrigger(rawValue: trigger) ?? .user
        o.network = NetworkKind(rawValue: network) ?? .unmetered
        return o
    }

    /// The command's client: the store with these servers, trust list and --now.
    func client(_ store: StoreArguments, transport: (any HTTPTransport)? = nil) throws -> EncoreClient {
        try store.client(servers: servers.servers(), trust: servers.trustList(), transport: transport, now: clock)
    }
}

struct SyncRun: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Sync what is due now; after new data, run the exposure check on the cache.",
        discussion: """
            Every package and the configuration are verified (--trust) before they are kept; each answer \
            is stored in one transaction, so a sync killed at any moment keeps only verified packages \
            and the next one resumes. Revoked packages are deleted and fetched again; packages older \
            than 14 days are purged. --json prints {"items": [...], "fetched": [...], "deleted": N, "revoked": N, \
            "check": {...}|null, "nextDueAt": T, "configuration": {"used": "fetched"|"unchanged"|"last-verified"|"built-in", \
            "reason": "..."|null, "failures": N}|null, ...}. A configuration that cannot be fetched or verified \
            (404, 5xx, a bad signature) does not stop the sync: the packages are fetched and checked with the \
            last verified configuration or the built-in one, and the configuration alone backs off. \
            Exit status: 0 synced (or nothing due); 1 a server or the store failed (counted for the backoff); \
            2 usage errors.

            Examples:
              encore sync --db client.db --distribution https://svc90.main.px.t-online.de --trust 310:v1:cwa.pem
              encore sync --db client.db --dp3t https://www.pt.bfs.admin.ch --dp3t-key backend.pem --trigger push
              encore sync --db client.db --crowdnotifier https://www.pt-a.bfs.admin.ch --crowdnotifier-key backend.pem
            """
    )

    @OptionGroup var store: StoreArguments
    @OptionGroup var sync: SyncArguments
    @OptionGroup var transport: TransportArguments

    @Flag(name: .customLong("no-check"), help: "Do not run the exposure check after new data.")
    var noCheck = false

    @Option(name: .long, help: ArgumentHelp("Stop cleanly after this many seconds (default 480); the next sync resumes.", valueName: "seconds"))
    var budget = SyncPlanner.budgetSeconds

    @OptionGroup var output: JSONFlag

    func run() throws {
        var options = sync.options()
        options.runCheck = !noCheck
        options.budgetSeconds = budget
        let client = try sync.client(store, transport: transport.transport())
        let report = try talking(sync.servers.distribution ?? sync.servers.dp3t ?? sync.servers.crowdnotifier ?? "sync") { try client.sync(options) }
        if output.json {
            Output.write(report.json.rendered(pretty: true) + "\n")
            return
        }
        Output.write(SyncText.render(report))
    }
}

struct SyncPlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Say what a sync would fetch now, or when the next one is due (nothing is sent).",
        discussion: """
            --json prints {"steps": [{"step": "config"|"days"|"hours"|"dp3t"|"warnings"|"traceKeys", ...}], "nextDueAt": T|null, "reason": "..."}.

            Example:
              encore sync plan --db client.db --distribution https://svc90.main.px.t-online.de --trigger periodic --json
            """
    )

    @OptionGroup var store: StoreArguments
    @OptionGroup var sync: SyncArguments

    @OptionGroup var output: JSONFlag

    func run() throws {
        let client = try sync.client(store)
        let plan = try talking(store.db) { try client.syncPlan(sync.options()) }
        if output.json {
            Output.write(plan.json.rendered(pretty: true) + "\n")
            return
        }
        var lines = [("due", plan.steps.isEmpty ? "nothing" : plan.steps.map(\.name).joined(separator: ", ")), ("why", plan.reason)]
        if let t = plan.nextDueAt { lines.append(("next sync", UTCTime.iso8601(seconds: t) ?? "\(t)")) }
        Output.write(LabelledLines.render(lines))
    }
}

/// How `encore sync` shows what it did.
enum SyncText {
    static func render(_ r: SyncReport) -> String {
        var lines: [(String, String)] = []
        let fetched = r.fetched.map { f -> String in
            switch f.kind {
            case .config: return "configuration"
            case .day: return "day \(f.day ?? "?") (\(f.keys) keys)"
            case .hour: return "hour \(f.day ?? "?") \(f.hour ?? 0):00 (\(f.keys) keys)"
            case .dp3t: return "DP-3T bundle \(f.etag) (\(f.keys) keys)"
            case .warnings: return "warnings of hour \(f.interval ?? 0) (\(f.keys) reports, \(f.matches ?? 0) new matches)"
            case .traceKeys: return "trace keys \(f.etag) (\(f.keys) events, \(f.matches ?? 0) new matches)"
            }
        }
        lines.append(("fetched", fetched.isEmpty ? "nothing new" : fetched.joined(separator: ", ")))
        if r.deleted > 0 { lines.append(("deleted", "\(r.deleted) packages")) }
        if r.revoked > 0 { lines.append(("revoked", "\(r.revoked) packages (fetched again)")) }
        if r.checkInMatches > 0 { lines.append(("check-ins", "\(r.checkInMatches) new matches")) }
        if let c = r.configuration, c.source == .lastVerified || c.source == .builtIn {
            lines.append(("configuration", "the \(c.source == .builtIn ? "built-in" : "last verified") one: \(c.reason ?? "")"))
        }
        for w in r.warnings { lines.append(("warning", w)) }
        if let t = r.nextDueAt { lines.append(("next sync", UTCTime.iso8601(seconds: t) ?? "\(t)")) }
        var out = LabelledLines.render(lines)
        if let check = r.check { out += CheckReport.text(check) }
        return out
    }
}
