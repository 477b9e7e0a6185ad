import ArgumentParser
import Dispatch
import EncorePushRegistry
#if canImport(Glibc)
import Glibc
#endif

/// `encore-pushd send`: silent pushes to the due iOS tokens.
struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Push {\"aps\":{\"content-available\":1}} to every registered iOS token once per interval (APNs, HTTP/2, ES256 provider token).",
        discussion: """
            Android (FCM) tokens are stored by serve but not sent to: FCM is not part of this service. \
            Several senders may run on one PostgreSQL database: each due token is claimed by one of them.
            """
    )

    @OptionGroup var storage: StorageOptions

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
        let signingKey = try APNsSigningKey(path: key)
        let store = try await storage.open()
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
        let sender = Sender(store: store, apns: client, configuration: c)
        // SIGINT/SIGTERM: no new push starts, what is in flight is awaited
        // and recorded, claims not yet pushed are released.
        let stop = Self.onSignal { sender.stop() }
        defer { stop.forEach { $0.cancel() } }
        var failure: (any Error)?
        do {
            try await sender.run(log: { log($0) })
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

    /// Cancels on SIGINT or SIGTERM (through Dispatch: no Swift code runs in a signal handler).
    static func onSignal(_ action: @escaping @Sendable () -> Void) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: action)
            source.resume()
            return source
        }
    }
}
