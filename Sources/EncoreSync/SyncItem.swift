import EncoreCheckIns
import EncoreExposure
import EncoreKeyFiles
import EncoreRisk
import EncoreSupport

/// One thing a sync asked a server for (a key file, the configuration, a
/// bundle of DP-3T keys or CrowdNotifier trace keys, a trace warning
/// package) and what became of it. The one typed value behind the C struct
/// (encore_sync_item) and the JSON's "items".
public struct SyncItem: Sendable, Equatable {
    /// Key files (day, hour, dp3t), the configuration, a trace warning
    /// package (warnings), a body of CrowdNotifier trace keys (traceKeys).
    public enum Kind: String, Sendable, CaseIterable { case day, hour, config, dp3t, warnings, traceKeys }
    /// Kept (fetched, verified, stored); current already (a 304, or a
    /// backend with nothing new since the stored tag); or failed without
    /// failing the sync (the configuration's outage: `failure` says why).
    public enum Outcome: String, Sendable, CaseIterable { case fetched, cached, failed }

    public var kind: Kind
    public var day: String?
    public var hour: Int?
    /// The ETag, or a bundle tag (dp3t, traceKeys); "" when none is known.
    public var etag: String
    /// Keys of a key file; reports and warnings of a warning package; events of trace keys.
    public var keys: Int
    /// A warning package's hour since the epoch.
    public var interval: Int64? = nil
    /// Check-in matches that were new (warnings and trace keys).
    public var matches: Int? = nil
    public var outcome: Outcome = .fetched
    /// The body's size as it came (0 when none came).
    public var bytes: Int = 0
    /// Why a failed item failed.
    public var failure: EncoreError? = nil

    /// The JSON of "items": every field, null where it does not apply.
    var json: JSONValue {
        .object([("kind", .string(kind.rawValue)), ("outcome", .string(outcome.rawValue)), ("day", .string(day)), ("hour", .int(hour)),
                 ("interval", .int(interval)), ("etag", .string(etag)), ("keys", .int(keys)), ("matches", .int(matches)),
                 ("bytes", .int(bytes)),
                 ("error", failure.map { .object([("kind", .string($0.kind.name)), ("message", .string($0.message))]) } ?? .null)])
    }

    /// The JSON of "fetched", as 0.x wrote it (a kept item's first fields).
    var fetchedJSON: JSONValue {
        var members: [(String, JSONValue)] = [("kind", .string(kind.rawValue)), ("day", .string(day)), ("hour", .int(hour)), ("etag", .string(etag)), ("keys", .int(keys))]
        if let interval { members.append(("interval", .int(interval))) }
        if let matches { members.append(("matches", .int(matches))) }
        return .object(members)
    }
}
