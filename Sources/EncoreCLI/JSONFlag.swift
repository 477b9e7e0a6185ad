import ArgumentParser

/// --json, as most commands take it: one JSON document on stdout instead
/// of the text (commands whose JSON says more declare their own flag).
struct JSONFlag: ParsableArguments {
    @Flag(name: .long, help: "Print one JSON object instead of text.")
    var json = false
}
