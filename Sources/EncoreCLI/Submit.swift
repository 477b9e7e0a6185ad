import ArgumentParser
import EncoreCheckIns
import EncoreClient
import EncoreCommandSupport
import EncoreExposure
import EncoreFixtures
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreTestResults

/// `encore submit`: a positive user's keys to CWA's submission server.
struct Submit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "submit",
        abstract: "Upload the own keys of the last 14 days after a positive test.",
        discussion: """
            Requests the test's one TAN from the verification server (or uses the one kept from an \
            earlier attempt that failed), enriches each key by its age and what --symptoms says, and \
            uploads at most 14 keys to the submission server. Exit status: 0 submitted; 1 refused or \
            failed (one line on stderr names the server's answer; a kept TAN is used by the next try); \
            2 usage errors.

            Example:
              encore submit --db client.db --verification https://verification.example --submission https://submission.example --symptoms onset-last-7-days

            """ + StoreArguments.keyHelp
    )

    @OptionGroup var store: StoreArguments

    @Option(name: .long, help: ArgumentHelp("The verification server's base URL.", valueName: "url"))
    var verification: String

    @Option(name: .long, help: ArgumentHelp("The submission server's base URL.", valueName: "url"))
    var submission: String

    @OptionGroup var symptoms: SymptomsArguments

    @Option(name: .customLong("visited"), help: ArgumentHelp("A country visited (two capital letters). May be repeated.", valueName: "cc"))
    var visitedCountries: [String] = []

    @Flag(name: .long, help: "The keys may go to other countries' servers (federation).")
    var federation = false

    @OptionGroup var transport: TransportArguments
    @OptionGroup var clock: NowArgument

    @OptionGroup var output: JSONFlag

    func validate() throws { _ = try options() }

    func options() throws -> SubmissionOptions {
        var o = SubmissionOptions()
        o.symptoms = try symptoms.answer()
        o.visitedCountries = visitedCountries
        o.consentToFederation = federation
        return o
    }

    func run() throws {
        var servers = ClientServers()
        servers.verification = verification
        servers.submission = submission
        let client = try store.client(servers: servers, transport: transport.transport(), now: clock)
        // Named by the command, not by a server: the TAN comes from the
        // verification server, the upload goes to the submission server,
        // and the failure's message names the request (and so the server) that failed.
        let outcome = try talking("submit") { try client.testResults().submit(options(), now: client.now()) }
        if output.json {
            Output.write(outcome.json.rendered(pretty: true) + "\n")
        } else {
            Output.write("submitted \(outcome.keys) keys\(outcome.unalignedKeys > 0 ? " (\(outcome.unalignedKeys) own keys left out: not aligned to a UTC midnight)" : "")\n")
        }
    }
}
