import ArgumentParser
import Foundation

/// The `--now` of the commands that work at a point in time: unix seconds,
/// never negative (the store and the matching refuse negative times), the
/// system clock when left out.
struct NowArgument: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("\"Now\" as unix seconds (default: the system clock).", valueName: "unix-seconds"))
    var now: Int64?

    func validate() throws {
        if let now, now < 0 { throw ValidationError("--now must not be negative") }
    }

    /// The time given, else the system clock's.
    var value: Int64 { now ?? Int64(time(nil)) }
}
