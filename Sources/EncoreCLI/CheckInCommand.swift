import ArgumentParser
import EncoreCore

/// `encore checkin ...`: check-ins at events and places (issues 16, 17; in progress).
struct CheckInCommand: CommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "checkin",
        abstract: "Check in to events and places, and match published warnings.",
        subcommands: []
    )
}
