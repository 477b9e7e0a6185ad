import EncoreStorage

/// The sync keeps its state and the verified configuration in settings
/// under "sync." (the key files it fetches are the key file cache's).
extension StoreTables {
    public static let sync = StoreTables(feature: "sync", settingPrefixes: ["sync."])
}
