// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "greenroom",
    products: [
        .executable(name: "greenroom", targets: ["greenroom"]),
        .library(name: "GreenroomCore", targets: ["GreenroomCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibUV", pkgConfig: "libuv",
            providers: [.apt(["libuv1-dev"])]),
        .systemLibrary(
            name: "CJansson", pkgConfig: "jansson",
            providers: [.apt(["libjansson-dev"])]),
        .target(name: "GreenroomCore"),
        .target(name: "GreenroomJSON", dependencies: ["CJansson"]),
        .target(name: "GreenroomRPC", dependencies: ["GreenroomJSON"]),
        .target(
            name: "GreenroomHost",
            dependencies: ["GreenroomRPC", "GreenroomJSON", "GreenroomCore"],
            resources: [.embedInCode("openrpc.json")]),
        .target(name: "GreenroomUV", dependencies: ["GreenroomHost", "CLibUV"]),
        .executableTarget(
            name: "greenroom",
            dependencies: [
                "GreenroomUV", "GreenroomHost", "GreenroomRPC", "GreenroomJSON", "CLibUV", "CJansson",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]),
        .testTarget(name: "GreenroomCoreTests", dependencies: ["GreenroomCore"]),
        .testTarget(name: "GreenroomJSONTests", dependencies: ["GreenroomJSON"]),
        .testTarget(name: "GreenroomRPCTests", dependencies: ["GreenroomRPC", "GreenroomJSON"]),
        .testTarget(name: "GreenroomHostTests", dependencies: ["GreenroomHost", "GreenroomRPC", "GreenroomJSON", "GreenroomCore"]),
    ],
    // The host is single-threaded by design (one libuv loop); Swift 5 mode keeps C callbacks plain.
    swiftLanguageModes: [.v5]
)
