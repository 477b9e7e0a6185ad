import ArgumentParser
import EncorePushRegistry
import Hummingbird
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// `encore-pushd serve`: the registration endpoints.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Take registrations: POST /v3/register (SwissCovid), PUT and DELETE /v1/registrations (Bearer instance token)."
    )

    @Option(help: ArgumentHelp("Address and port to listen on (port 0: any free port, printed on start).", valueName: "host:port"))
    var listen = "127.0.0.1:8080"

    @OptionGroup var storage: StorageOptions

    @Option(name: .customLong("rate-limit"), help: "Requests per minute per source address (0: no limit).")
    var rateLimit: Double = 30

    @Option(name: .customLong("rate-burst"), help: "Requests a source may make at once (default: the per-minute figure).")
    var rateBurst: Double?

    @Option(name: .customLong("client-ip-header"), help: "Take the source address from this header's last entry (only behind a load balancer that sets it).")
    var clientIPHeader: String?

    @Option(name: .customLong("expire-after"), help: "Delete registrations not renewed for this long (the client renews every 14 days).")
    var expireAfter = Duration(seconds: ExpiryPolicy.defaultSeconds)

    @Option(name: .customLong("sweep-interval"), help: "How often expired registrations are deleted.")
    var sweepInterval = Duration(seconds: 600)

    func validate() throws {
        _ = try address()
        guard rateLimit >= 0, (rateBurst ?? 1) >= 1 else { throw ValidationError("--rate-limit must be ≥ 0 and --rate-burst ≥ 1") }
        guard expireAfter.seconds > 0, sweepInterval.seconds > 0 else { throw ValidationError("--expire-after and --sweep-interval must be positive") }
    }

    func address() throws -> (host: String, port: Int) {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]), (0 ... 65535).contains(port) else {
            throw ValidationError("--listen is host:port, e.g. 127.0.0.1:8080")
        }
        var host = String(listen[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host, port)
    }

    func run() async throws {
        let (host, port) = try address()
        let store = try await storage.open()
        let limiter = RateLimiter(.init(perMinute: rateLimit, burst: rateBurst))
        let service = RegistryService(store: store, limiter: limiter)
        let expiry = ExpiryPolicy(maxAgeSeconds: expireAfter.seconds)
        let sweepEvery = sweepInterval.seconds
        let sweeper = Task {
            while !Task.isCancelled {
                do {
                    let gone = try await store.expire(renewedBefore: expiry.cutoff(now: Int64(time(nil))))
                    if gone > 0 { log("expired \(gone) registrations") }
                } catch {
                    log("expiry sweep failed: \(error)")
                }
                try? await Task.sleep(for: .seconds(sweepEvery))
            }
        }
        var logger = Logger(label: "encore-pushd")
        logger.logLevel = .warning
        let app = Application(
            router: RegistryHTTP.router(service: service, sourceHeader: clientIPHeader),
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in
                say("encore-pushd: listening on \(host):\(channel.localAddress?.port ?? port)")
            },
            logger: logger
        )
        defer { sweeper.cancel() }
        try await app.runService()
        sweeper.cancel()
        await store.close()
    }
}
