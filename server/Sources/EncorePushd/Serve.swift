import ArgumentParser
import EncorePushRegistry
import Hummingbird
import Logging
import ServiceLifecycle
#if canImport(Glibc)
import Glibc
#endif

/// `encore-pushd serve`: the registration endpoints.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Take registrations: POST /v3/register (SwissCovid), PUT and DELETE /v1/registrations (Bearer instance token).",
        discussion: """
            SIGTERM or SIGINT drain the instance: it stops accepting connections, answers the requests \
            it has, then exits. GET /health: alive; GET /ready: the storage answers.
            """
    )

    @Option(help: ArgumentHelp("Address and port to listen on (port 0: any free port, printed on start).", valueName: "host:port"))
    var listen = "127.0.0.1:8080"

    @OptionGroup var storage: StorageOptions
    @OptionGroup var service: ServiceOptions

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
        _ = try listenAddress(listen, option: "--listen")
        guard rateLimit >= 0, (rateBurst ?? 1) >= 1 else { throw ValidationError("--rate-limit must be ≥ 0 and --rate-burst ≥ 1") }
        guard expireAfter.seconds > 0, sweepInterval.seconds > 0 else { throw ValidationError("--expire-after and --sweep-interval must be positive") }
    }

    func run() async throws {
        let (host, port) = try listenAddress(listen, option: "--listen")
        let (logger, metrics) = try service.bootstrap(label: "encore-pushd.serve")
        let store = MeteredStore(try await storage.open(logger: logger))
        let limiter = RateLimiter(.init(perMinute: rateLimit, burst: rateBurst))
        let registry = RegistryService(store: store, limiter: limiter)
        // Hummingbird's own logs at warning: request lines are not logged.
        var httpLogger = logger
        httpLogger.logLevel = max(Logger.Level.warning, logger.logLevel)
        let app = Application(
            router: RegistryHTTP.router(service: registry, sourceHeader: clientIPHeader),
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in
                say("encore-pushd: listening on \(host):\(channel.localAddress?.port ?? port)")
            },
            logger: httpLogger
        )
        let sweeper = ExpirySweeper(store: store, expiry: ExpiryPolicy(maxAgeSeconds: expireAfter.seconds),
                                    every: sweepInterval.seconds, logger: logger)
        // Shut down last to first: the HTTP server drains first (no new
        // connection, the requests in hand answered), then the sweeper,
        // then the metrics listener.
        var services: [any Service] = [sweeper, app]
        if let metrics { services.insert(metrics, at: 0) }
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: httpLogger))
        do {
            try await group.run()
        } catch {
            await store.close()
            throw error
        }
        await store.close()
        logger.notice("drained and stopped")
    }
}

/// Deletes expired registrations every `every` seconds until shut down.
struct ExpirySweeper: Service {
    let store: any RegistryStore
    let expiry: ExpiryPolicy
    let every: Int64
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let gone = try await store.expire(renewedBefore: expiry.cutoff(now: Int64(time(nil))))
                    if gone > 0 { logger.info("expired registrations deleted", metadata: ["count": "\(gone)"]) }
                } catch {
                    logger.error("expiry sweep failed", metadata: ["error": "\(String(describing: error).prefix(200))"])
                }
                try? await Task.sleep(for: .seconds(every))
            }
        }
    }
}
