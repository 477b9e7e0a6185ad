import ArgumentParser
import Hummingbird
import Logging
import Metrics
import NIOCore
import Prometheus
import ServiceLifecycle

/// What `serve` and `send` share as services: logs (swift-log, to stderr,
/// with metadata; never a token or an instance token) and the metrics
/// listener (Prometheus' text format on its own address, so that it need
/// not be exposed where registrations are taken).
struct ServiceOptions: ParsableArguments {
    @Option(name: .customLong("metrics-listen"), help: ArgumentHelp(
        "Serve Prometheus metrics on GET /metrics at this address (port 0: any free port, printed on start).", valueName: "host:port"))
    var metricsListen: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level is one of trace, debug, info, notice, warning, error, critical") }
        if let metricsListen { _ = try listenAddress(metricsListen, option: "--metrics-listen") }
    }

    /// Sets up logging and metrics once, at start; returns the command's
    /// logger and the metrics service to run (if a listener was asked for).
    func bootstrap(label: String) throws -> (Logger, (any Service)?) {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { name in
            var handler = StreamLogHandler.standardError(label: name)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: label)
        guard let metricsListen else { return (logger, nil) }
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let (host, port) = try listenAddress(metricsListen, option: "--metrics-listen")
        let router = Router(context: BasicRequestContext.self)
        router.get("metrics") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        var quiet = logger
        quiet.logLevel = .warning
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in say("encore-pushd: metrics on \(host):\(channel.localAddress?.port ?? port)") },
            logger: quiet)
        return (logger, app)
    }
}

/// "host:port" (IPv6 in brackets) of a --listen option.
func listenAddress(_ text: String, option: String) throws -> (host: String, port: Int) {
    guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0 ... 65535).contains(port) else {
        throw ValidationError("\(option) is host:port, e.g. 127.0.0.1:8080")
    }
    var host = String(text[..<colon])
    if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    return (host, port)
}
