import GreenroomJSON
import GreenroomRPC

/// What a waiting call waits for, served by the loop: a worker's reply arriving, time passing, a worker
/// process ending (the loop starts the workers, so it can tell).
///
/// The server implements it with libuv (a pipe on the worker's socket, a timer, uv_spawn); each wait
/// calls back exactly once, from a loop callback. The lane suspends the task that asked; that callback
/// resumes it.
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
    /// Whether a read line calls a method whose calls may wait (`MethodSpec.mayWait`).
    func mayWait(_ read: RPCProcessor<HostConnection>.ReadLine) -> Bool
    /// A plugin worker ended and its sweep has not run yet (a call must not start before it).
    var workerSweepIsDue: Bool { get }
    /// Each piece of work's own state on the host's shared parts.
    var scopes: CallScopes { get }
    /// A closed connection's objects are torn down (with hooks), in the lane.
    func tearDownClosed(_ c: HostConnection, reason: String) async
}

/// The work that may wait on a plugin worker (or a scripted hook's cost): each item a Swift task on the
/// host's loop (`LoopExecutor`).
///
/// A line that calls a method whose calls may wait (`MethodSpec.mayWait`: anything that can run a
/// container hook) is not run where it is read: it waits here, its connection holding its later lines
/// (replies stay in order), and runs as a task when what it depends on is free. When a hook must wait
/// for a worker's reply or a scripted cost, the task suspends at an `await` (`park`, `waitReceived`,
/// `sleep`): the loop goes on serving the calls that never wait (`LaneDependency.none`: pings, auth,
/// subscriptions) on every connection, and the loop's callback for the reply resumes the task. One thread
/// runs all of it. A line that runs no such method but touches what a waiting item touches waits here too,
/// to keep its order.
///
/// Items that depend on each other (`LaneDependency`) run one after the other, in the order they came;
/// an item that depends on nothing running or waiting before it starts while the others wait — a call on
/// another plugin's container passes a slow hook. Timers, idle passes, connection teardown, shutdown and
/// every call not described more narrowly depend on everything, so they never overlap another item. Each
/// item runs in a `CallScope` of its own, so what it sets on the host's shared parts is its own.
///
/// A host with no loop (tests over in-memory connections) runs each item where it is queued, to its end:
/// with no loop nothing can wait (a scripted cost burns the CPU instead).
public final class CallLane {
    public enum Work {
        /// A connection's deferred line (`HostConnection.runDeferred`).
        case line(HostConnection)
        /// A connection closed: its objects are torn down (with hooks) here.
        case closed(HostConnection, reason: String)
        /// Timers, shutdown, a plugin worker's end.
        case task(() async -> Void)
        /// An idle pass (warm-ups): it runs only when no other work waits, as idle tasks do on the loop.
        case idle(() async -> Void)
    }

    /// One piece of work, waiting or running.
    private final class Item {
        let work: Work
        /// What it depends on (decided when it starts).
        var dependency = LaneDependency.everything

        init(_ work: Work) { self.work = work }
    }

    /// The host it orders calls for, as what the lane asks of it.
    unowned let owner: any LaneOwner
    /// Where the items' tasks run: the host's loop.
    public let executor: LoopExecutor
    /// Work waiting to start, in the order it came.
    private var pending: [Item] = []
    /// Work started and not finished (waiting, or the one whose job runs now), in the order it started.
    private var running: [Item] = []
    /// Lines in the lane: started and not finished, or waiting their turn.
    private var lines: Int {
        pending.count { if case .line = $0.work { true } else { false } }
            + running.count { if case .line = $0.work { true } else { false } }
    }
    /// Whether an item runs (it may be waiting on a worker while the loop serves quick calls).
    public var isRunning: Bool { !running.isEmpty }
    /// Set by the server: what waiting items wait for (also set, with blocking waits, for a host with no
    /// loop: its calls then wait where they run).
    package var waits: LoopWaits?
    /// Set by a server that runs the lane's items (`drain`) between its loop's turns; otherwise each item
    /// runs to its end where it is queued.
    public var isDriven = false
    /// Called when work is queued (the server then runs the lane before it blocks for I/O again).
    public var onQueued: (() -> Void)?
    /// Called after each item (the server writes its replies and events before the next item runs).
    public var onItemDone: (() -> Void)?
    /// The most lines that may wait in the lane at once (started and not finished, or waiting their turn):
    /// past it a line is refused (`HostConfig.maxWaitingCalls`).
    let maxWaiting: Int

    init(owner: any LaneOwner, executor: LoopExecutor, maxWaiting: Int) {
        self.owner = owner
        self.executor = executor
        self.maxWaiting = max(1, maxWaiting)
    }

    /// Lines taken since start.
    private var deferredLines = 0
    /// Lines refused because `maxWaiting` calls waited already.
    private var refused = 0
    /// Times an item waited (for `host.stats`).
    private(set) var parks = 0
    /// Items that started while another was waiting.
    private var overlapped = 0
    /// Items that waited at once, at most.
    private var mostRunning = 0

    /// For `host.stats`.
    var stats: JSONObject {
        ["enabled": true, "queued": .int(pending.count + (idleWork == nil ? 0 : 1)), "running": .bool(isRunning),
         "waiting": .int(running.count), "mostWaiting": .int(mostRunning), "deferredLines": .int(deferredLines),
         "parks": .int(parks), "overlapped": .int(overlapped), "jobs": .int(executor.jobsRun), "refused": .int(refused)]
    }

    /// There is something `drain` would do now: a job of a running item, or work that can start.
    public var hasRunnableWork: Bool {
        executor.hasJobs || startable() != nil || (running.isEmpty && idleWork != nil)
    }
    /// Whether `drain` runs (work queued meanwhile is found by its loop).
    private var isDraining = false
    /// The idle pass waiting for the lane to be free of everything else.
    private var idleWork: (() async -> Void)?

    /// Asked for every line read: true when the line was taken to run later. A line is taken when one of
    /// its methods may wait, or when it touches something and the lane has work (it keeps its order with
    /// that work); a line that touches nothing, or that finds the lane empty and never waits, runs where
    /// it is read.
    func takes(_ read: RPCProcessor<HostConnection>.ReadLine, from c: HostConnection) -> Bool {
        if !owner.mayWait(read) {
            guard !pending.isEmpty || !running.isEmpty || owner.workerSweepIsDue,
                  owner.laneDependency(of: read) != .none else { return false }
        }
        // Counting lines walks the lane: only when it may be full.
        if pending.count + running.count >= maxWaiting, lines >= maxWaiting {
            refused += 1
            c.refuseLine(read, RPCError(.limitExceeded,
                "\(maxWaiting) calls wait already (on plugin workers or scripted costs), the most the host keeps (--max-waiting-calls)",
                ["limit": "waitingCalls", "max": .int(maxWaiting)]))
            return true
        }
        c.deferLine(read)
        deferredLines += 1
        enqueue(.line(c))
        return true
    }

    public func enqueue(_ work: Work) {
        if case .idle(let body) = work { idleWork = body } else { pending.append(Item(work)) }
        if isDriven { onQueued?() } else { drain() }  // no loop: it runs here, to its end
    }

    /// The transport closed `c`. Its teardown runs hooks, so it waits for the lane; a line of its
    /// that waits is dropped (no one is left to read the reply), one that runs finishes first.
    func connectionClosed(_ c: HostConnection, reason: String) {
        c.dropDeferredLine()
        enqueue(.closed(c, reason: reason))
    }

    /// Runs `work` to its end before anything else (start-up, before the loop serves connections; a host
    /// with no loop): the loop is turned here while it waits. Never from inside an item or a loop callback.
    public func runToEnd<T>(_ work: @escaping () async -> T) -> T {
        // Whoever runs the host's work now (the loop runs on this thread, or not yet, or no longer).
        executor.adoptCurrentThread()
        let box = ResultBox<T>()
        let bound = LoopBound((box, owner.scopes, work), on: executor)
        Task(executorPreference: executor) {
            let (box, scopes, work) = bound.value
            box.value = await scopes.withOwnScope(work)
        }
        while true {
            executor.runJobs()
            if let value = box.value { return value }
            guard let waits else { preconditionFailure("work that waits, with no loop to turn") }
            waits.runOnce()
        }
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

    /// Starts what can start and runs the jobs of the items that run, until nothing can go on: the items
    /// still running are waiting. Called on the loop's thread, between loop turns (never from a job).
    public func drain() {
        guard !isDraining else { return }
        // With no loop, whoever queues the work runs it.
        if !isDriven { executor.adoptCurrentThread() }
        isDraining = true
        defer { isDraining = false }
        while true {
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
            guard executor.hasJobs else { return }
            executor.runJobs()
        }
    }

    private func start(_ item: Item) {
        if !running.isEmpty { overlapped += 1 }
        running.append(item)
        mostRunning = max(mostRunning, running.count)
        let bound = LoopBound((self, item), on: executor)
        Task(executorPreference: executor) {
            let (lane, item) = bound.value
            await lane.owner.scopes.withOwnScope { await lane.run(item.work) }
            lane.finish(item)
        }
    }

    private func finish(_ item: Item) {
        running.removeAll { $0 === item }
        onItemDone?()
    }

    /// One item, in its task.
    private func run(_ work: Work) async {
        switch work {
        case .line(let c):
            await c.runDeferred()
            // Its later lines run now; the next one that may wait queues again, behind the others.
            c.deferredLineDone()
        case .closed(let c, let reason):
            await owner.tearDownClosed(c, reason: reason)
        case .task(let body), .idle(let body):
            await body()
        }
    }

    // MARK: Waiting

    /// Suspends the work being run until `register`'s callback is called (from the loop; at most once
    /// counts), then returns. `register` may call back at once.
    func park(_ register: (_ wake: @escaping () -> Void) -> Void) async {
        final class Once { var woken = false; init() {} }
        let once = Once()
        parks += 1
        await withCheckedContinuation { (k: CheckedContinuation<Void, Never>) in
            register {
                guard !once.woken else { return }
                once.woken = true
                k.resume()
            }
        }
    }

    /// Waits until something arrives on `link` (or it ends) or `timeoutMs` passes: false when the time
    /// passed first.
    func waitReceived(_ link: WorkerLink, timeoutMs: Int?) async -> Bool {
        final class Ready { var value = false; init() {} }
        let ready = Ready()
        await park { wake in
            link.whenReceived(timeoutMs: timeoutMs) { r in
                ready.value = r
                wake()
            }
        }
        return ready.value
    }

    /// Whether a wait can be served: the loop is there (the server sets `waits`, and clears it once its
    /// loop has ended).
    var canWait: Bool { waits != nil }

    /// Spends a scripted hook's cost: the work waits for that long (the loop serves everyone else
    /// meanwhile); with no loop, and for what is under a millisecond (the loop's timers count whole
    /// ones), the CPU is burnt where the hook runs.
    func spend(ms: Double) async {
        guard ms >= 1, isDriven, waits != nil else { return burnCPU(ms: ms) }
        let whole = ms.rounded(.down)
        await sleep(ms: Int(whole))
        if ms > whole { burnCPU(ms: ms - whole) }
    }

    /// Waits for `ms` of real time (a scripted hook's cost, a worker's exit grace).
    func sleep(ms: Int) async {
        guard let waits else { return }
        await park { wake in _ = waits.after(ms: ms, wake) }
    }
}

/// Where a task run to its end leaves its result.
private final class ResultBox<T> {
    var value: T?
    init() {}
}
