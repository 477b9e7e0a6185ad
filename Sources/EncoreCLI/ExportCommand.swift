import ArgumentParser

/// `encore export ...`: commands that work on one key export file.
struct ExportCommand: CommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Work with diagnosis key export files (zip or bare export.bin).",
        subcommands: [ExportInspect.self]
    )
}
