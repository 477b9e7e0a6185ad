// swift-tools-version:6.1
import PackageDescription

// libencore.so: the Swift runtime linked in statically, an explicit SONAME and
// a version script so that only encore_* symbols are exported.
let root = Context.packageDirectory
let sharedLibraryFlags: [String] = [
    "-static-stdlib",
    "-Xlinker", "-soname=libencore.so.0",
    "-Xlinker", "--version-script=\(root)/support/libencore.map",
]

let package = Package(
    name: "encore",
    products: [
        .library(name: "encore", type: .dynamic, targets: ["EncoreABI"]),
        .executable(name: "encore-cli", targets: ["EncoreCLI"]),
        .executable(name: "encore-bench", targets: ["EncoreBench"]),
        // What the push registry service (server/, a package of its own)
        // builds on; static so that nothing of it is a second libencore.
        .library(name: "EncoreSupport", type: .static, targets: ["EncoreSupport"]),
        .library(name: "EncoreStorage", type: .static, targets: ["EncoreStorage"]),
        .library(name: "EncoreProtocols", type: .static, targets: ["EncoreProtocols"]),
        .library(name: "CCrypto", targets: ["CCrypto"]),
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

        // protobuf-c code generated from proto/export.proto (scripts/gen-proto.sh).
        .target(name: "CEncoreProto", dependencies: ["CProtobufC"]),
        // Private C helpers: thread-local error text, protobuf-c arena, the
        // matching kernel (RPI derivation and look-up at the speed of the crypto).
        .target(name: "CEncoreShim", dependencies: ["CProtobufC", "CCrypto"]),
        // SQLCipher (Debian: libsqlcipher0, headers from libsqlcipher-dev),
        // loaded privately with dlopen and never linked, so that a host's own
        // SQLite cannot take its calls (see include/encore_sql.h).
        .target(name: "CEncoreSQL"),
        // One HTTP(S) request through libcurl (Debian: libcurl4-openssl-dev):
        // the built-in transport's policy (TLS verified, no redirects, caps).
        .target(name: "CEncoreHTTP", linkerSettings: [.linkedLibrary("curl")]),
        // BLS12-381 and its pairing, bit-compatible with mcl (CrowdNotifier);
        // SHA-256/512 from libcrypto. Tested on its own by Tests/pairing.
        .target(name: "CEncorePairing", dependencies: ["CCrypto"]),
        // The public C types (copied into include/encore.h).
        .target(name: "CEncoreTypes"),

        // The core: plain Swift, no knowledge of C callers, in layers that
        // the compiler keeps apart (a target sees only the ones below it):
        //   support → model → wire, crypto, http → key files, storage →
        //   matching → risk → protocols → services; EncoreCore re-exports them all.
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
        .target(name: "EncoreCore", dependencies: ["EncoreSupport", "EncoreModel", "EncoreWire", "EncoreCrypto", "EncoreHTTP", "EncoreKeyFiles", "EncoreStorage",
                                                  "EncoreMatching", "EncoreRisk", "EncoreProtocols", "EncoreCheckIns", "EncoreServices"]),
        // What tests, the bench and the demo make (key files, signatures, a
        // simulated user); nothing of it is in libencore.so.
        .target(name: "EncoreFixtures", dependencies: ["EncoreCore", "EncoreWire", "CCrypto", "CZlib", "CEncoreProto", "CProtobufC"]),
        // The thin C-ABI layer: @c functions, handles, status codes.
        .target(
            name: "EncoreABI",
            dependencies: ["EncoreCore", "CEncoreTypes", "CEncoreShim"],
            linkerSettings: [.unsafeFlags(sharedLibraryFlags)]
        ),
        // The `encore` command-line tool (built as encore-cli, installed as encore).
        // `make cli` links it with --static-swift-stdlib, so the installed tool
        // runs without the toolchain.
        .executableTarget(
            name: "EncoreCLI",
            dependencies: ["EncoreCore", "EncoreFixtures", "CEncoreTypes", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // Benchmarks (make bench): figures against baselines measured in the same run.
        .executableTarget(name: "EncoreBench", dependencies: ["EncoreCore", "EncoreFixtures", "EncoreWire", "CCrypto", "CZlib", "CEncoreShim"]),

        .testTarget(name: "EncoreCoreTests", dependencies: ["EncoreCore", "EncoreFixtures", "EncoreSupport", "EncoreStorage", "EncoreCheckIns", "EncoreWire",
                                                            "CEncoreProto", "CEncoreSQL", "CEncoreShim", "CZlib"]),
    ]
)
