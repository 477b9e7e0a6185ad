import EncoreKeyFiles
import EncoreSupport

/// The parameters of matching (../shared/spec/matching-and-windows.md). The
/// defaults are the constants Apple's and Google's frameworks use, and CWA's
/// choices where the framework leaves them to the app.
public struct MatchingOptions: Sendable {
    /// Clock drift tolerated on either side of an RPI's interval, in
    /// intervals of 10 minutes (12 = ±2 h).
    public var driftIntervals: Int64 = 12
    /// TX power from the AEM must lie in minimum...maximum (dBm), else the
    /// sighting is dropped.
    public var txPowerMinimum = -60
    public var txPowerMaximum = 20
    /// Sightings of one RPI more than this after its first are dropped.
    public var replaySeconds: Int64 = 20 * 60
    /// Keys whose validity ended more than this many days before now take
    /// no part.
    public var maxKeyAgeDays: Int64 = 14
    /// Sightings closer than this form one scan instance.
    public var scanInstanceGapSeconds: Int64 = 25
    /// A scan instance this long after its window's start opens a new window.
    public var windowSeconds: Int64 = 30 * 60
    /// UNKNOWN report types become this (CWA: CONFIRMED_TEST).
    public var reportTypeWhenMissing: ReportType = .confirmedTest
    /// days_since_onset_of_symptoms → infectiousness; values not listed are NONE.
    public var infectiousnessForDaysSinceOnset: [Int32: Infectiousness] = MatchingOptions.cwaInfectiousness
    public var infectiousnessWhenDaysSinceOnsetMissing: Infectiousness = .none

    /// CWA's map as the spec gives it: 1 → STANDARD, 2 → HIGH.
    public static let cwaInfectiousness: [Int32: Infectiousness] = [1: .standard, 2: .high]

    public init() {}

    package func infectiousness(_ dsos: Int32?) -> Infectiousness {
        guard let dsos else { return infectiousnessWhenDaysSinceOnsetMissing }
        return infectiousnessForDaysSinceOnset[dsos] ?? .none
    }

    /// The map as a table for the hot loop: index dsos + 14 for -14...14.
    package func infectiousnessTable() -> InfectiousnessTable {
        InfectiousnessTable(byDaysSinceOnset: (-14 ... 14).map { infectiousnessForDaysSinceOnset[Int32($0)] ?? .none },
                            whenMissing: infectiousnessWhenDaysSinceOnsetMissing, map: infectiousnessForDaysSinceOnset)
    }

    /// Checked, with now, before any time arithmetic (see UnixTime).
    package func validate(now: Int64) throws {
        try UnixTime.checkNow(now, "matching")
        guard driftIntervals >= 0, driftIntervals <= 144, replaySeconds >= 0, maxKeyAgeDays >= 0, maxKeyAgeDays <= 3650,
              scanInstanceGapSeconds >= 0, windowSeconds > 0 else {
            throw EncoreError(.invalidArgument, "matching options out of range (drift 0...144 intervals, ages and gaps not negative)")
        }
        guard txPowerMinimum <= txPowerMaximum else {
            throw EncoreError(.invalidArgument, "matching options: the TX power minimum (\(txPowerMinimum)) is above the maximum (\(txPowerMaximum))")
        }
    }
}

/// MatchingOptions' infectiousness map without a dictionary look-up per key.
package struct InfectiousnessTable: Sendable {
    package let byDaysSinceOnset: [Infectiousness]
    package let whenMissing: Infectiousness
    package let map: [Int32: Infectiousness]

    package func callAsFunction(_ dsos: Int32?) -> Infectiousness {
        guard let dsos else { return whenMissing }
        if dsos >= -14 && dsos <= 14 { return byDaysSinceOnset[Int(dsos) + 14] }
        return map[dsos] ?? .none // the map may name values outside -14...14
    }
}
