import ArgumentParser
import EncoreCheck
import EncoreClient
import EncoreCommandSupport
import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport
#if canImport(Glibc)
import Glibc
#endif

/// `encore store ...`: commands that work on the client's encrypted store.
struct StoreCommand: CommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Create, describe, check, salvage, re-key and purge the encrypted store.",
        discussion: StoreArguments.keyHelp,
        subcommands: [StoreInit.self, StoreInfo.self, StoreCheck.self, StoreSalvageCommand.self, StoreRekey.self, StorePurge.self]
    )
}

/// `--db PATH` and the key from the environment, shared by every command
/// that opens a store.
struct StoreArguments: ParsableArguments {
    /// The part of every store command's help that says where the key comes from.
    static let keyHelp = """
        The store's key comes from the environment, never from the command line: \
        ENCORE_DB_KEY holds a passphrase, or ENCORE_DB_KEY_HEX a raw 32-byte key as 64 hex digits. \
        Set exactly one of them.
        """

    @Option(name: .long, help: ArgumentHelp("The store file (an encrypted SQLCipher database).", valueName: "path"))
    var db: String

    /// Checked while the command line is parsed, so a missing or malformed
    /// key is a usage error (exit status 2) like any other.
    func validate() throws {
        guard !db.isEmpty else { throw ValidationError("--db must name a file") }
        _ = try StoreKeyEnvironment.current.key()
    }

    /// Opens the store. On failure writes `encore: PATH: REASON` and throws
    /// ExitCode 1. Only `store init` may create a missing store. Commands
    /// reach it through their client (client(create:servers:...)).
    func openStore(create: Bool = false) throws -> Store {
        let key = try StoreKeyEnvironment.current.key()
        do {
            return try ToolClient.store(path: db, key: key.key, create: create)
        } catch {
            throw fail(error, keyVariable: key.variable)
        }
    }

    /// Writes the one-line reason for a store failure and returns the exit
    /// status to throw.
    func fail(_ error: Error, keyVariable: String? = nil) -> ExitCode {
        Output.fail(db, StoreFailure.reason(error, path: db, keyVariable: keyVariable))
        return ExitCode(EncoreExit.failure)
    }
}

/// Store errors in the tool's terms.
enum StoreFailure {
    /// The core's message, without the path it names (the line starts with
    /// the path already) and with a hint where the tool can give one.
    static func reason(_ error: Error, path: String, keyVariable: String?) -> String {
        guard let e = error as? EncoreError else { return String(describing: error) }
        switch e.kind {
        case .storeMissing where !StoreFileSize.exists(path):
            return "no such store (create one with `encore store init --db PATH`)"
        case .storeWrongKey:
            return withoutPath(e.message, path) + (keyVariable.map { "; the key was taken from \($0)" } ?? "")
        default:
            return withoutPath(e.message, path)
        }
    }

    /// "wrong key for the store at P (...)" → "wrong key for the store (...)",
    /// "P is damaged ..." → "damaged ...". Other messages are left as they are.
    static func withoutPath(_ message: String, _ path: String) -> String {
        var m = message
        for (long, short) in [("the store at \(path)", "the store"), ("no store at \(path)", "no store")] {
            m = m.replacing(long, with: short)
        }
        if m.hasPrefix(path + " is ") { m = String(m.dropFirst(path.count + 4)) }
        return m
    }
}

/// Label: value lines with the values aligned, as `export inspect` writes them.
enum LabelledLines {
    static func render(_ lines: [(String, String)], indent: String = "") -> String {
        let width = lines.map(\.0.count).max() ?? 0
        var out = ""
        for (label, value) in lines {
            out += indent + label + ":" + String(repeating: " ", count: width - label.count + 2) + value + "\n"
        }
        return out
    }
}

/// Sizes of a store's files on disk.
enum StoreFileSize {
    /// The size of the file at `path` in bytes; 0 when it does not exist.
    static func of(_ path: String) -> Int64 {
        var st = stat()
        return stat(path, &st) == 0 ? Int64(st.st_size) : 0
    }

    static func exists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0
    }
}
