/// What a SQL statement does, in words, for error messages: "reading the
/// sightings table", not the statement's text. A message names the part of
/// the store that failed; SQL fragments ("... WHERE )") mean nothing to the
/// person reading it.
enum SQLOperation {
    /// "reading the sightings table", "writing the settings table",
    /// "checkpointing the store"; an unknown statement is "working on the store".
    static func describe(_ sql: String) -> String {
        let words = tokens(sql)
        guard let first = words.first else { return "working on the store" }
        let verb: String
        switch first {
        case "SELECT", "WITH", "VALUES": verb = "reading"
        case "INSERT", "REPLACE": verb = "writing"
        case "UPDATE": verb = "updating"
        case "DELETE": verb = "deleting from"
        case "CREATE", "ALTER", "DROP": verb = "changing the tables of"
        case "BEGIN", "SAVEPOINT": return "starting a transaction on the store"
        case "COMMIT", "END", "RELEASE": return "committing to the store"
        case "ROLLBACK": return "rolling back a change to the store"
        case "VACUUM": return "rewriting the store"
        case "PRAGMA": return pragma(words.dropFirst().first ?? "")
        default: return "working on the store"
        }
        guard first != "CREATE" && first != "ALTER" && first != "DROP", let table = table(words) else {
            return verb + " the store"
        }
        return "\(verb) the \(table) table"
    }

    /// The first table the statement names after FROM, INTO or UPDATE.
    private static func table(_ words: [String]) -> String? {
        for (i, w) in words.enumerated() where ["FROM", "INTO", "UPDATE", "JOIN"].contains(w) {
            var j = i + 1
            // UPDATE OR REPLACE t
            while j < words.count, ["OR", "REPLACE", "IGNORE", "ABORT", "FAIL", "ROLLBACK"].contains(words[j]) { j += 1 }
            guard j < words.count else { return nil }
            let name = words[j].lowercased()
            guard !name.isEmpty, name != "select", name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }) else { continue }
            return name.hasPrefix("main.") ? String(name.dropFirst(5)) : name
        }
        return nil
    }

    private static func pragma(_ name: String) -> String {
        switch name {
        case "USER_VERSION": return "reading the store's format version"
        case "INTEGRITY_CHECK", "QUICK_CHECK", "CIPHER_INTEGRITY_CHECK": return "checking the store's pages"
        case "WAL_CHECKPOINT": return "checkpointing the store's journal"
        case "JOURNAL_MODE": return "switching the store's journal"
        default: return "setting up the store"
        }
    }

    /// The statement's words, upper-cased, with punctuation as separators
    /// (a quoted name keeps its letters).
    private static func tokens(_ sql: String) -> [String] {
        var out: [String] = []
        var current = ""
        for ch in sql {
            if ch.isLetter || ch.isNumber || ch == "_" || ch == "." {
                current.append(ch)
            } else {
                if !current.isEmpty { out.append(current.uppercased()) }
                current = ""
                if ch == "(" { out.append("(") }
            }
        }
        if !current.isEmpty { out.append(current.uppercased()) }
        return out
    }
}
