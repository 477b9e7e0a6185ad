import EncoreCheck
import EncoreClient
import EncoreCommandSupport
import EncoreCrypto
import EncoreExposure
import EncoreFixtures
import EncoreHTTP
import EncoreKeyFiles
import EncoreKeyFilesFixtures
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreSync
import EncoreTracing
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// `encore demo`: the library's main job on simulated data, start to end.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the exposure check on a simulated user, start to end.",
        discussion: """
            Creates a temporary encrypted store, fills it with 14 days of a user's Bluetooth sightings \
            (strangers, and three people who later report a positive test), publishes signed daily key \
            files with those three people's keys among 100 000 others, runs the exposure check with a \
            progress bar, and prints the per-day risk and the exposure windows behind it. \
            Everything is removed afterwards unless --keep is given.

            Example:
              encore demo
            """
    )

    @Option(name: .long, help: "Random keys in the key files besides the three people's.")
    var keys = 100_000

    @Option(name: .customLong("strangers-per-day"), help: "Sightings of strangers per day.")
    var strangersPerDay = 2_000

    @Flag(name: .long, help: "Keep the temporary directory (store and key files) and print its path.")
    var keep = false

    func validate() throws {
        guard (0 ... 10_000_000).contains(keys), (0 ... 1_000_000).contains(strangersPerDay) else {
            throw ValidationError("--keys must be 0...10000000 and --strangers-per-day 0...1000000")
        }
    }

    func run() throws {
        guard let risk = RiskConfiguration.cwa else { throw ValidationError("the built-in CWA configuration is invalid") }
        let now = Int64(time(nil)) / 86_400 * 86_400 + 20 * 3600   // today, 20:00 UTC
        var template = Array("/tmp/encore-demo-XXXXXX".utf8CString)
        guard let dirPointer = mkdtemp(&template) else { throw ValidationError("cannot create a temporary directory") }
        let dir = String(cString: dirPointer)
        defer { if !keep { DemoFiles.remove(dir) } }
        do {
            try run(in: dir, now: now, risk: risk)
        } catch let e as EncoreError {
            Output.fail("demo", e.message)
            throw ExitCode(EncoreExit.failure)
        }
        if keep { Output.write("\nkept: \(dir)\n") }
    }

    private func run(in dir: String, now: Int64, risk: RiskConfiguration) throws {
        var world = SimulatedUser(now: now)
        let people = world.demoEncounters()
        let started = Clock.now()

        var rawKey = [UInt8](repeating: 0, count: 32)
        for i in 0 ..< 32 { rawKey[i] = UInt8(truncatingIfNeeded: world.rng.next()) }
        // The demo's own store, through the tool's one client, its clock fixed at `now`.
        let client = try ToolClient.client(store: ToolClient.store(path: dir + "/store.db", key: .raw(rawKey), create: true),
                                           clock: .fixed(now))
        let store = client.store
        try store.addTracingEvent(time: now - 16 * UnixTime.day, active: true)
        let sightings = try world.sightings(of: people, strangersPerDay: strangersPerDay)
        try store.addSightings(sightings)
        Output.write("encrypted store \(dir)/store.db: \(sightings.count) sightings over 14 days, tracing on throughout\n")
        for p in people { Output.write("  encounter: \(p.name)\n") }

        let signer = try PrivateKey()
        let trust = TrustList()
        try trust.add(id: "demo", version: "v1", material: signer.publicKeyPEM())
        let info = SignatureInfo(appBundleID: "org.encore.demo", verificationKeyVersion: "v1", verificationKeyID: "demo",
                                 signatureAlgorithm: "1.2.840.10045.4.3.2")
        let perDay = keys / 14
        var paths: [String] = []
        for (day, zip) in try world.keyFiles(encounters: people, othersPerDay: perDay, signer: signer, info: info) {
            let name = UTCTime.day(seconds: day * UnixTime.day) ?? "\(day)"
            let path = "\(dir)/\(name).zip"
            try DemoFiles.write(zip, to: path)
            try store.putCachedKeyFile(region: "DE", identifier: name, etag: nil, content: zip, downloaded: now - 3600)
            paths.append(path)
        }
        Output.write("signed key files: \(paths.count) days, \(perDay * 14 + people.count) keys (the three people's among them), cached in the store\n\n")

        let bar = ProgressBar(label: "checking")
        let result = try ExposureCheck(store: store).run(files: paths.map { .path($0) }, keyFileOptions: KeyFileOptions(trust: trust),
                                                         matching: MatchingOptions(), risk: risk, now: try client.now(),
                                                         progress: { done, total in bar.show(done, total); return true })
        bar.finish()
        let seconds = Clock.now() - started
        Output.write(DemoReport.text(result, seconds: seconds))
    }
}

/// The demo's closing report: the check's outcome, each day's risk and the
/// windows behind it.
enum DemoReport {
    static func text(_ r: CheckResult, seconds: Double) -> String {
        let s = r.statistics
        var out = "\nmatched \(s.keys) keys in \(s.files) files: \(s.derived) needed crypto, \(s.skippedNoSightings) skipped (nothing heard then), "
        out += "\(s.skippedNotInfectious) not infectious, \(s.matchedKeys) matched\n\n"
        out += "RISK: \(r.status.name)\(r.notificationDue ? " (changed: the user is notified)" : "")\n"
        let byDate = Dictionary(grouping: r.windows, by: \.date)
        for d in r.assessment.days {
            let date = UTCTime.iso8601(seconds: d.date).map { String($0.prefix(10)) } ?? "?"
            out += "  \(date)  \(d.riskLevel?.name ?? "none"): normalized time \(d.normalizedTime)\n"
            for w in byDate[d.date] ?? [] {
                let minutes = w.scanInstances.reduce(0) { $0 + $1.secondsSinceLastScan } / 60
                let attenuation = w.scanInstances.map(\.minAttenuation).min() ?? 0
                out += "      window: \(w.reportType.name), infectiousness \(w.infectiousness.name), \(w.scanInstances.count) scans, "
                out += "~\(minutes) min, nearest \(attenuation) dB\n"
            }
        }
        out += "v1 (legacy) score \(r.riskV1.score) → \(r.riskV1.level?.name ?? "none")\n"
        out += "stored as result #\(r.storedResultID ?? 0); done in \(String(format1: seconds)) s\n"
        return out
    }
}

extension String {
    /// One decimal, without Foundation.
    init(format1 v: Double) {
        let tenths = Int((v * 10).rounded())
        self = "\(tenths / 10).\(abs(tenths % 10))"
    }
}

/// A one-line progress bar on stderr when it is a terminal; silent otherwise.
final class ProgressBar {
    let label: String
    let isTerminal = isatty(2) == 1
    var lastPercent = -1

    init(label: String) { self.label = label }

    func show(_ done: UInt64, _ total: UInt64) {
        guard isTerminal, total > 0 else { return }
        let percent = Int(min(done, total) * 100 / total)
        guard percent != lastPercent else { return }
        lastPercent = percent
        let filled = percent * 30 / 100
        Output.error(rawLine: "\r\(label) [\(String(repeating: "=", count: filled))\(String(repeating: " ", count: 30 - filled))] \(percent)%  \(done)/\(total) keys")
    }

    func finish() {
        if isTerminal && lastPercent >= 0 { Output.error(rawLine: "\n") }
    }
}

enum Clock {
    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}

enum DemoFiles {
    static func write(_ bytes: [UInt8], to path: String) throws {
        guard let f = fopen(path, "wb") else { throw EncoreError(.io, "cannot write \(path)") }
        defer { fclose(f) }
        guard fwrite(bytes, 1, bytes.count, f) == bytes.count else { throw EncoreError(.io, "cannot write \(path)") }
    }

    /// Removes the demo directory's files (it holds no subdirectories).
    static func remove(_ dir: String) {
        guard let d = opendir(dir) else { return }
        while let entry = readdir(d) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { unlink(dir + "/" + name) }
        }
        closedir(d)
        rmdir(dir)
    }
}
