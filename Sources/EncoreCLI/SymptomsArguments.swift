import ArgumentParser
import EncoreSupport
import EncoreTestResults

/// What the user said about symptoms, shared by `submit` and `checkin
/// report`: `[--symptoms ANSWER | --onset YYYY-MM-DD]`.
struct SymptomsArguments: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "What the user said about symptoms: no-info, none, onset-unknown, onset-last-7-days, onset-1-2-weeks, onset-over-2-weeks.",
        valueName: "answer"))
    var symptoms = "no-info"

    @Option(name: .long, help: ArgumentHelp("The day symptoms began (instead of --symptoms).", valueName: "YYYY-MM-DD"))
    var onset: String?

    func validate() throws { _ = try answer() }

    func answer() throws -> Symptoms {
        if let onset {
            guard let day = UTCTime.midnight(ofDay: onset) else { throw ValidationError("--onset is a day YYYY-MM-DD") }
            return .onset(day: day)
        }
        guard let s = Symptoms.named(symptoms) else { throw ValidationError("--symptoms \(symptoms) is not one of the answers (see --help)") }
        return s
    }
}
