import EncoreCrypto
import EncoreStorage
import EncoreSupport

/// The public keys a caller trusts, found by (key id, key version) as the
/// signatures name them. Several keys may be trusted at once (rotation,
/// several regions). Safe to share between threads.
public final class TrustList: Sendable {
    public struct KeyName: Hashable, Sendable {
        public var id: String
        public var version: String
    }

    private let keys = Locked<[KeyName: PublicKey]>([:])

    public init() {}

    /// Trusts a key; adding the same id and version again replaces it.
    public func add(id: String, version: String, material: [UInt8]) throws {
        let key = try PublicKey(material: material)
        keys.withLock { $0[KeyName(id: id, version: version)] = key }
    }

    public func key(id: String, version: String) -> PublicKey? {
        keys.withLock { $0[KeyName(id: id, version: version)] }
    }

    public var count: Int { keys.withLock { $0.count } }
}
