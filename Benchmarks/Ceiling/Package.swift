// swift-tools-version: 6.0
// The stack's ceiling: SwiftNIO alone (no Hummingbird, no guards, no router) serving fixed bytes, so the
// throughput benchmarks can say how far from nginx the stack itself is, and how far our server is from it.
// Its own package: the product's build and tests never compile it. `Benchmarks/http_throughput.py
// --ceiling` and `Benchmarks/http2_throughput.py --ceiling` build and start it.
import PackageDescription

let package = Package(
    name: "NIOCeiling",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
    ],
    targets: [
        .executableTarget(
            name: "NIOCeiling",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
            ]
        ),
    ]
)
