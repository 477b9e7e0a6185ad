import EncoreSupport

/// 16 bytes of key material (a TEK, RPI or derived key) held inline: no heap
/// allocation per key, hashable for look-ups.
public struct KeyData: Hashable, Sendable, CustomStringConvertible {
    // Two words in memory order: withUnsafeBytes(of:) yields the 16 bytes.
    private var words: (UInt64, UInt64)

    public init(_ bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count == 16, "KeyData needs 16 bytes") // callers check lengths first
        words = (bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                 bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    }

    /// nil unless `bytes` has exactly 16 elements.
    public init?(_ bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self = bytes.withUnsafeBytes { KeyData($0) }
    }

    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try Swift.withUnsafeBytes(of: words) { try body($0) }
    }

    public var hex: String { Hex.encode(bytes) }
    public var description: String { hex }

    public static func == (a: KeyData, b: KeyData) -> Bool { a.words == b.words }
    public func hash(into h: inout Hasher) {
        h.combine(words.0)
        h.combine(words.1)
    }
}

extension SecureRandom {
    /// A new 16-byte key (a temporary exposure key).
    public static func key() throws -> KeyData {
        try bytes(16).withUnsafeBytes { KeyData($0) }
    }
}
