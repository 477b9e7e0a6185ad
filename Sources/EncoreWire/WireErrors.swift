import EncoreSupport

/// The zip container and the protobuf wire: not a zip, cut short, a CRC
/// that does not match, a method or feature not supported, a limit passed,
/// members missing or unexpected, a directory that contradicts itself;
/// export.bin's fields malformed.
extension EncoreError.Kind {
    public static let zipNotZip = EncoreError.Kind("zipNotZip")
    public static let zipTruncated = EncoreError.Kind("zipTruncated")
    public static let zipCRC = EncoreError.Kind("zipCRC")
    public static let zipUnsupported = EncoreError.Kind("zipUnsupported")
    public static let zipLimit = EncoreError.Kind("zipLimit")
    public static let zipMembers = EncoreError.Kind("zipMembers")
    public static let zipCorrupt = EncoreError.Kind("zipCorrupt")
    public static let exportMalformed = EncoreError.Kind("exportMalformed")
}
