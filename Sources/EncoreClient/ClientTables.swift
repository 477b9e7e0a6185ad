import EncoreCheck
import EncoreCheckIns
import EncoreExposure
import EncoreKeyFiles
import EncorePush
import EncoreStorage
import EncoreSync
import EncoreTestResults
import EncoreTracing

extension StoreTables {
    /// Every feature's part of the store, in the order their tables are
    /// made (a feature after those its tables refer to). A new feature adds
    /// its StoreTables here.
    public static let all: [StoreTables] = [.keyFiles, .exposure, .check, .testResults, .checkIns, .sync, .push, .tracing]
}

extension Store {
    /// Opens (or creates) the store at `path` with every feature's tables.
    public convenience init(path: String, key: StoreKey, options: StoreOptions = StoreOptions()) throws {
        try self.init(path: path, key: key, options: options, features: StoreTables.all)
    }
}

extension StoreSalvage {
    /// Salvages the store at `path` into a new store at `newPath` with
    /// every feature's tables (StoreSalvage.salvage).
    public static func salvage(from path: String, key: StoreKey, to newPath: String, newKey: StoreKey) throws -> SalvageReport {
        try salvage(from: path, key: key, to: newPath, newKey: newKey, features: StoreTables.all)
    }
}
