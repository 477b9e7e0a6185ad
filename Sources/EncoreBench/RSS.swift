import EncoreKeyFiles
import EncoreStorage
import EncoreSupport
#if canImport(Glibc)
import Glibc
#endif

/// Peak resident memory, measured in fresh child processes so that the
/// parent's generation of the file does not count.
enum RSS {
    /// getrusage(RUSAGE_SELF).ru_maxrss, in KiB.
    static func maxRSSKiB() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Int(usage.ru_maxrss)
    }

    /// VmHWM of /proc/self/status (peak RSS of this address space), in KiB,
    /// or nil where /proc is not there.
    static func highWaterKiB() -> Int? {
        guard let f = fopen("/proc/self/status", "r") else { return nil }
        defer { fclose(f) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), f) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("VmHWM:") {
                return Int(text.dropFirst(6).filter { $0.isNumber })
            }
        }
        return nil
    }

    /// What a child prints: its keys and its peak, one `name=value` a line.
    static func report(keys: Int) -> String {
        "keys=\(keys)\nmaxrss_kib=\(maxRSSKiB())\nvmhwm_kib=\(highWaterKiB() ?? -1)"
    }

    struct ChildResult {
        var keys: Int
        var maxRSSKiB: Int
        var highWaterKiB: Int?
        /// The larger of the two: what the limit is checked against.
        var peakBytes: Int { max(maxRSSKiB, highWaterKiB ?? 0) * 1024 }
    }

    /// Runs this executable with `arguments` and parses its report.
    static func measureChild(_ arguments: [String]) throws -> ChildResult {
        let values = try Child.fields(arguments)
        guard let keys = values["keys"].flatMap({ Int($0) }), let maxRSS = values["maxrss_kib"].flatMap({ Int($0) }) else {
            throw BenchError("child \(arguments.joined(separator: " ")) printed no report: \(values)")
        }
        let hwm = values["vmhwm_kib"].flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
        return ChildResult(keys: keys, maxRSSKiB: maxRSS, highWaterKiB: hwm)
    }
}

/// `encore-bench rss FILE PUBKEY.pem`: what a client does with a downloaded
/// file (open from its path with verification, stream every key), then the
/// peak RSS of this process.
enum RSSCommand {
    static func run(file: String, publicKey: String) throws {
        let trust = try Generator.trustList(publicKeyPEM: Files.read(publicKey))
        let keyFile = try KeyFile(path: file, options: KeyFileOptions(verify: true, trust: trust))
        guard keyFile.signature.status == .verified else { throw BenchError("\(file) did not verify") }
        var fingerprint = KeyFingerprint()
        try keyFile.forEachKey(in: .keys) { fingerprint.add($0) }
        print(RSS.report(keys: fingerprint.count))
    }

    /// `encore-bench idle`: the same process doing nothing (the baseline).
    static func idle() {
        print(RSS.report(keys: 0))
    }
}

/// fork + exec of this executable with stdout captured (no Foundation, so a
/// child's footprint is that of the benchmark binary alone).
///
/// Linux carries memory of the parent into a child's ru_maxrss: after
/// posix_spawn (vfork) the parent's peak, after fork the parent's RSS at the
/// time of the fork. So the parent stays small while it measures: files are
/// generated in children too (`gen`), and the timing runs come afterwards.
enum Child {
    /// Runs this executable and returns the `name=value` lines it printed.
    static func fields(_ arguments: [String]) throws -> [String: String] {
        var values: [String: String] = [:]
        for line in try run(arguments).split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            values[String(line[..<eq])] = String(line[line.index(after: eq)...])
        }
        return values
    }

    static func run(_ arguments: [String]) throws -> String {
        try Spawn.capture("/proc/self/exe", arguments, argv0: "encore-bench")
    }
}
