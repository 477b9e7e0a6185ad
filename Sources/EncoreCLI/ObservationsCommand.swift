import ArgumentParser

/// `encore observations ...`: the sightings kept in the store.
struct ObservationsCommand: CommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "observations",
        abstract: "Work with the observations (Bluetooth sightings) in the store.",
        discussion: StoreArguments.keyHelp,
        subcommands: [ObservationsImport.self]
    )
}
