import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// Exposure detection over a store: the stored sightings that can match,
/// matched against key files.
public struct ExposureDetection: Sendable {
    public let store: Store

    public init(store: Store) { self.store = store }

    /// The sightings that can still match a key taking part in a match at
    /// `now`: from the start of the oldest such key's validity, less the drift.
    public func sightingSet(options: MatchingOptions, now: Int64) throws -> SightingSet {
        try options.validate(now: now)
        return try sightingSet(validated: options, now: now)
    }

    /// Matches the store's sightings against `files` (Matcher.match).
    public func match(files: [KeyFileSource], keyFileOptions: KeyFileOptions, options: MatchingOptions, now: Int64,
                      v1: V1Configuration = .cwa, threads: Int = 0, progress: ProgressHandler? = nil) throws -> MatchResult {
        try Matcher.validate(options, now: now, threads: threads)
        return try match(validated: files, keyFileOptions: keyFileOptions, options: options, now: now, v1: v1, threads: threads, progress: progress)
    }

    /// match() with arguments Matcher.validate() accepted.
    package func match(validated files: [KeyFileSource], keyFileOptions: KeyFileOptions, options: MatchingOptions, now: Int64,
                       v1: V1Configuration, threads: Int, progress: ProgressHandler?) throws -> MatchResult {
        try Matcher.run(sightings: sightingSet(validated: options, now: now), files: files, keyFileOptions: keyFileOptions,
                        options: options, now: now, v1: v1, threads: threads, progress: progress)
    }

    private func sightingSet(validated options: MatchingOptions, now: Int64) throws -> SightingSet {
        try SightingSet(store.sightings(from: Self.oldestSighting(options, now: now)))
    }

    /// The oldest sighting a key taking part in a match at `now` can match
    /// (options validated).
    package static func oldestSighting(_ options: MatchingOptions, now: Int64) -> Int64 {
        UnixTime.utcMidnight(now) - (options.maxKeyAgeDays + 1) * UnixTime.day - options.driftIntervals * ENInterval.seconds
    }
}
