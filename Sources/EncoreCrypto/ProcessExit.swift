import CCrypto

/// OpenSSL in a short-lived process (the `encore` tool).
public enum OpenSSLProcess {
    /// Tells OpenSSL, before anything else initializes it, not to free its
    /// tables in an exit handler. Its algorithm tables (the names of every
    /// cipher and digest, built at the first use) take about a million
    /// instructions to free, which a process about to exit need not spend:
    /// a twentieth of a check with nothing new. Only the first
    /// initialization decides; later calls change nothing.
    public static func skipCleanupAtExit() {
        _ = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
    }
}
