import EncoreSupport

/// Where a key file comes from.
public enum KeyFileSource: Sendable {
    case path(String)
    case bytes([UInt8])
    /// Bytes already in memory, used as they are (a bare export.bin is
    /// not copied): what a sync hands the check after verifying a package.
    case buffer(OwnedBytes)
}
