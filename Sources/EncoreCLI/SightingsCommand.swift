import EncoreClient
import ArgumentParser

/// `encore sightings ...` (once `encore sightings`, still an alias):
/// the sightings kept in the store.
struct SightingsCommand: CommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "sightings",
        abstract: "Work with the sightings (RPIs heard over Bluetooth) in the store.",
        discussion: StoreArguments.keyHelp,
        subcommands: [SightingsImport.self, SightingsList.self],
        aliases: ["observations"]
    )
}
