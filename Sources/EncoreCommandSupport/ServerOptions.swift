import ArgumentParser
import EncoreClient
import EncoreKeyFiles
import EncoreSupport
import EncoreSync

/// The sync's servers and the keys their answers are checked with, as the
/// encore tool's `sync` and the device service take them (the same names
/// in both, and in encored's --config file).
public struct SyncServerOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("CWA's distribution server (https, or http to this machine).", valueName: "url"))
    public var distribution: String?

    @Option(name: .long, help: ArgumentHelp("The packages' country (default EUR, the federated packages).", valueName: "cc"))
    public var country = "EUR"

    @Option(name: .long, help: ArgumentHelp("A DP-3T backend (SwissCovid): its exposed keys by bundle tag.", valueName: "url"))
    public var dp3t: String?

    @Option(name: .customLong("dp3t-key"), help: ArgumentHelp("The public key (PEM) the DP-3T backend signs its answers' JWTs with.", valueName: "pem-file"))
    public var dp3tKey: String?

    @Flag(name: .customLong("no-warnings"), help: "With --distribution, do not fetch CWA's trace warning packages (check-in warnings).")
    public var noWarnings = false

    @Option(name: .customLong("warning-region"), help: ArgumentHelp("The region of the trace warning packages (default DE).", valueName: "cc"))
    public var warningRegion = "DE"

    @Option(name: .long, help: ArgumentHelp("A CrowdNotifier backend (SwissCovid, NotifyMe): its trace keys by bundle tag.", valueName: "url"))
    public var crowdnotifier: String?

    @Option(name: .customLong("crowdnotifier-key"), help: ArgumentHelp("The public key (PEM) the CrowdNotifier backend signs its answers' JWTs with.", valueName: "pem-file"))
    public var crowdnotifierKey: String?

    @Option(name: .long, parsing: .singleValue,
            help: ArgumentHelp("Trust a public key for the packages' signatures. May be repeated.", valueName: TrustArgument.valueName),
            transform: TrustArgument.parse)
    public var trust: [TrustArgument] = []

    public init() {}

    public func validate() throws {
        guard (dp3t == nil) == (dp3tKey == nil) else { throw ValidationError("--dp3t and --dp3t-key go together") }
        guard (crowdnotifier == nil) == (crowdnotifierKey == nil) else { throw ValidationError("--crowdnotifier and --crowdnotifier-key go together") }
        do {
            try DistributionProtocol.checkCountry(country)
            try DistributionProtocol.checkCountry(warningRegion)
        } catch let e as EncoreError { throw ValidationError(e.message) }
    }

    /// Whether any server to sync with is named.
    public var any: Bool { distribution != nil || dp3t != nil || crowdnotifier != nil }

    /// The client's servers these options name (its trust list: trustList()).
    public func servers() throws -> ClientServers {
        var s = ClientServers()
        s.distribution = distribution
        s.country = country
        s.dp3t = dp3t
        s.dp3tKey = try dp3tKey.map { try publicKeyFile($0, "--dp3t-key") }
        s.warningRegion = warningRegion
        s.crowdNotifier = crowdnotifier
        s.crowdNotifierKey = try crowdnotifierKey.map { try publicKeyFile($0, "--crowdnotifier-key") }
        return s
    }

    public func trustList() throws -> TrustList { try TrustArgument.trustList(trust) }
}
