import GreenroomJSON
import GreenroomRPC

/// What a parked call waits for, served by the loop: a worker's socket becoming ready, or time passing.
///
/// The server implements it with libuv (a poll handle on the worker's socket, a timer); each wait calls
/// back exactly once, on the loop's own stack. The lane parks the call that asked and carries it on
/// from that callback.
public protocol LoopWaits: AnyObject {
    /// Calls `done(true)` once `fd` is readable (`writable`: writable) or its peer hung up, or
    /// `done(false)` when `timeoutMs` passes first (nil: no limit).
    func whenReady(fd: Int32, writable: Bool, timeoutMs: Int?, _ done: @escaping (Bool) -> Void)
    /// Calls `done` after `ms` of real (monotonic) time.
    func after(ms: Int, _ done: @escaping () -> Void)
    /// Runs one turn of the loop. Only outside the loop's callbacks: at start-up, a plugin worker's
    /// start is waited for this way, before the loop runs.
    func runOnce()
}

/// Tells the host when the far end of a descriptor hangs up (a plugin worker that died while no call
/// was in flight), so the crash is reported and its containers torn down at once, not on the next call.
public protocol HangUpWatcher: AnyObject {
    /// Calls `hungUp` on the loop, once, when the peer of `fd` closes. Returns a token for `stop`.
    func watchHangUp(fd: Int32, _ hungUp: @escaping () -> Void) -> Int
    /// Stops watching (before the descriptor is closed).
    func stop(_ token: Int)
}

/// The work that may wait on a plugin worker (or a scripted hook's cost), run one item at a time, each
/// on a stack of its own.
///
/// When isolated plugins are loaded (or a scripted class declares a cost), a line whose calls may run a
/// container hook is not run where it is read: it waits here, its connection holding its later lines
/// (replies stay in order), and runs when the lane is free. Its item runs on the lane's coroutine: when a
/// hook must wait for a worker's reply, the item **parks** — its stack stays as it is, the loop goes on
/// serving the calls that never run a hook (quick methods: pings, auth, subscriptions, range streams) on
/// every connection, and the loop's callback for the reply carries the item on. One thread runs all of
/// it. Two items never overlap, so a call that runs hooks sees only those quick calls between its hooks
/// — never another call's containers, pools or timers mid-change. Timers, idle passes, connection
/// teardown and shutdown run here too, since they run hooks.
public final class CallLane {
    public enum Work {
        /// A connection's deferred line (`HostConnection.runDeferred`).
        case line(HostConnection)
        /// A connection closed: its objects are torn down (with hooks) here.
        case closed(HostConnection, reason: String)
        /// Timers, shutdown.
        case task(() -> Void)
        /// An idle pass (warm-ups): it runs only when no other work waits, as idle tasks do on the loop.
        case idle(() -> Void)
    }

    unowned let host: Host
    private var queue: [Work] = []
    private var head = 0
    /// An item is running (perhaps parked, waiting on a worker while the loop serves quick calls).
    public private(set) var isRunning = false
    /// Set by the server: what parked calls wait for (also set, with blocking waits, for a host with no
    /// loop: its calls then wait where they run).
    public var waits: LoopWaits? {
        didSet { host.updateLane() }
    }
    /// Set by a server that runs the lane's items (`drain`) between its loop's turns.
    public var isDriven = false {
        didSet { host.updateLane() }
    }
    /// Called when work is queued or a parked item can go on (the server then runs the lane before it
    /// blocks for I/O again).
    public var onQueued: (() -> Void)?
    /// Called after each item (the server writes its replies and events before the next item runs).
    public var onItemDone: (() -> Void)?
    /// Set by the plugin supervisor when it loads a plugin in a worker process.
    var hasIsolatedPlugins = false {
        didSet { host.updateLane() }
    }
    /// Set by the class registry when a scripted class declares a hook cost (it then parks, not burns).
    var hasCostlyScripts = false {
        didSet { host.updateLane() }
    }

    init(host: Host) { self.host = host }

    /// Lines taken since start.
    private var deferredLines = 0
    /// Times an item parked (for `host.stats`).
    private(set) var parks = 0

    /// The stack items run on (made at the first item, kept for the host's life).
    private var coroutine: Coroutine?
    /// The running item parked and its wait is over: `drain` carries it on.
    private var canContinue = false

    /// For `host.stats`.
    var stats: JSONObject {
        ["enabled": .bool(isEnabled), "queued": .int(queue.count - head + (idleWork == nil ? 0 : 1)), "running": .bool(isRunning),
         "deferredLines": .int(deferredLines), "parks": .int(parks)]
    }

    /// Whether lines that may run hooks go through the lane.
    public var isEnabled: Bool { (hasIsolatedPlugins || hasCostlyScripts) && isDriven && waits != nil }

    /// There is something `drain` would do now: queued work and no item running, or a parked item
    /// whose wait is over.
    public var hasRunnableWork: Bool { isRunning ? canContinue : (head < queue.count || idleWork != nil) }
    /// The idle pass waiting for the lane to be free of everything else.
    private var idleWork: (() -> Void)?

    /// Whether running `read` here could run a hook: a line with a call that is not quick
    /// (`MethodSpec.isQuick`, declared where each method is registered). A line that failed to parse
    /// never does.
    func mayRunHooks(_ read: RPCProcessor<HostConnection>.ReadLine) -> Bool {
        let registry = host.processor.registry
        func may(_ entry: RPCProcessor<HostConnection>.Incoming) -> Bool {
            // A range call runs the hooks of its session's cells: not quick while any session has cells.
            if case .request(let method, _, _) = entry {
                return !registry.isQuick(method) || (method.hasPrefix("range.") && host.ranges?.hasCells == true)
            }
            return false
        }
        switch read {
        case .single(let entry): return may(entry)
        case .batch(let entries): return entries.contains(where: may)
        case .failed: return false
        }
    }

    /// Asked for every line read while the lane is enabled: true when the line was taken to run later.
    func takes(_ read: RPCProcessor<HostConnection>.ReadLine, from c: HostConnection) -> Bool {
        guard isEnabled, mayRunHooks(read) else { return false }
        c.deferLine(read)
        deferredLines += 1
        enqueue(.line(c))
        return true
    }

    public func enqueue(_ work: Work) {
        if case .idle(let body) = work { idleWork = body } else { queue.append(work) }
        onQueued?()
    }

    /// The transport closed `c`. Its teardown runs hooks, so it waits for the lane; a line of its
    /// that waits is dropped (no one is left to read the reply), one that runs finishes first.
    func connectionClosed(_ c: HostConnection, reason: String) -> Bool {
        guard isEnabled else { return false }
        c.dropDeferredLine()
        enqueue(.closed(c, reason: reason))
        return true
    }

    /// Runs queued work, one item at a time, until none is left or the running item parks (it goes on
    /// at a later `drain`, once what it waits for has come). Called from the loop's own stack, between
    /// loop turns; does nothing from inside an item.
    public func drain() {
        guard coroutine?.isRunning != true else { return }
        while true {
            if isRunning {
                // The item parked: carry it on only when its wait is over.
                guard canContinue, let co = coroutine else { return }
                canContinue = false
                if co.resume() { onItemDone?() }
                continue
            }
            let work: Work
            if head < queue.count {
                work = queue[head]
                head += 1
                if head == queue.count {
                    queue.removeAll(keepingCapacity: true)
                    head = 0
                }
            } else if let idle = idleWork {
                idleWork = nil
                work = .idle(idle)
            } else {
                break
            }
            isRunning = true
            guard let co = coroutine ?? Coroutine() else {
                // No stack for it: the item runs here, and its waits hold the loop.
                run(work)
                onItemDone?()
                continue
            }
            coroutine = co
            co.start { [unowned self] in run(work) }
            if co.resume() { onItemDone?() }
        }
    }

    /// One item, on the lane's stack.
    private func run(_ work: Work) {
        switch work {
        case .line(let c):
            c.runDeferred()
            isRunning = false
            // Its later lines run now; the next one that may run hooks queues again, behind the others.
            c.deferredLineDone()
        case .closed(let c, let reason):
            host.finishClosing(c, reason: reason)
            isRunning = false
        case .task(let body), .idle(let body):
            body()
            isRunning = false
        }
    }

    /// Whether the code running now is the lane's item on its own stack (it can park).
    var canPark: Bool { coroutine?.isRunning == true }

    /// Parks the running item until `register`'s callback is called (from the loop), then returns. From
    /// anywhere else — at start-up, before the loop runs — the loop is turned here until it is called.
    /// `register` may call back at once.
    func park(_ register: (_ wake: @escaping () -> Void) -> Void) {
        final class Flag { var isSet = false }
        let woken = Flag()
        if canPark, let co = coroutine {
            register { [weak self] in
                woken.isSet = true
                guard let self else { return }
                canContinue = true
                onQueued?()
            }
            guard !woken.isSet else {
                canContinue = false
                return
            }
            parks += 1
            while !woken.isSet { co.suspend() }
            return
        }
        register { woken.isSet = true }
        while !woken.isSet {
            guard let waits else { preconditionFailure("a wait outside the lane with no loop to turn") }
            waits.runOnce()
        }
    }

    /// Parks until `fd` is ready (`writable`: for writing, else for reading) or `timeoutMs` passes:
    /// false when the time passed first.
    func waitReady(_ fd: Int32, writable: Bool, timeoutMs: Int?) -> Bool {
        guard let waits else { preconditionFailure("a worker wait with no loop to serve it") }
        var ready = false
        park { wake in
            waits.whenReady(fd: fd, writable: writable, timeoutMs: timeoutMs) { r in
                ready = r
                wake()
            }
        }
        return ready
    }

    /// `waitReady` as the worker wire waits: until ready, or `timeout` once `deadline` passes.
    func wireWait(_ fd: Int32, _ writable: Bool, _ deadline: UInt64?) throws(WireError) {
        while true {
            let left = try Wire.msLeft(until: deadline)
            if waitReady(fd, writable: writable, timeoutMs: left) { return }
        }
    }

    /// Whether a wait can be served: the loop is there (the server sets `waits`, and clears it once its
    /// loop has ended).
    var canWait: Bool { waits != nil }

    /// Spends a scripted hook's cost: the lane's item parks for that long (the loop serves everyone else
    /// meanwhile); anywhere else, and for what is under a millisecond (the loop's timers count whole
    /// ones), the CPU is burnt where the hook runs.
    func spend(ms: Double) {
        guard canPark, ms >= 1, waits != nil else { return burnCPU(ms: ms) }
        let whole = ms.rounded(.down)
        sleep(ms: Int(whole))
        if ms > whole { burnCPU(ms: ms - whole) }
    }

    /// Parks for `ms` of real time (a scripted hook's cost, a worker's exit grace).
    func sleep(ms: Int) {
        guard let waits else { return }
        park { wake in waits.after(ms: ms, wake) }
    }
}
