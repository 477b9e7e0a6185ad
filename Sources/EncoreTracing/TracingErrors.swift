import EncoreSupport

/// The tracing feature's own error: a call that needs tracing switched on
/// (an advertisement, a scan to ingest) came while it was off.
extension EncoreError.Kind {
    public static let tracingInactive = EncoreError.Kind("tracingInactive")
}
