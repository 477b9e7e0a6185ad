/// Rounds and pacing of the sender, without I/O.
///
/// Time is cut into rounds of `interval` seconds aligned on the epoch, so
/// that every sender, on any host, agrees on them: a token is due when it
/// has not been pushed since its round started, and each due token is
/// pushed once per round whichever sender claims it.
public struct SendSchedule: Sendable, Equatable {
    public let interval: Int64

    public init(interval: Int64) { self.interval = max(1, interval) }

    public func roundStart(_ now: Int64) -> Int64 { now - ((now % interval) + interval) % interval }
    public func roundEnd(_ now: Int64) -> Int64 { roundStart(now) + interval }

    /// Seconds between two sends so that `due` tokens are spread over what
    /// is left of the round (80% of it, leaving room for retries), and the
    /// size of a batch that fits comfortably within one lease.
    public func pacing(due: Int, now: Int64, leaseSeconds: Int64, batchSize: Int) -> (delay: Double, batch: Int) {
        guard due > 0 else { return (0, batchSize) }
        let budget = Double(max(1, roundEnd(now) - now)) * 0.8
        let delay = budget / Double(due)
        // A batch must be sent well within its lease (half of it).
        let fitting = delay > 0 ? Int(Double(leaseSeconds) / 2 / delay) : batchSize
        return (delay, max(1, min(batchSize, fitting)))
    }
}
