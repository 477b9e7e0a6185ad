import EncoreCheck
import EncoreCheckIns
import EncoreExposure
import EncoreKeyFiles
import EncorePush
import EncoreStorage
import EncoreSync
import EncoreTracing

/// Push's facts from the store's other features: Exposure Notifications
/// are on when the last tracing event says so; check-ins are the list's.
public struct StorePushFacts: PushFacts {
    public let store: Store
    public init(store: Store) { self.store = store }
    public func exposureNotificationsActive() throws -> Bool { try store.lastTracingEvent()?.active ?? false }
    public func hasCheckIns() throws -> Bool { !(try store.checkIns().isEmpty) }
}

extension PushService {
    /// The push service of a store, its facts from the store's features.
    public init(store: Store) { self.init(store: store, facts: StorePushFacts(store: store)) }
}

/// The sync's facts from the store's other features: isolation is push's
/// state.
public struct StoreSyncFacts: SyncFacts {
    public let store: Store
    public init(store: Store) { self.store = store }
    public func isolated() throws -> Bool { try PushService(store: store).isolated() }
}
