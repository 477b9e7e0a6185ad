import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreSupport

/// The cap on sightings the tracing keeps per UTC day (issue 46: microG's
/// database grew to 952 MB, 6.7 M rows, on what it heard): storage stays
/// bounded whatever is heard, and what the cap drops is counted.
///
/// The rule, per UTC day of the sighting's time:
///   - a sighting of an RPI already kept that day is stored while the day
///     holds fewer than `perDay` sightings;
///   - a sighting of a new RPI only while it holds fewer than `newRPIs`
///     (the cap less a tenth, held back for the kept RPIs' later scans);
///     among one scan's new RPIs the strongest RSSI goes first;
///   - everything else is dropped and counted for its day.
/// So the day never holds more than `perDay`, and past the threshold the
/// contacts already followed keep their scans. Why: CWA's risk (v2) sums,
/// per exposure window, the minutes of its scan instances weighted by their
/// minimum attenuation (1.0 under 55 dB, 0.5 to 63 dB, nothing from 73 dB)
/// and drops windows under 10 minutes at 73 dB or less: an RPI's worth is
/// its later scans at close range. Cutting a followed RPI short wastes what
/// was kept of it; dropping a newcomer loses one contact whole, and the
/// closest newcomers are the ones kept. Which RPIs will matter cannot be
/// known when they are heard (the TX power is encrypted in the AEM), so
/// the rule reads only the order they came in and their RSSI: simple, and
/// what it keeps is predictable.
public struct SightingCap: Equatable, Sendable {
    /// Sightings kept per UTC day at most.
    public let perDay: Int

    /// 200 000 a day: a crowded day (500 devices around all day, a scan
    /// every 5 minutes: 144 000 sightings of 48 000 RPIs, `make
    /// bench-tracing`) is kept whole, under the new-RPI threshold (180 000);
    /// 14 days at the cap are 2.8 M rows (docs/tracing.md has the bytes).
    public static let defaultPerDay = 200_000
    public static let `default` = SightingCap(unchecked: defaultPerDay)

    /// `perDay` ≥ 10 (below, the share held back would be nothing).
    public init(perDay: Int) throws {
        guard perDay >= 10, perDay <= Int(Int32.max) else {
            throw EncoreError(.invalidArgument, "the sightings a day must be 10 to \(Int32.max), not \(perDay)")
        }
        self.perDay = perDay
    }

    private init(unchecked perDay: Int) { self.perDay = perDay }

    /// Sightings of new RPIs are kept while the day holds fewer than this.
    public var newRPIs: Int { perDay - perDay / 10 }
}

/// What the tracer knows of one UTC day's sightings: how many the store
/// holds and of which RPIs.
struct CappedDay {
    let day: Int64
    var stored: Int
    var rpis: Set<KeyData>

    /// Splits one scan's sightings of this day (one per RPI) by the cap's
    /// rule into those to store and how many are dropped. `stored` and
    /// `rpis` are not changed: `kept(_:added:)` does that once they are.
    func admit(_ rows: [Sighting], cap: SightingCap) -> (keep: [Sighting], dropped: Int) {
        var keep: [Sighting] = [], newcomers: [Sighting] = []
        keep.reserveCapacity(rows.count)
        var count = stored
        for o in rows {
            if rpis.contains(o.rpi) {
                if count < cap.perDay { keep.append(o); count += 1 }
            } else {
                newcomers.append(o)
            }
        }
        // The strongest first (then the first heard): closer contacts count.
        // (No negated time: a host's time may be Int64.min.)
        newcomers.sort { $0.rssi != $1.rssi ? $0.rssi > $1.rssi : $0.time < $1.time }
        for o in newcomers where count < cap.newRPIs {
            keep.append(o)
            count += 1
        }
        return (keep, rows.count - keep.count)
    }

    /// Records that `rows` were stored, `added` of them new rows.
    mutating func kept(_ rows: [Sighting], added: Int) {
        stored += added
        for o in rows { rpis.insert(o.rpi) }
    }
}
