// swift-tools-version: 6.0
// ClassicPhotos Live: the server-side, multi-viewer form of the ClassicPhotos NSOperation tutorial.
//
// Layers, each a target that builds on the one before:
//   CCurl, CJPEG, CPNG   C interop (Debian's libcurl, libjpeg-turbo, libpng)
//   Locking              a value behind a lock that ThreadSanitizer can follow
//   HTTPTransfer         libcurl transfers on one shared multi handle
//   PhotoCodecs          JPEG / PNG decode and encode, sepia, resampling
//   PhotoPipeline        records, data source, operations, PendingOperations, cache, events
//   SampleOrigin         the built-in origin: generated photos over real HTTP with latency
//   PhotoTransport       the connection guards in front of Hummingbird: limits, HTTP/2 over TLS, per-client caps
//   PhotoWeb             HTTP only: Hummingbird routes, templates, server-sent events, channels (the list, lab lanes)
//   PhotoCluster         several instances on one PostgreSQL: claims, shared results, events
//   PhotoServer          the composition: configuration, cluster, list loading, one ServiceGroup
//   ClassicPhotos        the `classic-photos` executable
import PackageDescription

/// Settings shared by every Swift target.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    // A file names every module whose members it uses, and a module's imports are internal unless
    // its public API needs them (`public import`): a target's dependencies are what its files say.
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "ClassicPhotosLive",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "classic-photos", targets: ["ClassicPhotos"]),
        .library(name: "PhotoPipeline", targets: ["PhotoPipeline"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
    ],
    targets: [
        // MARK: C interop
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CPNG",
            pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]
        ),
        .target(
            name: "CJPEG",
            linkerSettings: [.linkedLibrary("jpeg")]
        ),

        // MARK: Libraries
        .target(
            name: "Locking",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "HTTPTransfer",
            dependencies: ["CCurl", "Locking"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PhotoCodecs",
            dependencies: ["CJPEG", "CPNG"],
            // Per-pixel loops (sepia, resampling, sample generation) are 10-50x slower unoptimised;
            // debug builds optimise this one target so the tests and a debug server stay quick.
            swiftSettings: swiftSettings + [.unsafeFlags(["-O"], .when(configuration: .debug))]
        ),
        .target(
            name: "PhotoPipeline",
            dependencies: ["HTTPTransfer", "PhotoCodecs", "Locking"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SampleOrigin",
            dependencies: [
                "PhotoCodecs",
                "Locking",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The connection guards, as HummingbirdCore sits under Hummingbird: NIO and Hummingbird only.
        .target(
            name: "PhotoTransport",
            dependencies: [
                "Locking",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP2", package: "swift-nio-extras"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PhotoWeb",
            dependencies: [
                "PhotoPipeline",
                "PhotoTransport",
                "HTTPTransfer",
                "Locking",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),

        .target(
            name: "PhotoCluster",
            dependencies: [
                "PhotoPipeline",
                "HTTPTransfer",
                "Locking",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        .target(
            name: "PhotoServer",
            dependencies: [
                "PhotoWeb",
                "PhotoTransport",
                "PhotoCodecs",
                "Locking",
                "PhotoCluster",
                "PhotoPipeline",
                "HTTPTransfer",
                "SampleOrigin",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Executables
        .executableTarget(
            name: "ClassicPhotos",
            dependencies: [
                "PhotoServer",
                "PhotoCodecs",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ThumbnailBenchmark",
            dependencies: ["PhotoCodecs"],
            swiftSettings: swiftSettings
        ),
        // libFuzzer harness over the EXIF reader and the decoders: scripts/fuzz.sh builds it with
        // -sanitize=fuzzer,address and -DFUZZING; an ordinary build makes a replayer of saved inputs.
        .executableTarget(
            name: "CodecFuzzer",
            dependencies: ["PhotoCodecs"],
            swiftSettings: swiftSettings
        ),

        // MARK: Test support and tests
        .target(
            name: "TestOrigin",
            dependencies: ["Locking"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HTTPTransferTests",
            dependencies: ["HTTPTransfer", "TestOrigin", "Locking"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PhotoCodecsTests",
            // CJPEG only for fixtures (grayscale and CMYK JPEGs) the public encoder does not write.
            dependencies: ["PhotoCodecs", "CJPEG", "TestOrigin"],
            resources: [.copy("Resources")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PhotoPipelineTests",
            dependencies: ["PhotoPipeline", "PhotoCodecs", "HTTPTransfer", "TestOrigin", "Locking"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PhotoTransportTests",
            dependencies: [
                "PhotoTransport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PhotoWebTests",
            dependencies: [
                "PhotoWeb", "PhotoTransport", "PhotoServer", "PhotoPipeline", "SampleOrigin", "HTTPTransfer", "TestOrigin", "Locking",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PhotoClusterTests",
            dependencies: ["PhotoCluster", .product(name: "PostgresNIO", package: "postgres-nio")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ClassicPhotosTests",
            dependencies: [
                "ClassicPhotos", "PhotoServer", "PhotoCodecs", "PhotoWeb", "PhotoPipeline", "PhotoCluster", "SampleOrigin",
                "PhotoTransport", "HTTPTransfer", "TestOrigin",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
