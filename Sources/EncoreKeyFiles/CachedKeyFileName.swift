import EncoreStorage
import EncoreSupport

/// Identifiers of the CWA layout in the key file cache: a day is
/// "YYYY-MM-DD", an hour "YYYY-MM-DD/hour/H". DP-3T bundles are kept in
/// the region "DP3T" under the bundle tag that followed them; CWA's trace
/// warning packages in "TWP-<region>" under their hour since the epoch
/// (they are matched when they arrive, and are not key files: the check
/// skips them).
package enum CachedKeyFileName {
    package static let dp3tRegion = "DP3T"
    package static let warningPrefix = "TWP-"

    package static func warningRegion(_ region: String) -> String { warningPrefix + region }

    package static func hour(_ day: String, _ hour: Int) -> String { "\(day)/hour/\(hour)" }

    /// (day, hour) of an identifier; hour nil for a day package; nil for
    /// something that is neither.
    package static func parse(_ identifier: String) -> (day: String, hour: Int?)? {
        let parts = identifier.split(separator: "/", omittingEmptySubsequences: false)
        let day = String(parts[0])
        guard UTCTime.midnight(ofDay: day) != nil else { return nil }
        if parts.count == 1 { return (day, nil) }
        guard parts.count == 3, parts[1] == "hour", let h = Int(parts[2]), (0 ... 23).contains(h) else { return nil }
        return (day, h)
    }
}
