// encore-pushd: the push-token registry service (issue 18).
//   encore-pushd serve  --listen 127.0.0.1:8080 (--db PATH [--key-file F] | --postgres URL)
//   encore-pushd send   (--db PATH | --postgres URL) --apns URL --key P8 --key-id ID --team-id ID --topic BUNDLE
import ArgumentParser
import CEncoreTypes

@main

struct Pushd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encore-pushd",
        abstract: "The push-token registry: takes registrations (SwissCovid's POST /v3/register and PUT/DELETE /v1/registrations) and sends silent pushes to APNs.",
        discussion: """
            Storage is one SQLCipher file (--db, the default) or PostgreSQL (--postgres), on which \
            several serve and send instances can run at once. See docs/pushd.md.
            """,
        version: ENCORE_VERSION_STRING,
        subcommands: [Serve.self, Send.self]
    )
}
