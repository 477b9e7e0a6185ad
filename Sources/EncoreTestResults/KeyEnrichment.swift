import EncoreExposure
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// What a positive user said about symptoms, which decides the
/// transmission risk level and days since onset given to each submitted key.
public enum Symptoms: Sendable, Equatable {
    case noInformation
    case none
    case onsetUnknown
    case onsetLastSevenDays
    case onsetOneToTwoWeeks
    case onsetOverTwoWeeks
    /// Symptoms began on the UTC day starting at this midnight (unix seconds).
    case onset(day: Int64)

    /// The CLI's names: no-info, none, onset-unknown, onset-last-7-days,
    /// onset-1-2-weeks, onset-over-2-weeks (an exact date is given apart).
    public static func named(_ name: String) -> Symptoms? {
        switch name {
        case "no-info": return .noInformation
        case "none": return Symptoms.none
        case "onset-unknown": return .onsetUnknown
        case "onset-last-7-days": return .onsetLastSevenDays
        case "onset-1-2-weeks": return .onsetOneToTwoWeeks
        case "onset-over-2-weeks": return .onsetOverTwoWeeks
        default: return nil
        }
    }
}

/// CWA's enrichment of own keys before upload: by the key's age in UTC days
/// (0 = today, up to 14), a transmission risk level and a days-since-onset
/// value (../shared/spec/test-result-and-submission.md).
public enum KeyEnrichment {
    /// The most keys a submission carries (the newest).
    public static let maxKeys = 14
    /// Key ages 0...14.
    static let ages = 15

    /// Transmission risk levels by key age for the answers without a date.
    static func vector(_ s: Symptoms) -> [Int32]? {
        switch s {
        case .noInformation: return [5, 6, 7, 7, 7, 6, 4, 3, 2, 1, 1, 1, 1, 1, 1]
        case .none: return [4, 4, 3, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
        case .onsetUnknown: return [5, 6, 8, 8, 8, 7, 5, 3, 2, 1, 1, 1, 1, 1, 1]
        case .onsetLastSevenDays: return [4, 5, 6, 7, 7, 7, 6, 5, 4, 3, 2, 1, 1, 1, 1]
        case .onsetOneToTwoWeeks: return [1, 1, 1, 1, 2, 3, 4, 5, 6, 6, 7, 7, 6, 6, 4]
        case .onsetOverTwoWeeks: return [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 4, 5]
        case .onset: return nil
        }
    }

    /// Days since onset of the youngest key (age 0); older keys count down.
    static func dsosStart(_ s: Symptoms) -> Int32? {
        switch s {
        case .noInformation: return 4000
        case .none: return 3000
        case .onsetUnknown: return 2000
        case .onsetLastSevenDays: return 701
        case .onsetOneToTwoWeeks: return 708
        case .onsetOverTwoWeeks: return 715
        case .onset: return nil
        }
    }

    /// With an exact onset date, the transmission risk of a key by the days
    /// between its day and the onset (negative: before the onset). CWA's
    /// table over 0...20 days since onset and 15 key ages is this curve
    /// read along its diagonals: 8 from a day before the onset to a day
    /// after, falling to 1 a week on either side.
    static func riskByDaysSinceOnset(_ d: Int64) -> Int32 {
        switch d {
        case ...(-6): return 1
        case -5: return 2
        case -4: return 4
        case -3: return 6
        case -2: return 7
        case -1 ... 1: return 8
        case 2: return 6
        case 3: return 5
        case 4: return 3
        case 5, 6: return 2
        default: return 1
        }
    }

    /// The transmission risk level and days since onset of a key of UTC day
    /// `keyDay` submitted on UTC day `today` (day numbers; any, the
    /// differences saturate).
    public static func values(keyDay: Int64, today: Int64, symptoms: Symptoms) -> (trl: Int32, dsos: Int32) {
        let age = today.saturatingSubtracting(keyDay)
        if case .onset(let onset) = symptoms {
            let sinceOnset = keyDay.saturatingSubtracting(onset / UnixTime.day)
            return (riskByDaysSinceOnset(sinceOnset), Int32(clamping: sinceOnset))
        }
        let vector = vector(symptoms) ?? []
        let i = Int(min(max(age, 0), Int64(vector.count - 1)))
        return (vector[i], (dsosStart(symptoms) ?? 0) - Int32(clamping: max(age, 0)))
    }

    /// The keys to submit: own keys of the last 15 UTC days whose rolling
    /// start is a UTC midnight (the server refuses others), the newest
    /// `maxKeys`, oldest first, each enriched; report type CONFIRMED_TEST.
    /// Returns them and how many keys were left out as unaligned.
    public static func enrich(_ keys: [ExposureKey], now: Int64, symptoms: Symptoms) -> (keys: [ExposureKey], unaligned: Int) {
        let today = UnixTime.utcMidnight(now) / UnixTime.day
        let aligned = keys.filter { $0.rollingStartIntervalNumber >= 0 && $0.rollingStartIntervalNumber % 144 == 0 && (1 ... 144).contains($0.rollingPeriod) }
        let recent = aligned.filter { k in
            let day = Int64(k.rollingStartIntervalNumber) / 144
            return day <= today && today - day < Int64(ages)
        }
        let newest = recent.sorted { $0.rollingStartIntervalNumber < $1.rollingStartIntervalNumber }.suffix(maxKeys)
        let enriched = newest.map { k -> ExposureKey in
            let v = values(keyDay: Int64(k.rollingStartIntervalNumber) / 144, today: today, symptoms: symptoms)
            return ExposureKey(keyData: k.keyData, transmissionRiskLevel: v.trl, rollingStartIntervalNumber: k.rollingStartIntervalNumber,
                               rollingPeriod: k.rollingPeriod, reportType: .confirmedTest, daysSinceOnsetOfSymptoms: v.dsos)
        }
        return (enriched, keys.count - aligned.count)
    }
}
