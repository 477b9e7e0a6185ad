import EncoreKeyFiles
/// Peak RSS of reading whole files (open from path + verify + stream every
/// key), each in a fresh process, against a process that does nothing.
enum MemoryBench {
    /// Prints the table; returns false when a file's peak reaches the limit,
    /// and a line per file for the summary.
    static func run(_ files: [GeneratedFile], limitBytes: Int) throws -> (ok: Bool, summary: [String]) {
        let idle = try RSS.measureChild(["idle"])
        print("peak RSS, each in a fresh process: open from path with verification + stream every key")
        print("  (ru_maxrss; VmHWM in brackets; limit \(Format.mb(limitBytes)), checked against the larger of the two)")
        print(Format.padRight("  idle process (baseline)", 44) + Format.padLeft(rss(idle), 26))
        var ok = true
        var summary: [String] = []
        for file in files {
            let child = try RSS.measureChild(["rss", file.zipPath, file.publicKeyPath])
            let peak = child.peakBytes
            let delta = peak - idle.peakBytes
            let pass = peak < limitBytes && child.keys == file.keyCount
            ok = ok && pass
            let name = "  \(Format.grouped(file.keyCount)) keys (export.bin \(Format.mb(file.exportBinBytes)))"
            print(Format.padRight(name, 44) + Format.padLeft(rss(child), 26)
                + "   +\(Format.mb(delta)) over idle = \(Format.ratio(Double(delta) / Double(file.exportBinBytes))) export.bin"
                + "   \(pass ? "PASS" : "FAIL") (< \(Format.mb(limitBytes)))"
                + (child.keys == file.keyCount ? "" : "  streamed \(child.keys) keys, expected \(file.keyCount)"))
            summary.append("peak RSS reading \(Format.grouped(file.keyCount)) keys: \(Format.mb(peak)) "
                + "(idle process \(Format.mb(idle.peakBytes))): \(pass ? "PASS" : "FAIL") (limit \(Format.mb(limitBytes)))")
        }
        return (ok, summary)
    }

    private static func rss(_ r: RSS.ChildResult) -> String {
        Format.mb(r.maxRSSKiB * 1024) + " (" + (r.highWaterKiB.map { Format.mb($0 * 1024) } ?? "n/a") + ")"
    }
}
