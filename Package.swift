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

/// The core's modules (the shared layers and the features): what the
/// C-ABI layer and the tool import, each of them all (a file a feature). An
/// incremental build recompiles a module when a module it depends on
/// changes; a target declares only the modules its files import
/// (scripts/check-imports.py, in make check-abi).
let coreModules: [Target.Dependency] = ["EncoreSupport", "EncoreWire", "EncoreCrypto", "EncoreHTTP", "EncoreStorage",
                                        "EncoreKeyFiles", "EncoreExposure", "EncoreRisk", "EncoreCrowdNotifier",
                                        "EncoreCheckIns", "EncoreCheck", "EncoreTestResults", "EncoreSync", "EncorePush", "EncoreTracing", "EncoreClient"]

let package = Package(
    name: "encore",
    products: [
        .library(name: "encore", type: .dynamic, targets: ["EncoreABI"]),
        .executable(name: "encore-cli", targets: ["EncoreCLI"]),
        .executable(name: "encore-bench", targets: ["EncoreBench"]),
        .executable(name: "encored", targets: ["Encored"]),
        .executable(name: "encore-notify", targets: ["EncoreNotify"]),
        // What the push registry service (server/, a package of its own)
        // builds on; static so that nothing of it is a second libencore.
        .library(name: "EncoreSupport", type: .static, targets: ["EncoreSupport"]),
        .library(name: "EncoreStorage", type: .static, targets: ["EncoreStorage"]),
        .library(name: "EncorePush", type: .static, targets: ["EncorePush"]),
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
        // sd-bus (Debian: libsystemd-dev): the D-Bus side of encored (its
        // radio included), encore-notify and `encore device`. Linked into those programs only,
        // never into libencore.so.
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
        // One HTTP(S) request through libcurl (Debian: libcurl4, headers from
        // libcurl4-openssl-dev): the built-in transport's policy (TLS
        // verified, no redirects, caps). libcurl is loaded with dlopen on the
        // first request, never linked: the thirty libraries it brings cost
        // every start of the tool and of a host that sends nothing.
        .target(name: "CEncoreHTTP", dependencies: ["CLibraryLoader"], cSettings: fortified),
        // A library loaded with dlopen on first use instead of linked
        // (libcurl, libsystemd): its functions resolved, a clear error when
        // it is missing.
        .target(name: "CLibraryLoader", cSettings: fortified),
        // BLS12-381 and its pairing, bit-compatible with mcl (CrowdNotifier);
        // SHA-256/512 from libcrypto. Tested on its own by Tests/pairing.
        .target(name: "CEncorePairing", dependencies: ["CCrypto"], cSettings: fortified),
        // The public C types (copied into include/encore.h).
        .target(name: "CEncoreTypes", cSettings: fortified),

        // The core: plain Swift, no knowledge of C callers, in modules the
        // compiler keeps apart (a target sees only the ones it declares;
        // scripts/swift-test.sh builds with the explicit import check).
        // docs/architecture.md draws the graph and says what each holds.
        // Small shared layers, which know no feature: support (errors,
        // JSON, bytes, locks, time), wire formats, crypto, the storage
        // engine (each feature brings its tables), HTTP and operations.
        // The push registry service is a package of its own (server/): it
        // builds on support, storage and push through the library products
        // above, and nothing of it is resolved here.
        .target(name: "EncoreSupport"),
        .target(name: "EncoreWire", dependencies: ["EncoreSupport", "CZlib", "CProtobufC", "CEncoreShim"]),
        .target(name: "EncoreCrypto", dependencies: ["EncoreSupport", "CCrypto"]),
        .target(name: "EncoreStorage", dependencies: ["EncoreSupport", "CEncoreSQL"]),
        .target(name: "EncoreHTTP", dependencies: ["EncoreSupport", "CEncoreHTTP"]),
        // The features, one module each: its types, codecs and logic, its
        // tables, errors, JSON and operations. Each declares its own error
        // kinds (`extension EncoreError.Kind`).
        // Key files: the export format, signatures, trust lists, the cache.
        .target(name: "EncoreKeyFiles", dependencies: ["EncoreSupport", "EncoreWire", "EncoreCrypto", "EncoreStorage", "CEncoreProto", "CProtobufC", "CEncoreShim"]),
        // Exposure notification: own keys and RPIs, sightings, the tracing
        // history, the matching engine, windows and the v1 summary.
        .target(name: "EncoreExposure", dependencies: ["EncoreSupport", "EncoreCrypto", "EncoreStorage", "EncoreKeyFiles", "CEncoreShim"]),
        // CWA's risk models (v2 on windows, v1) and their configurations.
        .target(name: "EncoreRisk", dependencies: ["EncoreSupport", "EncoreExposure"]),
        // CrowdNotifier (SwissCovid, NotifyMe), pure: its BLS12-381 in
        // CEncorePairing, the IBE, venues and their QR codes (the
        // TraceLocation CWA's event codes share), trace keys, the matching
        // of trace keys against a visit's hours, the authority's side. No
        // store: the visits and their matches are the check-ins' tables.
        .target(name: "EncoreCrowdNotifier", dependencies: ["EncoreSupport", "EncoreWire", "EncoreCrypto",
                                                           "CEncoreProto", "CProtobufC", "CEncorePairing", "CSodium"]),
        // Check-ins: CWA event registration (QR codes and the app's rules,
        // warnings, presence tracing risk, the organizer side) and the one
        // list of visits, CWA's and CrowdNotifier's, in one table: a
        // CrowdNotifier venue's hours and matches stored, trace keys
        // matched into the store.
        .target(name: "EncoreCheckIns", dependencies: ["EncoreSupport", "EncoreWire", "EncoreCrypto", "EncoreStorage", "EncoreKeyFiles", "EncoreRisk",
                                                      "EncoreCrowdNotifier", "CEncoreProto", "CProtobufC", "CQRencode"]),
        // The exposure check: matching, risk and check-in risk combined,
        // its results.
        .target(name: "EncoreCheck", dependencies: ["EncoreSupport", "EncoreCrypto", "EncoreStorage", "EncoreKeyFiles", "EncoreExposure", "EncoreRisk",
                                                   "EncoreCheckIns", "EncoreTracing"]),
        // Test results (lab and rapid) and the submission of keys and check-ins.
        .target(name: "EncoreTestResults", dependencies: ["EncoreSupport", "EncoreWire", "EncoreCrypto", "EncoreHTTP", "EncoreStorage", "EncoreKeyFiles",
                                                         "EncoreExposure", "EncoreCheckIns", "CEncoreProto", "CProtobufC"]),
        // Background sync: CWA's distribution and DP-3T, the planner, the
        // app configuration, the sync state and the sync operation.
        .target(name: "EncoreSync", dependencies: ["EncoreSupport", "EncoreWire", "EncoreCrypto", "EncoreHTTP", "EncoreStorage", "EncoreKeyFiles",
                                                  "EncoreExposure", "EncoreRisk", "EncoreCheckIns", "EncoreCheck",
                                                  "CEncoreProto", "CProtobufC"]),
        // Silent push: the rule, the registration and its wire formats
        // (the registry service uses them).
        .target(name: "EncorePush", dependencies: ["EncoreSupport", "EncoreWire", "EncoreCrypto", "EncoreHTTP", "EncoreStorage", "CEncoreProto", "CProtobufC"]),
        // Tracing: the advertisement and its rotation, the scan schedule,
        // scan ingestion, calibration (sans-I/O: a radio host such as
        // encored drives it).
        .target(name: "EncoreTracing", dependencies: ["EncoreSupport", "EncoreCrypto", "EncoreStorage", "EncoreKeyFiles", "EncoreExposure"]),
        // The client: the one place where a store, its servers, trust list,
        // clock and transport are put together, and the features composed
        // (their tables, the facts one feature asks of another); the C
        // handle, the CLI and (through C) Python reach every feature
        // through it.
        .target(name: "EncoreClient", dependencies: ["EncoreSupport", "EncoreCrypto", "EncoreHTTP", "EncoreStorage", "EncoreKeyFiles", "EncoreExposure",
                                                    "EncoreCheckIns", "EncoreCheck", "EncoreTestResults",
                                                    "EncoreSync", "EncorePush", "EncoreTracing"]),
        // What tests, the bench and the demo make; nothing of it is in
        // libencore.so. Key files (written, zipped, signed: a key server's
        // side), on the key files' feature and the shared layers alone, so
        // that its tests can use them too; and what spans features (trace
        // warning packages, a simulated user).
        .target(name: "EncoreKeyFilesFixtures", dependencies: ["EncoreSupport", "EncoreWire", "EncoreCrypto", "EncoreKeyFiles", "CEncoreProto", "CCrypto", "CZlib"]),
        .target(name: "EncoreFixtures", dependencies: ["EncoreSupport", "EncoreWire", "EncoreCrypto", "EncoreKeyFiles", "EncoreExposure", "EncoreCrowdNotifier", "EncoreCheckIns", "EncoreTestResults",
                                                      "EncoreKeyFilesFixtures", "CEncoreProto"]),
        // The thin C-ABI layer: @c functions, handles, status codes.
        .target(
            name: "EncoreABI",
            dependencies: ["CEncoreTypes", "CEncoreShim"] + coreModules,
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
            dependencies: ["EncoreFixtures", "EncoreKeyFilesFixtures", "CEncoreTypes", "EncoreCommandSupport", "CDeviceClient",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")] + coreModules,
            // FoundationEssentials (of swift-argument-parser) needs its two
            // helper archives named: the autolinking of a static runtime
            // leaves them out.
            linkerSettings: [.unsafeFlags(bindNow + ["-static-stdlib"]), .linkedLibrary("_FoundationCollections"), .linkedLibrary("_FoundationCShims")]
        ),
        // What the tool and the daemons share: the store key from the
        // environment or a credential, --trust and the sync's servers, a
        // daemon's clock, log, exit statuses and --config file.
        .target(name: "EncoreCommandSupport", dependencies: ["EncoreSupport", "EncoreWire", "EncoreCrypto", "EncoreStorage", "EncoreKeyFiles", "EncoreClient", "EncoreSync",
                                                            .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // encored's radio: its link to BlueZ over sd-bus, in C (sd-bus's
        // vtable macros do not import into Swift).
        .target(name: "CTracingBus", dependencies: ["CSystemd"], cSettings: fortified),
        // The tool's client of encored's D-Bus API (`encore device`), in C
        // over sd-bus (headers from libsystemd-dev): libsystemd is loaded
        // with dlopen by its first call, never linked, so that the tool's
        // other commands do not map it; never in libencore.so.
        .target(name: "CDeviceClient", dependencies: ["CLibraryLoader"], cSettings: fortified),
        // encored's object on the system bus (org.encore.Exposure1), its
        // polkit questions and the bus driver's signals, in C over sd-bus.
        .target(name: "CExposureBus", dependencies: ["CSystemd", "CBusQueue"], cSettings: fortified),
        // The events queue of the sd-bus layers of encored and encore-notify.
        .target(name: "CBusQueue", cSettings: fortified),
        // The device service's logic without I/O: its properties read from
        // the store, what is due when, the polkit action of each call, the
        // errors on the bus (docs/device.md).
        .target(name: "EncoreDevice", dependencies: ["EncoreSupport", "EncoreStorage", "EncoreClient", "EncoreCheck", "EncoreSync", "EncoreTestResults"]),
        // encored: the device service (docs/device.md), tracing over BlueZ
        // included (encore-tracingd folded into it). Its runtime linked
        // statically, as the tool's; libsystemd is linked into it alone.
        .executableTarget(
            name: "Encored",
            dependencies: ["EncoreDevice", "EncoreClient", "EncoreCommandSupport", "CExposureBus", "CTracingBus", "CEncoreTypes", "EncoreHTTP", "EncoreStorage",
                           "EncoreSupport", "EncoreSync", "EncoreCheck", "EncoreCheckIns", "EncoreTestResults", "EncoreKeyFiles", "EncoreTracing",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            linkerSettings: [.unsafeFlags(bindNow + ["-static-stdlib"]), .linkedLibrary("_FoundationCollections"), .linkedLibrary("_FoundationCShims")]
        ),
        // encore-notify's two buses (the service on the system bus, the
        // desktop's notifications on the session bus), in C over sd-bus.
        .target(name: "CNotifyBus", dependencies: ["CSystemd", "CBusQueue"], cSettings: fortified),
        // encore-notify: the device service's session agent (docs/device.md).
        .executableTarget(
            name: "EncoreNotify",
            dependencies: ["EncoreDevice", "EncoreCommandSupport", "EncoreSupport", "CNotifyBus", "CEncoreTypes", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            linkerSettings: [.unsafeFlags(bindNow + ["-static-stdlib"]), .linkedLibrary("_FoundationCollections"), .linkedLibrary("_FoundationCShims")]
        ),
        // Benchmarks (make bench): figures against baselines measured in the same run.
        .executableTarget(name: "EncoreBench", dependencies: ["EncoreSupport", "EncoreWire", "EncoreCrypto", "EncoreHTTP", "EncoreStorage", "EncoreKeyFiles",
                                                      "EncoreExposure", "EncoreRisk", "EncoreCrowdNotifier", "EncoreCheckIns", "EncoreCheck",
                                                      "EncoreTestResults", "EncoreSync", "EncoreTracing", "EncoreClient", "EncoreFixtures", "EncoreKeyFilesFixtures",
                                                      "CCrypto", "CZlib", "CEncoreShim", "CEncoreProto"]),

        // The Swift tests, one target a module, named after it: the module
        // it tests and what it needs. A feature's stands on that feature
        // and the shared layers alone (scripts/gen-architecture.py checks
        // it): what it needs of another feature it builds from raw bytes or
        // its feature's own types, and a test of several features together
        // is the client's (EncoreClientTests). What test targets share
        // ships in no product: EncoreTestSupport, on the shared layers
        // only (the test data's place, a temporary directory, the kind of
        // a thrown error, raw protobuf fields), and a feature's fixtures
        // that its tests share with the client's, `<Feature>Fixtures`, on
        // that feature and the shared layers (EncoreKeyFilesFixtures above;
        // the check-ins' QR payloads, CrowdNotifier's venues).
        .target(name: "EncoreTestSupport", dependencies: ["EncoreSupport", "EncoreWire", "CEncoreProto"], path: "Tests/EncoreTestSupport"),
        .target(name: "EncoreCheckInsFixtures", dependencies: ["EncoreCheckIns", "EncoreCrypto", "EncoreWire", "EncoreTestSupport", "CEncoreProto"], path: "Tests/EncoreCheckInsFixtures"),
        .target(name: "EncoreCrowdNotifierFixtures", dependencies: ["EncoreCrowdNotifier", "EncoreWire", "EncoreTestSupport", "CEncoreProto"],
                path: "Tests/EncoreCrowdNotifierFixtures"),
        .testTarget(name: "EncoreSupportTests", dependencies: ["EncoreSupport"]),
        .testTarget(name: "EncoreCryptoTests", dependencies: ["EncoreCrypto", "EncoreSupport", "EncoreTestSupport"]),
        .testTarget(name: "EncoreStorageTests", dependencies: ["EncoreStorage", "EncoreSupport", "EncoreTestSupport", "CEncoreSQL"]),
        .testTarget(name: "EncoreHTTPTests", dependencies: ["EncoreHTTP", "EncoreSupport", "EncoreTestSupport"]),
        .testTarget(name: "EncoreKeyFilesTests", dependencies: ["EncoreKeyFiles", "EncoreKeyFilesFixtures", "EncoreSupport", "EncoreWire", "EncoreCrypto", "EncoreTestSupport",
                                                               "CEncoreProto", "CEncoreShim", "CZlib"]),
        .testTarget(name: "EncoreExposureTests", dependencies: ["EncoreExposure", "EncoreSupport", "EncoreCrypto", "EncoreStorage", "EncoreWire", "EncoreTestSupport", "CEncoreShim"]),
        .testTarget(name: "EncoreRiskTests", dependencies: ["EncoreRisk", "EncoreSupport", "EncoreTestSupport"]),
        .testTarget(name: "EncorePushTests", dependencies: ["EncorePush", "EncoreHTTP", "EncoreSupport", "EncoreTestSupport"]),
        .testTarget(name: "EncoreTestResultsTests", dependencies: ["EncoreTestResults", "EncoreHTTP", "EncoreSupport", "EncoreTestSupport", "CEncoreProto", "CCrypto"]),
        .testTarget(name: "EncoreSyncTests", dependencies: ["EncoreSync", "EncoreHTTP", "EncoreSupport"]),
        .testTarget(name: "EncoreCrowdNotifierTests", dependencies: ["EncoreCrowdNotifier", "EncoreCrowdNotifierFixtures", "EncoreSupport", "EncoreTestSupport"]),
        .testTarget(name: "EncoreCheckInsTests", dependencies: ["EncoreCheckIns", "EncoreCheckInsFixtures", "EncoreSupport", "EncoreCrypto", "EncoreWire", "EncoreStorage", "EncoreTestSupport"]),
        .testTarget(name: "EncoreTracingTests", dependencies: ["EncoreTracing", "EncoreStorage", "EncoreSupport", "EncoreCrypto"]),
        // The client's: what tests several features together, on a store
        // with every feature's tables (the exposure check across features,
        // the store as the client opens it, its migrations, its tables), and
        // a feature's tests that need another feature (matching key files,
        // tracing into exposure's tables, risk on exposure windows, the
        // check-ins' CrowdNotifier visits, a submission's keys), in a
        // folder named after the feature they are of.
        .testTarget(name: "EncoreClientTests", dependencies: ["EncoreClient", "EncoreTestResults", "EncoreSync", "EncoreCheck", "EncoreSupport", "EncoreCrypto", "EncoreStorage",
                                                             "EncoreKeyFiles", "EncoreExposure", "EncoreRisk", "EncoreCheckIns", "EncoreCrowdNotifier", "EncoreTracing",
                                                             "EncoreFixtures", "EncoreKeyFilesFixtures", "EncoreCheckInsFixtures", "EncoreCrowdNotifierFixtures",
                                                             "EncoreTestSupport", "EncoreWire", "CEncoreProto"]),
    ]
)

// The tests are built in release mode on the modules `make lib cli` compiled
// (scripts/swift-test.sh), but their own code unoptimized and file by file:
// optimizing the test code took minutes and tests nothing more.
for target in package.targets where target.type == .test || target.path?.hasPrefix("Tests/") == true {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Onone", "-no-whole-module-optimization"]),
                                                           // A member another module declares (a store's sightings,
                                                           // a location's description) needs that module imported:
                                                           // a test target's declared modules are all it uses.
                                                           .enableUpcomingFeature("MemberImportVisibility")]
}

// The targets under Sources/ reach a member (`bytes.hex`, `.confirmedTest`)
// only through an import of the module that declares it, as they reach a
// type: SE-0444, Swift 7's rule. Without it a file uses any module some
// other file loaded, and its imports say less than what it uses; with it
// the imports, and through SwiftPM's explicit import check the declared
// graph, are the real ones (scripts/check-imports.py holds them to what the
// files use).
for target in package.targets where target.type != .test && target.type != .system && target.path == nil {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}
