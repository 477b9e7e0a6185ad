import ArgumentParser
import EncoreCheckIns
import EncoreCommandSupport
import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
#if canImport(Glibc)
import Glibc
#endif

/// `encore risk [--config cwa|CFG.json] --windows WINDOWS.json [--now T] [--json]`:
/// CWA's v2 risk calculation over exposure windows.
struct Risk: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "risk",
        abstract: "Calculate CWA's v2 risk from exposure windows.",
        discussion: """
            --config is `cwa` (CWA's production parameters, built in; the default) or a JSON file in \
            the form of the conformance file's defaultRiskCalculationConfiguration (or a whole \
            conformance file, whose configuration is used). WINDOWS.json is a list of windows in the \
            conformance file's form, each with ageInDays (relative to now) or date ("YYYY-MM-DD" or the \
            unix seconds of a UTC midnight); `encore match --json` output is accepted too (its \
            exposureWindows are used). \
            Exit status: 0 when the risk was calculated, 1 when a file cannot be read or is malformed \
            (one line on stderr names the bad field), 2 on usage errors.

            Example:
              encore risk --windows windows.json --now 2026-11-25T12:00:00Z --json
            """
    )

    @Option(name: .long, help: ArgumentHelp("The risk calculation configuration: `cwa` (built in) or a JSON file.", valueName: "cwa|file"))
    var config = "cwa"

    @Option(name: .long, help: ArgumentHelp("The exposure windows (JSON).", valueName: "file"))
    var windows: String

    @OptionGroup var clock: NowArgument

    @OptionGroup var output: JSONFlag

    /// CWA's built-in configuration for `cwa`, else a risk configuration
    /// file (or a conformance file holding one); on failure one line on
    /// stderr naming the bad field, and exit status 1.
    static func loadConfiguration(_ name: String) throws -> RiskConfiguration {
        do {
            if name == "cwa" {
                guard let cwa = RiskConfiguration.cwa else { throw EncoreError(.internalError, "the built-in CWA configuration does not parse") }
                return cwa
            }
            let c = try JSONReader(JSONParser.parse(FileReader.read(path: name, maxSize: 16 << 20).bytes))
            return try RiskConfiguration(try unwrap(c, "defaultRiskCalculationConfiguration"))
        } catch let e as EncoreError {
            Output.fail(name, e.message)
            throw ExitCode(EncoreExit.failure)
        }
    }

    /// The member `key` of an object that wraps the data (a conformance
    /// file, detect's output), or the document itself.
    static func unwrap(_ r: JSONReader, _ key: String) throws -> JSONReader {
        guard case .object = r.value else { return r }
        return try r.optionalMember(key) ?? r
    }

    func run() throws {
        let now = clock.value
        let configuration = try Risk.loadConfiguration(config)
        let list: [ExposureWindow]
        do {
            let w = try JSONReader(JSONParser.parse(FileReader.read(path: windows, maxSize: 256 << 20).bytes))
            list = try WindowsJSON.windows(try Risk.unwrap(w, "exposureWindows"), now: now)
        } catch let e as EncoreError {
            Output.fail(windows, e.message)
            throw ExitCode(EncoreExit.failure)
        }
        let a = try RiskCalculation.calculate(list, configuration: configuration, now: now) // now is checked by NowArgument
        Output.write(output.json ? a.json.rendered(pretty: true) + "\n" : RiskReport.text(a))
    }
}

/// How `encore risk` shows an assessment.
enum RiskReport {
    static func text(_ a: RiskAssessment) -> String {
        var out = "total risk: \(a.totalRiskLevel.name) (\(a.numberOfDaysWithHighRisk) days HIGH, \(a.numberOfDaysWithLowRisk) days LOW)\n"
        for d in a.days {
            let day = UTCTime.day(seconds: d.date) ?? "?"
            out += "  \(day)  \(d.riskLevel?.name ?? "none")  normalized time \(d.normalizedTime)\n"
        }
        return out
    }
}
