import ArgumentParser
import EncorePushRegistry
import Logging
import ServiceLifecycle
#if canImport(Glibc)
import Glibc
#endif

/// `encore-pushd send`: silent pushes to the due iOS tokens.
struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Push {\"aps\":{\"content-available\":1}} to every registered iOS token once per interval (APNs, HTTP/2, ES256 provider token).",
        discussion: """
            Android (FCM) tokens are stored by serve but not sent to: FCM is not part of this service. \
            Several senders may run on one PostgreSQL database: each due token is claimed by one of them. \
            SIGTERM or SIGINT drain the sender: no new batch is claimed, the current batch is pushed and \
            recorded, then it exits.
            """
    )

    @OptionGroup var storage: StorageOptions
    @OptionGroup var service: ServiceOptions

    @Option(help: ArgumentHelp("APNs base URL, e.g. https://api.push.apple.com", valueName: "url"))
    var apns: String

    @Option(name: .customLong("apns-sandbox"), help: ArgumentHelp("Base URL for iOS-sandbox tokens (default: --apns), e.g. https://api.sandbox.push.apple.com", valueName: "url"))
    var apnsSandbox: String?

    @Option(help: ArgumentHelp("The team's APNs signing key (AuthKey_<KEYID>.p8).", valueName: "p8"))
    var key: String

    @Option(name: .customLong("key-id"), help: "The key's id (the JWT's kid).")
    var keyID: String

    @Option(name: .customLong("team-id"), help: "The team id (the JWT's iss).")
    var teamID: String

    @Option(help: "The app's bundle id (apns-topic).")
    var topic: String

    @Option(name: .customLong("ca-file"), help: ArgumentHelp("Trust the CA certificates of this PEM file instead of the system's (tests).", valueName: "pem"))
    var caFile: String?

    @Option(help: "Each token is pushed once per interval; pushes are spread over it.")
    var interval = Duration(seconds: 3600)

    @Flag(help: "One pass over the tokens due now, as fast as allowed, then exit.")
    var once = false

    @Option(name: .customLong("batch-size"), help: "Tokens claimed at a time.")
    var batchSize = 500

    @Option(help: "Pushes in flight at once.")
    var concurrency = 16

    @Option(help: "How long a claim on a batch holds (a sender that dies frees its tokens after it).")
    var lease = Duration(seconds: 300)

    @Option(name: .customLong("expire-after"), help: "Delete registrations not renewed for this long.")
    var expireAfter = Duration(seconds: ExpiryPolicy.defaultSeconds)

    func validate() throws {
        for url in [apns] + (apnsSandbox.map { [$0] } ?? []) {
            guard url.hasPrefix("https://") else { throw ValidationError("APNs URLs are https:// (HTTP/2 over TLS): \(url)") }
        }
        guard !topic.isEmpty, !keyID.isEmpty, !teamID.isEmpty else { throw ValidationError("--topic, --key-id and --team-id must not be empty") }
        guard interval.seconds > 0, lease.seconds > 0, expireAfter.seconds > 0 else { throw ValidationError("durations must be positive") }
        guard (1 ... 10_000).contains(batchSize), (1 ... 1000).contains(concurrency) else {
            throw ValidationError("--batch-size is 1 to 10000, --concurrency 1 to 1000")
        }
    }

    func run() async throws {
        let (logger, metrics) = try service.bootstrap(label: "encore-pushd.send")
        let signingKey = try APNsSigningKey(path: key)
        let store = MeteredStore(try await storage.open(logger: logger))
        let client = try APNsClient(
            configuration: APNsConfiguration(base: apns, sandboxBase: apnsSandbox, topic: topic, keyID: keyID, teamID: teamID, caFile: caFile),
            key: signingKey, concurrency: concurrency)
        var c = SenderConfiguration(owner: Self.owner())
        c.interval = interval.seconds
        c.once = once
        c.batchSize = batchSize
        c.concurrency = concurrency
        c.leaseSeconds = lease.seconds
        c.expiry = ExpiryPolicy(maxAgeSeconds: expireAfter.seconds)
        let sender = SenderService(sender: Sender(store: store, apns: client, configuration: c), logger: logger)
        // The sender's end (once: its pass is done) ends the group; SIGTERM
        // and SIGINT drain it (SenderService).
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: sender, successTerminationBehavior: .gracefullyShutdownGroup),
        ]
        if let metrics { services.insert(.init(service: metrics), at: 0) }
        var quiet = logger
        quiet.logLevel = max(Logger.Level.warning, logger.logLevel)
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: quiet))
        var failure: (any Error)?
        do {
            try await group.run()
        } catch {
            failure = error
        }
        await client.shutdown()
        await store.close()
        if let failure { throw failure }
    }

    static func owner() -> String {
        var name = [CChar](repeating: 0, count: 256)
        gethostname(&name, name.count - 1)
        let host = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "\(host)-\(getpid())-\(UInt32.random(in: 0 ... .max))"
    }
}

/// The sender as a service: a graceful shutdown (SIGTERM) stops it after
/// the current batch, pushed and recorded.
struct SenderService: Service {
    let sender: Sender
    let logger: Logger

    func run() async throws {
        let sender = self.sender
        try await withGracefulShutdownHandler {
            try await sender.run(logger: logger)
        } onGracefulShutdown: {
            sender.stop()
        }
    }
}
