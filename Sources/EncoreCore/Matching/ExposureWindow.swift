/// One scan of the device in which the key's RPI was heard.
public struct ScanInstance: Equatable, Sendable {
    public var typicalAttenuation: Int
    public var minAttenuation: Int
    public var secondsSinceLastScan: Int

    public init(typicalAttenuation: Int, minAttenuation: Int, secondsSinceLastScan: Int) {
        self.typicalAttenuation = typicalAttenuation
        self.minAttenuation = minAttenuation
        self.secondsSinceLastScan = secondsSinceLastScan
    }
}

/// An exposure window (ENF v2): up to 30 minutes of one matched key. It
/// carries no key material and no key identity.
public struct ExposureWindow: Equatable, Sendable {
    /// UTC midnight of the window's first scan instance, unix seconds.
    public var date: Int64
    public var reportType: ReportType
    public var infectiousness: Infectiousness
    /// AEM metadata bits 3:2 (0...3).
    public var calibrationConfidence: Int
    public var scanInstances: [ScanInstance]

    public init(date: Int64, reportType: ReportType, infectiousness: Infectiousness, calibrationConfidence: Int, scanInstances: [ScanInstance]) {
        self.date = date
        self.reportType = reportType
        self.infectiousness = infectiousness
        self.calibrationConfidence = calibrationConfidence
        self.scanInstances = scanInstances
    }
}

/// A sighting that matched a key: what windows are built from.
struct MatchedSighting {
    var time: Int64
    var previousScan: Int64?
    var attenuation: Int
    var calibrationConfidence: Int
}

/// A scan instance with the time it started (for windows and days).
struct TimedScanInstance {
    var start: Int64
    var instance: ScanInstance
}

enum WindowBuilder {
    static let day: Int64 = 86_400

    static func utcMidnight(_ t: Int64) -> Int64 { t - ((t % day) + day) % day }

    /// Sightings (of one key) → scan instances, in time order.
    static func scanInstances(_ sightings: [MatchedSighting], gap: Int64) -> [(TimedScanInstance, calibration: Int)] {
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
    static func windows(_ instances: [(TimedScanInstance, calibration: Int)], reportType: ReportType,
                        infectiousness: Infectiousness, windowSeconds: Int64) -> [(start: Int64, window: ExposureWindow)] {
        var out: [(start: Int64, window: ExposureWindow)] = []
        for (timed, calibration) in instances {
            if let last = out.last, timed.start - last.start < windowSeconds {
                out[out.count - 1].window.scanInstances.append(timed.instance)
            } else {
                out.append((timed.start, ExposureWindow(date: utcMidnight(timed.start), reportType: reportType, infectiousness: infectiousness,
                                                        calibrationConfidence: calibration, scanInstances: [timed.instance])))
            }
        }
        return out
    }
}
