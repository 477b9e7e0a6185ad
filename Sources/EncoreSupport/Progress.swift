/// Progress of a long operation: called with units done and the total;
/// returns false to cancel the operation.
public typealias ProgressHandler = (_ done: UInt64, _ total: UInt64) -> Bool

extension Optional where Wrapped == ProgressHandler {
    /// Reports progress, throwing `.cancelled` when the handler asks to stop.
    package func report(_ done: UInt64, of total: UInt64) throws {
        guard let handler = self else { return }
        if !handler(done, total) { throw EncoreError.cancelledByProgress }
    }
}

/// Progress shared by the threads: counts under a lock, the handler called
/// one call at a time, and cancellation seen by every thread.
package final class ProgressCounter: @unchecked Sendable {
    // @unchecked: the handler and counts are only touched inside `state`.
    private let handler: ProgressHandler?
    private let total: UInt64
    private let state = Locked<(done: UInt64, stopped: Bool)>((0, false))

    package init(_ handler: ProgressHandler?, total: UInt64) {
        self.handler = handler
        self.total = total
    }

    /// Adds units done and reports; throws `.cancelled` once any thread's
    /// report was refused.
    package func addDone(_ n: UInt64) throws {
        let go = state.withLock { s -> Bool in
            guard !s.stopped else { return false }
            s.done = min(total, s.done.addingReportingOverflow(n).overflow ? total : s.done + n)
            if let handler, !handler(s.done, total) { s.stopped = true }
            return !s.stopped
        }
        if !go { throw EncoreError.cancelledByProgress }
    }

    /// Throws `.cancelled` once a report was refused, without reporting:
    /// work about to start asks this first.
    package func checkGoing() throws {
        if state.withLock({ $0.stopped }) { throw EncoreError.cancelledByProgress }
    }
}

extension EncoreError {
    /// What a refused progress report ends an operation with.
    static var cancelledByProgress: EncoreError { EncoreError(.cancelled, "cancelled by the progress callback") }
}
