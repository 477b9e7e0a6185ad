import EncoreStorage

/// Push keeps its registration and the app-instance token in settings
/// under "push.".
extension StoreTables {
    public static let push = StoreTables(feature: "push", settingPrefixes: ["push."])
}
