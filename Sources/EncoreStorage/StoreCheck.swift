import EncoreSupport

extension EncryptedDatabase {
    /// What is damaged in the database, in words, one finding a line; empty
    /// when it is sound. Every table is read row by row and every index
    /// walked (SQLCipher checks each page's MAC as it decrypts it), which
    /// names what is damaged; then SQLite's integrity check looks at the
    /// structure, and SQLCipher's own page check where the SQLCipher has
    /// one (4.x; Debian's 3.4 does not know the pragma and returns no
    /// rows). Writes nothing.
    public func damage() throws -> [String] {
        try withConnection { c in
            let roots: [(name: String, root: Int64, table: String?)]
            do {
                roots = try Self.schemaRoots(c)
            } catch let e as EncoreError where e.kind == .storeCorrupt {
                return ["the list of tables cannot be read"]
            }
            // The tables and indexes first: on a page that fails its MAC,
            // SQLite's integrity check run first was seen to answer "ok"
            // (SQLCipher 3.4), while reading the table fails.
            var checks = Self.damagedParts(c, roots)
            for pragma in ["PRAGMA integrity_check", "PRAGMA cipher_integrity_check"] {
                do {
                    let s = try c.prepare(pragma)
                    while try s.step() {
                        let line = s.text(0) ?? ""
                        if line != "ok" && !line.hasPrefix("*** in database") { checks.append(Self.naming(line, roots)) }
                    }
                } catch let e as EncoreError where e.kind == .storeCorrupt || e.kind == .storeFailed {
                    checks.append("the check of the store's pages stopped at a page that cannot be read")
                }
            }
            return checks
        }
    }

    /// The tables that cannot be read whole and the indexes that cannot be
    /// walked, in words.
    private static func damagedParts(_ c: Connection, _ roots: [(name: String, root: Int64, table: String?)]) -> [String] {
        var found: [String] = []
        for (name, _, table) in roots where !name.hasPrefix("sqlite_") || table != nil {
            var read = 0
            do {
                if let table {
                    // Counting through the index reads every page of it.
                    _ = try c.scalar("SELECT count(*) FROM \(quotedName(table)) INDEXED BY \(quotedName(name))")
                } else {
                    let s = try c.prepare("SELECT * FROM \(quotedName(name))")
                    while try s.step() { read += 1 }
                }
            } catch let e as EncoreError where e.kind == .storeCorrupt {
                found.append(table.map { "the index \(name) of the \($0) table is damaged (its rows are not lost: a salvage rebuilds it)" }
                             ?? "the \(name) table is damaged: \(read) rows read, the rest cannot be read")
            } catch {
                // Not damage (an index SQLite will not walk on its own, such as a partial one).
            }
        }
        return found
    }

    /// Each table's and index's name and first page, and an index's table (nil for a table).
    static func schemaRoots(_ c: Connection) throws -> [(name: String, root: Int64, table: String?)] {
        var out: [(String, Int64, String?)] = []
        let s = try c.prepare("SELECT name, rootpage, type, tbl_name FROM sqlite_master WHERE type IN ('table', 'index') ORDER BY rootpage")
        while try s.step() { out.append((s.text(0) ?? "", s.int64(1), s.text(2) == "index" ? s.text(3) : nil)) }
        return out
    }

    /// An integrity-check finding with the table or index named whose tree
    /// the page it mentions starts ("page 5" → "page 5 (the first page of sightings)").
    static func naming(_ finding: String, _ roots: [(name: String, root: Int64, table: String?)]) -> String {
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
