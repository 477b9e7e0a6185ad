import EncoreSupport

/// Where a key file comes from.
public enum KeyFileSource: Sendable {
    case path(String)
    case bytes([UInt8])
}
