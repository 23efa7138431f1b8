import GreenroomJSON
import GreenroomRPC

/// What a parked call waits for, served by the loop: a worker's reply arriving, time passing, a worker
/// process ending (the loop starts the workers, so it can tell).
///
/// The server implements it with libuv (a pipe on the worker's socket, a timer, uv_spawn); each wait
/// calls back exactly once, on the loop's own stack. The lane parks the call that asked and carries it
/// on from that callback.
package protocol LoopWaits: AnyObject {
    /// The loop's link to a worker over the connected socket `fd` (non-blocking; the link owns it from
    /// here and closes it).
    func link(fd: Int32) -> WorkerLink
    /// Calls `done` after `ms` of real (monotonic) time, unless the returned cancel is called first.
    @discardableResult
    func after(ms: Int, _ done: @escaping () -> Void) -> () -> Void
    /// Runs one turn of the loop. Only outside the loop's callbacks: at start-up, a plugin worker's
    /// start is waited for this way, before the loop runs.
    func runOnce()
    /// Whether `spawn` starts processes whose end the loop reports.
    var canSpawn: Bool { get }
    /// Starts `executable` with `arguments` (argv[0] is the executable); `descriptors` become its
    /// descriptors 3, 4, ...; its standard streams are the host's; it gets a session of its own.
    func spawn(_ executable: String, _ arguments: [String], descriptors: [Int32]) -> Result<any SpawnedProcess, SpawnFailure>
}

extension LoopWaits {
    package var canSpawn: Bool { false }
    package func spawn(_ executable: String, _ arguments: [String], descriptors: [Int32]) -> Result<any SpawnedProcess, SpawnFailure> {
        .failure(SpawnFailure(message: "this host has no loop to start processes on"))
    }
}

/// A child process started on the loop (`LoopWaits.spawn`): the loop reports its end, so it is waited
/// for parked, never polled.
public protocol SpawnedProcess: AnyObject {
    var pid: Int32 { get }
    /// How it ended (its exit status, or the signal that ended it: 0 when none), once it has.
    var ending: (exitStatus: Int32, signal: Int32)? { get }
    /// Calls `ended` once it has ended (at once when it already has).
    func whenEnded(_ ended: @escaping () -> Void)
}

/// Why a process did not start.
public struct SpawnFailure: Error {
    public let message: String
    public init(message: String) { self.message = message }
}

/// What the call lane asks of the host it orders calls for (the host is the one implementation).
protocol LaneOwner: AnyObject {
    /// What a read line's calls touch, as the host is now.
    func laneDependency(of read: RPCProcessor<HostConnection>.ReadLine) -> LaneDependency
    /// A plugin worker ended and its sweep has not run yet (a call must not start before it).
    var workerSweepIsDue: Bool { get }
    /// The state of the call being run on the host's shared parts, taken (a call parks) or put back.
    func takeCallContext() -> Host.CallContext
    func restoreCallContext(_ context: Host.CallContext)
    /// A connection whose line waited in the lane closed meanwhile: it is torn down now.
    func finishClosing(_ c: HostConnection, reason: String)
}

/// The work that may wait on a plugin worker (or a scripted hook's cost), each item on a stack of its
/// own.
///
/// When isolated plugins are loaded (or a scripted class declares a cost), a line whose calls may run a
/// container hook is not run where it is read: it waits here, its connection holding its later lines
/// (replies stay in order), and runs when what it depends on is free. Its item runs on a coroutine: when
/// a hook must wait for a worker's reply, the item **parks** — its stack stays as it is, the loop goes on
/// serving the calls that never run a hook (`LaneDependency.none`: pings, auth, subscriptions, range streams) on
/// every connection, and the loop's callback for the reply carries the item on. One thread runs all of
/// it.
///
/// Items that depend on each other (`LaneDependency`) run one after the other, in the order they came;
/// an item that depends on nothing running or waiting before it starts while the others are parked — a
/// call on another plugin's container passes a slow hook. Timers, idle passes, connection teardown,
/// shutdown and every call not described more narrowly depend on everything, so they never overlap
/// another item. A parked item takes its call's state on the host's shared parts with it
/// (`Host.CallContext`), so the item that runs meanwhile sees only its own.
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

    /// One piece of work, waiting or running.
    private final class Item {
        let work: Work
        /// What it depends on (decided when it starts).
        var dependency = LaneDependency.everything
        /// Its stack, once it runs.
        var coroutine: Coroutine?
        /// Its call's state on the host's shared parts while it is parked.
        var context = Host.CallContext()
        /// It parked and its wait is over: `drain` carries it on.
        var canContinue = false

        init(_ work: Work) { self.work = work }
    }

    /// The host it orders calls for, as what the lane asks of it.
    unowned let owner: any LaneOwner
    /// Work waiting to start, in the order it came.
    private var pending: [Item] = []
    /// Work started and not finished (all parked, or the one whose code runs now), in the order it started.
    private var running: [Item] = []
    /// The item whose code runs now (nil on the loop's own stack).
    private var current: Item?
    /// Stacks of finished items, kept for the next ones.
    private var spare: [Coroutine] = []
    /// Whether an item runs (it may be parked, waiting on a worker while the loop serves quick calls).
    public var isRunning: Bool { !running.isEmpty }
    /// Set by the server: what parked calls wait for (also set, with blocking waits, for a host with no
    /// loop: its calls then wait where they run).
    package var waits: LoopWaits?
    /// Set by a server that runs the lane's items (`drain`) between its loop's turns.
    public var isDriven = false
    /// Called when work is queued or a parked item can go on (the server then runs the lane before it
    /// blocks for I/O again).
    public var onQueued: (() -> Void)?
    /// Called after each item (the server writes its replies and events before the next item runs).
    public var onItemDone: (() -> Void)?
    /// Set by the plugin supervisor when it loads a plugin in a worker process.
    var hasIsolatedPlugins = false
    /// Set when `classes.define` makes a class that declares a hook cost (the cost then parks, not burns).
    var hasCostlyScripts = false

    init(owner: any LaneOwner) { self.owner = owner }

    /// Lines taken since start.
    private var deferredLines = 0
    /// Times an item parked (for `host.stats`).
    private(set) var parks = 0
    /// Items that started while another was parked.
    private var overlapped = 0

    /// For `host.stats`.
    var stats: JSONObject {
        ["enabled": .bool(isEnabled), "queued": .int(pending.count + (idleWork == nil ? 0 : 1)), "running": .bool(isRunning),
         "deferredLines": .int(deferredLines), "parks": .int(parks), "overlapped": .int(overlapped)]
    }

    /// Whether lines that may run hooks go through the lane.
    public var isEnabled: Bool { (hasIsolatedPlugins || hasCostlyScripts) && isDriven && waits != nil }

    /// There is something `drain` would do now: a parked item whose wait is over, or work that can start.
    public var hasRunnableWork: Bool {
        running.contains(where: \.canContinue) || startable() != nil || (running.isEmpty && idleWork != nil)
    }
    /// The idle pass waiting for the lane to be free of everything else.
    private var idleWork: (() -> Void)?

    /// Asked for every line read while the lane is enabled: true when the line was taken to run later.
    func takes(_ read: RPCProcessor<HostConnection>.ReadLine, from c: HostConnection) -> Bool {
        guard isEnabled, owner.laneDependency(of: read) != .none else { return false }
        c.deferLine(read)
        deferredLines += 1
        enqueue(.line(c))
        return true
    }

    public func enqueue(_ work: Work) {
        if case .idle(let body) = work { idleWork = body } else { pending.append(Item(work)) }
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

    // MARK: Running

    /// What `work` depends on, decided as it starts. While a worker's end waits to be swept, everything
    /// does, so the sweep runs before any call that could see a lost container.
    private func dependency(of work: Work) -> LaneDependency {
        guard case .line(let c) = work, !owner.workerSweepIsDue, let read = c.deferredRead
        else { return .everything }
        return owner.laneDependency(of: read)
    }

    /// The first waiting item that depends on nothing running or waiting before it, and what it depends
    /// on (each waiting item is classified once per look, as far as the look goes).
    private func startable() -> (index: Int, dependency: LaneDependency)? {
        if running.contains(where: { $0.dependency.isEverything }) { return nil }
        var before: [LaneDependency] = []
        for i in pending.indices {
            let dependency = self.dependency(of: pending[i].work)
            if dependency.isEverything && !running.isEmpty { return nil }
            if !running.contains(where: { $0.dependency.isDependency(of: dependency) }),
               !before.contains(where: { $0.isDependency(of: dependency) }) {
                return (i, dependency)
            }
            before.append(dependency)
        }
        return nil
    }

    /// Carries on parked items whose wait is over and starts what can start, until nothing can; the items
    /// still running are parked. Called from the loop's own stack, between loop turns; does nothing from
    /// inside an item.
    public func drain() {
        guard current == nil else { return }
        while true {
            if let item = running.first(where: \.canContinue) {
                item.canContinue = false
                step(item)
                continue
            }
            if let next = startable() {
                let item = pending.remove(at: next.index)
                item.dependency = next.dependency
                start(item)
                continue
            }
            if running.isEmpty, let idle = idleWork {
                idleWork = nil
                start(Item(.idle(idle)))
                continue
            }
            return
        }
    }

    private func start(_ item: Item) {
        if !running.isEmpty { overlapped += 1 }
        running.append(item)
        guard let co = spare.popLast() ?? Coroutine() else {
            // No stack for it: the item runs here, and its waits hold the loop.
            current = item
            run(item.work)
            current = nil
            finish(item)
            return
        }
        item.coroutine = co
        co.start { [unowned self] in run(item.work) }
        step(item)
    }

    /// Runs `item` from where it stopped until it parks or ends.
    private func step(_ item: Item) {
        guard let co = item.coroutine else { return }
        owner.restoreCallContext(item.context)
        current = item
        let ended = co.resume()
        current = nil
        item.context = owner.takeCallContext()
        if ended {
            item.coroutine = nil
            spare.append(co)
            finish(item)
        }
    }

    private func finish(_ item: Item) {
        running.removeAll { $0 === item }
        onItemDone?()
    }

    /// One item, on its own stack.
    private func run(_ work: Work) {
        switch work {
        case .line(let c):
            c.runDeferred()
            // Its later lines run now; the next one that may run hooks queues again, behind the others.
            c.deferredLineDone()
        case .closed(let c, let reason):
            owner.finishClosing(c, reason: reason)
        case .task(let body), .idle(let body):
            body()
        }
    }

    // MARK: Parking

    /// Whether the code running now is a lane item's.
    var isInItem: Bool { current != nil }

    /// Whether the code running now is a lane item on its own stack (it can park).
    var canPark: Bool { current?.coroutine?.isRunning == true }

    /// Parks the running item until `register`'s callback is called (from the loop), then returns. From
    /// anywhere else — at start-up, before the loop runs — the loop is turned here until it is called.
    /// `register` may call back at once.
    func park(_ register: (_ wake: @escaping () -> Void) -> Void) {
        final class Flag { var isSet = false }
        let woken = Flag()
        if canPark, let item = current, let co = item.coroutine {
            // Not `weak self`: a weak reference would give the lane a side table, and every retain of it
            // (one per line read) would take the slow path. The host owns the lane for its whole life.
            register { [unowned(unsafe) self, weak item] in
                woken.isSet = true
                item?.canContinue = true
                onQueued?()
            }
            guard !woken.isSet else {
                item.canContinue = false
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
    /// Parks until something arrives on `link` (or it ends) or `timeoutMs` passes: false when the time
    /// passed first.
    func waitReceived(_ link: WorkerLink, timeoutMs: Int?) -> Bool {
        var ready = false
        park { wake in
            link.whenReceived(timeoutMs: timeoutMs) { r in
                ready = r
                wake()
            }
        }
        return ready
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
        park { wake in _ = waits.after(ms: ms, wake) }
    }
}
