import ArgumentParser
import EncoreCheck
import EncoreCheckIns
import EncoreClient
import EncoreExposure
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreTestResults

/// `encore checkin report --db DB [--now T] [--symptoms ANSWER | --onset DAY] [--json]`:
/// what a submission would send of the check-ins.
struct CheckInReport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Show the protected reports a submission would send for the check-ins.",
        discussion: """
            Each check-in's times are derived as CWA derives them (visits under 10 minutes dropped, \
            aerosol decay added, aligned to 10 minutes), split at UTC midnight, given the \
            transmission risk level of the day's age (by --symptoms, as `encore submit` does; parts \
            whose risk value is 0 are dropped), at most 20 a day, each encrypted under its location's \
            keys with a fresh IV, shuffled. Nothing is sent or stored.
            """
    )

    @OptionGroup var store: StoreArguments
    @OptionGroup var clock: NowArgument

    @OptionGroup var symptoms: SymptomsArguments

    @OptionGroup var output: JSONFlag

    func run() throws {
        let client = try store.client(now: clock)
        let reports = try talking("check-ins") {
            try CheckInSubmission.reports(client.store.checkIns(), now: client.now(), symptoms: symptoms.answer())
        }
        if output.json {
            Output.write(CheckInSubmission.json(reports).rendered(pretty: true) + "\n")
            return
        }
        if reports.isEmpty { Output.write("no reports: no check-in would be sent\n") }
        for r in reports {
            Output.write("check-in \(r.checkIn): \(UTCTime.iso8601(interval: Int32(clamping: r.startInterval)) ?? "?") for \(Int(r.period) * 10) min, TRL \(r.transmissionRiskLevel)\n")
        }
    }
}
