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
import EncoreTestResults
import EncoreWire

/// `encore test ...`: CWA's test result access.
struct TestCommand: CommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Register a test (lab PCR, rapid antigen, rapid PCR, teleTAN) with CWA's verification server and learn its result.",
        discussion: """
            The registration token (a secret) and the result are kept in the encrypted store; \
            neither a token nor a TAN is ever printed unless --show-secrets asks for it. \
            Every session also sends the fake requests all sessions carry, so that an observer \
            cannot tell from the traffic who tested positive.

            """ + StoreArguments.keyHelp,
        subcommands: [TestRegister.self, TestResultPoll.self, TestStatusCommand.self, TestNoise.self, TestForget.self]
    )
}

/// Prints a test's status as text or JSON (the one form, TestStatus.json),
/// with the secrets only when asked.
enum TestReport {
    static func write(_ s: TestStatus, json: Bool, secrets: TestRegistration?) {
        if json {
            var value = s.json
            if let secrets, case .object(var members) = value {
                members.append(("registrationToken", .string(secrets.registrationToken)))
                members.append(("tan", .string(secrets.tan)))
                value = .object(members)
            }
            Output.write(value.rendered(pretty: true) + "\n")
            return
        }
        guard s.registered else {
            Output.write("no test is registered\n")
            return
        }
        let kind = switch s.testType {
        case "rapid-antigen": "rapid antigen test"
        case "rapid-pcr": "rapid PCR test"
        default: s.keyType == "TELETAN" ? "teleTAN" : "PCR test"
        }
        var lines: [(String, String)] = [
            ("test", "\(kind) (\(s.keyType ?? "?"))"),
            ("result", (s.result?.value.name ?? "none yet") + (s.outdated ? " (outdated: taken more than 48 hours ago)" : "")),
        ]
        if let t = s.sampleCollectedAt { lines.append(("sample collected", UTCTime.iso8601(seconds: t) ?? "\(t)")) }
        else if let t = s.testedAt { lines.append(("tested", "\(UTCTime.iso8601(seconds: t) ?? "\(t)") (the code's time)")) }
        if let t = s.nextPollAt { lines.append(("next poll due", UTCTime.iso8601(seconds: t) ?? "\(t)")) }
        if s.notify { lines.append(("notify", "yes: a new result to tell the user")) }
        if let t = s.submittedAt { lines.append(("submitted", "\(UTCTime.iso8601(seconds: t) ?? "\(t)"), \(s.submittedKeys ?? 0) keys")) }
        else if s.hasTAN { lines.append(("TAN", "kept for a submission that has not succeeded yet")) }
        if let secrets {
            lines.append(("registration token", secrets.registrationToken))
            if let tan = secrets.tan { lines.append(("TAN", tan)) }
        }
        Output.write(LabelledLines.render(lines))
    }
}

struct SecretsFlag: ParsableArguments {
    @Flag(name: .customLong("show-secrets"), help: "Also print the registration token and any TAN (secrets: keep them off logs).")
    var show = false

    func registration(_ store: Store) throws -> TestRegistration? { show ? try store.testRegistration() : nil }
}

/// How `register`, `result` and `status` show the test: --show-secrets and --json.
struct TestReportArguments: ParsableArguments {
    @OptionGroup var secrets: SecretsFlag
    @OptionGroup var output: JSONFlag

    func write(_ status: TestStatus, _ store: Store) throws {
        TestReport.write(status, json: output.json, secrets: try secrets.registration(store))
    }
}

struct TestRegister: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Register a test: from its QR code, its GUID or a teleTAN.",
        discussion: """
            --qr takes the three kinds of test QR code: a lab test's https://localhost/?<GUID>, a rapid \
            antigen test's https://s.coronawarn.app?v=1#… and a rapid PCR test's https://p.coronawarn.app?v=1#… \
            (a rapid PCR test is a PCR test to the servers). A rapid code's hash is checked against its \
            content; codes, GUIDs and teleTANs are all checked before anything is sent. But for a teleTAN \
            the result is polled at once; a test the server reports redeemed then is not kept. \
            Exit status: 0 registered; 1 refused or failed (one line on stderr names the server's answer); \
            2 usage errors (a malformed key or a rapid code whose hash does not match among them).

            Examples:
              encore test register --db client.db --verification https://verification.example --qr 'https://localhost/?123456-…'
              encore test register --db client.db --verification https://verification.example --qr 'https://s.coronawarn.app?v=1#eyJ0…'
            """
    )

    @OptionGroup var store: StoreArguments
    @OptionGroup var servers: CWAServerArguments

    @Option(name: .long, help: ArgumentHelp("The test QR code's text (lab, rapid antigen or rapid PCR test).", valueName: "url"))
    var qr: String?

    @Option(name: .long, help: ArgumentHelp("The test's GUID (6-8-4-4-4-12 hex digits).", valueName: "guid"))
    var guid: String?

    @Option(name: .long, help: ArgumentHelp("A teleTAN (10 characters).", valueName: "tan"))
    var teletan: String?

    @Option(name: .long, help: ArgumentHelp("The date of birth on the test (with a lab test's QR code or GUID).", valueName: "YYYY-MM-DD"))
    var dob: String?

    @Flag(name: .long, help: "A rapid antigen test registered by GUID (default: PCR; a rapid test's QR code says which it is).")
    var rapid = false

    @OptionGroup var clock: NowArgument
    @OptionGroup var report: TestReportArguments

    func validate() throws {
        guard [qr, guid, teletan].compactMap({ $0 }).count == 1 else { throw ValidationError("give exactly one of --qr, --guid and --teletan") }
        do {
            let key = try key()
            if let dob { _ = try key.dateOfBirthKey(dob) }
            if rapid, key.rapidKind == .rapidPCR { throw ValidationError("--rapid marks a rapid antigen test; this code is a rapid PCR test's") }
        } catch let e as EncoreError {
            throw ValidationError(e.message)
        }
    }

    func key() throws -> TestKey {
        if let qr { return try .qrCode(qr) }
        if let guid { return .guid(try TestKey.checkedGUID(guid)) }
        return .teleTAN(try TestKey.checkedTeleTAN(teletan ?? ""))
    }

    func run() throws {
        let client = try servers.client(store, now: clock)
        let status = try talking(servers.verification) {
            try client.testResults().register(key(), dateOfBirth: dob, rapid: rapid, now: client.now())
        }
        try report.write(status, client.store)
    }
}

struct TestResultPoll: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "result",
        abstract: "Poll the registered test's result once; print it and when the next poll is due.",
        discussion: """
            result is PENDING, NEGATIVE, POSITIVE, INVALID or REDEEMED as the kind of test files the \
            server's code (a rapid antigen test takes 5-9, a PCR test 0-4; the other kind's codes are \
            INVALID); sampleCollectedAt is the sample time the server reports, testedAt the test's time \
            (for a rapid antigen test the code's time until then), outdated a negative rapid antigen \
            test taken over 48 hours ago. "notify" is true in the one poll that brings a new final \
            result. A registration older than 21 days that the server no longer knows (400) is REDEEMED; \
            a 403 means the result under the date of birth differs. Exit status: 0 when the server \
            answered; 1 refused or failed; 2 usage errors.

            Example:
              encore test result --db client.db --verification https://verification.example --json
            """
    )

    @OptionGroup var store: StoreArguments
    @OptionGroup var servers: CWAServerArguments
    @OptionGroup var clock: NowArgument
    @OptionGroup var report: TestReportArguments

    func run() throws {
        let client = try servers.client(store, now: clock)
        let status = try talking(servers.verification) { try client.testResults().poll(now: client.now()) }
        try report.write(status, client.store)
    }
}

struct TestStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the registered test from the store alone (no network).",
        discussion: "Example:\n  encore test status --db client.db --json"
    )

    @OptionGroup var store: StoreArguments
    @OptionGroup var clock: NowArgument
    @OptionGroup var report: TestReportArguments

    func run() throws {
        let client = try store.client(now: clock)
        let status = try talking(store.db) { try TestResultService.status(of: client.store, now: client.now()) }
        try report.write(status, client.store)
    }
}

struct TestNoise: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "noise",
        abstract: "Send one session of fake requests (background noise), as real sessions look.",
        discussion: "Example:\n  encore test noise --db client.db --verification https://verification.example --submission https://submission.example"
    )

    @OptionGroup var store: StoreArguments

    @Option(name: .long, help: ArgumentHelp("The verification server's base URL.", valueName: "url"))
    var verification: String

    @Option(name: .long, help: ArgumentHelp("The submission server's base URL.", valueName: "url"))
    var submission: String

    @OptionGroup var transport: TransportArguments

    func run() throws {
        var servers = ClientServers()
        servers.verification = verification
        servers.submission = submission
        let client = try store.client(servers: servers, transport: transport.transport())
        try talking(verification) {
            try TestResultService.noise(transport: client.transport, verification: client.verification(), submission: client.submission())
        }
    }
}

struct TestForget: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Delete the registered test, its registration token and any TAN.",
        discussion: "Example:\n  encore test forget --db client.db"
    )

    @OptionGroup var store: StoreArguments

    func run() throws {
        let client = try store.client()
        let existed = try talking(store.db) { try client.store.deleteTestRegistration() }
        Output.write(existed ? "the registered test was deleted\n" : "no test was registered\n")
    }
}
