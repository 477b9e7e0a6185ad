import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// A cached key file as the check knows it: where the cache keeps it, the
/// SHA-256 of its bytes (a file published again under the same name has
/// another), and how to read it (called only when it must be matched).
public struct CheckedKeyFile: Sendable {
    public var region: String
    public var identifier: String
    public var sha256: [UInt8]
    public var read: @Sendable () throws -> KeyFileSource

    public init(region: String, identifier: String, sha256: [UInt8], read: @escaping @Sendable () throws -> KeyFileSource) {
        self.region = region
        self.identifier = identifier
        self.sha256 = sha256
        self.read = read
    }
}

/// What one cached key file contributed to matching, kept from the check
/// that matched it (tables kept_files and kept_matches): its matches in
/// file order (each key with its scan instances), the keys it revised, the
/// newest sighting it was matched against (the sightings' rowid), and the
/// matching parameters it was matched with.
struct KeptFile {
    var id: Int64
    var region: String
    var identifier: String
    var sha256: [UInt8]
    var fingerprint: String
    var matchedThrough: Int64
    var newestEnd: Int64?
    var keys: Int
    var revised: [KeyData]
    /// In file order (each list's entries in order).
    var matches: [KeptEntry] = []

    var hasStale: Bool { matches.contains(where: \.stale) }

    /// The file's part of a merge (Matcher.merge), as matching gave it.
    var outcome: Matcher.FileOutcome {
        var o = Matcher.FileOutcome()
        o.revised = revised
        for e in matches {
            if e.list == .keys { o.mainMatches.append((e.match.key.keyData, e.match)) } else { o.revisedMatches.append((e.match.key.keyData, e.match)) }
        }
        o.stats.newestFileEnd = newestEnd
        return o
    }
}

/// One kept match: the list the key was in, the key and its scan instances.
struct KeptEntry {
    var list: KeyList
    var match: KeyMatch
    /// Sightings in its range were purged since it was matched: match it again.
    var stale = false
}

/// The matching parameters that decide what a key matches (everything but
/// the window length and the report type of UNKNOWN, which apply when
/// windows are made from kept scan instances): kept matches made with
/// other ones are matched again.
enum MatchingFingerprint {
    static func of(_ o: MatchingOptions) -> String {
        let map = o.infectiousnessForDaysSinceOnset.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value.rawValue)" }.joined(separator: ",")
        return "1;drift=\(o.driftIntervals);tx=\(o.txPowerMinimum)...\(o.txPowerMaximum);replay=\(o.replaySeconds);age=\(o.maxKeyAgeDays);"
            + "gap=\(o.scanInstanceGapSeconds);dsos=\(map);missing=\(o.infectiousnessWhenDaysSinceOnsetMissing.rawValue)"
    }
}

extension Store {
    /// Every kept file with its matches, by region and identifier.
    func keptFiles() throws -> [KeptFile] {
        try withConnection { c in
            var files: [Int64: KeptFile] = [:]
            let f = try c.prepare("SELECT id, region, identifier, sha256, fingerprint, matched_through, newest_end, keys, revised FROM kept_files")
            while try f.step() {
                let revised = f.blob(8)
                guard revised.count % 16 == 0 else { throw EncoreError(.storeNotDatabase, "store: a kept file's revised keys are damaged") }
                files[f.int64(0)] = KeptFile(id: f.int64(0), region: f.text(1) ?? "", identifier: f.text(2) ?? "", sha256: f.blob(3),
                                             fingerprint: f.text(4) ?? "", matchedThrough: f.int64(5), newestEnd: f.optionalInt64(6),
                                             keys: Int(clamping: f.int64(7)),
                                             revised: stride(from: 0, to: revised.count, by: 16).compactMap { KeyData(Array(revised[$0 ..< $0 + 16])) })
            }
            let m = try c.prepare("SELECT file, list, key, instances, stale FROM kept_matches ORDER BY file, seq")
            while try m.step() {
                let entry = KeptEntry(list: m.int64(1) == 0 ? .keys : .revisedKeys,
                                      match: try KeptMatchCodec.decode(key: m.blob(2), instances: m.blob(3)), stale: m.int64(4) != 0)
                files[m.int64(0)]?.matches.append(entry)
            }
            return files.values.sorted { ($0.region, $0.identifier) < ($1.region, $1.identifier) }
        }
    }

    /// How many files and matches are kept (store info, tests).
    public func keptMatchCounts() throws -> (files: Int, matches: Int) {
        try withConnection { c in
            (Int(try c.scalar("SELECT count(*) FROM kept_files") ?? 0), Int(try c.scalar("SELECT count(*) FROM kept_matches") ?? 0))
        }
    }
}

extension StoreWriter {
    /// Forgets a kept file and its matches.
    func deleteKeptFile(id: Int64) throws {
        try connection.prepare("DELETE FROM kept_files WHERE id = ?").bind(1, id).run()
    }

    /// Keeps what `file` contributed, replacing what was kept of it,
    /// unless the cache no longer holds those bytes under its name (then
    /// nothing is kept: the next check matches what the cache holds).
    func keep(_ file: KeptFile, drift: Int64) throws {
        try connection.prepare("DELETE FROM kept_files WHERE region = ? AND identifier = ?")
            .bind(1, text: file.region).bind(2, text: file.identifier).run()
        // The key file cache is the key files' to ask (one transaction: the answer holds).
        guard try holdsCachedKeyFile(region: file.region, identifier: file.identifier, sha256: file.sha256) else { return }
        let s = try connection.prepare("""
            INSERT INTO kept_files (region, identifier, sha256, fingerprint, matched_through, newest_end, keys, revised)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            """)
        s.bind(1, text: file.region).bind(2, text: file.identifier).bind(3, blob: file.sha256).bind(4, text: file.fingerprint)
            .bind(5, file.matchedThrough).bind(6, file.newestEnd).bind(7, Int64(file.keys)).bind(8, blob: file.revised.flatMap(\.bytes))
        try s.run()
        guard connection.changes == 1 else { return }
        let id = try connection.scalar("SELECT last_insert_rowid()") ?? 0
        let insert = try connection.prepare("INSERT INTO kept_matches (file, seq, list, key, instances, range_start) VALUES (?, ?, ?, ?, ?, ?)")
        for (seq, e) in file.matches.enumerated() {
            insert.reset()
            insert.bind(1, id).bind(2, Int64(seq)).bind(3, Int64(e.list == .keys ? 0 : 1))
                .bind(4, blob: KeptMatchCodec.encode(key: e.match.key, infectiousness: e.match.infectiousness))
                .bind(5, blob: KeptMatchCodec.encode(instances: e.match.instances))
                .bind(6, KeptRange.of(e.match.key, drift: drift).lowerBound)
            try insert.run()
        }
    }
}

/// The times a key's RPIs can be heard at: its validity ± the drift (the
/// kept range_start is its start, made with the drift of the fingerprint).
enum KeptRange {
    static func of(_ key: ExposureKey, drift: Int64) -> Range<Int64> {
        let start = Int64(key.rollingStartIntervalNumber), end = start + Int64(key.rollingPeriod)
        return (start - drift) * ENInterval.seconds ..< (end + drift) * ENInterval.seconds
    }
}
