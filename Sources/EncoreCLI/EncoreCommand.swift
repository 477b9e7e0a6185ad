import EncoreCheck
import EncoreClient
import EncoreCommandSupport
import EncoreCrypto
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncoreStorage
import EncoreSync
import ArgumentParser
import CEncoreTypes
#if canImport(Glibc)
import Glibc
#endif

/// The root command; commands and command groups are its subcommands.
struct EncoreCommand: CommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "encore",
        abstract: "Exposure Notification core: keys, sightings, matching, risk and the exposure check.",
        discussion: """
            encore does what the core of a contact-tracing app does (Corona-Warn-App, SwissCovid, \
            NotifyMe), on files and an encrypted store:
              keyfile inspect check and read diagnosis key files
              store           create, describe, check, salvage, re-key and purge the store
              sightings       add and list the Bluetooth sightings a scanner heard
              keys            the device's own keys: what to broadcast, their history
              tracing         the tracing's state (encored's radio): on/off, RPIs heard
              match           match sightings against key files: windows
              risk            CWA's v2 risk from exposure windows
              check           the whole exposure check, stored
              test            register a lab or rapid test, learn its result
              submit          upload own keys after a positive test
              checkin         check in to events; match published warnings
              crowdnotifier   CrowdNotifier venues and trace keys (the authority's side)
              sync            download key files and configuration; check
              keyfiles        the key files the store keeps
              push            silent pushes: when to register, register
              demo            the check on a simulated user, start to end

            Run `encore help COMMAND` for a command's options and an example.

            Example:
              encore demo
            """,
        version: ENCORE_VERSION_STRING,
        subcommands: [KeyFileCommand.self, StoreCommand.self, SightingsCommand.self, MatchCommand.self, Risk.self, Check.self, KeysCommand.self,
                      TestCommand.self, Submit.self, CheckInCommand.self, CrowdNotifierCommand.self, SyncCommand.self, PackagesCommand.self, PushCommand.self,
                      TracingCommand.self, DeviceCommand.self, Demo.self]
    )
}

/// A command that only holds subcommands. Run without one, it shows its
/// help on stderr and exits 2, like any other usage error.
protocol CommandGroup: ParsableCommand {}

extension CommandGroup {
    func run() throws {
        Output.error("Error: Missing subcommand\n\n" + EncoreCommand.helpMessage(for: Self.self))
        throw ExitCode(EncoreExit.usage)
    }
}

/// Exit codes of `encore`, shared by every subcommand.
enum EncoreExit {
    static let success: Int32 = 0
    /// The input is invalid, unsigned, untrusted or unreadable.
    static let failure: Int32 = 1
    /// The command line is wrong (ArgumentParser would say 64).
    static let usage: Int32 = 2
}

extension EncoreCommand {
    /// Parses the command line, runs the chosen command and exits. Parse and
    /// validation errors exit 2 with ArgumentParser's message and usage on
    /// stderr; help goes to stdout and exits 0; a command that fails has
    /// already written its one-line reason and throws `ExitCode`. Stdout is
    /// written only on success (Output), whole.
    static func runMain(_ arguments: [String]? = nil) -> Never {
        OpenSSLProcess.skipCleanupAtExit()
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
            Output.flush()
            Glibc.exit(EncoreExit.success)
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { Output.write(message + "\n") }
                Output.flush()
                Glibc.exit(EncoreExit.success)
            }
            if !message.isEmpty { Output.error(message) }
            Glibc.exit(code == .validationFailure ? EncoreExit.usage : code.rawValue)
        }
    }
}
