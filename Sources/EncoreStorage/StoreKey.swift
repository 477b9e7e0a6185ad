import EncoreSupport

/// How a store is encrypted: a passphrase (SQLCipher derives the key with
/// PBKDF2, which costs time on purpose) or a raw 32-byte key (no derivation).
public enum StoreKey: Sendable {
    case passphrase([UInt8])
    case raw([UInt8])

    public static func passphrase(_ text: String) -> StoreKey { .passphrase(Array(text.utf8)) }

    /// The longest passphrase taken (1 MiB).
    public static let maxPassphraseBytes = 1 << 20

    /// The bytes handed to sqlite3_key: the passphrase itself, or SQLCipher's
    /// raw-key form x'<64 hex digits>'.
    package func sqlcipherKey() throws -> [UInt8] {
        switch self {
        case .passphrase(let p):
            guard !p.isEmpty else { throw EncoreError(.invalidArgument, "the store passphrase must not be empty") }
            // Far above any real passphrase, and far below the 2 GiB SQLCipher's int length can carry.
            guard p.count <= StoreKey.maxPassphraseBytes else {
                throw EncoreError(.invalidArgument, "the store passphrase has \(p.count) bytes; at most \(StoreKey.maxPassphraseBytes) are allowed")
            }
            // SQLCipher reads x'...' as a raw key (and salt), not a passphrase.
            guard !(p.count >= 3 && p.starts(with: Array("x'".utf8)) && p.last == UInt8(ascii: "'")) else {
                throw EncoreError(.invalidArgument, "a passphrase of the form x'...' would be taken as a raw key: use a raw key instead")
            }
            return p
        case .raw(let k):
            guard k.count == 32 else { throw EncoreError(.invalidArgument, "a raw store key has 32 bytes, not \(k.count)") }
            return Array("x'".utf8) + Array(Hex.encode(k).utf8) + Array("'".utf8)
        }
    }
}
