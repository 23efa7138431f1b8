import GreenroomCore
import GreenroomJSON

/// One plugin running in worker processes: the current worker, its generation (bumped each time a
/// worker ends, so instances of an earlier one are known to be lost), and its restart budget.
final class IsolatedPlugin {
    enum State: Equatable {
        case running
        /// Waiting out the backoff after a crash; restarts on the next use or sweep after `notBefore`.
        case restarting(notBefore: Double)
        /// Past the restart limit, or its library refused on restart: classes refused until `plugins.restart`.
        case failed(String)

        var name: String {
            switch self {
            case .running: "running"
            case .restarting: "restarting"
            case .failed: "failed"
            }
        }
    }

    let source: WorkerSource
    let name: String
    let version: String
    let classNames: [String]
    unowned let supervisor: PluginSupervisor
    private(set) var worker: PluginWorkerProcess?
    private(set) var generation = 1
    private(set) var state: State = .running
    /// When recent crashes happened (monotonic ms), for the per-minute restart limit and the backoff.
    private var recentCrashes: [Double] = []
    private(set) var crashes = 0
    private(set) var restarts = 0
    private(set) var lastDeath: WorkerDeath?

    init(source: WorkerSource, worker: PluginWorkerProcess, supervisor: PluginSupervisor) {
        self.source = source
        self.worker = worker
        name = worker.plugin
        version = worker.version
        classNames = worker.classNames
        self.supervisor = supervisor
        watch()
    }

    /// Watches the current worker's socket: a worker that dies between calls is noticed at once.
    private func watch() {
        guard let link = worker?.link else { return }
        let generation = self.generation
        link.watchHangUp { [weak self] in
            guard let self else { return }
            // Whatever happens to the worker runs hooks (teardown, restart): in the lane when it is on.
            let lane = supervisor.lane
            lane.enqueue(.task { [weak self] in await self?.hungUp(generation: generation) })
        }
    }

    private func unwatch() { worker?.link?.stopWatching() }

    /// The worker's socket hung up between calls: if that worker still is the current one, it died.
    private func hungUp(generation: Int) async {
        guard generation == self.generation, let worker, state == .running, worker.hasHungUp else { return }
        await workerEnded(worker.end(killing: false, reason: "closed", detail: "its socket closed"))
    }

    var config: PluginConfig { supervisor.config.plugins }

    /// Makes sure a worker runs (restarting one whose backoff passed), or says why it cannot.
    func ensureRunning(className: String) async throws(HookFailure) {
        if case .restarting(let notBefore) = state {
            let now = PluginSupervisor.monotonicMs()
            if now >= notBefore {
                await restart(reason: "backoff")
            } else {
                throw HookFailure("Plugin \(name)'s worker is restarting after a crash; retry in \(Int((notBefore - now).rounded(.up))) ms",
                                  ["plugin": .string(name), "class": .string(className), "reason": "restarting",
                                   "retryAfterMs": .int(Int((notBefore - now).rounded(.up)))])
            }
        }
        if case .failed(let why) = state {
            throw HookFailure("Plugin \(name) is marked failed (\(why)); plugins.restart {plugin: \"\(name)\"} starts it again",
                              ["plugin": .string(name), "class": .string(className), "reason": "pluginMarkedFailed"])
        }
    }

    /// Runs one request on the current worker. A worker that dies on it (crash, exit, deadline) is
    /// reported to the supervisor, and the call fails with how it ended.
    func call(_ request: [UInt8], hook: String, className: String, containerID: String) async throws(HookFailure) -> WireReader {
        guard let worker, state == .running else {
            throw HookFailure("Plugin \(name) has no running worker", ["plugin": .string(name), "class": .string(className),
                                                                      "hook": .string(hook), "reason": "restarting"])
        }
        do {
            return try await worker.call(request, timeoutMs: config.hookTimeoutMs)
        } catch {
            throw await failure(after: error, hook: hook, className: className, containerID: containerID)
        }
    }

    /// Runs hooks of this plugin's instances in one message: the replies
    /// of those that ran, in order, up to and including the first failure (nil: it ran, its reply went
    /// down with the worker). When the worker ended on the hook after those, `death` says how; it is not reported yet: the caller reports it
    /// (`failure(after:...)`) where that hook's outcome is taken, so events keep the order they would
    /// have had one hook at a time.
    func callBatch(_ batch: BatchRequest) async -> (replies: [WireReader?], death: WorkerDeath?) {
        guard let worker, state == .running else { return ([], WorkerDeath(reason: "closed", detail: "the worker is not running")) }
        return await worker.callBatch(batch, timeoutMs: config.hookTimeoutMs)
    }

    /// Tells the worker a batch follows (sent while the host plans it, so the worker's wake-up overlaps
    /// the planning).
    func wake() {
        if state == .running { worker?.wake() }
    }

    /// Reports that the worker ended during a call (it restarts or is marked failed) and returns what the
    /// hook it ended on failed with.
    func failure(after death: WorkerDeath, hook: String, className: String, containerID: String) async -> HookFailure {
        await workerEnded(death)
        let why = death.reason == "timeout"
            ? "ran past its deadline of \(config.hookTimeoutMs) ms (--hook-timeout-ms); the worker was killed"
            : "crashed: its worker \(death.detail)"
        var data = death.data
        data["plugin"] = .string(name)
        data["class"] = .string(className)
        data["hook"] = .string(hook)
        data["container"] = .string(containerID)
        return HookFailure("\(className).\(hook) \(why)", data)
    }

    /// A worker ended: instances of its generation are lost; restart with backoff, or mark it failed.
    private func workerEnded(_ death: WorkerDeath) async {
        unwatch()
        worker = nil
        generation += 1
        crashes += 1
        lastDeath = death
        let now = PluginSupervisor.monotonicMs()
        recentCrashes = recentCrashes.filter { now - $0 < 60_000 } + [now]
        var event: JSONObject = ["kind": "pluginCrashed", "plugin": .string(name), "detail": .string(death.detail)]
        for m in death.data.members { event[m.key] = m.value }
        if recentCrashes.count > config.restartLimitPerMinute {
            state = .failed("\(recentCrashes.count) crashes within a minute, over --plugin-restart-limit \(config.restartLimitPerMinute)")
            event["willRestart"] = false
            await supervisor.workerEnded(self, death: death, event: event)
            supervisor.emit(["kind": "pluginFailed", "plugin": .string(name),
                             "reason": .string("restart limit: \(recentCrashes.count) crashes within a minute")])
        } else {
            // The first crash restarts at once; each further one within the minute waits twice as long.
            let n = recentCrashes.count
            let backoff = n <= 1 ? 0 : min(2000, 50 * Double(1 << min(n - 2, 10)))
            state = .restarting(notBefore: now + backoff)
            event["willRestart"] = true
            event["backoffMs"] = .int(Int(backoff))
            await supervisor.workerEnded(self, death: death, event: event)
        }
    }

    /// Starts a new worker (after a crash's backoff, or `plugins.restart`). A library that no longer
    /// loads marks the plugin failed.
    func restart(reason: String) async {
        if let worker {
            unwatch()
            await worker.stop()
            self.worker = nil
            generation += 1
        }
        do {
            let w = try await PluginWorkerProcess.start(source, config: config, maxDepth: supervisor.config.limits.maxDepth,
                                                  lane: supervisor.lane)
            guard w.classNames == classNames, w.plugin == name else {
                await w.stop()
                let why = w.plugin == name
                    ? "its worker now declares other classes (\(w.classNames.joined(separator: ", ")))"
                    : "its worker now calls itself \(w.plugin)"
                state = .failed(why)
                supervisor.emit(["kind": "pluginFailed", "plugin": .string(name), "reason": .string(why)])
                return
            }
            worker = w
            state = .running
            watch()
            restarts += 1
            supervisor.restarted(self, reason: reason)
        } catch {
            state = .failed(error.description)
            supervisor.emit(["kind": "pluginFailed", "plugin": .string(name), "reason": .string(error.description)])
        }
    }

    /// `plugins.restart`: a fresh start and a fresh restart budget.
    func restartOnRequest() async {
        recentCrashes.removeAll()
        await restart(reason: "requested")
    }

    func stop() async {
        unwatch()
        await worker?.stop()
        worker = nil
    }

    var status: JSONObject {
        var s: JSONObject = ["isolation": "process", "kind": .string(source.kind), "state": .string(state.name),
                             "pid": worker.map { .int(Int($0.pid)) } ?? .null,
                             "crashes": .int(crashes), "restarts": .int(restarts)]
        if case .command(let argv) = source { s["command"] = .array(argv.map { .string($0) }) }
        if let worker { s["workerProtocol"] = .int(worker.protocolVersion) }
        if case .failed(let why) = state { s["failedReason"] = .string(why) }
        if let d = lastDeath { s["lastCrash"] = .object(mergingData(d.data, ["detail": .string(d.detail)])) }
        return s
    }
}

/// A class of an isolated plugin: every call is a request to the plugin's worker.
final class IsolatedPluginClass: ContainerClass {
    let name: String
    let index: Int
    unowned let plugin: IsolatedPlugin
    var pluginName: String? { plugin.name }
    var isScripted: Bool { false }
    let optionalHooks: Set<Hook>

    init(name: String, index: Int, plugin: IsolatedPlugin, optionalHooks: Set<Hook>) {
        self.name = name
        self.index = index
        self.plugin = plugin
        self.optionalHooks = optionalHooks
    }

    func makeInstance(containerID: String) async throws(HookFailure) -> ContainerInstance {
        try await plugin.ensureRunning(className: name)
        let generation = plugin.generation
        var w = WireWriter(.create)
        w.u32(index)
        w.raw(containerID.utf8)
        var reply = try await plugin.call(w.finished(), hook: "create", className: name, containerID: containerID)
        let handle = try IsolatedInstance.check(&reply, plugin: plugin.name, className: name, hook: "create", containerID: containerID)
        return IsolatedInstance(cls: self, handle: handle.value, generation: generation, containerID: containerID,
                                memoryBytes: handle.memoryBytes)
    }
}

/// A container's state in a worker: a handle valid for one worker generation.
final class IsolatedInstance: ContainerInstance {
    let cls: IsolatedPluginClass
    let handle: UInt64
    let generation: Int
    let containerID: String
    private(set) var memoryBytes: Int
    private var destroyed = false

    init(cls: IsolatedPluginClass, handle: UInt64, generation: Int, containerID: String, memoryBytes: Int) {
        self.cls = cls
        self.handle = handle
        self.generation = generation
        self.containerID = containerID
        self.memoryBytes = memoryBytes
    }

    /// Whether its worker is gone (the container's state went with it).
    var isLost: Bool { generation != cls.plugin.generation }

    /// Whether its hooks can go to its worker now (else `run` fails at once: the worker that held it ended).
    var canCall: Bool { !isLost && !destroyed }

    func run(_ hook: Hook, input: JSONObject) async throws(HookFailure) -> JSONValue? {
        guard canCall else {
            let plugin = cls.plugin
            throw HookFailure("\(cls.name).\(hook.rawValue): the worker of plugin \(plugin.name) that held container \(containerID) ended",
                              ["plugin": .string(plugin.name), "class": .string(cls.name), "hook": .string(hook.rawValue),
                               "container": .string(containerID), "reason": "workerEnded"])
        }
        var reply = try await cls.plugin.call(hookFrame(hook, input: input), hook: hook.rawValue, className: cls.name, containerID: containerID)
        return try read(&reply, hook: hook)
    }

    /// The request that runs `hook` in the worker alone (`BatchRequest` writes it into a batch).
    func hookFrame(_ hook: Hook, input: JSONObject) -> [UInt8] {
        var w = WireWriter(.hook)
        w.hookBody(hook, handle: handle, input: input)
        return w.finished()
    }

    /// What `hook` returned, from its reply: its output, or the plugin's failure.
    func read(_ reply: inout WireReader, hook: Hook) throws(HookFailure) -> JSONValue? {
        let plugin = cls.plugin
        let result = try Self.check(&reply, plugin: plugin.name, className: cls.name, hook: hook.rawValue, containerID: containerID)
        memoryBytes = result.memoryBytes
        guard !reply.rest.isEmpty else { return nil }
        // The worker enforces the output limit; a worker in another language is held to it here too.
        let limit = plugin.config.maxOutputBytes
        if reply.rest.count > limit {
            throw HookFailure("\(cls.name).\(hook.rawValue) set \(reply.rest.count) bytes of output, over the limit of \(limit) (--plugin-output-limit)",
                              ["plugin": .string(plugin.name), "class": .string(cls.name), "hook": .string(hook.rawValue),
                               "container": .string(containerID), "reason": "outputTooLarge",
                               "outputBytes": .int(reply.rest.count), "limitBytes": .int(limit)])
        }
        do {
            return try JSONCodec.decode(Array(reply.rest), maxDepth: plugin.supervisor.config.limits.maxDepth + 2)
        } catch {
            throw HookFailure("\(cls.name).\(hook.rawValue) returned output the host cannot read",
                              ["plugin": .string(plugin.name), "class": .string(cls.name), "hook": .string(hook.rawValue),
                               "container": .string(containerID), "reason": "invalidOutput"])
        }
    }

    func destroy() async {
        guard !destroyed else { return }
        destroyed = true
        guard !isLost else { return }
        var w = WireWriter(.destroy)
        w.u64(handle)
        _ = try? await cls.plugin.call(w.finished(), hook: "destroy", className: cls.name, containerID: containerID)
    }

    /// Reads an ok reply's value and memory bytes, or throws the plugin's own failure.
    static func check(_ reply: inout WireReader, plugin: String, className: String, hook: String, containerID: String)
        throws(HookFailure) -> (value: UInt64, memoryBytes: Int)
    {
        switch WorkerFrame(rawValue: reply.kind) {
        case .ok:
            if let v = reply.u64(), let m = reply.u64() { return (v, Int(clamping: m)) }
        case .failed:
            if case .object(let o)? = try? JSONCodec.decode(reply.body), case .string(let message)? = o["message"] {
                let given: JSONObject = if case .object(let d)? = o["data"] { d } else { [:] }
                // Which plugin, class, hook and container failed is the host's to say, not the worker's.
                let reasons: Set<String> = ["failed", "invalidOutput", "outputTooLarge"]
                let reason = given["reason"]?.stringValue.flatMap { reasons.contains($0) ? $0 : nil } ?? "failed"
                var data: JSONObject = ["hook": .string(hook), "plugin": .string(plugin), "class": .string(className),
                                        "container": .string(containerID), "reason": .string(reason)]
                for m in given.members where data[m.key] == nil { data[m.key] = m.value }
                throw HookFailure(message, data)
            }
        default: break
        }
        throw HookFailure("\(className).\(hook): its worker sent a malformed reply",
                          ["plugin": .string(plugin), "class": .string(className), "hook": .string(hook),
                           "container": .string(containerID), "reason": "protocol"])
    }
}
