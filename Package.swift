// swift-tools-version:6.1
import PackageDescription

let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "syncd",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "syncd", targets: ["syncd"]),
        .executable(name: "syncctl", targets: ["syncctl"]),
        .executable(name: "sync-server", targets: ["sync-server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // libinotifytools, linked directly (Debian ships no pkg-config file for it).
        .systemLibrary(name: "CInotify", providers: [.apt(["libinotifytools0-dev"])]),
        // Linux calls Swift's Glibc module does not expose (renameat2).
        .target(name: "CLinux"),
        // Shared vocabulary: paths, entries, chunking, hashing, wire types, errors.
        .target(
            name: "SyncCore",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict),
        // TOML configuration for syncd and sync-server.
        .target(
            name: "SyncConfig",
            dependencies: [.product(name: "TOMLKit", package: "TOMLKit")],
            swiftSettings: strict),
        // The only place that touches libinotifytools.
        .target(
            name: "Inotify",
            dependencies: ["CInotify"],
            swiftSettings: strict),
        // Running as a service: systemd's notify protocol (READY, WATCHDOG, STOPPING, RELOADING),
        // SIGHUP reloads, a log level that a reload can change
        // without libsystemd, and one process per state/data directory (ProcessLock).
        .target(
            name: "ServiceSupport",
            dependencies: [
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // A small S3 client: SigV4 signing, objects put/get (ranged)/delete/list, multipart.
        .target(
            name: "ObjectStorage",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict),
        // The server: HTTP API, metadata store (SQLite or PostgreSQL), chunk store.
        .target(
            name: "SyncServerKit",
            dependencies: [
                "SyncCore", "ServiceSupport", "ObjectStorage",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strict),
        // HTTP client of the /v1 protocol (token single-flight, retries classified).
        .target(
            name: "SyncClient",
            dependencies: [
                "SyncCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // Control protocol between syncd and syncctl (status model, request types).
        .target(
            name: "SyncControl",
            dependencies: [
                "SyncCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict),
        // The daemon: index, journal, scanner, watcher glue, engine, transfers, control server.
        .target(
            name: "SyncDaemon",
            dependencies: [
                "SyncCore", "SyncConfig", "SyncClient", "SyncControl", "Inotify", "CLinux", "ServiceSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "syncd",
            dependencies: [
                "SyncDaemon", "SyncConfig", "ServiceSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "syncctl",
            dependencies: [
                "SyncControl", "SyncConfig", "SyncCore", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "sync-server",
            dependencies: [
                "SyncServerKit", "SyncCore", "ObjectStorage", "SyncConfig", "ServiceSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // Helpers shared by the test targets (seeded PRNG, temp dirs, deadline waits): written once.
        .target(name: "TestSupport", dependencies: ["CLinux"], path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(name: "SyncCoreTests", dependencies: ["SyncCore", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "SyncConfigTests", dependencies: ["SyncConfig", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "SyncControlTests", dependencies: ["SyncControl", "SyncCore"], swiftSettings: strict),
        .testTarget(name: "ObjectStorageTests", dependencies: ["ObjectStorage", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "SyncServerTests",
            dependencies: [
                "SyncServerKit", "SyncCore", "TestSupport", "ObjectStorage",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "SyncDaemonTests",
            dependencies: [
                "SyncDaemon", "SyncCore", "SyncClient", "SyncControl", "Inotify", "TestSupport", "ServiceSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "ObjectStorage", "SyncCore", "SyncClient", "SyncControl", "SyncDaemon", "SyncConfig", "ServiceSupport", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict),
    ]
)
