import ArgumentParser
import EncoreCheckIns
import EncoreClient
import EncoreExposure
import EncoreKeyFiles
import EncoreRisk
import EncoreStorage
import EncoreSupport
import EncoreSync

/// `encore keyfiles list` (once `encore packages list`, still an alias):
/// the cache of key files.
struct PackagesCommand: CommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "keyfiles",
        abstract: "Show the key files the store keeps (what `encore sync` downloaded).",
        subcommands: [PackagesList.self],
        aliases: ["packages"]
    )
}

struct PackagesList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the cached key files: region, identifier, ETag, size, download time.",
        discussion: """
            --json prints [{"region": R, "identifier": ID, "etag": E|null, "size": N, "downloaded": T, "sha256": HEX}].

            Example:
              encore keyfiles list --db client.db
            """ + "\n\n" + StoreArguments.keyHelp
    )

    @OptionGroup var store: StoreArguments

    @Flag(name: .long, help: "Print one JSON array instead of text.")
    var json = false

    func run() throws {
        let s = try store.client().store
        var infos: [CachedKeyFileInfo] = []
        for region in try s.cachedKeyFileRegions() {
            for id in try s.cachedKeyFileIdentifiers(region: region) {
                if let info = try s.cachedKeyFileInfo(region: region, identifier: id) { infos.append(info) }
            }
        }
        if json {
            Output.write(JSONValue.array(infos.map(\.json)).rendered(pretty: true) + "\n")
            return
        }
        if infos.isEmpty { Output.write("no cached packages\n") }
        for i in infos {
            Output.write("\(i.region) \(i.identifier)  \(i.size) bytes  \(UTCTime.iso8601(seconds: i.downloaded) ?? "?")  \(i.etag ?? "-")\n")
        }
    }
}

extension CachedKeyFileInfo {
    var json: JSONValue {
        .object([("region", .string(region)), ("identifier", .string(identifier)), ("etag", .string(etag)), ("size", .int(size)),
                 ("downloaded", .int(downloaded)), ("sha256", .string(Hex.encode(sha256)))])
    }
}
