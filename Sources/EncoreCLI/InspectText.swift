import EncoreCrypto
import EncoreExposure
import EncoreKeyFiles
import EncoreStorage
import EncoreSupport

/// The human-readable output of `encore keyfile inspect`: a short summary,
/// and with --keys one line per key. Text taken from the file is escaped
/// so it cannot break lines or control the terminal.
extension InspectReport {
    var text: String {
        let m = file.metadata
        var lines: [(String, String)] = [
            ("file", Output.oneLine(path) + (file.isZip ? " (zip)" : " (bare export.bin)")),
            ("region", m.region.map(quotedIfNeeded) ?? "(none)"),
            ("batch", "\(m.batchNum.map(String.init) ?? "?") of \(m.batchSize.map(String.init) ?? "?")"),
            ("start", time(m.startTimestamp)),
            ("end", time(m.endTimestamp)),
            ("keys", String(m.keyCount)),
            ("revised keys", String(m.revisedKeyCount)),
            ("invalid keys", "\(m.invalidKeyCount)\(m.invalidKeyCount > 0 ? " (skipped)" : "")"),
            ("signature", signatureText),
        ]
        if m.batchNum == nil && m.batchSize == nil { lines[2].1 = "(none)" }
        let width = lines.map(\.0.count).max() ?? 0
        var out = ""
        for (label, value) in lines {
            out += label + ":" + String(repeating: " ", count: width - label.count + 2) + value + "\n"
        }
        if let keys { out += "\n" + Self.keyTable(title: "keys", keys) }
        if let revisedKeys { out += "\n" + Self.keyTable(title: "revised keys", revisedKeys) }
        return out
    }

    private var signatureText: String {
        let signature = file.signature
        let key = signature.keyID != nil || signature.keyVersion != nil
            ? Output.oneLine(SignatureVerifier.describe(keyID: signature.keyID, keyVersion: signature.keyVersion)) : nil
        switch signature.status {
        case .verified:
            return "verified by " + (key ?? "a trusted key")
        case .skipped:
            if !file.isZip { return "not checked (--no-verify; a bare export.bin carries no signature)" }
            return "not checked (--no-verify)" + (key.map { "; first signature names " + $0 } ?? "")
        case .unsigned, .untrusted, .invalid:
            return signature.status.name + (key.map { " (" + $0 + ")" } ?? "")
                + (signature.reason.isEmpty ? "" : ": " + Output.oneLine(signature.reason))
        }
    }

    private func time(_ seconds: UInt64?) -> String {
        guard let seconds else { return "(none)" }
        return UTCTime.iso8601(seconds: seconds) ?? "\(seconds) s after the epoch"
    }

    /// Empty text as "", other text escaped for one line.
    private func quotedIfNeeded(_ s: String) -> String {
        s.isEmpty ? "\"\"" : Output.oneLine(s)
    }

    /// A header and one line per key: key data, risk, start interval (and
    /// its UTC time), rolling period, report type, days since onset.
    static func keyTable(title: String, _ keys: [ExposureKey]) -> String {
        var out = "\(title) (\(keys.count)):\n"
        guard !keys.isEmpty else { return out + "  (none)\n" }
        let rows: [[String]] = [["KEY DATA", "RISK", "START", "START (UTC)", "PERIOD", "REPORT", "ONSET"]] + keys.map { k in
            [k.keyData.hex, String(k.transmissionRiskLevel), String(k.rollingStartIntervalNumber),
             UTCTime.iso8601(interval: k.rollingStartIntervalNumber) ?? "-", String(k.rollingPeriod),
             k.reportType.name, k.daysSinceOnsetOfSymptoms.map(String.init) ?? "-"]
        }
        let widths = (0..<rows[0].count).map { c in rows.map { $0[c].count }.max() ?? 0 }
        let rightAligned: Set<Int> = [1, 2, 4, 6]
        for row in rows {
            var cells: [String] = []
            for (c, cell) in row.enumerated() {
                let pad = String(repeating: " ", count: widths[c] - cell.count)
                cells.append(rightAligned.contains(c) ? pad + cell : (c == row.count - 1 ? cell : cell + pad))
            }
            out += "  " + cells.joined(separator: "  ") + "\n"
        }
        return out
    }
}
