import ArgumentParser

/// `encore sightings ...` (once `encore observations`, still an alias):
/// the sightings kept in the store.
struct ObservationsCommand: CommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "sightings",
        abstract: "Work with the sightings (RPIs heard over Bluetooth) in the store.",
        discussion: StoreArguments.keyHelp,
        subcommands: [ObservationsImport.self, SightingsList.self],
        aliases: ["observations"]
    )
}
