/// Progress of a long operation: called with units done and the total;
/// returns false to cancel the operation.
public typealias ProgressHandler = (_ done: UInt64, _ total: UInt64) -> Bool

extension Optional where Wrapped == ProgressHandler {
    /// Reports progress, throwing `.cancelled` when the handler asks to stop.
    package func report(_ done: UInt64, of total: UInt64) throws {
        guard let handler = self else { return }
        if !handler(done, total) { throw EncoreError(.cancelled, "cancelled by the progress callback") }
    }
}
