import EncoreExposure
import EncoreKeyFiles
import EncoreKeyFilesFixtures
import EncoreSupport

/// A simulated user's 14 days (the demo's, and the tests' when they want a
/// whole world): encounters with people who later report a positive test,
/// strangers heard in passing all day long, and the signed daily key files a
/// health authority publishes with the people's keys among many others.
/// Deterministic from its seed.
package struct SimulatedUser {
    package struct Encounter: Sendable {
        package let name: String
        package let contact: SimulatedContact
        package let startHour: Int64
        package let minutes: Int64
        package let rssi: Int8

        /// UTC day number of the encounter.
        package var day: Int64 { Int64(contact.start / ENInterval.rollingPeriod) }
    }

    package let now: Int64
    /// UTC day number of now.
    package let today: Int64
    package var rng: SplitMix64

    package init(now: Int64, seed: UInt64 = 2020) {
        self.now = now
        today = now / UnixTime.day
        rng = SplitMix64(seed: seed)
    }

    /// The demo's three people: a long close encounter ten days ago, a long
    /// one four days ago, a short far one yesterday.
    package mutating func demoEncounters() -> [Encounter] {
        func contact(day: Int64, dsos: Int32, reportType: ReportType) -> SimulatedContact {
            var c = SimulatedContact(tek: SimulatedKeyFiles.randomKey(&rng), day: UInt32(day))
            c.txPower = -12
            c.dsos = dsos
            c.reportType = reportType
            return c
        }
        return [Encounter(name: "Anna (met 10 days ago, 25 minutes at a café table)",
                          contact: contact(day: today - 10, dsos: 1, reportType: .confirmedTest), startHour: 9, minutes: 25, rssi: -62),
                Encounter(name: "Ben (met 4 days ago, 45 minutes on a train)",
                          contact: contact(day: today - 4, dsos: 2, reportType: .confirmedTest), startHour: 17, minutes: 45, rssi: -68),
                Encounter(name: "Cleo (met yesterday, 6 minutes passing in a corridor)",
                          contact: contact(day: today - 1, dsos: 1, reportType: .selfReport), startHour: 13, minutes: 6, rssi: -80)]
    }

    /// What the user's phone heard before now: one scan every 4 minutes
    /// during each encounter, plus strangers all day long.
    package mutating func sightings(of encounters: [Encounter], strangersPerDay: Int) throws -> [Sighting] {
        var out: [Sighting] = []
        for e in encounters {
            out += try e.contact.sightings(from: e.day * UnixTime.day + e.startHour * 3600, scans: Int((e.minutes + 3) / 4),
                                           spacing: 240, rssi: e.rssi)
        }
        for day in (today - 13) ... today {
            for _ in 0 ..< strangersPerDay {
                let t = day * UnixTime.day + Int64(rng.next() % UInt64(UnixTime.day))
                out.append(Sighting(time: t, rpi: SimulatedKeyFiles.randomKey(&rng), aem: UInt32(truncatingIfNeeded: rng.next()),
                                       rssi: Int8(-50 - Int(rng.next() % 45)), previousScan: t - 240))
            }
        }
        return out.filter { $0.time < now }
    }

    /// One signed key file per UTC day of the last 14, `othersPerDay` random
    /// keys in each and each encounter's key in the file of its day.
    package mutating func keyFiles(encounters: [Encounter], othersPerDay: Int, signer: PrivateKey,
                                   info: SignatureInfo) throws -> [(day: Int64, zip: [UInt8])] {
        try ((today - 14) ..< today).map { day in
            (day, try SimulatedKeyFiles.day(day, others: othersPerDay, keys: encounters.filter { $0.day == day }.map(\.contact.key),
                                            rng: &rng, signer: signer, info: info))
        }
    }
}
