import ArgumentParser
import EncoreClient
import EncoreKeyFiles
import EncoreSupport
import Glibc

/// The `--now` of the commands that work at a point in time: unix seconds
/// or a UTC time ("2026-11-25T12:00:00Z", or a day "2026-11-25" for its
/// midnight), never before 1970 (the store and the matching refuse negative
/// times); the system clock when left out.
struct NowArgument: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("\"Now\": unix seconds or a UTC time YYYY-MM-DDTHH:MM:SSZ (default: the system clock).",
                                            valueName: "time"),
            transform: NowArgument.parse)
    var now: Int64?

    static func parse(_ text: String) throws -> Int64 {
        if let seconds = Int64(text) {
            guard seconds >= 0 else { throw ValidationError("--now must not be negative") }
            return seconds
        }
        guard let seconds = UTCTime.seconds(ofISO8601: text) else {
            throw ValidationError("--now is unix seconds or a UTC time YYYY-MM-DDTHH:MM:SSZ, not \"\(text)\"")
        }
        return seconds
    }

    /// The time given, else the system clock's.
    var value: Int64 { now ?? Int64(time(nil)) }
}
