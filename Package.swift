// swift-tools-version:6.1
import PackageDescription

import Foundation

// libencore.so: the Swift runtime linked in statically, an explicit SONAME and
// a version script so that only encore_* symbols are exported.
let root = Context.packageDirectory

// The SONAME's major version is read from the header's ENCORE_VERSION_MAJOR,
// the one place the version is written. SwiftPM caches the manifest's result
// keyed on this file's text, not the header's: after a major bump, build once
// with `--manifest-cache none`; `make check-abi` fails on a stale SONAME.
let versionMajor: String = {
    let header = (try? String(contentsOfFile: "\(root)/Sources/CEncoreTypes/include/encore_types.h", encoding: .utf8)) ?? ""
    let prefix = "#define ENCORE_VERSION_MAJOR "
    let line = header.split(separator: "\n").first { $0.hasPrefix(prefix) }
    // Unreadable: a SONAME no check accepts rather than a guessed number.
    return line.map { String($0.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces) } ?? "unknown-major"
}()

// Every binary's relocations done at load time and their table then made
// read-only (full RELRO, as Debian's hardening asks), so that a memory error
// cannot redirect a call through the GOT.
let bindNow: [String] = ["-Xlinker", "-z", "-Xlinker", "relro", "-Xlinker", "-z", "-Xlinker", "now"]

// The C targets' calls of memcpy, snprintf & co. checked against the sizes
// the compiler knows (glibc's _FORTIFY_SOURCE; it needs the optimizer, so
// release builds only): the C code reads what hosts and servers send.
let fortified: [CSetting] = [.define("_FORTIFY_SOURCE", to: "2", .when(configuration: .release))]

let sharedLibraryFlags: [String] = bindNow + [
    "-static-stdlib",
    "-Xlinker", "-soname=libencore.so.\(versionMajor)",
    "-Xlinker", "--version-script=\(root)/support/libencore.map",
]

/// The core's layers, which EncoreCore re-exports. Its users (the C-ABI
/// layer, the tool, the bench) also depend on each of them directly: an
/// incremental build recompiles a module when a module it depends on
/// changes, but not when one re-exported through another does
/// (swiftlang/swift#89636), so a layer's changed layout (a stored property
/// added, even a private one) left them compiled against the old one, and
/// they crashed until a clean build.
let coreLayers: [Target.Dependency] = ["EncoreSupport", "EncoreModel", "EncoreWire", "EncoreCrypto", "EncoreHTTP", "EncoreKeyFiles", "EncoreStorage",
                                       "EncoreMatching", "EncoreRisk", "EncoreProtocols", "EncoreCheckIns", "EncoreServices", "EncoreTracing"]

let package = Package(
    name: "encore",
    products: [
        .library(name: "encore", type: .dynamic, targets: ["EncoreABI"]),
        .executable(name: "encore-cli", targets: ["EncoreCLI"]),
        .executable(name: "encore-bench", targets: ["EncoreBench"]),
        .executable(name: "encore-tracingd", targets: ["EncoreTracingd"]),
        // What the push registry service (server/, a package of its own)
        // builds on; static so that nothing of it is a second libencore.
        .library(name: "EncoreSupport", type: .static, targets: ["EncoreSupport"]),
        .library(name: "EncoreStorage", type: .static, targets: ["EncoreStorage"]),
        .library(name: "EncoreProtocols", type: .static, targets: ["EncoreProtocols"]),
        .library(name: "CCrypto", targets: ["CCrypto"]),
        // encore_types.h: the service's --version is the library's ENCORE_VERSION_STRING.
        .library(name: "CEncoreTypes", targets: ["CEncoreTypes"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // System libraries (Debian: libprotobuf-c-dev, zlib1g-dev, libssl-dev).
        .systemLibrary(name: "CProtobufC", pkgConfig: "libprotobuf-c", providers: [.apt(["libprotobuf-c-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // crypto_secretbox (XSalsa20-Poly1305) of CrowdNotifier (Debian: libsodium-dev).
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        // The modules of an organizer's printable check-in QR code (Debian: libqrencode-dev).
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        // sd-bus, the D-Bus client of encore-tracingd (Debian: libsystemd-dev).
        // Linked into that daemon only, never into libencore.so.
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),

        // protobuf-c code generated from proto/export.proto (scripts/gen-proto.sh).
        .target(name: "CEncoreProto", dependencies: ["CProtobufC"], cSettings: fortified),
        // Private C helpers: thread-local error text, protobuf-c arena, the
        // matching kernel (RPI derivation and look-up at the speed of the crypto).
        .target(name: "CEncoreShim", dependencies: ["CProtobufC", "CCrypto"], cSettings: fortified),
        // SQLCipher (Debian: libsqlcipher0, headers from libsqlcipher-dev),
        // loaded privately with dlopen and never linked, so that a host's own
        // SQLite cannot take its calls (see include/encore_sql.h).
        .target(name: "CEncoreSQL", cSettings: fortified),
        // One HTTP(S) request through libcurl (Debian: libcurl4-openssl-dev):
        // the built-in transport's policy (TLS verified, no redirects, caps).
        .target(name: "CEncoreHTTP", cSettings: fortified, linkerSettings: [.linkedLibrary("curl")]),
        // BLS12-381 and its pairing, bit-compatible with mcl (CrowdNotifier);
        // SHA-256/512 from libcrypto. Tested on its own by Tests/pairing.
        .target(name: "CEncorePairing", dependencies: ["CCrypto"], cSettings: fortified),
        // The public C types (copied into include/encore.h).
        .target(name: "CEncoreTypes", cSettings: fortified),

        // The core: plain Swift, no knowledge of C callers, in layers that
        // the compiler keeps apart (a target sees only the ones it declares;
        // scripts/swift-test.sh builds with the explicit import check):
        //   support → model → wire, crypto, http, storage, risk → key files →
        //   matching, check-ins → protocols → services; EncoreCore re-exports
        //   them all. Each layer declares its own error kinds
        //   (`extension EncoreError.Kind`); support only the shared ones.
        // The push registry service is a package of its own (server/, with
        // Hummingbird, PostgresNIO, AsyncHTTPClient): it builds on support,
        // storage and protocols through the library products above, and
        // nothing of it, nor any of its dependencies, is resolved here.
        .target(name: "EncoreSupport"),
        .target(name: "EncoreModel", dependencies: ["EncoreSupport"]),
        .target(name: "EncoreWire", dependencies: ["EncoreSupport", "CZlib", "CProtobufC", "CEncoreShim"]),
        .target(name: "EncoreCrypto", dependencies: ["EncoreSupport", "EncoreModel", "CCrypto", "CEncoreShim"]),
        .target(name: "EncoreKeyFiles", dependencies: ["EncoreSupport", "EncoreModel", "EncoreWire", "EncoreCrypto", "CEncoreProto", "CProtobufC", "CEncoreShim", "CCrypto"]),
        .target(name: "EncoreStorage", dependencies: ["EncoreSupport", "EncoreModel", "CEncoreSQL", "CCrypto"]),
        .target(name: "EncoreHTTP", dependencies: ["EncoreSupport", "CEncoreHTTP"]),
        .target(name: "EncoreMatching", dependencies: ["EncoreSupport", "EncoreModel", "EncoreCrypto", "EncoreKeyFiles", "CEncoreShim"]),
        .target(name: "EncoreRisk", dependencies: ["EncoreSupport", "EncoreModel"]),
        // The protocols of the servers as requests and answers, no I/O:
        // test results and submission (and next sync).
        .target(name: "EncoreProtocols", dependencies: ["EncoreSupport", "EncoreModel", "EncoreWire", "EncoreCrypto", "EncoreKeyFiles", "EncoreRisk", "EncoreHTTP", "CEncoreProto", "CProtobufC", "CCrypto"]),
        // Check-ins: CWA event registration (QR codes, warnings, presence
        // tracing risk) and CrowdNotifier (its BLS12-381 in CEncorePairing).
        .target(name: "EncoreCheckIns", dependencies: ["EncoreSupport", "EncoreModel", "EncoreWire", "EncoreCrypto", "EncoreRisk", "CEncoreProto", "CProtobufC", "CCrypto", "CEncorePairing", "CSodium", "CQRencode"]),
        .target(name: "EncoreServices", dependencies: ["EncoreSupport", "EncoreModel", "EncoreWire", "EncoreCrypto", "EncoreHTTP", "EncoreKeyFiles",
                                                      "EncoreMatching", "EncoreRisk", "EncoreStorage", "EncoreProtocols", "EncoreCheckIns", "CCrypto"]),
        // Tracing: the advertisement and its rotation, the scan schedule,
        // scan ingestion, calibration, the tracing history (sans-I/O: a
        // radio host such as encore-tracingd drives it).
        .target(name: "EncoreTracing", dependencies: ["EncoreSupport", "EncoreModel", "EncoreCrypto", "EncoreStorage", "EncoreServices"]),
        .target(name: "EncoreCore", dependencies: coreLayers),
        // What tests, the bench and the demo make (key files, signatures, a
        // simulated user); nothing of it is in libencore.so.
        .target(name: "EncoreFixtures", dependencies: ["EncoreSupport", "EncoreModel", "EncoreWire", "EncoreCrypto", "EncoreKeyFiles", "EncoreCheckIns", "EncoreProtocols",
                                                      "CCrypto", "CZlib", "CEncoreProto", "CProtobufC"]),
        // The thin C-ABI layer: @c functions, handles, status codes.
        .target(
            name: "EncoreABI",
            dependencies: ["EncoreCore", "CEncoreTypes", "CEncoreShim"] + coreLayers,
            linkerSettings: [.unsafeFlags(sharedLibraryFlags)]
        ),
        // The `encore` command-line tool (built as encore-cli, installed as encore).
        // The Swift runtime linked in statically (as the library's), so the
        // installed tool runs without the toolchain. A link flag, not
        // --static-swift-stdlib: that one changes how every module compiles,
        // and the library, the tool, the bench and the tests then could not
        // share one release build of the core.
        .executableTarget(
            name: "EncoreCLI",
            dependencies: ["EncoreCore", "EncoreFixtures", "CEncoreTypes", "EncoreCommandSupport",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")] + coreLayers,
            // FoundationEssentials (of swift-argument-parser) needs its two
            // helper archives named: the autolinking of a static runtime
            // leaves them out.
            linkerSettings: [.unsafeFlags(bindNow + ["-static-stdlib"]), .linkedLibrary("_FoundationCollections"), .linkedLibrary("_FoundationCShims")]
        ),
        // What the tool and encore-tracingd share: the store key from the environment.
        .target(name: "EncoreCommandSupport", dependencies: ["EncoreSupport", "EncoreStorage", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // encore-tracingd's link to BlueZ over sd-bus, in C: sd-bus's vtable
        // macros do not import into Swift.
        .target(name: "CTracingBus", dependencies: ["CSystemd"], cSettings: fortified),
        // encore-tracingd: advertises and scans over BlueZ with the tracing
        // module (docs/tracingd.md). Its runtime linked statically, as the tool's.
        .executableTarget(
            name: "EncoreTracingd",
            dependencies: ["EncoreTracing", "EncoreStorage", "EncoreSupport", "EncoreModel", "EncoreCommandSupport", "CTracingBus", "CEncoreTypes",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            linkerSettings: [.unsafeFlags(bindNow + ["-static-stdlib"]), .linkedLibrary("_FoundationCollections"), .linkedLibrary("_FoundationCShims")]
        ),
        // Benchmarks (make bench): figures against baselines measured in the same run.
        .executableTarget(name: "EncoreBench", dependencies: ["EncoreCore", "EncoreFixtures", "CCrypto", "CZlib", "CEncoreShim"] + coreLayers),

        // The Swift tests, one target a module (or two small ones): each
        // declares the modules it tests and what it needs, never EncoreCore.
        // EncoreTestSupport is what several of them share (fixtures, check-in
        // samples, the test data's place, a temporary directory); it ships in
        // no product.
        .target(name: "EncoreTestSupport", dependencies: ["EncoreSupport", "EncoreModel", "EncoreWire", "EncoreKeyFiles", "EncoreCheckIns", "EncoreFixtures"],
                path: "Tests/EncoreTestSupport"),
        // Support, and the model's JSON forms.
        .testTarget(name: "EncoreSupportTests", dependencies: ["EncoreSupport", "EncoreModel"]),
        .testTarget(name: "EncoreCryptoTests", dependencies: ["EncoreCrypto", "EncoreSupport", "EncoreModel", "EncoreTestSupport", "CEncoreShim"]),
        .testTarget(name: "EncoreKeyFilesTests", dependencies: ["EncoreKeyFiles", "EncoreSupport", "EncoreModel", "EncoreWire", "EncoreFixtures", "EncoreTestSupport",
                                                                "CEncoreProto", "CEncoreShim", "CZlib"]),
        // Matching, and the risk calculation on its windows.
        .testTarget(name: "EncoreMatchingTests", dependencies: ["EncoreMatching", "EncoreRisk", "EncoreSupport", "EncoreModel", "EncoreWire", "EncoreKeyFiles",
                                                                "EncoreFixtures", "EncoreTestSupport", "CEncoreShim"]),
        .testTarget(name: "EncoreStorageTests", dependencies: ["EncoreStorage", "EncoreSupport", "EncoreModel", "EncoreTestSupport", "CEncoreSQL"]),
        // The protocols, and the request machine of EncoreHTTP they run on.
        .testTarget(name: "EncoreProtocolsTests", dependencies: ["EncoreProtocols", "EncoreHTTP", "EncoreSupport", "EncoreModel", "EncoreTestSupport",
                                                                 "CEncoreProto", "CCrypto"]),
        .testTarget(name: "EncoreCheckInsTests", dependencies: ["EncoreCheckIns", "EncoreSupport", "EncoreModel", "EncoreWire", "EncoreProtocols",
                                                                "EncoreFixtures", "EncoreTestSupport"]),
        .testTarget(name: "EncoreServicesTests", dependencies: ["EncoreServices", "EncoreSupport", "EncoreModel", "EncoreCrypto", "EncoreKeyFiles", "EncoreStorage",
                                                                "EncoreMatching", "EncoreRisk", "EncoreProtocols", "EncoreCheckIns", "EncoreFixtures", "EncoreTestSupport"]),
        .testTarget(name: "EncoreTracingTests", dependencies: ["EncoreTracing", "EncoreStorage", "EncoreSupport", "EncoreModel", "EncoreCrypto",
                                                              "EncoreServices", "EncoreMatching", "EncoreKeyFiles", "EncoreFixtures", "EncoreTestSupport"]),
    ]
)

// The tests are built in release mode on the modules `make lib cli` compiled
// (scripts/swift-test.sh), but their own code unoptimized and file by file:
// optimizing the test code took minutes and tests nothing more.
for target in package.targets where target.type == .test || target.name == "EncoreTestSupport" {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Onone", "-no-whole-module-optimization"])]
}
