import EncoreClient
import EncoreCrypto
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// Times opening a signed key file and streaming its keys, against baselines
/// over the same bytes in the same process: SHA-256 of export.bin (the floor
/// of any verified open), plain zlib inflate of the member, a read of the file.
enum KeyFileBench {
    struct Row {
        var name: String
        var samples = Samples()
        /// Whether keys/s means something for this row.
        var perKey = false
    }

    /// Prints the table; returns whether the library behaved (right keys,
    /// verified) and the headline lines for the summary.
    static func run(_ file: GeneratedFile, runs: Int) throws -> (ok: Bool, summary: [String]) {
        let zip = try Files.read(file.zipPath)
        let member = try ZipPeek.exportBin(zip)
        let trust = try Generator.trustList(publicKeyPEM: Files.read(file.publicKeyPath))
        let verified = KeyFileOptions(verify: true, trust: trust)
        let unverified = KeyFileOptions(verify: false)
        let bin = try KeyFile(path: file.zipPath, options: verified).withExportBin { try OwnedBytes(copying: $0) }
        let inflated = UnsafeMutableRawBufferPointer.allocate(byteCount: max(member.uncompressedSize, 1), alignment: 16)
        defer { inflated.deallocate() }

        // One row per measurement, in the order of each run.
        var rows = [
            Row(name: "read zip file (page cache)"),
            Row(name: "zlib inflate export.bin"),
            Row(name: "SHA-256 of export.bin"),
            Row(name: "open+parse+verify (from path)", perKey: true),
            Row(name: "stream all keys (forEachKey)", perKey: true),
            Row(name: "open+parse+verify+stream", perKey: true),
            Row(name: "open+parse, no verify (path)", perKey: true),
            Row(name: "parse bare export.bin (copy+scan)", perKey: true),
        ]
        var ok = true

        // Run 0 warms caches and is not counted.
        for run in 0 ... runs {
            var r = [Double](repeating: 0, count: rows.count)
            r[0] = try Timing.time { _ = try Baseline.read(path: file.zipPath) }
            if Baseline.hasInflate {
                r[1] = try zip.withUnsafeBytes { z in
                    try Timing.time { try Baseline.inflate(UnsafeRawBufferPointer(rebasing: z[member.compressed]), into: inflated) }
                }
            }
            r[2] = try Timing.time { _ = try bin.withUnsafeBytes { try Baseline.sha256($0) } }
            var keyFile: KeyFile?
            r[3] = try Timing.time { keyFile = try KeyFile(path: file.zipPath, options: verified) }
            var fingerprint = KeyFingerprint()
            r[4] = try Timing.time { try keyFile!.forEachKey(in: .keys) { fingerprint.add($0) } }
            if keyFile!.signature.status != .verified || keyFile!.metadata.keyCount != UInt64(file.keyCount)
                || fingerprint != file.fingerprint {
                print("ERROR: run \(run): signature \(keyFile!.signature.status), \(keyFile!.metadata.keyCount) keys counted, "
                    + "\(fingerprint.count) streamed, fingerprint \(fingerprint == file.fingerprint ? "matches" : "differs")")
                ok = false
            }
            keyFile = nil
            r[5] = r[3] + r[4]
            r[6] = try Timing.time { _ = try KeyFile(path: file.zipPath, options: unverified) }
            r[7] = try Timing.time { _ = try bin.withUnsafeBytes { try KeyFile(bytes: $0, options: unverified) } }
            if run > 0 {
                for i in rows.indices { rows[i].samples.add(r[i]) }
            }
        }
        let (read, inflate, sha, open, stream, total, unverifiedOpen, bare) =
            (rows[0], rows[1], rows[2], rows[3], rows[4], rows[5], rows[6], rows[7])

        let binBytes = member.uncompressedSize
        print("\(Format.grouped(file.keyCount)) keys; export.bin \(Format.mb(binBytes)), zip \(Format.mb(file.zipBytes)) "
            + "(deflate ratio \(Format.fixed(Double(binBytes) / Double(file.zipBytes), 2)))")
        print("runs: \(runs) after one warm-up; times are medians (best in brackets); MB/s of export.bin bytes; MB = 10^6 bytes")
        print("")
        let shaTime = sha.samples.median
        let inflateTime = Baseline.hasInflate ? inflate.samples.median : .nan
        let header = Format.padRight("", 36) + Format.padLeft("median", 10) + Format.padLeft("(best)", 12)
            + Format.padLeft("export.bin", 12) + Format.padLeft("keys/s", 16) + Format.padLeft("×SHA-256", 10) + Format.padLeft("×inflate", 10)
        print(header)
        print("baselines")
        var baselines = [read, sha]
        if Baseline.hasInflate { baselines.insert(inflate, at: 1) }
        for row in baselines { print(line(row, bytes: binBytes, keys: file.keyCount, sha: shaTime, inflate: inflateTime)) }
        print("encore")
        for row in [open, stream, total, unverifiedOpen, bare] {
            print(line(row, bytes: binBytes, keys: file.keyCount, sha: shaTime, inflate: inflateTime))
        }
        let verifyCost = open.samples.median - unverifiedOpen.samples.median
        print(Format.padRight("  verify (difference of the two)", 36) + Format.padLeft(Format.ms(verifyCost), 10)
            + Format.padLeft("", 12 + 12 + 16) + Format.padLeft(Format.ratio(verifyCost / shaTime), 10))
        let o = open.samples.median, t = total.samples.median
        let summary = [
            "open+parse+verify: \(Format.mbps(bytes: binBytes, seconds: o)) (export.bin), "
                + "\(Format.keysPerSecond(file.keyCount, seconds: o)), = \(Format.ratio(o / shaTime)) the time of SHA-256 alone"
                + (Baseline.hasInflate ? ", \(Format.ratio(o / inflateTime)) the time of zlib inflate" : ""),
            "open+parse+verify+stream: \(Format.mbps(bytes: binBytes, seconds: t)), "
                + "\(Format.keysPerSecond(file.keyCount, seconds: t)), = \(Format.ratio(t / shaTime)) the time of SHA-256 alone",
        ]
        return (ok, summary)
    }

    private static func line(_ row: Row, bytes: Int, keys: Int, sha: Double, inflate: Double) -> String {
        let m = row.samples.median
        return Format.padRight("  " + row.name, 36)
            + Format.padLeft(Format.ms(m), 10)
            + Format.padLeft("(" + Format.ms(row.samples.best) + ")", 12)
            + Format.padLeft(Format.mbps(bytes: bytes, seconds: m), 12)
            + Format.padLeft(row.perKey ? Format.keysPerSecond(keys, seconds: m) : "", 16)
            + Format.padLeft(Format.ratio(m / sha), 10)
            + Format.padLeft(inflate.isNaN ? "" : Format.ratio(m / inflate), 10)
    }
}
