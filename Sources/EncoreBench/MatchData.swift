import EncoreClient
import EncoreCrypto
import EncoreExposure
import EncoreFixtures
import EncoreKeyFiles
import EncoreKeyFilesFixtures
import EncoreStorage
#if canImport(Glibc)
import Glibc
#endif

/// The data of the matching benchmark, deterministic from fixed seeds so that
/// the parent, the generator child and the RSS child agree without passing
/// anything but a directory and a key count:
///   - 14 signed daily key files, file d holding the keys of UTC day d (rolling
///     start = the day's first interval), every key infectious under CWA's map
///     (days since onset 1 or 2), none revoked, 2 % with a rolling period
///     shorter than 144;
///   - contacts: people whose keys are in those files and whose broadcasts the
///     users heard (50 for the dense user, spread over all days, 5 for the
///     sparse user on its one afternoon);
///   - the dense user: 100 000 sightings over all 14 days;
///   - the sparse user: 2 000 sightings within 13:00-17:00 UTC of day 10.
enum MatchData {
    static let days = 14
    /// Midnight UTC of day 0 in intervals; the last day ends at Generator.today.
    static let firstDay: Int32 = Generator.today - Int32(days) * 144
    /// Matching's "now": the end of the last day (2024-01-01 00:00 UTC).
    static let now = Int64(Generator.today) * ENInterval.seconds

    static let denseSightings = 100_000
    static let sparseSightings = 2_000
    static let denseContacts = 50
    static let sparseContacts = 5
    static let sparseDay = 10
    /// The sparse user's afternoon, seconds after its day's midnight.
    static let sparseFrom: Int64 = 13 * 3600, sparseTo: Int64 = 17 * 3600

    static let keySeed: UInt64 = 0x4D41_5443_4831
    static let contactSeed: UInt64 = 0xC0A7_AC75
    static let noiseSeed: UInt64 = 0x0B5E_4BED

    /// Seconds between a contact's sightings (each one scan); and the window rule's
    /// constant (MatchingOptions' default, 30 min) for the expected windows.
    static let scanSpacing: Int64 = 240
    static let windowSeconds: Int64 = 30 * 60

    static func midnight(day d: Int) -> Int64 { Int64(firstDay + Int32(d) * 144) * ENInterval.seconds }

    static func path(_ dir: String, day d: Int) -> String { "\(dir)/match-day-\(d < 10 ? "0" : "")\(d).zip" }
    static func publicKeyPath(_ dir: String) -> String { "\(dir)/match-public.pem" }

    /// Keys per daily file: `total` split as evenly as possible.
    static func keysPerFile(total: Int) -> [Int] {
        (0 ..< days).map { total / days + ($0 < total % days ? 1 : 0) }
    }

    // MARK: contacts

    /// Someone whose key is in day `day`'s file at position `slot` and whose
    /// device the user's heard `scans` times, `scanSpacing` apart, from `start`.
    struct Contact {
        var tek: KeyData
        var day: Int
        var slot: Int
        var start: Int64
        var scans: Int
        var rssi: Int8
        var txPower: Int8 = -10
        var calibration: UInt8
        var dsos: Int32

        var key: ExposureKey {
            ExposureKey(keyData: tek, transmissionRiskLevel: 6, rollingStartIntervalNumber: MatchData.firstDay + Int32(day) * 144,
                        rollingPeriod: 144, reportType: .confirmedTest, daysSinceOnsetOfSymptoms: dsos)
        }

        var times: [Int64] { (0 ..< scans).map { start + Int64($0) * MatchData.scanSpacing } }

        /// What the user's device recorded: RPI and AEM of the interval the
        /// broadcast was made in (no clock drift), previous scan one spacing before.
        func sightings() throws -> [Sighting] {
            var c = SimulatedContact(tek: tek, day: UInt32(MatchData.firstDay) / ENInterval.rollingPeriod + UInt32(day))
            c.txPower = txPower
            c.calibration = calibration
            return try c.sightings(from: start, scans: scans, spacing: MatchData.scanSpacing, rssi: rssi)
        }

        /// (UTC day, scan instances) of each window matching must build: a
        /// window opens at an instance 30 min or more after the open window's start.
        var expectedWindows: [Window] {
            var out: [Window] = []
            var windowStart = Int64.min
            for t in times {
                if out.isEmpty || t - windowStart >= MatchData.windowSeconds {
                    out.append(Window(date: t - t % 86_400, instances: 1))
                    windowStart = t
                } else {
                    out[out.count - 1].instances += 1
                }
            }
            return out
        }

        /// Distinct heard RPIs of this key: the hits the kernel must find.
        var expectedHits: Int { Set(times.map { $0 / ENInterval.seconds }).count }
    }

    struct Window: Comparable {
        var date: Int64
        var instances: Int
        static func < (a: Window, b: Window) -> Bool { (a.date, a.instances) < (b.date, b.instances) }
    }

    /// The dense user's contacts (one day each, round robin over the 14 days,
    /// encounters anywhere in the day) and the sparse user's (day 10, within
    /// its afternoon). Slots are distinct within a file.
    static func contacts(total: Int) -> (dense: [Contact], sparse: [Contact]) {
        let perFile = keysPerFile(total: total)
        var rng = XorShift(seed: contactSeed)
        var taken: Set<[Int]> = []
        func make(day: Int, start: Int64, scans: Int) -> Contact {
            var slot: Int
            repeat { slot = Int(rng.next() % UInt64(perFile[day])) } while !taken.insert([day, slot]).inserted
            var raw = (rng.next(), rng.next())
            let tek = withUnsafeBytes(of: &raw) { KeyData($0) }
            let r = rng.next()
            return Contact(tek: tek, day: day, slot: slot, start: start, scans: scans, rssi: Int8(-50 - Int(r % 40)),
                           calibration: UInt8((r >> 8) % 3), dsos: Int32(1 + (r >> 16) % 2))
        }
        // 3...10 scans, 4 min apart: at most 36 min, so 1 or 2 windows.
        let longest = Int64(9) * scanSpacing
        var dense: [Contact] = []
        for i in 0 ..< denseContacts {
            let day = i % days
            let start = midnight(day: day) + Int64(rng.next() % UInt64(86_400 - longest - 60))
            dense.append(make(day: day, start: start, scans: 3 + i % 8))
        }
        var sparse: [Contact] = []
        for i in 0 ..< sparseContacts {
            let from = midnight(day: sparseDay) + sparseFrom
            let start = from + Int64(rng.next() % UInt64(sparseTo - sparseFrom - longest - 60))
            sparse.append(make(day: sparseDay, start: start, scans: 4 + (3 * i) % 7))
        }
        return (dense, sparse)
    }

    // MARK: key files

    /// The keys of day d's file: random TEKs; rolling period 144 except 2 %
    /// (1...143, as keys of the day of upload are); transmission risk 1...8;
    /// 90 % confirmed tests, 10 % clinical diagnoses; days since onset 1 or 2
    /// (all infectious under CWA's map, so no key is skipped before crypto for
    /// its metadata); the contacts' keys at their slots.
    static func keys(day d: Int, count: Int, contacts: [Contact]) -> [ExposureKey] {
        var rng = XorShift(seed: keySeed &+ UInt64(d + 1) &* 0x9E37_79B9_7F4A_7C15)
        let start = firstDay + Int32(d) * 144
        var out: [ExposureKey] = []
        out.reserveCapacity(count)
        var raw = (UInt64(0), UInt64(0))
        for _ in 0 ..< count {
            raw = (rng.next(), rng.next())
            let r = rng.next()
            out.append(ExposureKey(
                keyData: withUnsafeBytes(of: &raw) { KeyData($0) },
                transmissionRiskLevel: Int32(1 + (r >> 16) % 8),
                rollingStartIntervalNumber: start,
                rollingPeriod: r % 50 == 0 ? Int32(1 + (r >> 8) % 143) : 144,
                reportType: (r >> 24) % 10 == 0 ? .confirmedClinicalDiagnosis : .confirmedTest,
                daysSinceOnsetOfSymptoms: Int32(1 + (r >> 32) % 2)))
        }
        for c in contacts where c.day == d { out[c.slot] = c.key }
        return out
    }

    struct Generated {
        var keys = 0
        var zipBytes = 0
        var binBytes = 0
        var seconds = 0.0
    }

    /// Writes the 14 signed files and the signer's public key into `dir`.
    static func write(total: Int, dir: String) throws -> Generated {
        var g = Generated()
        g.seconds = try Timing.time {
            let (dense, sparse) = contacts(total: total)
            let signer = try PrivateKey()
            for (d, count) in keysPerFile(total: total).enumerated() {
                let keys = keys(day: d, count: count, contacts: dense + sparse)
                var meta = ExportMetadata()
                meta.startTimestamp = UInt64(midnight(day: d))
                meta.endTimestamp = UInt64(midnight(day: d) + 86_400)
                meta.region = "DE"
                meta.batchNum = 1
                meta.batchSize = 1
                let zip = try ExportWriter.signedKeyFile(metadata: meta, keys: keys, signer: signer, info: Generator.signatureInfo)
                try Files.write(path(dir, day: d), zip)
                g.keys += keys.count
                g.zipBytes += zip.count
                g.binBytes += try ZipPeek.exportBin(zip).uncompressedSize
            }
            try Files.write(publicKeyPath(dir), signer.publicKeyPEM())
        }
        return g
    }

    static func removeFiles(_ dir: String) {
        for d in 0 ..< days { Files.removeQuietly(path(dir, day: d)) }
        Files.removeQuietly(publicKeyPath(dir))
    }

    // MARK: sightings

    /// Sightings of strangers (keys in no file): each random RPI heard 1-4
    /// times at scans 5 min apart (as an RPI lives 10-20 min), times uniform
    /// in from ..< to, RSSI -45...-94 dBm, random AEM.
    static func noise(_ count: Int, from: Int64, to: Int64, rng: inout XorShift) -> [Sighting] {
        var out: [Sighting] = []
        out.reserveCapacity(count)
        var raw = (UInt64(0), UInt64(0))
        while out.count < count {
            raw = (rng.next(), rng.next())
            let rpi = withUnsafeBytes(of: &raw) { KeyData($0) }
            let r = rng.next()
            let heard = 1 + Int(r % 4)
            let t0 = from + Int64((r >> 8) % UInt64(to - from - 900))
            for s in 0 ..< min(heard, count - out.count) {
                let t = t0 + Int64(s) * 300
                out.append(Sighting(time: t, rpi: rpi, aem: UInt32(truncatingIfNeeded: rng.next()),
                                       rssi: Int8(-45 - Int((r >> 40) % 50)), previousScan: t - 300))
            }
        }
        return out
    }

    /// The dense user's sightings: the contacts' plus strangers' over all 14 days.
    static func denseUser(_ contacts: [Contact]) throws -> [Sighting] {
        let real = try contacts.flatMap { try $0.sightings() }
        var rng = XorShift(seed: noiseSeed)
        return real + noise(denseSightings - real.count, from: midnight(day: 0), to: now, rng: &rng)
    }

    /// The sparse user's: all within one afternoon of day 10.
    static func sparseUser(_ contacts: [Contact]) throws -> [Sighting] {
        let real = try contacts.flatMap { try $0.sightings() }
        var rng = XorShift(seed: noiseSeed ^ 0x5BA5)
        let day = midnight(day: sparseDay)
        return real + noise(sparseSightings - real.count, from: day + sparseFrom, to: day + sparseTo, rng: &rng)
    }
}

/// fork + exec of a program with stdout captured (Child.run runs this
/// executable through it); stderr passes through.
enum Spawn {
    static func capture(_ path: String, _ arguments: [String], argv0: String? = nil) throws -> String {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw BenchError("pipe failed") }
        // Everything the child needs is prepared before fork: between fork
        // and exec it only calls async-signal-safe functions.
        guard let exe = strdup(path) else { throw BenchError("out of memory") }
        let argv: [UnsafeMutablePointer<CChar>?] = ([argv0 ?? path] + arguments).map { strdup($0) } + [nil]
        defer {
            free(exe)
            for p in argv { free(p) }
        }
        fflush(nil)
        let pid = fork()
        if pid == 0 {
            dup2(fds[1], 1)
            close(fds[0])
            close(fds[1])
            execv(exe, argv)
            _exit(127)
        }
        close(fds[1])
        guard pid > 0 else {
            close(fds[0])
            throw BenchError("fork failed: \(String(cString: strerror(errno)))")
        }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fds[0], &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            output += chunk.prefix(n)
        }
        close(fds[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = String(decoding: output, as: UTF8.self)
        // WIFEXITED && WEXITSTATUS == 0 (the macros are out of Swift's reach).
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            throw BenchError("\(argv0 ?? path) \(arguments.joined(separator: " ")) failed (status \(status)): \(text)")
        }
        return text
    }

    /// `name=value` pairs anywhere in the text (separated by spaces or lines).
    static func fields(_ text: String) -> [String: String] {
        var values: [String: String] = [:]
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            guard let eq = word.firstIndex(of: "=") else { continue }
            values[String(word[..<eq])] = String(word[word.index(after: eq)...])
        }
        return values
    }
}
