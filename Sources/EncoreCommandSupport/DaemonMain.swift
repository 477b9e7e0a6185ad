import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// A daemon's command line parsed and run, with the encore tool's exit
/// statuses: 0, 1 (a failure), 2 (a usage error); a usage error's text on
/// stderr, --help and --version on stdout.
public enum DaemonMain {
    public static func run<Command: ParsableCommand>(_ type: Command.Type, arguments: [String]) -> Never {
        do {
            var command = try type.parseAsRoot(arguments)
            try command.run()
            exit(0)
        } catch {
            let code = type.exitCode(for: error)
            let message = type.fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
                exit(0)
            }
            if !message.isEmpty { Log.plain(message) }
            exit(code == .validationFailure ? 2 : code.rawValue)
        }
    }
}
