import ArgumentParser

/// `encore keyfile ...` (once `encore export`, still an alias): commands
/// that work on one key file.
struct KeyFileCommand: CommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "keyfile",
        abstract: "Work with diagnosis key files (zip or bare export.bin).",
        subcommands: [ExportInspect.self],
        aliases: ["export"]
    )
}
