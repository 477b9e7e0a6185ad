import ArgumentParser
import EncoreCheck
import EncoreCheckIns
import EncoreClient
import EncoreCommandSupport
import EncoreExposure
import EncoreKeyFiles
import EncorePush
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreSync
import EncoreTracing

/// `encore push ...`: silent-push registration (SwissCovid's rule).
struct PushCommand: CommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Decide when to register for silent pushes, register and deregister.",
        discussion: """
            Check-in-only users (Exposure Notifications off) are woken by empty silent pushes to sync. \
            `decide` applies the rule of ../shared/spec/push.md to the store's state; `register` and \
            `deregister` talk to the registry (SwissCovid's POST /v3/register, or encore-pushd's \
            /v1/registrations with --api registry) with the app-instance token, which is made once, kept \
            in the encrypted store and sent in no other request.

            """ + StoreArguments.keyHelp,
        subcommands: [PushDecide.self, PushRegister.self, PushDeregister.self, PushStatusCommand.self]
    )
}

/// How registration requests go: the API and the transport.
struct PushServerArguments: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The registry's base URL (https, or http to this machine).", valueName: "url"))
    var server: String?

    @Option(name: .long, help: ArgumentHelp("swisscovid (POST /v3/register, the default) or registry (encore-pushd's /v1/registrations).",
                                            valueName: "api"))
    var api = PushProtocol.API.swisscovid.rawValue

    @Option(name: .long, help: ArgumentHelp("Attempts of a request without a usable answer (default 3).", valueName: "n"))
    var attempts = 3

    @OptionGroup var transport: TransportArguments

    func validate() throws {
        guard PushProtocol.API(rawValue: api) != nil else { throw ValidationError("--api is swisscovid or registry") }
        guard (1 ... 10).contains(attempts) else { throw ValidationError("--attempts is 1 to 10") }
    }

    var apiValue: PushProtocol.API { PushProtocol.API(rawValue: api) ?? .swisscovid }

    /// The command's client: the store with this registry, the transport and --now.
    func client(_ store: StoreArguments, now: NowArgument? = nil) throws -> EncoreClient {
        var s = ClientServers()
        s.push = server
        s.pushAPI = apiValue
        return try store.client(servers: s, transport: transport.transport(), now: now)
    }
    var retry: PushRetry { PushRetry(attempts: attempts) }
}

enum PushReport {
    static func write(_ s: PushStatus, json: Bool) {
        if json {
            Output.write(s.json.rendered(pretty: true) + "\n")
            return
        }
        var lines: [(String, String)] = [("registered", s.state.registeredAt.map { "yes, at " + (UTCTime.iso8601(seconds: $0) ?? "\($0)") } ?? "no")]
        if let server = s.server { lines.append(("server", "\(server) (\(s.api?.rawValue ?? "?"), \(s.pushType?.rawValue ?? "?"))")) }
        lines.append(("exposure notifications", s.state.enActive ? "on" : "off"))
        lines.append(("check-ins", s.state.hasCheckIns ? "stored" : "none"))
        lines.append(("isolated", s.state.isolated ? "yes" : "no"))
        Output.write(LabelledLines.render(lines))
    }
}

struct PushDecide: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decide",
        abstract: "Say whether to register, deregister or do nothing on an event (nothing is sent).",
        discussion: """
            --en and --isolated are stored as the new state before deciding. --json prints \
            {"action": "register"|"deregister"|"none", "reason": "..."}.

            Example:
              encore push decide --db client.db --event checkout --en off --json
            """
    )

    @OptionGroup var store: StoreArguments

    @Option(name: .long, help: ArgumentHelp("app-start, checkout, en-on, en-off or token-changed.", valueName: "event"))
    var event: String

    @Option(name: .long, help: ArgumentHelp("Exposure Notifications are now on or off (stored first).", valueName: "on|off"))
    var en: String?

    @Option(name: .long, help: ArgumentHelp("The user is in isolation: yes or no (stored first).", valueName: "yes|no"))
    var isolated: String?

    @OptionGroup var clock: NowArgument

    @OptionGroup var output: JSONFlag

    func validate() throws {
        guard PushRule.Event(rawValue: event) != nil else { throw ValidationError("--event is app-start, checkout, en-on, en-off or token-changed") }
        guard en == nil || en == "on" || en == "off" else { throw ValidationError("--en is on or off") }
        guard isolated == nil || isolated == "yes" || isolated == "no" else { throw ValidationError("--isolated is yes or no") }
    }

    func run() throws {
        let client = try store.client(now: clock)
        let service = client.push
        let decision = try talking(store.db) { () throws -> PushRule.Decision in
            if let en { try service.store.setExposureNotifications(en == "on", now: client.now()) }
            if let isolated { try service.setIsolated(isolated == "yes") }
            return try service.decide(PushRule.Event(rawValue: event) ?? .appStart, now: client.now())
        }
        if output.json {
            Output.write(JSONValue.object([("action", .string(decision.action.rawValue)), ("reason", .string(decision.reason))]).rendered(pretty: true) + "\n")
            return
        }
        Output.write(LabelledLines.render([("action", decision.action.rawValue), ("why", decision.reason)]))
    }
}

struct PushRegister: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Register a push token (also to renew, or after the OS gave a new one).",
        discussion: """
            The token is checked first (APNs: 64 hex digits; FCM: 1 to 4096 URL-safe characters). The \
            registration is stored only when the server said yes. Exit status: 0 registered; 1 refused \
            or failed; 2 usage errors (a malformed token among them).

            Example:
              encore push register --db client.db --server https://push.example --token 3f2a… --type ios
            """
    )

    @OptionGroup var store: StoreArguments
    @OptionGroup var servers: PushServerArguments

    @Option(name: .long, help: ArgumentHelp("The push token the OS gave.", valueName: "token"))
    var token: String

    @Option(name: .long, help: ArgumentHelp("ios, ios-sandbox or android.", valueName: "type"))
    var type: String

    @OptionGroup var clock: NowArgument

    @OptionGroup var output: JSONFlag

    func validate() throws {
        guard servers.server != nil else { throw ValidationError("give --server") }
        guard let t = PushType(rawValue: type) else { throw ValidationError("--type is ios, ios-sandbox or android") }
        do { try PushRegistration.validatePushToken(token, type: t) } catch let e as EncoreError { throw ValidationError(e.message) }
    }

    func run() throws {
        let client = try servers.client(store, now: clock)
        let status = try talking(servers.server ?? "") {
            try client.push.register(transport: client.transport, server: client.pushURL(), api: client.servers.pushAPI, pushToken: token,
                                     type: PushType(rawValue: type) ?? .ios, retry: servers.retry, now: client.now())
        }
        PushReport.write(status, json: output.json)
    }
}

struct PushDeregister: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deregister",
        abstract: "Deregister (without --server: from the server registered with).",
        discussion: """
            The registration is forgotten once the server said yes. Exit status: 0 deregistered; 1 \
            refused or failed; 2 usage errors.

            Example:
              encore push deregister --db client.db
            """
    )

    @OptionGroup var store: StoreArguments
    @OptionGroup var servers: PushServerArguments

    @OptionGroup var output: JSONFlag

    func run() throws {
        let client = try servers.client(store)
        let status = try talking(servers.server ?? "push deregistration") {
            try client.push.deregister(transport: client.transport, server: client.servers.push,
                                       api: client.servers.push == nil ? nil : client.servers.pushAPI, retry: servers.retry)
        }
        PushReport.write(status, json: output.json)
    }
}

struct PushStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the registration and the state the rule decides on (the tokens are not shown)."
    )

    @OptionGroup var store: StoreArguments

    @OptionGroup var output: JSONFlag

    func run() throws {
        let client = try store.client()
        PushReport.write(try talking(store.db) { try client.push.status() }, json: output.json)
    }
}
