import EncoreSupport

/// The store: a wrong key, not a database, a schema newer than this
/// library, SQLCipher failing, busy past the timeout, no file where one
/// must be, a damaged file.
extension EncoreError.Kind {
    public static let storeWrongKey = EncoreError.Kind("storeWrongKey")
    public static let storeNotDatabase = EncoreError.Kind("storeNotDatabase")
    public static let storeTooNew = EncoreError.Kind("storeTooNew")
    public static let storeFailed = EncoreError.Kind("storeFailed")
    public static let storeBusy = EncoreError.Kind("storeBusy")
    public static let storeMissing = EncoreError.Kind("storeMissing")
    /// The store was closed (encore_store_close()); its holders' calls fail.
    public static let storeClosed = EncoreError.Kind("storeClosed")
    /// The store is damaged: the key proved right on its first page, but a
    /// later page, or the file's length, is broken (SQLITE_CORRUPT, or a
    /// page that fails its check after the first one passed).
    public static let storeCorrupt = EncoreError.Kind("storeCorrupt")
}
