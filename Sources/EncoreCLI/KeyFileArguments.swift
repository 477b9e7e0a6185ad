import ArgumentParser
import EncoreCommandSupport
import EncoreKeyFiles
import EncoreStorage
#if canImport(Glibc)
import Glibc
#endif

/// Key files to match and how to check them, shared by `match` and `check`:
/// `[--trust KEY_ID:VERSION:PEM]... [--no-verify] [--now T] FILE...`.
struct KeyFileArguments: ParsableArguments {
    @Option(name: .long, parsing: .singleValue,
            help: ArgumentHelp("Trust a public key for signatures naming KEY_ID and VERSION. May be repeated.", valueName: TrustArgument.valueName),
            transform: TrustArgument.parse)
    var trust: [TrustArgument] = []

    @Flag(name: .customLong("no-verify"), help: "Do not check the files' signatures.")
    var noVerify = false

    @OptionGroup var clock: NowArgument

    @Argument(help: ArgumentHelp("Key files (zip or bare export.bin).", valueName: "file"))
    var files: [String] = []

    /// For the commands that need files (check does without: the cache).
    func requireFiles() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one key file") }
    }

    var sources: [KeyFileSource] { files.map { .path($0) } }

    func keyFileOptions() throws -> KeyFileOptions {
        KeyFileOptions(verify: !noVerify, trust: try TrustArgument.trustList(trust))
    }

    /// What a failure is about: the file when there is one.
    var subject: String { files.count == 1 ? files[0] : "key files" }
}
