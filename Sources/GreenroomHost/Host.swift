import GreenroomCore
import GreenroomJSON
import GreenroomRPC
import Logging

/// The host's idle tasks: each one's work is a closure it runs.
public typealias IdleTasks = TaskDispatcher<() async -> Void>

/// The host: the connection table, the method registry, the event router, the clock and timers, the idle-task
/// dispatcher and the components. It owns no descriptor: a transport feeds it bytes and writes what it
/// queues, and the plugin workers' sockets, processes and timers are the loop's (`LoopWaits`), so the same
/// host runs under libuv and in tests over in-memory connections. Its work that may wait runs as tasks on
/// the loop's executor (`CallLane`, `LoopExecutor`).
public final class Host {
    public let config: HostConfig
    public let clock: HostClock
    /// Set when the clock is virtual.
    public let virtualClock: VirtualClock?
    public let processor: RPCProcessor<HostConnection>
    public let dispatcher: IdleTasks
    /// Work at a time on the host clock: animations' ends, cool-downs, restarts.
    public private(set) lazy var timers = HostTimers(clock: clock, virtualClock: virtualClock)
    public private(set) var components: [HostDomain] = []
    /// Open connections, in the order they were opened and by id.
    public let connections = ConnectionTable()
    public private(set) var stats = HostCounters()
    public private(set) var isShuttingDown = false
    /// Container classes: built in, scripted and from plugins.
    public let classes = ClassRegistry()
    /// Background work for plugins; set by the server (nil in tests: work then runs inline).
    public var workScheduler: WorkScheduler?
    /// What the server listens on ("unix:/path", "tcp:127.0.0.1:7000"), for `host.info`.
    public var listenAddresses: [String] = []

    /// Called once when a client asks the host to shut down (after its reply is queued).
    public var onShutdownRequested: (() -> Void)?

    /// Where lines that may wait on a plugin worker run (see `CallLane`).
    public private(set) lazy var lane = CallLane(owner: self, executor: LoopExecutor(), maxWaiting: config.maxWaitingCalls)
    /// Who receives which event (subscriptions, `scope: "all"` observers, broadcasts, held events).
    public private(set) lazy var events = EventRouter(connections: connections, clock: clock, processor: processor, scopes: scopes)

    /// Each piece of work's own state on the shared parts (`CallScope`).
    let scopes = CallScopes()
    /// The last method `runsNow` was asked about, and its decider.
    var lastNowDecider: (method: String, decide: (@Sendable (Host, JSONValue?) -> Bool)?)?
    /// Whether a read line calls a method whose calls may wait. A method that can also run now
    /// (`MethodSpec.canRunNow`) is asked whether this call can (`HostMethod.runsNow`).
    func mayWait(_ read: RPCProcessor<HostConnection>.ReadLine) -> Bool {
        func waits(_ entry: RPCProcessor<HostConnection>.Incoming) -> Bool {
            guard case .request(let method, _, let raw) = entry, let spec = processor.spec(method), spec.mayWait
            else { return false }
            return !spec.canRunNow || !runsNow(method: method, params: raw)
        }
        switch read {
        case .single(let entry): return waits(entry)
        case .batch(let entries): return entries.contains(where: waits)
        case .failed: return false
        }
    }

    /// What the work being run queued and scheduled, for its virtual-clock note (in its own scope).
    var callNotes: CallNotes {
        get { scopes.current.notes }
        _modify { yield &scopes.current.notes }
    }

    /// The steps around every call, built once (`HostPipeline`).
    private(set) var pipeline: HostPipeline!

    /// `realClock` reads monotonic milliseconds; it is ignored when the config asks for a virtual clock.
    public init(config: HostConfig, realClock: @escaping () -> Double = { 0 }) {
        self.config = config
        if config.clockMode == .virtual {
            let v = VirtualClock()
            virtualClock = v
            clock = v
        } else {
            virtualClock = nil
            clock = FunctionClock(realClock)
        }
        dispatcher = TaskDispatcher(sliceMs: config.taskSliceMs)
        processor = RPCProcessor(registry: MethodRegistry(), limits: config.limits)
        registerHostMethods(into: &processor.registry)
        containers = Containers(config: config, classes: classes, events: events, timers: timers, clock: clock,
                                connections: connections, processor: processor, lane: lane, dispatcher: dispatcher)
        add(containers)
        pages = PageSessions(classes: classes, containers: containers, events: events, connections: connections,
                             dispatcher: dispatcher, trackingChanged: { [unowned self] in updateTracking() })
        add(pages)
        ranges = RangeSessions(classes: classes, containers: containers, events: events, pages: pages, clock: clock,
                               timers: timers, trackingChanged: { [unowned self] in updateTracking() })
        pages.ranges = ranges
        containers.ranges = ranges
        add(ranges)
        clientTasks = ClientTasks(dispatcher: dispatcher, events: events)
        add(clientTasks)
        pipeline = HostPipeline(
            lane: lane, containers: containers, virtualClock: virtualClock != nil,
            notes: { [unowned self] in callNotes }, withNote: { [unowned self] in noted($0, since: $1) })
        processor.pipeline = pipeline
        // `unowned(unsafe)`: the host owns the dispatcher and the timers, and outlives both.
        dispatcher.onQueuedChange = { [unowned(unsafe) self] change in callNotes.tasks += change }
        timers.onScheduled = { [unowned(unsafe) self] in callNotes.timers += 1 }
    }

    /// Range (prefetch) sessions.
    public private(set) var ranges: RangeSessions!

    /// Idle tasks clients queued (`tasks.add`).
    public private(set) var clientTasks: ClientTasks!

    /// Page sessions.
    public private(set) var pages: PageSessions!

    /// Default-mode idle tasks pause while any session tracks (drags, decelerates, animates).
    public func updateTracking() {
        dispatcher.isTracking = (pages?.anyTracking ?? false) || (ranges?.anyTracking ?? false)
    }

    /// Containers, stacks and (`containers.pools`) the prerender pools.
    public private(set) var containers: Containers!

    /// Adds a domain and its methods.
    public func add(_ component: HostDomain) {
        components.append(component)
        component.register(into: &processor.registry)
    }

    public var now: Double { clock.nowMs }

    // MARK: Connections

    /// Opens a connection. TCP connections need `host.auth` first when the host has a token.
    /// `peer` describes the other end for the logs (a TCP address, a Unix peer's uid and pid); `codec`
    /// frames its bytes (lines unless given).
    public func openConnection(kind: HostConnection.Kind, transport: ConnectionTransport?, peer: String? = nil,
                               codec: MessageCodec? = nil) -> HostConnection {
        let needsAuth = kind.needsToken && config.token != nil
        let c = HostConnection(id: connections.nextID(), kind: kind, owner: self, processor: processor, config: config,
                               authenticated: !needsAuth, codec: codec ?? LineCodec(maxMessageBytes: config.limits.maxMessageBytes))
        c.transport = transport
        connections.add(c)
        stats.accepted += 1
        events.withCause(.open(connection: c.id)) {
            events.emit(HostTopic.self, owner: c, ["kind": "connectionOpened", "connection": .string(c.id), "transport": .string(kind.rawValue)])
        }
        config.logger.info("connection opened", metadata: [
            "connection": "\(c.id)", "transport": "\(kind.rawValue)", "peer": "\(peer ?? "-")",
            "authenticated": "\(!needsAuth)"])
        return c
    }

    /// The transport lost or closed the connection: its objects are torn down (with lifecycle events to
    /// observers) and nothing else is affected. Never inside the parse loop: when this happens while the
    /// connection's lines run (a write failed as backpressure flushed), the teardown waits for them to
    /// stop. The teardown runs hooks, so it is the call lane's work (after the line of this connection
    /// that runs there, if one does).
    public func connectionClosed(_ c: HostConnection, reason: String = "closed") {
        guard !c.isClosed else { return }
        if c.isReadingLines { return c.closeAfterRead(reason: reason) }
        finishClosing(c, reason: reason)
    }

    /// The connection's lines stopped: its teardown is queued in the lane.
    func finishClosing(_ c: HostConnection, reason: String) {
        guard !c.isClosed else { return }
        c.transport = nil
        lane.connectionClosed(c, reason: reason)
    }

    /// Tears a closed connection's objects down, in the lane.
    func tearDownClosed(_ c: HostConnection, reason: String) async {
        guard !c.isClosed else { return }
        c.recording?.stop()
        await events.withCause(.close(connection: c.id)) {
            for component in components { await component.connectionClosed(c) }
            c.isClosed = true
            connections.remove(c)
            events.refreshObserver(c)
            stats.closed += 1
            events.emit(HostTopic.self, owner: c, ["kind": "connectionClosed", "connection": .string(c.id), "reason": .string(reason)])
        }
        config.logger.info("connection closed", metadata: ["connection": "\(c.id)", "reason": "\(reason)"])
    }

    /// Counts a connection refused before it was opened (limit reached, wrong peer uid).
    public func countRefused(limit: Bool) {
        if limit { stats.rejectedLimit += 1 } else { stats.rejectedPeer += 1 }
    }

    // MARK: Unauthenticated connections and the input budget

    /// How many unauthenticated connections may be open at once: `maxUnauthenticated`, at most half of
    /// `maxConnections` (at least 1), so they can never fill the slots of authenticated or Unix clients.
    public var unauthenticatedShare: Int {
        max(1, min(config.maxUnauthenticated, config.maxConnections / 2))
    }

    /// Whether a new connection of `kind` would have to authenticate and finds the share full.
    public func unauthenticatedShareFull(kind: HostConnection.Kind) -> Bool {
        kind.needsToken && config.token != nil && connections.unauthenticated >= unauthenticatedShare
    }

    /// Counts a TCP connection refused because the unauthenticated share was full.
    public func countRefusedUnauthenticated() { stats.rejectedUnauthenticated += 1 }

    /// The authentication deadline passed: the connection is refused with a -32006 line.
    public func authDeadlinePassed(_ c: HostConnection) {
        guard !c.isClosed, !c.isAuthenticated else { return }
        stats.closedAuthTimeout += 1
        config.logger.warning("refused: host.auth did not succeed in time", metadata: [
            "connection": "\(c.id)", "authTimeoutMs": "\(config.authTimeoutMs)"])
        c.refuse(RPCError(.unauthorized, "Unauthorized: host.auth did not succeed within \(config.authTimeoutMs) ms",
                          kind: "authTimeout", ["limit": "authTimeoutMs", "max": .int(config.authTimeoutMs)]))
    }

    /// A connection's partial line grew or shrank by `delta`; past the budget, the connections holding
    /// the most are refused (their partial lines dropped) until the total is within it again.
    func inputBuffered(_ delta: Int) {
        connections.bufferedInputBytes += delta
        guard delta > 0, connections.bufferedInputBytes > config.maxBufferedInputBytes else { return }
        let budget = config.maxBufferedInputBytes
        for c in connections.holdingInput() {
            guard connections.bufferedInputBytes > budget else { break }
            stats.refusedInputBudget += 1
            config.logger.warning("refused: partial input lines past the host-wide budget", metadata: [
                "connection": "\(c.id)", "held": "\(c.bufferedInputBytes)", "budget": "\(budget)"])
            c.refuse(RPCError(.limitExceeded,
                "Too many bytes buffered in partial input lines host-wide (budget \(budget)); this connection held the most",
                ["limit": "bufferedInputBytes", "max": .int(budget), "held": .int(c.bufferedInputBytes)]))
        }
    }

    func countAuthFailuresClosed() { stats.closedAuthFailures += 1 }

    func connectionAuthenticated() { connections.unauthenticated -= 1 }

    /// Counts a connection paused by backpressure.
    public func countPause() { stats.pauses += 1 }

    /// Counts an accepted WebSocket upgrade.
    public func countUpgrade() { stats.upgrades += 1 }

    /// Counts how a codec ended a connection (a WebSocket close code, an HTTP answer).
    public func countCodecClose(_ why: CodecClose) {
        switch why {
        case .webSocket(let code, _): stats.webSocketCloses[String(code), default: 0] += 1
        case .http(let status, let refusal): stats.httpAnswers[refusal ?? String(status), default: 0] += 1
        }
    }

    /// Counts a connection closed because it did not read its replies fast enough.
    public func countSlowReaderClosed(_ c: HostConnection? = nil) {
        stats.closedSlow += 1
        config.logger.warning("closing a slow reader: no reading progress for the grace period", metadata: [
            "connection": "\(c?.id ?? "-")", "graceMs": "\(config.slowReaderGraceMs)"])
    }

    /// Logs a connection refused before it was admitted (the transport writes the refusal line).
    public func logRefusal(_ reason: String, peer: String?) {
        config.logger.warning("refused a connection", metadata: ["reason": "\(reason)", "peer": "\(peer ?? "-")"])
    }

    /// Backpressure's marks for a per-connection outbound limit: past `high` queued bytes a connection
    /// stops taking requests, below `low` it resumes. Half the limit, at most 1 MiB (enough for any
    /// pipelined window of small replies), so replies alone stay under the limit except one that is
    /// larger than it; `low` is a quarter of `high`, so a reader that resumes has room for a burst.
    public static func waterMarks(outboundLimit: Int) -> (high: Int, low: Int) {
        let high = max(1, min(outboundLimit / 2, 1 << 20))
        return (high, high / 4)
    }

    public func connection(id: String) -> HostConnection? { connections[id] }

    // MARK: Idle tasks

    /// One loop pass of idle work (the server calls this from its prepare handle).
    @discardableResult
    public func runIdlePass() async -> IdleTasks.Report {
        var pass = dispatcher.beginPass(now: clock.nowMs)
        while let task = dispatcher.next(in: &pass, now: clock.nowMs) {
            let t0 = clock.nowMs
            await events.withCause(.idle(task.key)) { await task.work() }
            dispatcher.ran(task, costMs: clock.nowMs - t0, in: &pass)
        }
        return pass.report
    }

    /// Runs every runnable idle task now, whatever the slices, including those enqueued meanwhile
    /// (`tasks.drain`). Returns how many ran.
    func drainIdleTasks(limit: Int = 1_000_000) async -> Int {
        var ran = 0
        while ran < limit, let task = dispatcher.takeRunnable() {
            let t0 = clock.nowMs
            await events.withCause(.idle(task.key)) { await task.work() }
            dispatcher.ran(task, costMs: clock.nowMs - t0)
            ran += 1
        }
        return ran
    }

    // MARK: Memory and shutdown

    /// Purges across components; the reply says what each purged.
    public func memoryWarning(level: String, caller: HostConnection?) async -> JSONObject {
        stats.memoryWarnings += 1
        var purged = JSONObject()
        for component in components {
            for m in await component.memoryWarning(level: level, caller: caller).members { purged[m.key] = m.value }
        }
        events.emit(HostTopic.self, owner: nil, broadcast: true, ["kind": "memoryWarning", "level": .string(level)])
        return purged
    }

    /// `host.reset`: tears down every connection's objects with their lifecycle (each owner sees its
    /// objects go, as when it disconnects, but every connection stays open), then each component goes
    /// back to how the host started. Returns what was removed.
    public func reset(caller: HostConnection) async -> JSONObject {
        var result = JSONObject()
        var before = JSONObject()
        addCountsForReset(to: &before)
        for c in connections {
            for component in components { await component.connectionClosed(c) }
        }
        for component in components {
            for m in await component.reset(caller: caller).members { result[m.key] = m.value }
        }
        for m in before.members { result[m.key] = m.value }
        stats.resets += 1
        events.emit(HostTopic.self, owner: caller, broadcast: true, ["kind": "reset", "connection": .string(caller.id)])
        return result
    }

    /// Objects alive before a reset, from the counts `host.stats` reports.
    private func addCountsForReset(to out: inout JSONObject) {
        var stats = JSONObject()
        for component in components { component.addStats(to: &stats) }
        let sessions = stats["sessions"]?.objectValue
        out["tornDown"] = [
            "containers": stats["containers"]?.objectValue?["total"] ?? 0,
            "stacks": stats["stacks"] ?? 0,
            "pageSessions": sessions?["page"] ?? 0,
            "rangeSessions": sessions?["range"] ?? 0,
        ]
    }

    /// Asks the server to shut down gracefully once the current replies are written (`host.shutdown`:
    /// the teardown's events name that request).
    public func requestShutdown() {
        guard !isShuttingDown else { return }
        isShuttingDown = true
        shutdownCause = events.currentCause
        onShutdownRequested?()
    }

    /// A signal asked the server to shut down: the teardown's events name it.
    public func shutdownSignalled(_ name: String) {
        if shutdownCause == nil { shutdownCause = .signal(name) }
    }

    /// What asked for the shutdown (its teardown's events say so).
    private var shutdownCause: EventCause?

    /// Tears down every connection's objects (disappear, then deinit) before the process exits. All
    /// objects go first, while every observer is still connected, so `scope: "all"` observers see
    /// the whole teardown; then each connection is reported closed to those still listening.
    public func teardownAll() async {
        let open = Array(connections)
        // Transcripts end here: what the teardown writes, no client reads.
        for c in open { c.recording?.stop() }
        await events.withCause(shutdownCause ?? .signal("exit")) {
            for c in open {
                for component in components { await component.connectionClosed(c) }
            }
            for c in open {
                events.emit(HostTopic.self, owner: c, ["kind": "connectionClosed", "connection": .string(c.id), "reason": "shutdown"])
            }
        }
        for c in open {
            c.isClosed = true
            stats.closed += 1
        }
        events.forgetObservers()
        connections.removeAll()
        for step in afterTeardown { await step() }
    }

    /// Run at the end of `teardownAll`, while the loop still serves waits (plugin workers stop here,
    /// each given its grace to exit).
    var afterTeardown: [() async -> Void] = []
}

/// Host-wide counters for `host.stats`.
public struct HostCounters: Sendable {
    public var accepted = 0
    public var closed = 0
    public var closedSlow = 0
    public var rejectedLimit = 0
    public var rejectedPeer = 0
    public var rejectedUnauthenticated = 0
    public var closedAuthTimeout = 0
    public var closedAuthFailures = 0
    public var refusedInputBudget = 0
    public var pauses = 0
    public var memoryWarnings = 0
    public var resets = 0
    /// WebSocket upgrades accepted.
    public var upgrades = 0
    /// WebSocket closes by status code ("1000", "1003", ...), whichever side started them.
    public var webSocketCloses: [String: Int] = [:]
    /// HTTP answers on the listeners: "200" for a static file, else the refused rule ("origin", "host",
    /// "token", "path", "notHTTP" for HTTP on `tcp:`...).
    public var httpAnswers: [String: Int] = [:]
}

/// The host is what its connections belong to, and what its call lane orders calls for.
extension Host: ConnectionOwner, LaneOwner {
    var workerSweepIsDue: Bool { pipeline.sweeper?.needsSweep == true }
}
