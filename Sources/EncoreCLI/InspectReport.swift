import EncoreCheckIns
import EncoreExposure
import EncoreKeyFiles
import EncoreRisk
import EncoreSupport

/// What `encore keyfile inspect` reports about one opened key file: the file,
/// and (when asked) its keys. Its JSON is the key file's one JSON form
/// (KeyFile.json in the core).
struct InspectReport {
    let path: String
    let file: KeyFile
    /// nil unless the keys were asked for.
    let keys: [ExposureKey]?
    let revisedKeys: [ExposureKey]?

    init(path: String, file: KeyFile, withKeys: Bool) throws {
        self.path = path
        self.file = file
        keys = withKeys ? try file.keys(in: .keys) : nil
        revisedKeys = withKeys ? try file.keys(in: .revisedKeys) : nil
    }

    var json: JSONValue { file.json(keys: keys, revisedKeys: revisedKeys) }

    /// The JSON of one of several files, its path first (a JSON line each).
    var jsonLine: JSONValue {
        guard case .object(let members) = json else { return json }
        return .object([("file", .string(path))] + members)
    }
}
