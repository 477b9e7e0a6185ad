import EncoreSupport

extension EncryptedDatabase {
    /// What is damaged in the database, in words, one finding a line; empty
    /// when it is sound. Every table is read row by row (which reads every
    /// page of its data and checks each page's MAC as SQLCipher decrypts
    /// it), then SQLite's integrity check looks at the structure (indexes,
    /// free pages), then SQLCipher's own page check where the SQLCipher
    /// has one (4.x; Debian's 3.4 does not know the pragma and returns no
    /// rows). Writes nothing.
    public func damage() throws -> [String] {
        try withConnection { c in
            let roots: [(name: String, root: Int64, isTable: Bool)]
            do {
                roots = try Self.schemaRoots(c)
            } catch let e as EncoreError where e.kind == .storeCorrupt {
                return ["the list of tables cannot be read"]
            }
            var findings: [String] = []
            for (table, _, isTable) in roots where isTable && !table.hasPrefix("sqlite_") {
                var read = 0
                do {
                    let s = try c.prepare("SELECT * FROM \(quotedName(table))")
                    while try s.step() { read += 1 }
                } catch let e as EncoreError where e.kind == .storeCorrupt || e.kind == .storeFailed {
                    findings.append("the \(table) table is damaged: \(read) rows read, the rest cannot be read")
                }
            }
            for pragma in ["PRAGMA integrity_check", "PRAGMA cipher_integrity_check"] {
                do {
                    let s = try c.prepare(pragma)
                    while try s.step() {
                        let line = s.text(0) ?? ""
                        if line != "ok" && !line.hasPrefix("*** in database") { findings.append(Self.naming(line, roots)) }
                    }
                } catch let e as EncoreError where e.kind == .storeCorrupt || e.kind == .storeFailed {
                    findings.append("the check of the store's pages stopped at a page that cannot be read")
                }
            }
            return findings
        }
    }

    /// Each table's and index's name and first page.
    static func schemaRoots(_ c: Connection) throws -> [(name: String, root: Int64, isTable: Bool)] {
        var out: [(String, Int64, Bool)] = []
        let s = try c.prepare("SELECT name, rootpage, type = 'table' FROM sqlite_master WHERE type IN ('table', 'index') ORDER BY rootpage")
        while try s.step() { out.append((s.text(0) ?? "", s.int64(1), s.int64(2) != 0)) }
        return out
    }

    /// An integrity-check finding with the table or index named whose tree
    /// the page it mentions starts ("page 5" → "page 5 (the first page of sightings)").
    static func naming(_ finding: String, _ roots: [(name: String, root: Int64, isTable: Bool)]) -> String {
        let words = finding.split(separator: " ", omittingEmptySubsequences: false)
        for (i, w) in words.enumerated() where w == "page" && i + 1 < words.count {
            let digits = words[i + 1].prefix { $0.isNumber }
            if let page = Int64(digits), let owner = roots.first(where: { $0.root == page }) {
                return "\(finding) (page \(page) is the first page of \(owner.name))"
            }
        }
        return finding
    }
}

/// A table or column name as SQL: in double quotes, quotes doubled.
func quotedName(_ name: String) -> String {
    "\"" + name.replacing("\"", with: "\"\"") + "\""
}

extension Store {
    /// What is damaged in the store, in words (EncryptedDatabase.damage);
    /// empty when it is sound.
    public func damage() throws -> [String] { try database.damage() }
}
