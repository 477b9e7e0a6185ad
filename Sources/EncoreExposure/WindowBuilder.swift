import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// A sighting that matched a key: what windows are built from.
package struct MatchedSighting {
    package var time: Int64
    package var previousScan: Int64?
    /// From the sighting's strongest RSSI and from its typical one.
    package var minAttenuation: Int
    package var typicalAttenuation: Int
    package var calibrationConfidence: Int

    /// attenuation = clamp(TX power − RSSI, 0, 255) of each RSSI (the
    /// RSSIs already carry this device's correction).
    package init(_ o: Sighting, txPower: Int, calibrationConfidence: Int) {
        func attenuation(_ rssi: Int8) -> Int { min(max(txPower - Int(rssi), 0), 255) }
        time = o.time
        previousScan = o.previousScan
        minAttenuation = attenuation(o.rssi)
        // Never below the minimum, whatever a host stored.
        typicalAttenuation = max(attenuation(o.typicalRSSI), minAttenuation)
        self.calibrationConfidence = calibrationConfidence
    }
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
            // The mean of the sightings' typical attenuations (each one a
            // report, or a scan's reports folded), the least of their minima.
            let sum = group.reduce(0) { $0 + $1.typicalAttenuation }
            let typical = Int((Double(sum) / Double(group.count)).rounded())
            let minimum = group.map(\.minAttenuation).min() ?? 0
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
