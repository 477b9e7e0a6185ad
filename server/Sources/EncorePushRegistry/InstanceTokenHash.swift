import CCrypto

/// The registry keeps an app-instance token only as its SHA-256: a copy of
/// the database does not give anyone the power to update or delete a
/// registration (the token is ≥ 128 random bits, so the hash cannot be
/// inverted by trying).
public struct InstanceTokenHash: Sendable, Equatable, Hashable {
    public let bytes: [UInt8]

    public init(token: String) {
        var digest = [UInt8](repeating: 0, count: 32)
        let input = Array(token.utf8)
        input.withUnsafeBufferPointer { p in
            _ = digest.withUnsafeMutableBufferPointer { SHA256(p.baseAddress, p.count, $0.baseAddress) }
        }
        bytes = digest
    }

    /// A hash read back from storage (32 bytes; anything else is refused).
    public init?(stored: [UInt8]) {
        guard stored.count == 32 else { return nil }
        bytes = stored
    }

    /// Constant-time comparison (libcrypto's CRYPTO_memcmp): the time taken
    /// says nothing about how many leading bytes match.
    public func matches(_ other: InstanceTokenHash) -> Bool {
        guard bytes.count == other.bytes.count else { return false }
        return bytes.withUnsafeBytes { a in
            other.bytes.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 }
        }
    }

    public static func == (a: InstanceTokenHash, b: InstanceTokenHash) -> Bool { a.matches(b) }
}
