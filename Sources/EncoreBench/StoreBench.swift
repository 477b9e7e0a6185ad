import EncoreClient
import EncoreCrypto
import EncoreExposure
import EncoreFixtures
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport
#if canImport(Glibc)
import Glibc
#endif

/// The encrypted store through the Swift core `Store`: bulk sighting
/// inserts (rows/s against a target of 200 000 rows/s) and the time to open
/// an existing store with a passphrase (SQLCipher's key derivation) and
/// with a raw key. Every insert run starts from a fresh store file.
enum StoreBench {
    static let defaultRows = 200_000
    static let targetRowsPerSecond = 200_000.0

    struct Case {
        var name: String
        var batch: Int
        var targeted: Bool
        var samples = Samples()
    }

    /// Prints the table; returns whether every run stored what it was given,
    /// and the summary lines.
    static func run(rows: Int, runs requested: Int, dir given: String?) throws -> (ok: Bool, summary: [String]) {
        let runs = max(1, min(requested, 5)) // each insert run writes a fresh store of tens of MB
        let dir = try given ?? Files.temporaryDirectory()
        if given != nil { mkdir(dir, 0o755) }
        defer { if given == nil { rmdir(dir) } }
        print("\n== store: \(Format.grouped(rows)) sightings into a fresh encrypted store (raw key), "
            + "\(runs) runs after one warm-up; medians (best in brackets)")
        let sightings = makeSightings(rows)
        var cases = [
            Case(name: "batches of 10 000", batch: 10_000, targeted: true),
            Case(name: "one batch", batch: rows, targeted: true),
            Case(name: "batches of 500 (no target)", batch: 500, targeted: false),
        ]
        var ok = true
        let path = dir + "/store-bench.db"
        for run in 0 ... runs {
            for i in cases.indices {
                remove(path)
                let store = try Store(path: path, key: .raw(rawKey))
                let seconds = try Timing.time {
                    var start = 0
                    while start < sightings.count {
                        let end = min(start + cases[i].batch, sightings.count)
                        try store.addSightings(Array(sightings[start ..< end]))
                        start = end
                    }
                }
                let stored = try store.countSightings()
                if stored != rows {
                    print("ERROR: \(cases[i].name): \(stored) rows stored of \(rows)")
                    ok = false
                }
                if run > 0 { cases[i].samples.add(seconds) }
            }
        }
        remove(path)

        print(Format.padRight("", 40) + Format.padLeft("median", 11) + Format.padLeft("(best)", 13)
            + Format.padLeft("rows/s", 12) + Format.padLeft("×target", 9))
        for c in cases {
            let m = c.samples.median
            print(Format.padRight("  insert, " + c.name, 40) + Format.padLeft(Format.ms(m), 11)
                + Format.padLeft("(" + Format.ms(c.samples.best) + ")", 13)
                + Format.padLeft(Format.grouped(Int(Double(rows) / m)), 12)
                + Format.padLeft(c.targeted ? Format.ratio(Double(rows) / m / targetRowsPerSecond) : "", 9))
        }

        // Opening an existing store: key derivation (passphrase) or not (raw key),
        // first read (schema version, schema), pragmas. Closing is not timed.
        let passPath = dir + "/store-bench-pass.db", rawPath = dir + "/store-bench-raw.db"
        let sample = Array(sightings.prefix(1_000))
        for (p, key) in [(passPath, passphraseKey), (rawPath, StoreKey.raw(rawKey))] {
            remove(p)
            try Store(path: p, key: key).addSightings(sample)
        }
        var passOpen = Samples(), rawOpen = Samples()
        let opens = max(runs, 5)
        for run in 0 ... opens {
            var store: Store?
            let p = try Timing.time { store = try Store(path: passPath, key: passphraseKey, options: StoreOptions(create: false)) }
            if try store?.countSightings() != sample.count { ok = false }
            store = nil
            let r = try Timing.time { store = try Store(path: rawPath, key: .raw(rawKey), options: StoreOptions(create: false)) }
            if try store?.countSightings() != sample.count { ok = false }
            store = nil
            if run > 0 {
                passOpen.add(p)
                rawOpen.add(r)
            }
        }
        remove(passPath)
        remove(rawPath)
        let openRatio = passOpen.median / rawOpen.median
        print(Format.padRight("  open existing store, passphrase", 40) + Format.padLeft(Format.ms(passOpen.median), 11)
            + Format.padLeft("(" + Format.ms(passOpen.best) + ")", 13))
        print(Format.padRight("  open existing store, raw key", 40) + Format.padLeft(Format.ms(rawOpen.median), 11)
            + Format.padLeft("(" + Format.ms(rawOpen.best) + ")", 13))
        print("  passphrase / raw key: \(Format.ratio(openRatio)) (\(opens) opens each after one warm-up)")

        var summary: [String] = []
        for c in cases where c.targeted {
            let rate = Double(rows) / c.samples.median
            summary.append("store insert, \(c.name): \(Format.grouped(Int(rate))) rows/s = \(Format.ratio(rate / targetRowsPerSecond)) "
                + "the target of \(Format.grouped(Int(targetRowsPerSecond))) rows/s" + (rate >= targetRowsPerSecond ? "" : " (BELOW TARGET)"))
        }
        summary.append("store open: passphrase \(Format.ms(passOpen.median)), raw key \(Format.ms(rawOpen.median)), "
            + "ratio \(Format.ratio(openRatio))")
        return (ok, summary)
    }

    static let rawKey = (0 ..< 32).map { UInt8($0 &* 7 &+ 3) }
    static let passphraseKey = StoreKey.passphrase("encore-bench passphrase")

    /// Sightings as a scanner reports them: time order, a few per second,
    /// random RPIs and AEMs, a previous-scan time on most.
    static func makeSightings(_ n: Int) -> [Sighting] {
        var rng = SplitMix64(seed: 0x9E37_79B9_7F4A_7C15)
        func next() -> UInt64 { rng.next() }
        let t0: Int64 = 1_700_000_000
        return (0 ..< n).map { i in
            let words = (next(), next())
            let rpi = withUnsafeBytes(of: words) { KeyData($0) }
            let r = next()
            let time = t0 + Int64(i / 4)
            return Sighting(time: time, rpi: rpi, aem: UInt32(truncatingIfNeeded: r), rssi: Int8(-30 - Int(r >> 32 & 63)),
                               previousScan: r >> 40 & 3 == 0 ? nil : time - 300)
        }
    }

    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { Files.removeQuietly(path + suffix) }
    }
}
