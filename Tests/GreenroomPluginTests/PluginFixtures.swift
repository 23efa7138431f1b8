import CGreenroomPlugin
import Glibc
import GreenroomCore
import GreenroomHost
import GreenroomJSON
import Testing

/// A plugin's shared library was not built where the tests look.
struct MissingPluginLibrary: Error, CustomStringConvertible {
    let file: String
    let searched: [String]
    var description: String {
        "\(file) not found in \(searched.joined(separator: ", ")); the plugins are dynamic-library products: "
            + "run `swift build --build-tests` first"
    }
}

/// The path of a plugin product's shared library (`ArticlePlugin` -> `.../libArticlePlugin.so`): next to
/// the test bundle (same build directory and configuration), else under the repository's `.build`.
func pluginLibrary(_ product: String, filePath: String = #filePath) throws -> String {
    let file = "lib\(product).so"
    var directories: [String] = []
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    if n > 0 {
        let exe = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        directories.append(String(exe[..<(exe.lastIndex(of: "/") ?? exe.endIndex)]))
    }
    // #filePath is <repo>/Tests/GreenroomPluginTests/<file>.swift.
    let repo = filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(3).joined(separator: "/")
    directories += ["\(repo)/.build/debug", "\(repo)/.build/release"]
    for directory in directories where access("\(directory)/\(file)", R_OK) == 0 {
        return "\(directory)/\(file)"
    }
    throw MissingPluginLibrary(file: file, searched: directories)
}

/// A host for plugin tests: virtual clock, no thread pool unless a test sets one.
func makeHost() -> Host {
    var config = HostConfig()
    config.clockMode = .virtual
    return Host(config: config)
}

/// Collects what plugins log.
final class LogRecorder {
    private(set) var lines: [(plugin: String, level: PluginLogLevel, message: String)] = []
    var logger: PluginLogger {
        { [self] plugin, level, message in lines.append((plugin, level, message)) }
    }
}

/// Loads a plugin product into `host`, logging into `log`.
@discardableResult
func load(_ product: String, into host: Host, log: LogRecorder = LogRecorder()) throws -> PluginInfo {
    try PluginLoader.load(path: try pluginLibrary(product), into: host, log: log.logger)
}

/// A new instance of a loaded class.
func instance(of className: String, in host: Host, id: String = "c-1") async throws -> ContainerInstance {
    let cls = try #require(host.classes[className], "class \(className) is not registered")
    return try await cls.makeInstance(containerID: id)
}

/// The input the host gives each hook (ContainerInstance.run's contract).
func input(for hook: Hook, data: JSONValue = .null) -> JSONObject {
    switch hook {
    case .initialize, .configure: ["data": data]
    case .viewWillLayoutSubviews, .viewDidLayoutSubviews, .viewWillTransitionToSize: ["size": ["width": 390, "height": 844]]
    case .viewWillAppear, .viewIsAppearing, .viewDidAppear, .viewWillDisappear, .viewDidDisappear: ["animated": false]
    case .willMoveToParent, .didMoveToParent: ["parent": "s-1"]
    case .didReceiveMemoryWarning: ["level": "warning"]
    case .loadView, .viewDidLoad, .deinitialize, .viewSafeAreaInsetsDidChange, .viewLayoutMarginsDidChange: [:]
    }
}

/// Every hook, in the order a container lives through them: created, loaded, shown and laid out,
/// configured, warned, moved, hidden, gone.
let lifeOrder: [Hook] = [
    .initialize, .loadView, .viewDidLoad, .viewWillAppear, .viewIsAppearing, .viewSafeAreaInsetsDidChange, .viewLayoutMarginsDidChange,
    .viewWillLayoutSubviews, .viewDidLayoutSubviews, .viewDidAppear, .configure, .viewWillTransitionToSize, .didReceiveMemoryWarning, .willMoveToParent, .didMoveToParent,
    .viewWillDisappear, .viewDidDisappear, .deinitialize,
]

/// Background work the test runs when it chooses: `work` on another thread, `done` on the caller's.
final class DeferredScheduler: WorkScheduler {
    private var queued: [(work: () -> Void, done: () -> Void)] = []
    private(set) var workThreads: [pthread_t] = []
    var count: Int { queued.count }

    func queue(work: @escaping () -> Void, done: @escaping () -> Void) {
        queued.append((work, done))
    }

    /// Runs everything queued so far.
    func runAll() {
        let jobs = queued
        queued.removeAll()
        for job in jobs {
            workThreads.append(Self.onAnotherThread(job.work))
            job.done()
        }
    }

    /// Runs `body` on a new thread and waits for it; returns that thread.
    private static func onAnotherThread(_ body: @escaping () -> Void) -> pthread_t {
        final class Box { let body: () -> Void; init(_ b: @escaping () -> Void) { body = b } }
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let rc = pthread_create(&thread, nil, { ctx in
            Unmanaged<Box>.fromOpaque(ctx!).takeRetainedValue().body()
            return nil
        }, box)
        precondition(rc == 0, "pthread_create failed")
        pthread_join(thread, nil)
        return thread
    }
}
