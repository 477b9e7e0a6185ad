import Dispatch
import EncoreCheck
import EncoreCheckIns
import EncoreClient
import EncoreCrypto
import EncoreExposure
import EncoreHTTP
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport
import EncoreSync
// The kernel's C module, for the "kernel alone" row. It is EncoreCore's
// dependency, not this target's: SwiftPM hands dependents the module maps of
// all C targets below them, and the object is linked in through EncoreCore.
import CEncoreShim
#if canImport(Glibc)
import Glibc
#endif

/// The matching benchmark (issue 4): 1 000 000 keys in 14 signed daily files,
/// a dense user (100 000 sightings over the 14 days) and a sparse user (2 000
/// within one afternoon), against the single-core floor of rpi_floor.c run in
/// the same process's run, plus peak RSS of the dense run in a fresh process.
enum MatchBench {
    static let defaultKeys = 1_000_000
    static let floorKeys = 1_000_000
    static let rssLimitBytes = 100_000_000
    static let denseTarget = 1.5
    static let sparseTarget = 10.0
    /// Where scripts/bench.sh puts rpi_floor (built from ../shared/tools/rpi_floor.c).
    static let floorVariable = "ENCORE_RPI_FLOOR"

    // MARK: entry points

    /// The children: `match-gen` writes the files, `match-rss` is the dense
    /// end-to-end run whose peak RSS is measured, `match-run sparse|dense`
    /// repeats one user's end-to-end run --runs times (to profile it, e.g.
    /// under `perf record`), `match-relay` runs another
    /// command as its own child and passes its report on (see measure()).
    static func child(_ args: Arguments) throws {
        switch args.command {
        case "match-gen":
            guard let keys = args.keys?.first, let dir = args.dir else { throw BenchError("match-gen needs --keys N and --dir DIR") }
            let g = try MatchData.write(total: keys, dir: dir)
            print("keys=\(g.keys)\nzip_bytes=\(g.zipBytes)\nbin_bytes=\(g.binBytes)\nseconds=\(g.seconds)")
        case "match-rss":
            guard let keys = args.keys?.first, let dir = args.dir else { throw BenchError("match-rss needs --keys N and --dir DIR") }
            let contacts = MatchData.contacts(total: keys).dense
            let sightings = try MatchData.denseUser(contacts)
            let trust = try Generator.trustList(publicKeyPEM: Files.read(MatchData.publicKeyPath(dir)))
            let r = try Matcher.match(sightings: SightingSet(sightings), files: sources(dir),
                                      keyFileOptions: KeyFileOptions(verify: true, trust: trust),
                                      options: MatchingOptions(), now: MatchData.now)
            print(RSS.report(keys: r.statistics.keys))
            print("matched=\(r.statistics.matchedKeys)\nwindows=\(r.windows.count)")
        case "match-run":
            guard let keys = args.keys?.first, let dir = args.dir, let user = args.positional.first,
                  user == "sparse" || user == "dense" else { throw BenchError("match-run needs sparse|dense, --keys N and --dir DIR") }
            let contacts = MatchData.contacts(total: keys)
            let sightings = try user == "sparse" ? MatchData.sparseUser(contacts.sparse) : MatchData.denseUser(contacts.dense)
            let trust = try Generator.trustList(publicKeyPEM: Files.read(MatchData.publicKeyPath(dir)))
            for run in 0 ..< args.runs {
                let (seconds, _) = try timed {
                    _ = try Matcher.match(sightings: SightingSet(sightings), files: sources(dir),
                                          keyFileOptions: KeyFileOptions(verify: true, trust: trust), options: MatchingOptions(), now: MatchData.now)
                }
                print("run \(run): \(Format.ms(seconds))")
            }
        case "match-relay":
            // Everything after "match-relay", verbatim.
            print(try Child.run(Array(CommandLine.arguments.dropFirst(2))), terminator: "")
        default:
            throw BenchError("unknown command \(args.command)")
        }
    }

    static func sources(_ dir: String) -> [KeyFileSource] {
        (0 ..< MatchData.days).map { .path(MatchData.path(dir, day: $0)) }
    }

    // MARK: the benchmark

    struct Row {
        var name: String
        var samples = Samples()
        /// CPU seconds of this process over wall seconds, per run: the cores in use.
        var cores = Samples()
        var keys: Int
        var target: Double?
        var perKey = true
    }

    /// User + system CPU seconds of this process, all threads.
    static func cpuSeconds() -> Double {
        var u = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &u)
        return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6
    }

    /// Wall and CPU seconds of `body`.
    static func timed(_ body: () throws -> Void) rethrows -> (wall: Double, cpu: Double) {
        let c0 = cpuSeconds()
        let wall = try Timing.time(body)
        return (wall, cpuSeconds() - c0)
    }

    static func loadAverage() -> String {
        guard let f = fopen("/proc/loadavg", "r") else { return "n/a" }
        defer { fclose(f) }
        var line = [CChar](repeating: 0, count: 128)
        guard fgets(&line, Int32(line.count), f) != nil else { return "n/a" }
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    static func run(keys total: Int, runs: Int, dir given: String?) throws -> (ok: Bool, summary: [String]) {
        let dir: String
        if let given {
            dir = given
            mkdir(given, 0o755)
        } else {
            dir = try Files.temporaryDirectory()
        }
        defer {
            // Files in a directory the caller named are kept, as the key file bench does.
            if given == nil {
                MatchData.removeFiles(dir)
                rmdir(dir)
            }
        }
        let threads = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        print("\n== matching: \(Format.grouped(total)) keys in \(MatchData.days) signed daily files, a dense and a sparse user")

        // 1. Files, written by a child: this process does not keep the generator's memory.
        print("generating the key files in \(dir) ...", terminator: "")
        let gen = try Child.fields(["match-gen", "--keys", String(total), "--dir", dir])
        guard let genKeys = gen["keys"].flatMap({ Int($0) }), genKeys == total, let zipBytes = gen["zip_bytes"].flatMap({ Int($0) }),
              let binBytes = gen["bin_bytes"].flatMap({ Int($0) }), let genSeconds = gen["seconds"].flatMap({ Double($0) })
        else { throw BenchError("match-gen printed an incomplete report: \(gen)") }
        print(" \(Format.fixed(genSeconds, 1)) s (zips \(Format.mb(zipBytes)), export.bin \(Format.mb(binBytes)) in all)")

        // 2. Peak RSS of the dense end-to-end run, in a fresh process.
        let idle = try measure(["idle"])
        let dense = try measure(["match-rss", "--keys", String(total), "--dir", dir])

        // 3. Everything the timed runs need, prepared outside the timings.
        let (denseContacts, sparseContacts) = MatchData.contacts(total: total)
        let denseSightings = try MatchData.denseUser(denseContacts)
        let sparseSightings = try MatchData.sparseUser(sparseContacts)
        let trust = try Generator.trustList(publicKeyPEM: Files.read(MatchData.publicKeyPath(dir)))
        let verified = KeyFileOptions(verify: true, trust: trust)
        let unverified = KeyFileOptions(verify: false)
        let options = MatchingOptions()
        let paths = sources(dir)
        var bare: [KeyFileSource] = []
        let kernel = KernelKeys(capacity: total)
        for case .path(let p) in paths {
            let file = try KeyFile(path: p, options: verified)
            bare.append(.bytes(file.withExportBin { Array($0) }))
            try file.forEachKey(in: .keys) { kernel.append($0) }
        }
        guard kernel.count == total else { throw BenchError("the files hold \(kernel.count) keys, not \(total)") }
        // The members for the row of what every verified read must do (zlib
        // inflate, SHA-256 side by side as the engine hashes): the part no
        // matcher through zlib can go below.
        var zips: [(zip: [UInt8], member: ZipPeek.Member)] = []
        for case .path(let p) in paths {
            let zip = try Files.read(p)
            zips.append((zip, try ZipPeek.exportBin(zip)))
        }
        let largest = max(1, zips.map(\.member.uncompressedSize).max() ?? 1)
        let inflated = [UnsafeMutableRawBufferPointer.allocate(byteCount: largest, alignment: 16),
                        UnsafeMutableRawBufferPointer.allocate(byteCount: largest, alignment: 16)]
        defer { inflated.forEach { $0.deallocate() } }
        func inflateAndHash() throws {
            var first = [UInt8](repeating: 0, count: 32), second = [UInt8](repeating: 0, count: 32)
            for at in stride(from: 0, to: zips.count, by: 2) {
                let pair = Array(zips[at ..< min(at + 2, zips.count)])
                for (i, z) in pair.enumerated() {
                    try z.zip.withUnsafeBytes { b in
                        try Baseline.inflate(UnsafeRawBufferPointer(rebasing: b[z.member.compressed]),
                                             into: UnsafeMutableRawBufferPointer(rebasing: inflated[i][0 ..< z.member.uncompressedSize]))
                    }
                }
                let sizes = pair.map(\.member.uncompressedSize) + [0]
                enc_sha256_pair(inflated[0].baseAddress?.assumingMemoryBound(to: UInt8.self), sizes[0],
                                inflated[1].baseAddress?.assumingMemoryBound(to: UInt8.self), sizes[1], &first, &second)
            }
        }
        let denseIndex = try KernelIndex(denseSightings)
        let floorPath = getenv(floorVariable).map { String(cString: $0) }

        // What the runs must find.
        let sparseTimes = sparseSightings.map(\.time).sorted()
        let sparseDerived = kernel.countWithSightings(sortedTimes: sparseTimes, drift: options.driftIntervals * ENInterval.seconds)
        let denseDerived = kernel.countWithSightings(sortedTimes: denseSightings.map(\.time).sorted(),
                                                     drift: options.driftIntervals * ENInterval.seconds)
        let denseHits = denseContacts.reduce(0) { $0 + $1.expectedHits }

        printSetup(total: total, threads: threads, dense: (denseSightings, denseContacts), sparse: (sparseSightings, sparseContacts),
                   sparseDerived: sparseDerived)

        var rows = [
            Row(name: "floor: rpi_floor.c, 1 core", keys: floorKeys),
            Row(name: "dense end-to-end", keys: total, target: denseTarget),
            Row(name: "sparse end-to-end", keys: total, target: sparseTarget),
            Row(name: "key files alone", keys: total),
            Row(name: "matching alone (engine, in memory)", keys: total),
            Row(name: "kernel alone, \(threads) thread\(threads == 1 ? "" : "s")", keys: total),
            Row(name: "kernel alone, 1 thread", keys: total),
            Row(name: "kernel crypto only, 1 thread", keys: total),
            Row(name: "SightingSet of the dense user", keys: total, perKey: false),
            Row(name: "zlib inflate + SHA-256 alone, 1 core", keys: total),
        ]
        var problems: [String] = []
        var denseResult: MatchResult?, sparseResult: MatchResult?, aloneResult: MatchResult?
        var floorOutput = ""
        let loadBefore = loadAverage()
        print("runs: \(runs) after one warm-up, interleaved (one of each per run); times are medians (best in brackets); "
            + "cores = CPU time of this process / wall time")
        fflush(nil)
        for run in 0 ... runs {
            var r = [Double](repeating: .nan, count: rows.count)
            var cpu = [Double](repeating: .nan, count: rows.count)
            if let floorPath {
                floorOutput = try Spawn.capture(floorPath, [String(floorKeys)])
                let f = Spawn.fields(floorOutput)
                guard let s = f["seconds"].flatMap({ Double($0) }), f["keys"] == String(floorKeys) else {
                    throw BenchError("\(floorPath) printed no figure: \(floorOutput)")
                }
                r[0] = s
            }
            (r[1], cpu[1]) = try timed {
                denseResult = try Matcher.match(sightings: SightingSet(denseSightings), files: paths,
                                                keyFileOptions: verified, options: options, now: MatchData.now)
            }
            (r[2], cpu[2]) = try timed {
                sparseResult = try Matcher.match(sightings: SightingSet(sparseSightings), files: paths,
                                                 keyFileOptions: verified, options: options, now: MatchData.now)
            }
            var streamed = 0
            (r[3], cpu[3]) = try timed {
                for case .path(let p) in paths {
                    let file = try KeyFile(path: p, options: verified)
                    try file.forEachKey(in: .keys) { _ in streamed += 1 }
                }
            }
            var set: SightingSet?
            (r[8], cpu[8]) = try timed { set = try SightingSet(denseSightings) }
            let denseSet = set!
            (r[4], cpu[4]) = try timed {
                aloneResult = try Matcher.match(sightings: denseSet, files: bare, keyFileOptions: unverified, options: options, now: MatchData.now)
            }
            var hits = (0, 0)
            (r[5], cpu[5]) = try timed { hits.0 = try kernel.match(denseIndex, threads: threads) }
            (r[6], cpu[6]) = try timed { hits.1 = try kernel.match(denseIndex, threads: 1) }
            (r[7], cpu[7]) = try timed { _ = try kernel.match(denseIndex, threads: 1, lookUp: false) }
            if Baseline.hasInflate {
                (r[9], cpu[9]) = try timed { try inflateAndHash() }
            }

            // Every run must find what was planted.
            var p = check("dense", denseResult!, contacts: denseContacts, keys: total, derived: denseDerived)
            p += check("sparse", sparseResult!, contacts: sparseContacts, keys: total, derived: sparseDerived)
            p += check("matching alone", aloneResult!, contacts: denseContacts, keys: total, derived: denseDerived)
            if streamed != total { p.append("key files alone: streamed \(streamed) keys, not \(total)") }
            if hits.0 != denseHits || hits.1 != denseHits {
                p.append("kernel: found \(hits.0) and \(hits.1) heard RPIs of the dense contacts, expected \(denseHits)")
            }
            if !p.isEmpty { problems += p.map { "run \(run): \($0)" } }
            if run > 0 {
                for i in rows.indices where !r[i].isNaN {
                    rows[i].samples.add(r[i])
                    if !cpu[i].isNaN { rows[i].cores.add(cpu[i] / r[i]) }
                }
            }
        }

        // The table.
        let floor = floorPath == nil ? Double.nan : Double(floorKeys) / rows[0].samples.median
        print("")
        print(Format.padRight("", 40) + Format.padLeft("median", 11) + Format.padLeft("(best)", 13) + Format.padLeft("keys/s", 16)
            + Format.padLeft("cores", 7) + Format.padLeft("×floor", 9) + "   target")
        var verdicts: [String: Bool] = [:]
        for (i, row) in rows.enumerated() {
            guard !row.samples.seconds.isEmpty else {
                print(Format.padRight("  " + row.name, 40) + "   not measured: \(floorVariable) is not set "
                    + "(scripts/bench.sh builds it from ../shared/tools/rpi_floor.c; ../shared is missing?)")
                continue
            }
            let m = row.samples.median
            let ratio = (Double(row.keys) / m) / floor
            var target = ""
            if let t = row.target {
                if floor.isNaN {
                    target = "≥ \(Format.ratio(t)): SKIPPED (no floor)"
                } else {
                    verdicts[row.name] = ratio >= t
                    target = "≥ \(Format.ratio(t)): \(ratio >= t ? "PASS" : "FAIL")"
                }
            }
            print(Format.padRight("  " + row.name, 40) + Format.padLeft(Format.ms(m), 11)
                + Format.padLeft("(" + Format.ms(row.samples.best) + ")", 13)
                + Format.padLeft(row.perKey ? Format.keysPerSecond(row.keys, seconds: m) : "", 16)
                + Format.padLeft(row.cores.seconds.isEmpty ? "1" : Format.fixed(row.cores.median, 2), 7)
                + Format.padLeft(i == 0 || floor.isNaN || !row.perKey ? "" : Format.ratio(ratio), 9) + (target.isEmpty ? "" : "   " + target))
        }
        print("  load average before the runs \(loadBefore), after \(loadAverage()) (\(threads) cores: other processes "
            + "make every figure here pessimistic, the multi-threaded ones most)")
        print("""
              floor:             rpi_floor \(Format.grouped(floorKeys)) (HKDF with precomputed pads + 144 AES blocks a key, \
            nothing else), one core; \(floorPath == nil ? "not measured" : "last output: " + (floorOutput.split(separator: "\n").first.map(String.init) ?? ""))
              end-to-end:        SightingSet built from the sightings + Matcher.match over the 14 paths with signature \
            verification (read, unzip, inflate, verify, decode, filter, derive, look up, windows), \(threads) threads
              key files alone:   open + verify + decode every key of the 14 paths, no matching (the file share of end-to-end)
              matching alone:    Matcher.match of the dense user over the 14 export.bin already in memory, bare (no zip, no \
            inflate), verification off: decode + filter + derive + look-up + windows; SightingSet built beforehand
              kernel alone:      enc_match_keys (HKDF + 144 AES blocks + 144 look-ups a key) on keys decoded beforehand, \
            against the dense user's RPI index screened by its whole filter (the engine screens by day filters, \
            which is faster), keys split in contiguous slices as the engine does
              kernel crypto:     enc_match_keys without an index (HKDF + AES, no look-up), 1 thread: the floor's work through the kernel's code
              SightingSet:    building the dense user's (sort by time, group by RPI, the kernel's index); part of end-to-end
              inflate + SHA-256: the 14 export.bin members inflated with zlib and hashed (two side by side, as the \
            engine does), one core: what every verified read through zlib must do before any key is decoded
            """)

        // Where the time goes, from the medians above.
        let med = rows.map { $0.samples.seconds.isEmpty ? Double.nan : $0.samples.median }
        print("where the time goes (medians):")
        print("  dense:  SightingSet \(Format.ms(med[8])) + key files \(Format.ms(med[3])) (one core, between the batches' crypto) "
            + "+ matching alone \(Format.ms(med[4])) = \(Format.ms(med[8] + med[3] + med[4])) (decoding counted twice); "
            + "end-to-end measured \(Format.ms(med[1]))")
        print("  sparse: key files \(Format.ms(med[3])) of the \(Format.ms(med[2])) end-to-end "
            + "(\(Format.fixed(100 * med[3] / med[2], 0)) %); the 10× target allows \(floor.isNaN ? "n/a" : Format.ms(Double(total) / floor / sparseTarget)) in all")
        if !med[9].isNaN && !floor.isNaN {
            print("  sparse: inflate + SHA-256 alone \(Format.ms(med[9])) on one core: spread perfectly over \(threads) threads, "
                + "with decoding, filtering, key derivation and look-ups free, a matcher through zlib would reach "
                + "\(Format.ratio(Double(total) / (med[9] / Double(threads)) / floor)) the floor")
        }
        print("  kernel, 1 thread: crypto \(Format.ms(med[7]))\(floor.isNaN ? "" : " (\(Format.ratio(med[7] * floor / Double(total))) the floor's time)") "
            + "+ look-up of the 144 RPIs \(Format.ms(med[6] - med[7])) = \(Format.ms(med[6])); "
            + "on \(threads) threads \(Format.ms(med[5])) = \(Format.fixed(med[6] / med[5], 2))× the 1-thread speed (ideal \(threads)×)")

        // Statistics of the last run.
        print("")
        for (name, r) in [("dense", denseResult!), ("sparse", sparseResult!)] {
            let s = r.statistics
            print("  \(Format.padRight(name, 7)) files \(s.files), keys \(Format.grouped(s.keys)); skipped: old \(s.skippedOld), "
                + "revoked \(s.skippedRevoked), not infectious \(s.skippedNotInfectious), no sighting within validity ± 2 h "
                + "\(Format.grouped(s.skippedNoSightings)); derived \(Format.grouped(s.derived)) "
                + "(\(Format.fixed(100 * Double(s.derived) / Double(max(s.keys, 1)), 1)) %); matched \(s.matchedKeys) keys, "
                + "\(r.windows.count) windows (\(r.windows.reduce(0) { $0 + $1.scanInstances.count }) scan instances), "
                + "\(r.exposuresV1.count) v1 exposures, max v1 score \(r.summaryV1.maximumRiskScoreFullRange)")
        }

        // Peak RSS.
        let rssPass = dense.result.peakBytes <= rssLimitBytes && dense.result.keys == total && dense.matched == denseContacts.count
        print("")
        print("peak RSS of the dense end-to-end run in a fresh process (ru_maxrss; VmHWM in brackets; checked: the larger):")
        print("  idle process \(rss(idle.result)); dense run \(rss(dense.result)), +\(Format.mb(dense.result.peakBytes - idle.result.peakBytes)) "
            + "over idle; matched \(dense.matched) keys, \(dense.windows) windows: \(rssPass ? "PASS" : "FAIL") (≤ \(Format.mb(rssLimitBytes)))")

        // Verdicts.
        print("")
        if problems.isEmpty {
            print("checks: every run found exactly the planted contacts (\(denseContacts.count) dense, \(sparseContacts.count) sparse) "
                + "with the expected windows, statistics and kernel hits: PASS")
        } else {
            print("checks: FAIL")
            for p in problems.prefix(20) { print("  \(p)") }
        }
        let summary = summaryLines(rows: rows, floor: floor, verdicts: verdicts, rssPeak: dense.result.peakBytes, rssPass: rssPass,
                                   checksPass: problems.isEmpty)
        let ok = problems.isEmpty && rssPass && !verdicts.values.contains(false)
        return (ok, summary)
    }

    static func summaryLines(rows: [Row], floor: Double, verdicts: [String: Bool], rssPeak: Int, rssPass: Bool,
                             checksPass: Bool) -> [String] {
        func kps(_ r: Row) -> String { Format.keysPerSecond(r.keys, seconds: r.samples.median) }
        func times(_ r: Row) -> String { floor.isNaN ? "" : " = \(Format.ratio(Double(r.keys) / r.samples.median / floor)) the floor" }
        func verdict(_ r: Row) -> String {
            guard let t = r.target else { return "" }
            guard let v = verdicts[r.name] else { return " (target ≥ \(Format.ratio(t)): SKIPPED, no floor)" }
            return " (target ≥ \(Format.ratio(t))): \(v ? "PASS" : "FAIL")"
        }
        var out: [String] = []
        out.append(floor.isNaN ? "matching floor (rpi_floor.c, 1 core): not measured, ../shared/tools/rpi_floor.c missing"
            : "matching floor (rpi_floor.c, 1 core): \(kps(rows[0]))")
        for r in rows[1 ... 2] { out.append("matching \(r.name): \(kps(r))\(times(r))\(verdict(r))") }
        out.append("matching alone (engine, in memory): \(kps(rows[4]))\(times(rows[4])); kernel alone: \(kps(rows[5])), "
            + "1 thread \(kps(rows[6]))\(floor.isNaN ? "" : " = \(Format.ratio(Double(rows[6].keys) / rows[6].samples.median / floor)) the floor")")
        out.append("matching peak RSS (dense end-to-end): \(Format.mb(rssPeak)) (limit \(Format.mb(rssLimitBytes))): \(rssPass ? "PASS" : "FAIL")")
        out.append("matching checks (planted contacts found): \(checksPass ? "PASS" : "FAIL")")
        return out
    }

    static func printSetup(total: Int, threads: Int, dense: ([Sighting], [MatchData.Contact]), sparse: ([Sighting], [MatchData.Contact]),
                           sparseDerived: Int) {
        let perFile = MatchData.keysPerFile(total: total)
        print("""
            keys: \(Format.grouped(total)) in \(MatchData.days) daily files of \(Format.grouped(perFile.min() ?? 0))-\(Format.grouped(perFile.max() ?? 0)) \
            (2023-12-18 ... 2023-12-31 UTC), each key on its file's day; random TEKs; rolling period 144 (2 % shorter, 1-143); \
            all infectious (days since onset 1 or 2), none revoked; now = end of the last day; \(threads) threads
            """)
        for (name, (obs, contacts)) in [("dense", dense), ("sparse", sparse)] {
            let real = contacts.reduce(0) { $0 + $1.scans }
            let windows = contacts.reduce(0) { $0 + $1.expectedWindows.count }
            let times = obs.map(\.time)
            let first = times.min() ?? 0, last = times.max() ?? 0
            let unique = Set(obs.map(\.rpi)).count
            let span = name == "dense" ? "over all \(MatchData.days) days (every day has sightings)"
                : "within 13:00-17:00 UTC of day \(MatchData.sparseDay) (\(Format.fixed(Double(last - first) / 3600, 1)) h)"
            print("""
                \(name) user: \(Format.grouped(obs.count)) sightings \(span), \(Format.grouped(unique)) distinct RPIs; \
                \(contacts.count) contacts in the files heard \(real) times (3-10 scans 4 min apart → \(windows) windows), \
                the rest strangers (random RPIs heard 1-4 times 5 min apart)
                """)
        }
        print("sparse user: keys with a sighting within their validity ± 2 h: \(Format.grouped(sparseDerived)) "
            + "(\(Format.fixed(100 * Double(sparseDerived) / Double(total), 1)) %), the rest skipped before any crypto")
    }

    /// What a run must have found: the planted contacts, their windows, and
    /// statistics that say every key was read and the right ones derived.
    static func check(_ name: String, _ r: MatchResult, contacts: [MatchData.Contact], keys: Int, derived: Int) -> [String] {
        var p: [String] = []
        let s = r.statistics
        if s.files != MatchData.days || s.keys != keys { p.append("\(name): read \(s.keys) keys of \(s.files) files") }
        if s.skippedOld + s.skippedRevoked + s.skippedNotInfectious != 0 {
            p.append("\(name): keys skipped as old/revoked/not infectious: \(s.skippedOld)/\(s.skippedRevoked)/\(s.skippedNotInfectious)")
        }
        if s.derived != derived { p.append("\(name): derived \(s.derived) keys, expected \(derived)") }
        if s.matchedKeys != contacts.count { p.append("\(name): matched \(s.matchedKeys) keys, expected \(contacts.count)") }
        let windows = r.windows.map { MatchData.Window(date: $0.date, instances: $0.scanInstances.count) }.sorted()
        let expected = contacts.flatMap(\.expectedWindows).sorted()
        if windows != expected { p.append("\(name): \(windows.count) windows, expected \(expected.count) (or their days/instances differ)") }
        if r.exposuresV1.count != contacts.count { p.append("\(name): \(r.exposuresV1.count) v1 exposures, expected \(contacts.count)") }
        return p
    }

    struct Measured {
        var result: RSS.ChildResult
        var matched: Int
        var windows: Int
    }

    /// Runs a child through `match-relay`. Linux carries the forking
    /// process's RSS into the child's ru_maxrss (see Child), and this process
    /// may be large by now (the suite runs other sections first): the relay is
    /// a fresh, small process, so what its child inherits is the same for the
    /// idle baseline and the measured run, whatever this process holds.
    static func measure(_ arguments: [String]) throws -> Measured {
        let v = try Child.fields(["match-relay"] + arguments)
        guard let keys = v["keys"].flatMap({ Int($0) }), let maxRSS = v["maxrss_kib"].flatMap({ Int($0) }) else {
            throw BenchError("child \(arguments.joined(separator: " ")) printed no report: \(v)")
        }
        let hwm = v["vmhwm_kib"].flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
        return Measured(result: RSS.ChildResult(keys: keys, maxRSSKiB: maxRSS, highWaterKiB: hwm),
                        matched: v["matched"].flatMap { Int($0) } ?? 0, windows: v["windows"].flatMap { Int($0) } ?? 0)
    }

    private static func rss(_ r: RSS.ChildResult) -> String {
        Format.mb(r.maxRSSKiB * 1024) + " (" + (r.highWaterKiB.map { Format.mb($0 * 1024) } ?? "n/a") + ")"
    }
}

/// Keys decoded beforehand, laid out for the kernel: TEKs back to back,
/// rolling start and period alongside.
final class KernelKeys: @unchecked Sendable {
    // @unchecked: filled before use, then only read (each thread writes its own found slot).
    private(set) var teks: [UInt8] = []
    private(set) var starts: [UInt32] = []
    private(set) var periods: [UInt32] = []

    init(capacity: Int) {
        teks.reserveCapacity(16 * capacity)
        starts.reserveCapacity(capacity)
        periods.reserveCapacity(capacity)
    }

    var count: Int { starts.count }

    func append(_ k: ExposureKey) {
        k.keyData.withUnsafeBytes { teks.append(contentsOf: $0) }
        starts.append(UInt32(bitPattern: k.rollingStartIntervalNumber))
        periods.append(UInt32(k.rollingPeriod))
    }

    /// How many keys have a sighting within their validity ± drift: the keys
    /// the engine's filter must let through to the crypto.
    func countWithSightings(sortedTimes t: [Int64], drift: Int64) -> Int {
        var n = 0
        for i in 0 ..< count {
            let lower = Int64(starts[i]) * ENInterval.seconds - drift
            let upper = Int64(starts[i] + periods[i]) * ENInterval.seconds + drift
            var lo = 0, hi = t.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if t[mid] < lower { lo = mid + 1 } else { hi = mid }
            }
            if lo < t.count && t[lo] < upper { n += 1 }
        }
        return n
    }

    /// enc_match_keys over every key, spread over `threads` threads (thread
    /// t takes the t-th of as many contiguous slices, as the engine does);
    /// returns the total of hits. Without look-up (a NULL index): HKDF and
    /// AES only, the floor's work through the kernel.
    func match(_ index: KernelIndex, threads: Int, lookUp: Bool = true) throws -> Int {
        let job = try KernelJob(keys: self, index: lookUp ? index.pointer : nil, threads: threads)
        DispatchQueue.concurrentPerform(iterations: threads) { job.run(thread: $0) }
        return try job.total()
    }
}

/// One kernel pass: thread t uses contexts[t] and writes only found[t].
final class KernelJob: @unchecked Sendable {
    // @unchecked: the slot discipline above; jobs and index are only read.
    private let jobs: [enc_match_job]
    private let index: OpaquePointer?
    private let contexts: [OpaquePointer]
    private let found: UnsafeMutableBufferPointer<Int>

    init(keys: KernelKeys, index: OpaquePointer?, threads: Int) throws {
        jobs = keys.starts.indices.map { i in
            var job = enc_match_job()
            withUnsafeMutableBytes(of: &job.tek) { $0.copyBytes(from: keys.teks[16 * i ..< 16 * i + 16]) }
            job.start = keys.starts[i]
            job.count = keys.periods[i]
            return job
        }
        self.index = index
        var contexts: [OpaquePointer] = []
        for _ in 0 ..< threads {
            guard let c = enc_rpi_ctx_new() else {
                for c in contexts { enc_rpi_ctx_free(c) }
                throw BenchError("enc_rpi_ctx_new failed")
            }
            contexts.append(c)
        }
        self.contexts = contexts
        found = .allocate(capacity: threads)
        found.initialize(repeating: 0)
    }

    deinit {
        for c in contexts { enc_rpi_ctx_free(c) }
        found.deallocate()
    }

    func run(thread t: Int) {
        let threads = contexts.count
        var hits = [enc_rpi_hit](repeating: enc_rpi_hit(), count: 1 << 16)
        let slice = jobs.count * t / threads ..< jobs.count * (t + 1) / threads
        let f = jobs.withUnsafeBufferPointer { j in
            hits.withUnsafeMutableBufferPointer { h in
                enc_match_keys(contexts[t], index, nil, j.baseAddress.map { $0 + slice.lowerBound }, slice.count, h.baseAddress, h.count)
            }
        }
        found[t] = Int(f)
    }

    func total() throws -> Int {
        guard !found.contains(where: { $0 < 0 }) else { throw BenchError("enc_match_keys failed") }
        return found.reduce(0, +)
    }
}

/// The kernel's RPI index of a user's distinct heard RPIs (what SightingSet builds).
final class KernelIndex: @unchecked Sendable {
    // @unchecked: read-only after init, as the kernel's index is.
    let pointer: OpaquePointer

    init(_ sightings: [Sighting]) throws {
        var seen = Set<KeyData>()
        var flat: [UInt8] = []
        for o in sightings where seen.insert(o.rpi).inserted { o.rpi.withUnsafeBytes { flat += $0 } }
        guard let p = flat.withUnsafeBufferPointer({ enc_rpi_index_new($0.baseAddress, UInt32(seen.count), nil) }) else {
            throw BenchError("enc_rpi_index_new failed")
        }
        pointer = p
    }

    deinit { enc_rpi_index_free(pointer) }
}
