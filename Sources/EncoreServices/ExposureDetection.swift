import EncoreCrypto
import EncoreKeyFiles
import EncoreMatching
import EncoreModel
import EncoreRisk
import EncoreStorage
import EncoreSupport

extension Store {
    /// The stored sightings that can still match a key taking part in a
    /// match at `options.now`: from the start of the oldest such key's
    /// validity, less the drift.
    public func observationSet(for options: MatchingOptions) throws -> ObservationSet {
        try options.validate()
        let from = UnixTime.utcMidnight(options.now) - (options.maxKeyAgeDays + 1) * UnixTime.day
            - options.driftIntervals * ENInterval.seconds
        return try ObservationSet(observations(from: from))
    }
}
