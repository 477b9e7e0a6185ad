// swift-tools-version:6.1
import PackageDescription

// encore-pushd, the push registry service (docs/pushd.md): a package of its
// own so that the library, the CLI and their tests resolve and compile none
// of the server's dependencies. It builds on the core package (..) through
// its library products EncoreSupport, EncoreStorage, EncorePush and
// CCrypto; nothing of it is in libencore.so.
let package = Package(
    name: "encore-server",
    products: [
        .executable(name: "encore-pushd", targets: ["EncorePushd"]),
    ],
    dependencies: [
        .package(name: "encore", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.21.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.20.0"),
        // Operations: structured logs, metrics exported for Prometheus, and
        // SIGTERM as a graceful drain of every service of the process.
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
    ],
    targets: [
        // The push-token registry: its rules, its storage (SQLCipher through
        // EncoreStorage, or PostgreSQL) and the APNs sender.
        .target(
            name: "EncorePushRegistry",
            dependencies: [
                .product(name: "EncoreStorage", package: "encore"),
                .product(name: "EncorePush", package: "encore"),
                .product(name: "EncoreSupport", package: "encore"),
                .product(name: "CCrypto", package: "encore"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        // The service's executable: `encore-pushd serve` and `encore-pushd send`.
        .executableTarget(
            name: "EncorePushd",
            dependencies: [
                "EncorePushRegistry",
                .product(name: "CEncoreTypes", package: "encore"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // Full RELRO, as the library's and the tool's (../Package.swift).
            linkerSettings: [.unsafeFlags(["-Xlinker", "-z", "-Xlinker", "relro", "-Xlinker", "-z", "-Xlinker", "now"])]
        ),
    ]
)
