import Glibc
import GreenroomCore
import GreenroomJSON
import GreenroomRPC

/// Native plugins as the host runs them: each isolated plugin in a worker process of its own, its
/// crashes contained to its own containers, its workers restarted (with backoff and a per-minute
/// limit), `plugins.restart`, the `host` events that report all this and the `host.stats` counters.
public final class PluginSupervisor: HostDomain, WorkerSweeper {
    // What it works with, given by the host (`install`), which owns them all.
    let config: HostConfig
    let classes: ClassRegistry
    let events: EventRouter
    let timers: HostTimers
    let clock: HostClock
    let lane: CallLane
    let containers: Containers
    /// Time moves only when a client says so: no timer may stand in for a request.
    let hasVirtualClock: Bool
    /// Loads a library in the host's own process (`--plugin-isolation none`).
    private let loadInProcess: (String) throws(PluginLoadError) -> PluginInfo
    private(set) var plugins: [IsolatedPlugin] = []
    /// Plugins loaded in process (`--plugin-isolation none`), by name.
    private var inProcess: Set<String> = []
    /// A worker ended: lost containers wait to be torn down and restarts to happen, before the next request.
    private(set) var needsSweep = false
    private var timeouts = 0

    /// Adds the supervisor to `host`: its method, its stats, plugin status in `host.info` and `classes.list`.
    @discardableResult
    public static func install(on host: Host) -> PluginSupervisor {
        let s = PluginSupervisor(
            config: host.config, classes: host.classes, events: host.events, timers: host.timers, clock: host.clock,
            lane: host.lane, containers: host.containers, hasVirtualClock: host.virtualClock != nil,
            loadInProcess: { [unowned host] path throws(PluginLoadError) in try PluginLoader.load(path: path, into: host) })
        host.add(s)
        host.classes.pluginStatus = { [unowned s] name in s.status(of: name) }
        host.afterTeardown.append { [unowned s] in await s.stopAll() }
        // Lost containers are torn down (and due restarts made) before any further request is handled,
        // so no request sees a container whose worker is gone.
        host.pipeline.sweeper = s
        return s
    }

    init(config: HostConfig, classes: ClassRegistry, events: EventRouter, timers: HostTimers, clock: HostClock,
         lane: CallLane, containers: Containers, hasVirtualClock: Bool,
         loadInProcess: @escaping (String) throws(PluginLoadError) -> PluginInfo) {
        self.config = config
        self.classes = classes
        self.events = events
        self.timers = timers
        self.clock = clock
        self.lane = lane
        self.containers = containers
        self.hasVirtualClock = hasVirtualClock
        self.loadInProcess = loadInProcess
    }

    /// Loads `path` as the config says: in a worker process (the default) or in process.
    @discardableResult
    public func load(path: String) async throws(PluginLoadError) -> PluginInfo {
        if config.plugins.isolation == .none {
            let info = try loadInProcess(path)
            inProcess.insert(info.name)
            return info
        }
        let resolved = PluginLoader.realPath(path) ?? path
        var st = stat()
        guard stat(path, &st) == 0 else { throw .fileNotFound(path: path) }
        return try await start(.library(resolved), path: resolved)
    }

    /// Starts `command` (split as `CommandLineWords` says) as a plugin worker: any executable that speaks
    /// the worker protocol (docs/worker-protocol.md), isolated as a library's worker is. Refused in one
    /// sentence when it cannot be split, found or started, or when what it declares cannot be used.
    @discardableResult
    public func load(command line: String) async throws(PluginLoadError) -> PluginInfo {
        let argv: [String]
        do { argv = try CommandLineWords.split(line) } catch {
            throw .worker(path: line, message: "cannot start plugin command: \(error.description)")
        }
        guard let executable = Self.executable(argv[0]) else {
            throw .worker(path: line, message: "cannot start plugin command \(CommandLineWords.join(argv)): "
                + (argv[0].contains("/") ? "\(argv[0]) is not an executable file" : "no executable \(argv[0]) in PATH"))
        }
        return try await start(.command(argv), path: executable)
    }

    /// `word` as an executable file: a path (with a `/`) as it is, else the first match in `PATH`.
    public static func executable(_ word: String) -> String? {
        if word.contains("/") { return access(word, X_OK) == 0 ? (PluginLoader.realPath(word) ?? word) : nil }
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (dir.isEmpty ? "." : String(dir)) + "/" + word
            var st = stat()
            if stat(candidate, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    private func start(_ source: WorkerSource, path: String) async throws(PluginLoadError) -> PluginInfo {
        let worker = try await PluginWorkerProcess.start(source, config: config.plugins,
                                                   maxDepth: config.limits.maxDepth, lane: lane)
        do {
            try PluginLoader.checkNamesAreFree(worker.classNames, path: source.description, in: classes)
            if let other = plugins.first(where: { $0.name == worker.plugin }) {
                throw PluginLoadError.worker(path: source.description,
                    message: "a plugin named \(worker.plugin) is already loaded (from \(other.source)); plugin names are unique")
            }
            if inProcess.contains(worker.plugin) {
                throw PluginLoadError.worker(path: source.description,
                    message: "a plugin named \(worker.plugin) is already loaded; plugin names are unique")
            }
        } catch let error as PluginLoadError {
            await worker.stop()
            throw error
        } catch {
            await worker.stop()
            throw .worker(path: source.description, message: "\(error)")
        }
        let plugin = IsolatedPlugin(source: source, worker: worker, supervisor: self)
        for (i, name) in worker.classNames.enumerated() {
            try? classes.register(IsolatedPluginClass(name: name, index: i, plugin: plugin,
                                                           optionalHooks: worker.optionalHooks[name] ?? []))
        }
        plugins.append(plugin)
        let info = PluginInfo(name: plugin.name, path: path, version: plugin.version, classes: plugin.classNames)
        classes.addPlugin(info)
        PluginLoader.logToStandardError(plugin: plugin.name, level: .info,
            message: "loaded \(source) in worker \(worker.pid) (version \(plugin.version.isEmpty ? "unknown" : plugin.version)): "
                + plugin.classNames.joined(separator: ", "))
        return info
    }

    /// Stops every worker (after the host's own graceful shutdown ran their containers' deinit).
    public func stopAll() async {
        for p in plugins { await p.stop() }
    }

    func status(of plugin: String) -> JSONObject? {
        if inProcess.contains(plugin) { return ["isolation": "none", "state": "running", "pid": .null] }
        return plugins.first { $0.name == plugin }?.status
    }

    // MARK: Crashes and restarts

    /// Before a call of a line the lane took (`HostPipeline`): the sweep, when a worker ended. A call that
    /// runs where it is read (it touches nothing: `LaneDependency.none`) may run while lane items wait,
    /// so the sweep (which restarts workers) waits for a call in the lane; until it ran, every lane item
    /// depends on everything, so it runs alone.
    func sweepIfDue(before method: String) async {
        if needsSweep { await sweep() }
    }

    func emit(_ fields: JSONObject) {
        events.emit(HostTopic.self, owner: nil, broadcast: true, fields)
    }

    func workerEnded(_ plugin: IsolatedPlugin, death: WorkerDeath, event: JSONObject) async {
        if death.reason == "timeout" { timeouts += 1 }
        events.withCause(.plugin(plugin.name)) { emit(event) }
        needsSweep = true
        // With a real clock, the sweep also runs as soon as the loop turns, even if no request follows.
        if !hasVirtualClock { timers.schedule(at: clock.nowMs) { [weak self] in await self?.sweep() } }
    }

    func restarted(_ plugin: IsolatedPlugin, reason: String) {
        emit(["kind": "pluginRestarted", "plugin": .string(plugin.name), "reason": .string(reason),
              "pid": plugin.worker.map { .int(Int($0.pid)) } ?? .null, "restarts": .int(plugin.restarts)])
    }

    /// Tears down containers whose worker ended (as a failed container is: no hook but deinit, out of
    /// its stack or page balanced) and restarts workers whose backoff passed.
    func sweep() async {
        needsSweep = false
        let system = containers
        for (id, instance) in system.instances.sorted(by: { $0.key < $1.key }) {
            guard let lost = instance as? IsolatedInstance, lost.isLost,
                  let c = system.containers[id], !c.isDestroyed, !c.isFailed else { continue }
            await events.withCause(.plugin(lost.cls.plugin.name)) {
                await system.failOutOfBand(c, hook: .deinitialize, HookFailure(
                    "The worker of plugin \(lost.cls.plugin.name) ended; container \(id) was lost with it",
                    ["plugin": .string(lost.cls.plugin.name), "class": .string(lost.cls.name), "reason": "workerEnded"]))
            }
        }
        let now = Self.monotonicMs()
        for p in plugins {
            if case .restarting(let notBefore) = p.state {
                if now >= notBefore {
                    await events.withCause(.plugin(p.name)) { await p.restart(reason: "crash") }
                } else if !hasVirtualClock {
                    timers.schedule(at: clock.nowMs + (notBefore - now)) { [weak self] in await self?.sweep() }
                }
            }
        }
    }

    static func monotonicMs() -> Double { Double(monotonicNanos()) / 1_000_000 }

    // MARK: HostDomain

    public func register(into r: inout MethodRegistry<HostConnection>) {
        r.register(PluginsRestart.self) { [unowned self] _, p async throws(RPCError) in
            let name = p.plugin
            if inProcess.contains(name) {
                throw RPCError.invalidState("Plugin \(name) runs in process (--plugin-isolation none): it cannot be restarted",
                                            ["plugin": .string(name), "isolation": "none"])
            }
            guard let plugin = plugins.first(where: { $0.name == name }) else {
                throw RPCError(.invalidParams, "Unknown plugin \(name)",
                               ["path": "plugin", "plugin": .string(name),
                                "known": .array((plugins.map(\.name) + inProcess.sorted()).map { .string($0) })])
            }
            await plugin.restartOnRequest()
            // Its containers from the previous worker go now, before the reply.
            await sweep()
            // Tearing down the old worker's containers is what was asked, not a failure of this call:
            // like the host-wide calls, it lists them in its result (`failed`).
            var result = mergingData(["plugin": .string(name)], plugin.status)
            containers.takeCallFailures(into: &result)
            return .object(result)
        }
    }

    public func addStats(to stats: inout JSONObject) {
        var running = 0, failed = 0, crashes = 0, restarts = 0
        for p in plugins {
            if p.worker != nil { running += 1 }
            if case .failed = p.state { failed += 1 }
            crashes += p.crashes
            restarts += p.restarts
        }
        stats["plugins"] = [
            "workers": .int(running), "failed": .int(failed), "crashes": .int(crashes),
            "restarts": .int(restarts), "timeouts": .int(timeouts), "inProcess": .int(inProcess.count),
        ]
    }
}
