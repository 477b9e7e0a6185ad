import ArgumentParser
import EncoreCheck
import EncoreCheckIns
import EncoreCommandSupport
import EncoreExposure
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport

/// `encore keyfile inspect FILE... [--trust KEY_ID:VERSION:PEM_FILE]... [--no-verify] [--keys] [--json]`
struct ExportInspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Check key files and summarise them.",
        discussion: """
            Opens each FILE (a zip with export.bin and export.sig, or a bare export.bin), checks every \
            field and, unless --no-verify is given, that a key given with --trust signed it. With one \
            FILE, --json prints one JSON object; with several, one JSON object per line, each with the \
            file's path first ("file").

            Exit status: 0 when every file is valid and verified (or verification is off); \
            1 when any is invalid, unsigned or untrusted (one line on stderr for each says why); \
            2 when the command line is wrong.

            Example:
              encore keyfile inspect --trust 310:v1:public_310-v1.pem --keys sample_diagnosis_key_file.zip
            """
    )

    @Argument(help: ArgumentHelp("The key files to inspect.", valueName: "file"))
    var files: [String]

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

    @Flag(name: .long, help: "Print JSON instead of text (one object per line for several files).")
    var json = false

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one key file") }
    }

    func run() throws {
        let trustList = try TrustArgument.trustList(trust)
        var failed = false
        for (i, file) in files.enumerated() {
            if !json && i > 0 { Output.write("\n") }
            failed = !inspect(file, trust: trustList) || failed
        }
        if failed {
            // Each description written is whole (a file that cannot be read
            // writes none), and an untrusted file's description says why:
            // the one command whose output stands when it exits 1.
            Output.flush()
            throw ExitCode(EncoreExit.failure)
        }
    }

    /// Describes one file; false (after its one line on stderr) when it is
    /// invalid or not trusted.
    private func inspect(_ file: String, trust trustList: TrustList) -> Bool {
        let output: String
        let refusal: EncoreError?
        do {
            // .report: a file that is not trusted is still described (its
            // signature status says why), then the command fails.
            let keyFile = try KeyFile(path: file, options: KeyFileOptions(verification: noVerify ? .skip : .report, trust: trustList))
            let report = try InspectReport(path: file, file: keyFile, withKeys: keys)
            if json {
                output = (files.count == 1 ? report.json.rendered(pretty: true) : report.jsonLine.rendered) + "\n"
            } else {
                output = report.text
            }
            refusal = keyFile.signature.error
        } catch let e as EncoreError {
            Output.fail(file, e.message + hint(for: e))
            return false
        } catch {
            Output.fail(file, String(describing: error))
            return false
        }
        Output.write(output)
        if let refusal {
            Output.fail(file, refusal.message + hint(for: refusal))
            return false
        }
        return true
    }

    /// What the user can do about a signature failure, in this tool's terms.
    private func hint(for error: EncoreError) -> String {
        switch error.kind {
        case .signatureMissing:
            return " (pass --no-verify to read it without verification)"
        case .signatureUntrusted where trust.isEmpty:
            return " (no key was given with --trust KEY_ID:VERSION:PEM_FILE)"
        default:
            return ""
        }
    }
}
