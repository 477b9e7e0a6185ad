import EncoreCore

/// What `encore export inspect` reports about one opened key file: its
/// metadata, how its signature turned out, and (when asked) its keys.
struct InspectReport {
    let path: String
    let isZip: Bool
    let metadata: ExportMetadata
    let signature: SignatureOutcome
    /// nil unless the keys were asked for.
    let keys: [ExposureKey]?
    let revisedKeys: [ExposureKey]?

    init(path: String, file: KeyFile, withKeys: Bool) throws {
        self.path = path
        isZip = file.isZip
        metadata = file.metadata
        signature = file.signature
        keys = withKeys ? try file.keys(in: .keys) : nil
        revisedKeys = withKeys ? try file.keys(in: .revisedKeys) : nil
    }
}

/// Names the tool uses for core values, in JSON and in text.
extension SignatureOutcome.Status {
    var name: String {
        switch self {
        case .verified: return "verified"
        case .unsigned: return "unsigned"
        case .untrusted: return "untrusted"
        case .invalid: return "invalid"
        case .skipped: return "skipped"
        }
    }
}
