// encore.h section: general, part 1
import EncoreKeyFiles
import CEncoreShim
import CEncoreTypes
#if canImport(Glibc)
import Glibc
#endif

// Written once at first use, then only read.
nonisolated(unsafe) private let versionText: UnsafeMutablePointer<CChar>? = strdup(ENCORE_VERSION_STRING)
nonisolated(unsafe) private let statusNameTexts: [encore_status: UnsafeMutablePointer<CChar>] =
    statusNames.compactMapValues { strdup($0) }

/// The library's version as "MAJOR.MINOR.PATCH"; equals ENCORE_VERSION_STRING
/// of the header it was built with. The string is static.
@c public func encore_version() -> UnsafePointer<CChar>? {
    UnsafePointer(versionText)
}

/// The library's version as MAJOR*10000 + MINOR*100 + PATCH; equals
/// ENCORE_VERSION_NUMBER of the header it was built with.
@c public func encore_version_number() -> UInt32 {
    UInt32(ENCORE_VERSION_MAJOR * 10000 + ENCORE_VERSION_MINOR * 100 + ENCORE_VERSION_PATCH)
}

/// Explains the last failure of an encore function on the calling thread
/// (never NULL; "" before any failure). Valid until the next failing call on
/// the same thread.
@c public func encore_last_error_message() -> UnsafePointer<CChar>? {
    enc_shim_last_error()
}

/// The name of a status code ("ENCORE_ERR_ZIP_CRC"), or NULL for a number
/// that is not a status. The string is static.
@c public func encore_status_name(_ status: encore_status) -> UnsafePointer<CChar>? {
    statusNameTexts[status].map { UnsafePointer($0) }
}
