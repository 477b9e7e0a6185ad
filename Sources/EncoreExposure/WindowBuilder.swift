import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// A sighting that matched a key: what windows are built from.
package struct MatchedSighting {
    package var time: Int64
    package var previousScan: Int64?
    package var attenuation: Int
    package var calibrationConfidence: Int
}

/// A scan instance with the time it started (for windows and days).
package struct TimedScanInstance {
    package var start: Int64
    package var instance: ScanInstance

    package init(start: Int64, instance: ScanInstance) {
        self.start = start
        self.instance = instance
    }
}

package enum WindowBuilder {
    /// Sightings (of one key) → scan instances, in time order.
    package static func scanInstances(_ sightings: [MatchedSighting], gap: Int64) -> [(TimedScanInstance, calibration: Int)] {
        let sorted = sightings.sorted { $0.time < $1.time }
        var out: [(TimedScanInstance, Int)] = []
        var i = 0
        while i < sorted.count {
            var j = i + 1
            while j < sorted.count, sorted[j].time - sorted[j - 1].time < gap { j += 1 }
            let group = sorted[i ..< j]
            let first = group[group.startIndex]
            let sum = group.reduce(0) { $0 + $1.attenuation }
            let typical = Int((Double(sum) / Double(group.count)).rounded())
            let minimum = group.map(\.attenuation).min() ?? 0
            let seconds: Int
            if let prev = first.previousScan {
                let minutes = max(0, (first.time - prev) / 60)
                seconds = Int(60 * min(5, minutes))
            } else {
                seconds = 120
            }
            out.append((TimedScanInstance(start: first.time, instance: ScanInstance(
                typicalAttenuation: typical, minAttenuation: minimum, secondsSinceLastScan: seconds)), first.calibrationConfidence))
            i = j
        }
        return out
    }

    /// Scan instances → windows: a window starts at a scan instance; one
    /// `windowSeconds` or more after the window's start opens the next.
    /// Returns each window with the time of its first scan instance.
    package static func windows(_ instances: [(TimedScanInstance, calibration: Int)], reportType: ReportType,
                        infectiousness: Infectiousness, windowSeconds: Int64) -> [(start: Int64, window: ExposureWindow)] {
        var out: [(start: Int64, window: ExposureWindow)] = []
        for (timed, calibration) in instances {
            if let last = out.last, timed.start - last.start < windowSeconds {
                out[out.count - 1].window.scanInstances.append(timed.instance)
            } else {
                out.append((timed.start, ExposureWindow(date: UnixTime.utcMidnight(timed.start), reportType: reportType, infectiousness: infectiousness,
                                                        calibrationConfidence: calibration, scanInstances: [timed.instance])))
            }
        }
        return out
    }
}
