import EncoreKeyFiles
import EncoreSupport

extension MatchResult {
    /// A match's one JSON form: the windows in the form WindowsJSON reads
    /// back (so `encore risk` takes `encore match`'s output), the v1
    /// summary and what happened to the keys. `now` is the match's clock.
    public func json(now: Int64) -> JSONValue {
        .object([
            ("now", .int(now)),
            ("exposureWindows", WindowsJSON.json(windows)),
            ("summaryV1", summaryV1.json),
            ("statistics", statistics.json),
        ])
    }
}

extension MatchStatistics {
    public var json: JSONValue {
        .object([
            ("files", .int(files)), ("keys", .int(keys)), ("skippedOld", .int(skippedOld)),
            ("skippedRevoked", .int(skippedRevoked)), ("skippedNotInfectious", .int(skippedNotInfectious)),
            ("skippedNoSightings", .int(skippedNoSightings)), ("derived", .int(derived)), ("matchedKeys", .int(matchedKeys)),
            ("newestFileEnd", .int(newestFileEnd)),
        ])
    }
}
