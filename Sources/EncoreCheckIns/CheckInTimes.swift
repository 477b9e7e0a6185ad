import EncoreCrowdNotifier
import EncoreKeyFiles
import EncoreRisk
import EncoreSupport

/// A span of time in unix seconds, start ≤ end.
public struct TimeSpan: Sendable, Equatable, Hashable {
    public var start: Int64
    public var end: Int64

    public init(start: Int64, end: Int64) {
        self.start = start
        self.end = end
    }

    /// The parts of the span in each UTC day it touches (a span ending at
    /// a midnight does not touch the day after it). A span of no length is
    /// one part.
    public func splitAtUTCMidnight() -> [TimeSpan] {
        var parts: [TimeSpan] = []
        var from = start
        while true {
            let midnight = UnixTime.utcMidnight(from) + UnixTime.day
            if end <= midnight {
                parts.append(TimeSpan(start: from, end: end))
                return parts
            }
            parts.append(TimeSpan(start: from, end: midnight))
            from = midnight
        }
    }

    /// Seconds both spans share (0 when they do not meet).
    public func overlap(_ other: TimeSpan) -> Int64 {
        max(0, min(end, other.end) - max(start, other.start))
    }
}

/// CWA's submission parameters for check-ins: which visits are too short to
/// report, and how much longer the air stays infectious (aerosol decay).
public struct CheckInSubmissionParameters: Sendable, Equatable {
    public struct DecayFunction: Sendable, Equatable {
        public var minutesRange: ValueRange
        public var slope: Double
        public var intercept: Double
    }

    /// Visits whose minutes fall in one of these are not reported.
    public var durationFilters: [ValueRange]
    /// The first whose range holds the visit's minutes adds slope × seconds + intercept minutes.
    public var aerosoleDecayLinearFunctions: [DecayFunction]

    /// CWA's production values (presence-tracing parameters of its server):
    /// drop visits under 10 minutes; add the visit's length up to 30
    /// minutes, 30 minutes beyond.
    public static let cwa = CheckInSubmissionParameters(
        durationFilters: [ValueRange(min: 0, max: 10, maxExclusive: true)],
        aerosoleDecayLinearFunctions: [
            DecayFunction(minutesRange: ValueRange(min: 0, max: 30), slope: 1, intercept: 0),
            DecayFunction(minutesRange: ValueRange(min: 30, max: 9999, minExclusive: true), slope: 0, intercept: 30),
        ])

    /// The JSON form of CWA's configuration (durationFilters with
    /// dropIfMinutesInRange, aerosoleDecayLinearFunctions with minutesRange,
    /// slope and intercept), as the derivation test vectors write it.
    public init(_ r: JSONReader) throws {
        durationFilters = try r.optionalArray("durationFilters").map { try ValueRange($0.member("dropIfMinutesInRange")) }
        aerosoleDecayLinearFunctions = try r.optionalArray("aerosoleDecayLinearFunctions").map {
            let f = DecayFunction(minutesRange: try ValueRange($0.member("minutesRange")), slope: try $0.number("slope"),
                                  intercept: try $0.number("intercept"))
            guard f.slope.isFinite, f.intercept.isFinite, abs(f.slope) <= 100, abs(f.intercept) <= 24 * 60 else {
                throw $0.fail("slope and intercept must be finite and small (|slope| ≤ 100, |intercept| ≤ 1440 minutes)")
            }
            return f
        }
    }

    public init(durationFilters: [ValueRange], aerosoleDecayLinearFunctions: [DecayFunction]) {
        self.durationFilters = durationFilters
        self.aerosoleDecayLinearFunctions = aerosoleDecayLinearFunctions
    }

    /// The visit as it is reported: aligned to 10-minute intervals, lengthened
    /// by the aerosol decay and rounded to whole intervals, shifted towards
    /// the interval it overlaps more at its start or end; nil when the visit
    /// is too short to report. Times are seconds; a visit longer than a
    /// year is refused before any arithmetic.
    public func derive(_ visit: TimeSpan) throws -> TimeSpan? {
        let interval = UTCTime.intervalSeconds
        guard visit.start >= 0, visit.end >= visit.start, visit.end - visit.start <= 366 * UnixTime.day else {
            throw EncoreError(.checkInTimes, "a check-in from \(visit.start) to \(visit.end) cannot be reported (at most a year, not negative)")
        }
        let seconds = visit.end - visit.start
        let minutes = Double(seconds / 60)
        if durationFilters.contains(where: { $0.contains(minutes) }) { return nil }
        let decay = aerosoleDecayLinearFunctions.first { $0.minutesRange.contains(minutes) }
            .map { $0.slope * Double(seconds) + $0.intercept * 60 } ?? 0
        // Bounded by the year above and the factors' limits: far from overflow.
        let relevantEnd = visit.end + Int64(decay)
        let startInterval = visit.start / interval * interval
        let endInterval = relevantEnd / interval * interval
        let overlapAtStart = startInterval + interval - visit.start
        let overlapAtEnd = relevantEnd - endInterval
        // Half up, as CWA rounds.
        let target = Int64(((Double(seconds) + decay) / Double(interval) + 0.5).rounded(.down)) * interval
        if overlapAtEnd > overlapAtStart {
            let end = endInterval + interval
            return TimeSpan(start: end - target, end: end)
        }
        return TimeSpan(start: startInterval, end: startInterval + target)
    }
}
