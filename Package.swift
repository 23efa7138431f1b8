// swift-tools-version: 6.0
import PackageDescription

// No target carries unsafe flags: a package that depends on this one by version (a plugin built on
// GreenroomPluginKit) could not build otherwise. The release build's own flags (full cross-module
// optimisation, no dynamic exclusivity checks) are given on the command line: `make release`, `make run`.

let package = Package(
    name: "greenroom",
    products: [
        .executable(name: "greenroom", targets: ["greenroom"]),
        .executable(name: "greenroom-host", targets: ["greenroom-host"]),
        .library(name: "GreenroomCore", targets: ["GreenroomCore"]),
        // Native plugins (docs/plugins.md): the C ABI, the Swift helpers, and example plugins as shared libraries.
        .library(name: "GreenroomPluginKit", targets: ["GreenroomPluginKit"]),
        .library(name: "ArticlePlugin", type: .dynamic, targets: ["ArticlePlugin"]),
        .library(name: "CounterPlugin", type: .dynamic, targets: ["CounterPlugin"]),
        // Misbehaves on request (abort, NULL, exit, sleep, spin, oversized output): rehearse a plugin crash.
        .library(name: "CrashyPlugin", type: .dynamic, targets: ["CrashyPlugin"]),
        // Test fixtures for the loader's errors (built so the tests can dlopen them).
        .library(name: "BadABIPlugin", type: .dynamic, targets: ["BadABIPlugin"]),
        .library(name: "NoEntryPlugin", type: .dynamic, targets: ["NoEntryPlugin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibUV", pkgConfig: "libuv",
            providers: [.apt(["libuv1-dev"])]),
        .systemLibrary(
            name: "CJansson", pkgConfig: "jansson",
            providers: [.apt(["libjansson-dev"])]),
        // WebSocket frames (RFC 6455). Debian ships no pkg-config file for wslay: the module map links it.
        .systemLibrary(name: "CWslay", providers: [.apt(["libwslay-dev"])]),
        // SHA-1 and base64 for the WebSocket handshake.
        .systemLibrary(
            name: "CNettle", pkgConfig: "nettle",
            providers: [.apt(["nettle-dev"])]),
        .target(name: "GreenroomCore"),
        .target(name: "GreenroomJSON", dependencies: ["CJansson"]),
        .target(name: "GreenroomRPC", dependencies: ["GreenroomJSON"]),
        .target(
            name: "GreenroomHost",
            dependencies: [
                "GreenroomRPC", "GreenroomJSON", "GreenroomCore", "CGreenroomPlugin",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The `ws:` listener's codec: HTTP request heads, the upgrade and its browser-safety rules, frames
        // by wslay, and the static files it serves (the JavaScript client, and examples/web's demo and
        // inspector pages, linked under Static/web/ with one name each so that their embedded names differ).
        .target(
            name: "GreenroomWeb",
            dependencies: ["GreenroomRPC", "GreenroomJSON", "CWslay", "CNettle"],
            resources: [.embedInCode("Static/index.html"), .embedInCode("Static/greenroom.js"), .embedInCode("Static/greenroom.d.ts"), .embedInCode("Static/web/demo_article.js"), .embedInCode("Static/web/demo_backend.js"), .embedInCode("Static/web/demo_classes.js"), .embedInCode("Static/web/demo_demo.css"), .embedInCode("Static/web/demo_feed.js"), .embedInCode("Static/web/demo_index.html"), .embedInCode("Static/web/demo_main.js"), .embedInCode("Static/web/demo_pager.js"), .embedInCode("Static/web/inspect_index.html"), .embedInCode("Static/web/inspect_inspect.css"), .embedInCode("Static/web/inspect_main.js"), .embedInCode("Static/web/inspect_model.js"), .embedInCode("Static/web/inspect_view.js")]),
        // The plugin worker process (`greenroom plugin-worker`): it blocks on its socket, as a process that
        // does one thing at a time may; the host's side never does.
        .target(
            name: "GreenroomWorker",
            dependencies: ["GreenroomHost", "GreenroomCore", "GreenroomJSON", "GreenroomRPC"]),
        .target(
            name: "GreenroomUV",
            dependencies: ["GreenroomHost", "GreenroomWeb", "GreenroomRPC", "GreenroomJSON", "CLibUV", .product(name: "Logging", package: "swift-log")]),
        // What `serve` runs: the host behind its listeners, from options given as plain values; and
        // `greenroom-host`, the small executable `serve` hands them to (no argument parser, so no
        // Foundation in the host's process).
        .target(
            name: "GreenroomServe",
            dependencies: ["GreenroomUV", "GreenroomHost", "GreenroomJSON", .product(name: "Logging", package: "swift-log")]),
        .executableTarget(name: "greenroom-host", dependencies: ["GreenroomServe"]),
        .executableTarget(
            name: "greenroom",
            dependencies: [
                "GreenroomServe", "GreenroomUV", "GreenroomHost", "GreenroomWorker", "GreenroomRPC", "GreenroomJSON", "CLibUV", "CJansson",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The libFuzzer target (scripts/fuzz.sh builds it with -sanitize=fuzzer into .build-fuzz); a plain
        // build makes a replayer of saved inputs.
        .executableTarget(name: "GreenroomFuzz", dependencies: ["GreenroomHost", "GreenroomRPC", "GreenroomJSON"]),
        .testTarget(name: "GreenroomCoreTests", dependencies: ["GreenroomCore"]),
        .testTarget(name: "GreenroomToolTests", dependencies: ["greenroom", "GreenroomServe", "GreenroomJSON"]),
        .testTarget(name: "GreenroomJSONTests", dependencies: ["GreenroomJSON"]),
        .testTarget(name: "GreenroomRPCTests", dependencies: ["GreenroomRPC", "GreenroomJSON"]),
        .testTarget(name: "GreenroomUVTests", dependencies: ["GreenroomUV", "GreenroomHost"]),
        .testTarget(name: "GreenroomWebTests", dependencies: ["GreenroomWeb", "GreenroomRPC", "GreenroomJSON"]),
        .testTarget(name: "GreenroomHostTests", dependencies: ["GreenroomHost", "GreenroomRPC", "GreenroomJSON", "GreenroomCore"]),
        .target(name: "CGreenroomPlugin"),
        .target(name: "GreenroomPluginKit", dependencies: ["CGreenroomPlugin", "GreenroomJSON", "GreenroomCore"]),
        .target(name: "ArticlePlugin", dependencies: ["GreenroomPluginKit"], path: "examples/plugins/Article"),
        .target(name: "CounterPlugin", dependencies: ["CGreenroomPlugin", "CJansson"], path: "examples/plugins/Counter", publicHeadersPath: "."),
        .target(name: "CrashyPlugin", dependencies: ["CGreenroomPlugin", "CJansson"], path: "examples/plugins/Crashy", publicHeadersPath: "."),
        .target(name: "BadABIPlugin", dependencies: ["CGreenroomPlugin"], path: "Tests/Fixtures/BadABIPlugin", publicHeadersPath: "."),
        .target(name: "NoEntryPlugin", dependencies: ["CGreenroomPlugin"], path: "Tests/Fixtures/NoEntryPlugin", publicHeadersPath: "."),
        .testTarget(
            name: "GreenroomPluginTests",
            dependencies: ["GreenroomHost", "GreenroomUV", "GreenroomJSON", "GreenroomCore", "CGreenroomPlugin", "CLibUV"]),
    ],
    swiftLanguageModes: [.v6]
)
