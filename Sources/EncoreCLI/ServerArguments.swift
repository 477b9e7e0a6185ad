import ArgumentParser
import EncoreClient
import EncoreHTTP
import EncoreKeyFiles
import EncoreSupport

/// How the tool talks to servers: the built-in HTTPS transport, with a CA
/// file for private deployments and a timeout.
struct TransportArguments: ParsableArguments {
    @Option(name: .customLong("ca-file"), help: ArgumentHelp("Also trust the CA certificates in this PEM file.", valueName: "pem-file"))
    var caFile: String?

    @Option(name: .long, help: ArgumentHelp("Seconds a request may take (default 60).", valueName: "seconds"))
    var timeout: Int64 = 60

    func validate() throws {
        guard (1 ... 3600).contains(timeout) else { throw ValidationError("--timeout is 1 to 3600 seconds") }
    }

    func transport() throws -> CurlTransport {
        var o = TransportOptions()
        o.caFile = caFile
        o.timeoutMilliseconds = timeout * 1000
        return try CurlTransport(options: o)
    }
}

/// CWA's verification server (and the submission server, whose fake
/// requests hide the real ones).
struct CWAServerArguments: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The verification server's base URL (https, or http to this machine).", valueName: "url"))
    var verification: String

    @Option(name: .long, help: ArgumentHelp("The submission server's base URL: its fake upload makes this session look like every other.",
                                            valueName: "url"))
    var submission: String?

    @OptionGroup var transport: TransportArguments

    /// The command's client: the store with these servers, the transport and --now.
    func client(_ store: StoreArguments, now: NowArgument? = nil) throws -> EncoreClient {
        var s = ClientServers()
        s.verification = verification
        s.submission = submission
        return try store.client(servers: s, transport: transport.transport(), now: now)
    }
}

/// Runs a step that talks to a server: a failure is one line on stderr
/// naming the server's answer, and exit status 1.
func talking<T>(_ subject: String, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let e as EncoreError {
        Output.fail(subject, e.message)
        throw ExitCode(EncoreExit.failure)
    }
}
