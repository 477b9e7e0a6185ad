import ArgumentParser
import EncoreCore

/// `encore export inspect FILE [--trust KEY_ID:VERSION:PEM_FILE]... [--no-verify] [--keys] [--json]`
struct ExportInspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Check a key file and summarise it.",
        discussion: """
            Opens FILE (a zip with export.bin and export.sig, or a bare export.bin), checks every \
            field and, unless --no-verify is given, that a key given with --trust signed it.

            Exit status: 0 when the file is valid and verified (or verification is off); \
            1 when it is invalid, unsigned or untrusted (one line on stderr says why); \
            2 when the command line is wrong.
            """
    )

    @Argument(help: ArgumentHelp("The key file to inspect.", valueName: "file"))
    var file: String

    @Option(
        name: .long, parsing: .singleValue,
        help: ArgumentHelp(
            "Trust the ECDSA P-256 public key in PEM_FILE (PEM, base64 or DER) for signatures naming KEY_ID and VERSION. May be repeated.",
            valueName: TrustArgument.valueName),
        transform: TrustArgument.parse)
    var trust: [TrustArgument] = []

    @Flag(name: .customLong("no-verify"), help: "Do not check the signature (required for a bare export.bin or an unsigned zip).")
    var noVerify = false

    @Flag(name: .long, help: "List every key (and revised key).")
    var keys = false

    @Flag(name: .long, help: "Print one JSON object instead of text.")
    var json = false

    func run() throws {
        let trustList = try TrustArgument.trustList(trust)
        let output: String
        let refusal: EncoreError?
        do {
            // .report: a file that is not trusted is still described (its
            // signature status says why), then the command fails.
            let keyFile = try KeyFile(path: file, options: KeyFileOptions(verification: noVerify ? .skip : .report, trust: trustList))
            let report = try InspectReport(path: file, file: keyFile, withKeys: keys)
            output = json ? JSONWriter.render(report.json) + "\n" : report.text
            refusal = keyFile.signature.error
        } catch let e as EncoreError {
            Output.fail(file, e.message + hint(for: e))
            throw ExitCode(EncoreExit.failure)
        } catch {
            Output.fail(file, String(describing: error))
            throw ExitCode(EncoreExit.failure)
        }
        Output.write(output)
        if let refusal {
            Output.fail(file, refusal.message + hint(for: refusal))
            throw ExitCode(EncoreExit.failure)
        }
    }

    /// What the user can do about a signature failure, in this tool's terms.
    private func hint(for error: EncoreError) -> String {
        switch error.kind {
        case .signatureMissing:
            return " (--no-verify)"
        case .signatureUntrusted where trust.isEmpty:
            return " (no key was given with --trust KEY_ID:VERSION:PEM_FILE)"
        default:
            return ""
        }
    }
}
