import EncoreSupport

/// The settings the library keeps for itself (the sync's state and
/// verified configuration, push registration and its app-instance token,
/// the tracing's calibration and adapter)
/// live under these prefixes. A host's settings API neither reads nor
/// writes them: what the library relies on cannot be replaced from
/// outside, and its secrets are not handed out.
public enum LibrarySettings {
    public static let prefixes = ["sync.", "push.", "encore.", "tracing."]

    public static func isLibrary(_ name: String) -> Bool { prefixes.contains { name.hasPrefix($0) } }

    /// Throws for a name of the library's own.
    public static func checkHostName(_ name: String) throws {
        guard !isLibrary(name) else {
            throw EncoreError(.invalidArgument, "the setting '\(name)' is the library's own (names starting \(prefixes.map { "'\($0)'" }.joined(separator: ", ")) are): choose another name")
        }
    }
}
