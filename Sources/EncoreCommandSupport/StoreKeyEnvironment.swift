import ArgumentParser
import EncoreStorage
import EncoreSupport
#if canImport(Glibc)
import Glibc
#endif

/// The store key, read from the environment and never from the command
/// line (where other users could read it in the process list, and shells
/// keep it in their history). Exactly one of two variables gives it:
/// `<PREFIX>` holds a passphrase (used byte for byte; SQLCipher derives the
/// key from it, which takes a moment on purpose), `<PREFIX>_HEX` a raw
/// 32-byte key as 64 hex digits (no derivation). A variable set to the
/// empty string counts as set. Shared by the tool and encored.
public struct StoreKeyEnvironment: Sendable {
    /// `ENCORE_DB_KEY`: the key of the store to open.
    public static let current = StoreKeyEnvironment(passphraseVariable: "ENCORE_DB_KEY")
    /// `ENCORE_NEW_DB_KEY`: the key `encore store rekey` changes to.
    public static let new = StoreKeyEnvironment(passphraseVariable: "ENCORE_NEW_DB_KEY")

    public let passphraseVariable: String
    public var hexVariable: String { passphraseVariable + "_HEX" }

    /// The key and the variable it came from. Throws `ValidationError`
    /// (exit status 2) when neither or both variables are set, or the one
    /// set is empty or not 64 hex digits. Messages never contain the key.
    public func key() throws -> (key: StoreKey, variable: String) {
        try Self.key(passphrase: Self.environment(passphraseVariable), hex: Self.environment(hexVariable),
                     passphraseName: passphraseVariable, hexName: hexVariable)
    }

    /// Whether either variable is set.
    public var isSet: Bool { Self.environment(passphraseVariable) != nil || Self.environment(hexVariable) != nil }

    /// The key from a passphrase or a hex key read from two named sources
    /// (the variables, or files such as systemd credentials), with the
    /// rules and messages above; `passphraseName` and `hexName` name them.
    public static func key(passphrase: [UInt8]?, hex hexBytes: [UInt8]?, passphraseName passphraseVariable: String,
                           hexName hexVariable: String) throws -> (key: StoreKey, variable: String) {
        let hex = hexBytes.map { String(decoding: $0, as: UTF8.self) }
        switch (passphrase, hex) {
        case (nil, nil):
            throw ValidationError("""
                no store key: set \(passphraseVariable) to the passphrase or \(hexVariable) to the raw key \
                (64 hex digits) in the environment (keys are never taken from the command line)
                """)
        case (.some, .some):
            throw ValidationError("both \(passphraseVariable) and \(hexVariable) are set: set only one of them")
        case (let bytes?, nil):
            guard !bytes.isEmpty else { throw ValidationError("\(passphraseVariable) is set but empty: a passphrase must not be empty") }
            return (.passphrase(bytes), passphraseVariable)
        case (nil, let text?):
            // Surrounding blanks (a newline left by `$(cat keyfile)` in some
            // shells' here-strings) are not part of a hex key.
            let digits = text.trimmingASCIIWhitespace
            guard digits.utf8.count == 64, let bytes = Hex.decode(digits) else {
                throw ValidationError("\(hexVariable) must be 64 hex digits (a raw 32-byte key); it has \(digits.utf8.count) characters"
                    + (digits.utf8.count == 64 ? " that are not all hex digits" : ""))
            }
            return (.raw(bytes), hexVariable)
        }
    }

    /// The variable's bytes as they are (a passphrase need not be UTF-8),
    /// or nil when it is not set.
    private static func environment(_ name: String) -> [UInt8]? {
        guard let p = getenv(name) else { return nil }
        return Array(UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: strlen(p)))
    }
}

extension String {
    public var trimmingASCIIWhitespace: String {
        let blanks: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C]
        let u = Array(utf8)
        var start = 0, end = u.count
        while start < end, blanks.contains(u[start]) { start += 1 }
        while end > start, blanks.contains(u[end - 1]) { end -= 1 }
        return String(decoding: u[start..<end], as: UTF8.self)
    }
}
