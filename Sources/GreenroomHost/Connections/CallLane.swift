import GreenroomJSON
import GreenroomRPC

/// Lets the server's loop serve other clients while a call waits on a plugin worker.
///
/// A hook of an isolated plugin is a request to another process, and a plugin may take its time (up to
/// the hook deadline). The server implements this protocol by handing the loop to another thread for
/// the length of the wait; the host calls it only from work the lane runs (`CallLane`), which is the
/// one place where that is safe.
public protocol LoopHandoff: AnyObject {
    /// Runs `wait` — a blocking wait that touches no host state — with the loop served by another
    /// thread meanwhile when the caller runs the lane's work; returns once the caller holds the loop again.
    func waitingOffLoop<T>(_ wait: () -> T) -> T
    /// Waits that were handed off the loop so far (for `host.stats`).
    var handOvers: Int { get }
}

/// Tells the host when the far end of a descriptor hangs up (a plugin worker that died while no call
/// was in flight), so the crash is reported and its containers torn down at once, not on the next call.
public protocol HangUpWatcher: AnyObject {
    /// Calls `hungUp` on the loop, once, when the peer of `fd` closes. Returns a token for `stop`.
    func watchHangUp(fd: Int32, _ hungUp: @escaping () -> Void) -> Int
    /// Stops watching (before the descriptor is closed).
    func stop(_ token: Int)
}

/// The work that may wait on a plugin worker, run one item at a time outside the loop's callbacks.
///
/// When isolated plugins are loaded (and the server can hand its loop over), a line whose calls may run
/// a container hook is not run where it is read: it waits here, its connection holding its later lines
/// (replies stay in order), and runs when the lane is free. While its hook waits on a worker, the loop
/// goes on serving the calls that never run a hook (quick methods: pings, auth, subscriptions, range
/// streams) on every other connection. Two items never overlap, so a call that runs hooks sees only
/// those quick calls between its hooks — never another call's containers, pools or timers mid-change.
/// Timers, idle passes, connection teardown and shutdown run here too, since they run hooks.
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
    /// An item is running (perhaps waiting on a worker while the loop serves quick calls).
    public private(set) var isRunning = false
    /// Set by the server: how the loop is handed over while a hook waits.
    public var handoff: LoopHandoff? {
        didSet { host.updateLane() }
    }
    /// Called when work is queued (the server then runs the lane before it blocks for I/O again).
    public var onQueued: (() -> Void)?
    /// Called after each item (the server writes its replies and events before the next item runs).
    public var onItemDone: (() -> Void)?
    /// Set by the plugin supervisor when it loads a plugin in a worker process.
    var hasIsolatedPlugins = false {
        didSet { host.updateLane() }
    }

    init(host: Host) { self.host = host }

    /// Lines taken since start.
    private var deferredLines = 0

    /// For `host.stats`.
    var stats: JSONObject {
        ["enabled": .bool(isEnabled), "queued": .int(queue.count - head + (idleWork == nil ? 0 : 1)), "running": .bool(isRunning),
         "deferredLines": .int(deferredLines), "handOvers": .int(handoff?.handOvers ?? 0)]
    }

    /// Whether lines that may run hooks go through the lane.
    public var isEnabled: Bool { hasIsolatedPlugins && handoff != nil }

    /// Work is queued and nothing runs: the server runs it (`drain`) before it blocks for I/O again.
    public var hasRunnableWork: Bool { !isRunning && (head < queue.count || idleWork != nil) }
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

    /// Runs queued work, one item at a time, until none is left. Returns at once when an item already
    /// runs (this is the loop's other thread, serving quick calls while that item waits).
    public func drain() {
        guard !isRunning else { return }
        while true {
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
            onItemDone?()
        }
    }

    /// Waits for a worker: off the loop when this is the lane's item, else in place (the loop waits).
    func waitForWorker<T>(_ wait: () -> T) -> T {
        if isRunning, let handoff { return handoff.waitingOffLoop(wait) }
        return wait()
    }
}
