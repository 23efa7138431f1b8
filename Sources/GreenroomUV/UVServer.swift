import CLibUV
import Glibc
import GreenroomHost
import GreenroomJSON
import GreenroomRPC
import GreenroomWeb
import Logging

/// The libuv side of the host: its listeners' connections, write coalescing, the prepare/check/idle
/// hooks that drive idle tasks, flushes and the call lane, the real-clock timer, and graceful shutdown.
/// The other handle roles have types of their own: `UVWatchdog` (slow readers, deadlines),
/// `UVSignals`, `UVWorkerSockets` (plugin workers and parked calls), the listeners.
public final class UVServer {
    public let host: Host
    let loop: UnsafeMutablePointer<uv_loop_t>
    let readBufferSize = 256 * 1024
    let readBuffer: UnsafeMutableRawPointer

    /// Every way in (the Unix socket first): each binds, accepts and gives its connections a codec.
    private let listeners: [Listener]
    public private(set) var listenAddresses: [String] = []

    private var connections: [ObjectIdentifier: UVConnection] = [:]
    private var dirty: [UVConnection] = []
    /// Paused connections whose queue drained below the low-water mark: resumed after this pass's I/O.
    private var resumable: [UVConnection] = []
    let outboundLimit: Int
    /// Unauthenticated connections are refused (-32006) when `host.auth` has not succeeded by then.
    let authTimeoutMs: UInt64
    /// How long a refused peer has to close its side after reading the refusal.
    let refusalDrainMs: UInt64 = 2000
    /// Slow readers, authentication deadlines and refused peers' drains.
    private(set) var watchdog: UVWatchdog!
    private var prepare: UnsafeMutablePointer<uv_prepare_t>!
    private var check: UnsafeMutablePointer<uv_check_t>!
    private var idle: UnsafeMutablePointer<uv_idle_t>!
    private var timer: UnsafeMutablePointer<uv_timer_t>!
    private var signals: UVSignals?
    /// Wakes the loop when a task's job is queued (`LoopExecutor.wake`).
    private var wakeup: UVWakeup?
    private var graceTimer: UnsafeMutablePointer<uv_timer_t>?
    /// How long shutdown waits for clients to read what is queued for them before closing anyway.
    public var shutdownGraceMs: UInt64 = 2000
    private var idleActive = false
    private var shutdownPending = false
    private var shuttingDown = false
    /// Plugin workers' sockets: hang-ups between calls, and the replies parked calls wait for.
    private(set) var workerSockets: UVWorkerSockets!
    /// Timers, an idle pass or shutdown already wait in the lane.
    private var timersQueued = false
    private var idlePassQueued = false
    private var shutdownQueued = false

    /// A real clock for a `Host`: monotonic milliseconds since this call (libuv's high-resolution time).
    public static func monotonicClock() -> () -> Double {
        let start = uv_hrtime()
        return { Double(uv_hrtime() - start) / 1_000_000 }
    }

    /// Creates the loop for `host` (built by the caller, with `monotonicClock()` as its real clock) and
    /// its listeners (`ListenOptions.listeners(for:)`); nothing listens before `listen()`.
    public init(host: Host, listeners: [Listener]) throws {
        self.host = host
        self.listeners = listeners
        let config = host.config
        outboundLimit = config.maxOutboundBytes
        authTimeoutMs = UInt64(max(1, config.authTimeoutMs))
        JSONCodec.useArenaOnThisThread()
        loop = allocateZeroed(uv_loop_t.self)
        try uvCheck(uv_loop_init(loop), "uv_loop_init")
        readBuffer = UnsafeMutableRawPointer.allocate(byteCount: readBufferSize, alignment: 16)
        host.workScheduler = UVWorkScheduler(loop: loop)
        if config.readAhead { host.processor.startReadingAhead() }
        loop.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        host.timers.onChanged = { [unowned self] in self.rearmTimer() }
        host.onShutdownRequested = { [unowned self] in self.shutdownPending = true }
        try installHooks()
        watchdog = UVWatchdog(loop: loop, outboundLimit: outboundLimit,
                              slowReaderGraceMs: UInt64(max(1, config.slowReaderGraceMs)), authTimeoutMs: authTimeoutMs,
                              refusalDrainMs: refusalDrainMs,
                              authDeadlinePassed: { [unowned host] c in host.authDeadlinePassed(c) },
                              slowReaderClosed: { [unowned host] c in host.countSlowReaderClosed(c) })
        workerSockets = UVWorkerSockets(loop: loop, readBuffer: readBuffer, readBufferSize: readBufferSize)
        host.lane.waits = workerSockets
        host.lane.isDriven = true
        // Work queued from a callback runs before the loop blocks: this turn's poll does not block.
        host.lane.onQueued = { [unowned self] in uv_stop(self.loop) }
        // A task's job queued from a callback (a worker's reply resumes the call waiting for it) runs
        // before the loop blocks too; one queued from another thread wakes the loop.
        wakeup = try UVWakeup(loop: loop, executor: host.lane.executor)
        host.lane.onItemDone = { [unowned self] in flushDirty() }
    }

    static func from(_ handle: UnsafeMutablePointer<some Any>?) -> UVServer {
        let h = asHandle(handle!)
        return Unmanaged<UVServer>.fromOpaque(h.pointee.loop.pointee.data!).takeUnretainedValue()
    }

    // MARK: Hooks

    private func installHooks() throws {
        prepare = allocateZeroed(uv_prepare_t.self)
        try uvCheck(uv_prepare_init(loop, prepare), "uv_prepare_init")
        // Right before the loop blocks for I/O (MDTable's beforeWaiting): idle tasks, then flush.
        try uvCheck(uv_prepare_start(prepare) { h in UVServer.from(h).beforeWaiting() }, "uv_prepare_start")
        uv_unref(asHandle(prepare))

        check = allocateZeroed(uv_check_t.self)
        try uvCheck(uv_check_init(loop, check), "uv_check_init")
        // After I/O callbacks: one write per connection for everything this pass produced.
        try uvCheck(uv_check_start(check) { h in UVServer.from(h).afterIO() }, "uv_check_start")
        uv_unref(asHandle(check))

        idle = allocateZeroed(uv_idle_t.self)
        try uvCheck(uv_idle_init(loop, idle), "uv_idle_init")

        timer = allocateZeroed(uv_timer_t.self)
        try uvCheck(uv_timer_init(loop, timer), "uv_timer_init")
        uv_unref(asHandle(timer))

        signals = try UVSignals(loop: loop)
        greenroom_ignore_sigpipe()
    }

    /// With a virtual clock, idle tasks run only on `tasks.drain`: a script that pipelines requests
    /// would otherwise see warm-ups land at different points from run to run.
    private var runsIdleTasks: Bool { host.virtualClock == nil }

    private func beforeWaiting() {
        if runsIdleTasks && host.dispatcher.hasRunnable { runIdlePass() }
        flushDirty()
        updateIdle()
        rearmTimer()
    }

    private func afterIO() {
        resumeDrained()
        flushDirty()
        if shutdownPending && !shuttingDown { requestShutdown() }
        updateIdle()
    }

    // MARK: Work that runs hooks, and the lane

    /// One idle pass, in the lane (warm-ups run hooks that may wait on a worker).
    private func runIdlePass() {
        guard !idlePassQueued else { return }
        idlePassQueued = true
        host.lane.enqueue(.idle { [unowned self] in
            idlePassQueued = false
            if runsIdleTasks && host.dispatcher.hasRunnable { await host.runIdlePass() }
        })
    }

    /// The timers due now, in the lane (they run hooks).
    private func runDueTimers() {
        guard !timersQueued else { return }
        timersQueued = true
        host.lane.enqueue(.task { [unowned self] in
            timersQueued = false
            await host.timers.runDue()
        })
    }

    /// Graceful shutdown, in the lane (after the calls that run there: teardown runs hooks).
    func requestShutdown() {
        guard !shutdownQueued, !shuttingDown else { return }
        shutdownQueued = true
        host.lane.enqueue(.task { [unowned self] in await beginShutdown() })
    }

    /// One turn of the loop, then the lane's work: queued items, or the parked item whose wait is over
    /// (outside uv_run, so a call the lane carries on never runs inside a loop callback). False once the
    /// loop has nothing left to run.
    func turn() -> Bool {
        let lane = host.lane
        var alive = uv_run(loop, lane.hasRunnableWork ? UV_RUN_NOWAIT : UV_RUN_ONCE) != 0
        if lane.hasRunnableWork {
            lane.drain()
            flushDirty()
            if !shuttingDown {
                updateIdle()
                rearmTimer()
            }
            // An item that parked again waits on a handle it just made (a timer, a worker's socket).
            alive = uv_loop_alive(loop) != 0
        }
        return alive || lane.hasRunnableWork
    }

    /// The idle handle keeps the loop turning (no blocking poll) only while runnable tasks exist and
    /// the lane (which runs them when it is on) is not busy.
    private func updateIdle() {
        let want = runsIdleTasks && host.dispatcher.hasRunnable && !shuttingDown && !host.lane.isRunning
        if want && !idleActive {
            uvReport(uv_idle_start(idle) { _ in }, "uv_idle_start (the flush idle)")
            idleActive = true
        } else if !want && idleActive {
            uvReport(uv_idle_stop(idle), "uv_idle_stop (the flush idle)")
            idleActive = false
        }
    }

    func rearmTimer() {
        guard !shuttingDown, host.virtualClock == nil, let timer else { return }
        // Due timers that wait in the lane are re-armed after they ran (the lane re-arms).
        guard !timersQueued, let deadline = host.timers.nextDeadline else {
            uvReport(uv_timer_stop(timer), "uv_timer_stop (the host timers)")
            return
        }
        let wait = max(0, deadline - host.now)
        uvReport(uv_timer_start(timer, { h in
            let server = UVServer.from(h)
            server.runDueTimers()
            server.flushDirty()
            server.rearmTimer()
        }, UInt64(wait.rounded(.up)), 0), "uv_timer_start (the host timers)")
        uv_ref(asHandle(timer))
    }

    func markDirty(_ c: UVConnection) { dirty.append(c) }

    // MARK: Backpressure and slow readers

    func queueResume(_ c: UVConnection) {
        guard !c.resumeQueued else { return }
        c.resumeQueued = true
        resumable.append(c)
    }

    /// Runs the held lines of connections whose queue drained (not from inside a write callback).
    private func resumeDrained() {
        while !resumable.isEmpty {
            let batch = resumable
            resumable.removeAll()
            for c in batch {
                c.resumeQueued = false
                if !c.isClosing, let hc = c.hostConnection { hc.resume() }
            }
        }
    }

    /// Puts a connection under the watchdog (`UVWatchdog.watch`).
    func watch(_ c: UVConnection) {
        guard !shuttingDown else { return }
        watchdog.watch(c)
    }

    func flushDirty() {
        while !dirty.isEmpty {
            let batch = dirty
            dirty.removeAll(keepingCapacity: true)
            for c in batch { c.flush() }
        }
    }

    // MARK: Listening

    /// Binds and listens on every listener, in order; `listenAddresses` then shows each with its real
    /// port. After a failure, `abandon()` undoes what was done.
    public func listen() throws {
        for listener in listeners {
            try listener.listen(on: loop)
            listenAddresses.append(listener.address)
        }
        host.listenAddresses = listenAddresses
    }

    /// Takes one connection from `listener`'s listening handle, admits or refuses it, and gives it
    /// the listener's codec.
    func accept(from listener: Listener, listening server: UnsafeMutablePointer<uv_stream_t>) {
        let stream = listener.makeStream(loop)
        let conn = UVConnection(server: self, stream: stream)
        stream.pointee.data = Unmanaged.passRetained(conn).toOpaque()
        connections[ObjectIdentifier(conn)] = conn
        guard uv_accept(server, stream) == 0, !shuttingDown else {
            conn.close(reason: "accept failed")
            return
        }
        listener.accepted(stream)
        let kind = listener.kind
        let peer = host.config.logger.logLevel <= .warning ? listener.describePeer(stream) : nil
        if host.connections.count >= host.config.maxConnections {
            host.countRefused(limit: true)
            host.logRefusal("connection limit (\(host.config.maxConnections)) reached", peer: peer)
            refuse(conn, listener.refusalBytes(RPCRefusal.limit(host.config.maxConnections)))
            return
        }
        if let refusal = listener.refusal(for: stream) {
            host.countRefused(limit: false)
            host.logRefusal(refusal.logReason, peer: peer)
            refuse(conn, listener.refusalBytes(refusal.line))
            return
        }
        // Connections that must authenticate have their own share of the limit, so that they can never
        // take the slots of authenticated or Unix clients.
        if host.unauthenticatedShareFull(kind: kind) {
            host.countRefusedUnauthenticated()
            host.logRefusal("unauthenticated share (\(host.unauthenticatedShare)) full", peer: peer)
            refuse(conn, listener.refusalBytes(RPCRefusal.unauthenticatedLimit(host.unauthenticatedShare)))
            return
        }
        let hc = host.openConnection(kind: kind, transport: conn, peer: peer, codec: listener.makeCodec())
        conn.hostConnection = hc
        if !hc.isAuthenticated {
            conn.authDeadline = uv_now(loop) + authTimeoutMs
            watch(conn)
        }
        do { try conn.startReading() } catch { conn.close(reason: "read failed") }
    }

    /// Writes why a connection is not admitted (a fresh socket has room for it), then closes it
    /// gracefully so that the peer can read it.
    private func refuse(_ conn: UVConnection, _ bytes: [UInt8]) {
        var bytes = bytes
        bytes.withUnsafeMutableBytes { raw in
            var buf = uv_buf_init(raw.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(raw.count))
            // Best effort by design: a refusal that does not fit the fresh socket is cut short, and the
            // close that follows says enough. EAGAIN is not a failure worth a line.
            _ = uv_try_write(conn.stream, &buf, 1)
        }
        conn.drainAndClose(deadline: uv_now(loop) + refusalDrainMs)
    }

    func connectionClosing(_ c: UVConnection) {
        connections.removeValue(forKey: ObjectIdentifier(c))
        // Shutting down, the last one gone: the grace period's timer has nothing left to wait for.
        if connections.isEmpty, let g = graceTimer {
            closeAndFree(asHandle(g))
            graceTimer = nil
        }
    }

    // MARK: Running and shutdown

    /// The kinds of the handles the loop still had open when it stopped (a leak: shutdown closes every
    /// handle it made).
    public private(set) var handlesLeftAtExit: [String] = []

    /// Runs the loop until shutdown completes; then checks that every handle was closed.
    public func run() throws {
        // The host's work runs on this thread from now on (it may not be the one that made the host).
        host.lane.executor.adoptCurrentThread()
        // Turn by turn, the lane's work between turns.
        while turn() {}
        // No wait can be served from here on: a worker still running is killed, not waited for.
        host.lane.waits = nil
        // Anything still open is a leak: counted (tests check there is none), closed, and run until the
        // close callbacks have freed it.
        var left: [String] = []
        withUnsafeMutablePointer(to: &left) { names in
            uv_walk(loop, { h, names in
                guard let h, uv_is_closing(h) == 0 else { return }
                names!.assumingMemoryBound(to: [String].self).pointee.append(String(cString: uv_handle_type_name(uv_handle_get_type(h))))
                closeAndFree(h)
            }, names)
        }
        handlesLeftAtExit = left
        uv_run(loop, UV_RUN_DEFAULT)
        host.processor.stopReadingAhead()
        try uvCheck(uv_loop_close(loop), "uv_loop_close (a handle was left open)")
        UnsafeMutableRawPointer(loop).deallocate()
        readBuffer.deallocate()
    }

    /// Graceful shutdown (docs/security.md): stop accepting, tear objects down with lifecycle events, finish
    /// in-flight replies, close every connection, remove the socket.
    public func beginShutdown() async {
        guard !shuttingDown else { return }
        shuttingDown = true
        for listener in listeners { listener.close() }
        await host.teardownAll()
        workerSockets.closeAll()
        // After the teardown's events: a WebSocket peer then gets its close frame (1001).
        for c in connections.values { c.hostConnection?.goingAway() }
        flushDirty()
        watchdog.close()
        for c in connections.values { c.shutdownAndClose() }
        if !connections.isEmpty {
            // A client that stopped reading must not keep the host alive: after the grace period,
            // whatever is still queued is dropped and the connections are closed.
            let t = allocateZeroed(uv_timer_t.self)
            uvReport(uv_timer_init(loop, t), "uv_timer_init (the shutdown grace)")
            uvReport(uv_timer_start(t, { h in
                let server = UVServer.from(h)
                for c in Array(server.connections.values) { c.close(reason: "shutdown grace period over") }
                if let g = server.graceTimer { closeAndFree(asHandle(g)); server.graceTimer = nil }
            }, shutdownGraceMs, 0), "uv_timer_start (the shutdown grace)")
            uv_unref(asHandle(t))
            graceTimer = t
        }
        signals?.close()
        signals = nil
        wakeup?.close()
        wakeup = nil
        for h in [asHandle(prepare!), asHandle(check!), asHandle(idle!), asHandle(timer!)] { closeAndFree(h) }
        idleActive = false
    }

    /// Undoes a partial start (a listener failed after the socket was bound): the socket and lock
    /// files are removed.
    public func abandon() {
        for listener in listeners { listener.close() }
    }
}
