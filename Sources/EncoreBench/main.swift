// encore-bench: key-file benchmarks for `make bench`. Figures are reported as
// ratios against baselines measured in the same run, absolute figures too.
#if canImport(Glibc)
import EncoreCheck
import EncoreClient
import EncoreExposure
import EncoreKeyFiles
import EncoreStorage
import Glibc
#endif

let usage = """
usage: encore-bench [suite] [--keys N] [--rss-keys N,N...] [--runs R] [--dir DIR] [--limit-mb MB]
       encore-bench keyfile [--keys N] [--runs R] [--dir DIR]
       encore-bench memory [--keys N,N...] [--dir DIR] [--limit-mb MB]
       encore-bench match [--keys N] [--runs R] [--dir DIR]   (matching: 14 daily files, dense and sparse user)
       encore-bench store [--keys N] [--runs R] [--dir DIR]   (encrypted store: insert N sightings, default 200 000; open)
       encore-bench risk                   (CWA v2 risk calculation over 10 000 windows)
       encore-bench tracing [--keys DEVICES] [--runs R] [--dir DIR]   (a crowded day of scans, default 500 devices,
                                           ingested against the store's own insert rate)
       encore-bench checkin [--keys N] [--runs R] [--dir DIR]   (a trace warning package of N protected reports, default
                                           1 000 000, against 200 check-ins; then once end to end through the store)
       encore-bench rss FILE PUBKEY.pem    (child: open+verify+stream FILE, print peak RSS)
       encore-bench idle                   (child: print the peak RSS of doing nothing)
       encore-bench gen --keys N --dir DIR (child: write DIR/keys-N.zip and DIR/public-N.pem)

suite (the default, `make bench`): timing of a signed file of --keys keys (default 1 000 000),
--runs timed runs (default 7) after one warm-up, and peak RSS of reading files of --rss-keys
keys (default 1 000 000 and 2 000 000), which must stay under --limit-mb (default 200 MB =
200 000 000 bytes). Files go to a temporary directory, removed afterwards, unless --dir is
given. N may be written 2000000, 2_000_000, 2000k or 2M.
"""

struct Arguments {
    var command = "suite"
    var positional: [String] = []
    var keys: [Int]?
    var rssKeys = [1_000_000, 2_000_000]
    var runs = 7
    var dir: String?
    var limitMB = 200

    init(_ args: [String]) throws {
        var rest = args[...]
        if let first = rest.first, !first.hasPrefix("-") {
            command = first
            rest = rest.dropFirst()
        }
        while let arg = rest.popFirst() {
            func value() throws -> String {
                guard let v = rest.popFirst() else { throw BenchError("\(arg) needs a value") }
                return v
            }
            switch arg {
            case "--keys": keys = try Arguments.counts(value())
            case "--rss-keys": rssKeys = try Arguments.counts(value())
            case "--runs": runs = try Arguments.counts(value())[0]
            case "--dir": dir = try value()
            case "--limit-mb": limitMB = try Arguments.counts(value())[0]
            case "-h", "--help": command = "help"
            default:
                guard !arg.hasPrefix("-") else { throw BenchError("unknown option \(arg)") }
                positional.append(arg)
            }
        }
    }

    /// "1000000", "1_000_000", "1000k", "1M", or several separated by commas.
    static func counts(_ text: String) throws -> [Int] {
        try text.split(separator: ",").map { part in
            var digits = part.filter { $0 != "_" }
            var scale = 1
            if digits.hasSuffix("k") || digits.hasSuffix("K") { scale = 1_000; digits.removeLast() }
            else if digits.hasSuffix("M") || digits.hasSuffix("m") { scale = 1_000_000; digits.removeLast() }
            guard let n = Int(digits), n > 0 else { throw BenchError("not a positive count: \(part)") }
            return n * scale
        }
    }
}

/// Where generated files go; a temporary directory is emptied and removed at the end.
final class Workspace {
    let dir: String
    private let temporary: Bool
    private var made: [Int: GeneratedFile] = [:]

    init(_ dir: String?) throws {
        if let dir {
            self.dir = dir
            temporary = false
            mkdir(dir, 0o755)
        } else {
            self.dir = try Files.temporaryDirectory()
            temporary = true
        }
    }

    /// The signed file of `keys` keys, generated (in a child) the first time.
    func file(keys: Int) throws -> GeneratedFile {
        if let f = made[keys] { return f }
        print("generating \(Format.grouped(keys)) keys in \(dir) ...", terminator: "")
        fflush(nil)
        let f = try Generator.inChild(keys: keys, dir: dir)
        made[keys] = f
        print(" \(Format.fixed(f.seconds, 1)) s (zip \(Format.mb(f.zipBytes)), export.bin \(Format.mb(f.exportBinBytes)))")
        return f
    }

    func cleanUp() {
        guard temporary else { return }
        for f in made.values {
            Files.removeQuietly(f.zipPath)
            Files.removeQuietly(f.publicKeyPath)
        }
        rmdir(dir)
    }
}

/// suite, keyfile, memory. The memory children run first, while this
/// process is still small (see Child); the timing runs afterwards.
func bench(_ args: Arguments) throws -> Bool {
    let space = try Workspace(args.dir)
    defer { space.cleanUp() }
    let timingKeys = args.command == "memory" ? nil : args.keys?.first ?? 1_000_000
    let memoryKeys = args.command == "keyfile" ? [] : args.command == "memory" ? args.keys ?? args.rssKeys : args.rssKeys
    for n in [timingKeys].compactMap({ $0 }) + memoryKeys { _ = try space.file(keys: n) }
    var ok = true
    var summary: [String] = []
    if !memoryKeys.isEmpty {
        print("\n== memory")
        let m = try MemoryBench.run(try memoryKeys.map { try space.file(keys: $0) }, limitBytes: args.limitMB * 1_000_000)
        ok = m.ok
        summary += m.summary
    }
    if let timingKeys {
        print("\n== key file: open + parse + verify, then stream every key")
        let t = try KeyFileBench.run(try space.file(keys: timingKeys), runs: args.runs)
        ok = t.ok && ok
        summary = t.summary + summary
    }
    if args.command == "suite" {
        let m = try MatchBench.run(keys: MatchBench.defaultKeys, runs: args.runs, dir: args.dir)
        ok = m.ok && ok
        summary += m.summary
    }
    if args.command == "suite" {
        let s = try StoreBench.run(rows: StoreBench.defaultRows, runs: args.runs, dir: args.dir)
        ok = s.ok && ok
        summary += s.summary
        print("")
        let r = try RiskBench.run()
        ok = r.ok && ok
        summary += r.summary
        let c = try CheckInBench.run(reports: CheckInBench.defaultReports, runs: args.runs, dir: args.dir)
        ok = c.ok && ok
        summary += c.summary
    }
    return printSummary(summary, ok: ok)
}

/// The closing lines of every bench command: the summary, then PASS or FAIL.
func printSummary(_ lines: [String], ok: Bool) -> Bool {
    print("\n== summary")
    for line in lines { print(line) }
    print(ok ? "bench: PASS" : "bench: FAIL")
    return ok
}

/// One section alone (`encore-bench store|match|tracing|checkin [--keys N]
/// [--runs R] [--dir DIR]`): `run` with --keys' first count (else
/// `count`), then the summary; the exit status.
func section(_ args: Arguments, default count: Int,
             _ run: (Int, Int, String?) throws -> (ok: Bool, summary: [String])) rethrows -> Int32 {
    let r = try run(args.keys?.first ?? count, args.runs, args.dir)
    return printSummary(r.summary, ok: r.ok) ? 0 : 1
}

func main() -> Int32 {
    do {
        let args = try Arguments(Array(CommandLine.arguments.dropFirst()))
        switch args.command {
        case "rss":
            guard args.positional.count == 2 else { throw BenchError("rss needs FILE and PUBKEY.pem") }
            try RSSCommand.run(file: args.positional[0], publicKey: args.positional[1])
        case "idle":
            RSSCommand.idle()
        case "gen":
            guard let keys = args.keys?.first, let dir = args.dir else { throw BenchError("gen needs --keys N and --dir DIR") }
            try Generator.command(keys: keys, dir: dir)
        case "help":
            print(usage)
        case "suite", "keyfile", "memory":
            return try bench(args) ? 0 : 1
        case "store":
            return try section(args, default: StoreBench.defaultRows, StoreBench.run(rows:runs:dir:))
        case "match":
            return try section(args, default: MatchBench.defaultKeys, MatchBench.run(keys:runs:dir:))
        case "risk":
            return try RiskBench.run().ok ? 0 : 1
        case "tracing":
            return try section(args, default: TracingBench.devices, TracingBench.run(devices:runs:dir:))
        case "checkin":
            return try section(args, default: CheckInBench.defaultReports, CheckInBench.run(reports:runs:dir:))
        case "match-gen", "match-rss", "match-run", "match-relay":
            try MatchBench.child(args)
        default:
            throw BenchError("unknown command \(args.command)\n\(usage)")
        }
        return 0
    } catch {
        let text = Array("encore-bench: \(error)\n".utf8)
        fflush(nil)
        _ = write(2, text, text.count)
        return 2
    }
}

exit(main())
