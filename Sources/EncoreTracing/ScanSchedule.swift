import EncoreExposure
import EncoreSupport

/// One scan window: the host scans from `start` to `end` (unix seconds).
public struct ScanWindow: Equatable, Sendable {
    public var start: Int64
    public var end: Int64

    public init(start: Int64, end: Int64) {
        self.start = start
        self.end = end
    }
}

/// When to scan. The ENF Bluetooth specification (v1.2, "Scanning
/// behaviour") asks for scan windows that find every advertiser nearby
/// within 5 minutes, opportunistic and duty-cycled; Google's framework
/// scans about 4 seconds every 5 minutes (13 s more when the radio is busy).
/// microG scans 20 seconds every 3 minutes (its SCANNING_TIME and
/// SCANNING_INTERVAL), to make up for Android's scanner reporting late.
/// The default here is Google's: a 4-second window every 300 seconds,
/// start to start. BlueZ's discovery reports each advertiser during the
/// window (DuplicateData), and an advertiser sends every 200 to 270 ms,
/// so 4 seconds hear it about 15 times. The matching counts a scan's
/// minutes from the previous scan's time (capped at 5): a period of 300 s
/// credits each scan the full 5 minutes; a longer one would lose time.
public struct ScanSchedule: Equatable, Sendable {
    /// Seconds a scan lasts.
    public var windowSeconds: Int64
    /// Seconds from one scan's start to the next one's.
    public var periodSeconds: Int64

    public static let enf = ScanSchedule(windowSeconds: 4, periodSeconds: 300)

    public init(windowSeconds: Int64, periodSeconds: Int64) {
        self.windowSeconds = windowSeconds
        self.periodSeconds = periodSeconds
    }

    func validate() throws {
        guard windowSeconds >= 1, periodSeconds >= windowSeconds, periodSeconds <= 300 else {
            throw EncoreError(.invalidArgument, "a scan schedule needs 1 <= window <= period <= 300 seconds (ENF: a scan at least every 5 minutes)")
        }
    }

    /// The next window: at once when no scan ran yet, the last one began
    /// a period or more ago, or it began after `now` (the clock was set
    /// back: waiting for the old time could stop scanning for as long as
    /// the clock went back), else a period after the last one began.
    public func nextWindow(lastScanStart: Int64?, now: Int64) -> ScanWindow {
        var start = now
        if let last = lastScanStart, last <= now {
            let due = last.saturatingAdding(periodSeconds)
            if due > now { start = due }
        }
        return ScanWindow(start: start, end: start.saturatingAdding(windowSeconds))
    }
}
