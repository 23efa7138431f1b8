/// When an idle task may run (MDTable's run-loop modes).
public enum TaskMode: String, Sendable, CaseIterable {
    /// Paused while any page or range session is tracking (dragging, decelerating, animating).
    case `default`
    /// Runs whenever the loop is about to wait.
    case common
}

/// Keyed, FIFO idle work, run in time slices right before the host's loop waits for I/O.
///
/// A duplicate key is ignored; `cancel` removes by key. Each pass runs tasks until the slice is spent,
/// always at least one; a task whose running-average cost (3/4 old + 1/4 new, as RecyclerView's
/// GapWorker) does not fit in what is left of the slice waits for the next pass. Time is injected:
/// `runPass` takes a function reading the host clock. A class, because a running task may enqueue more.
public final class TaskDispatcher {
    public struct Task {
        public let key: String
        public let mode: TaskMode
        /// The class of work, for cost averaging ("warm:Article"); defaults to the key.
        public let costKey: String
        public let run: () -> Void
    }

    public struct Report: Equatable, Sendable {
        public var ran: Int
        public var deferred: Int
    }

    private var queue: [Task] = []
    private var head = 0
    private var keys: Set<String> = []
    /// Running-average cost per cost key, in ms.
    public private(set) var averageCostMs: [String: Double] = [:]
    /// Milliseconds of work per pass.
    public var sliceMs: Double
    /// True while some session is tracking; `default`-mode tasks wait.
    public var isTracking = false
    public private(set) var totalRan = 0
    public private(set) var passes = 0

    public init(sliceMs: Double = 4) { self.sliceMs = sliceMs }

    public var pendingCount: Int { queue.count - head }
    /// Tasks that could run now (respecting the tracking pause).
    public var runnableCount: Int {
        isTracking ? queue[head...].lazy.filter { $0.mode == .common }.count : pendingCount
    }
    public var hasRunnable: Bool {
        isTracking ? queue[head...].contains { $0.mode == .common } : pendingCount > 0
    }
    public var pendingTasks: ArraySlice<Task> { queue[head...] }

    /// Adds a task; returns false (and does nothing) when the key is already queued.
    @discardableResult
    public func enqueue(key: String, mode: TaskMode = .default, costKey: String? = nil,
                                 _ run: @escaping () -> Void) -> Bool {
        guard keys.insert(key).inserted else { return false }
        queue.append(Task(key: key, mode: mode, costKey: costKey ?? key, run: run))
        return true
    }

    /// Removes a queued task by key; returns whether one was there.
    @discardableResult
    public func cancel(key: String) -> Bool {
        guard keys.remove(key) != nil else { return false }
        if let i = queue[head...].firstIndex(where: { $0.key == key }) { queue.remove(at: i) }
        return true
    }

    private func takeNext(where ok: (Task) -> Bool) -> Task? {
        guard let i = queue[head...].firstIndex(where: ok) else { return nil }
        let t = queue[i]
        if i == head { head += 1 } else { queue.remove(at: i) }
        keys.remove(t.key)
        if head > 64 && head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        return t
    }

    private func record(_ t: Task, cost: Double) {
        let old = averageCostMs[t.costKey]
        averageCostMs[t.costKey] = old.map { $0 * 0.75 + cost * 0.25 } ?? cost
        totalRan += 1
    }

    /// One loop pass: runs runnable tasks in FIFO order until the slice is spent (at least one).
    /// A task may enqueue more tasks; those wait for the next pass.
    public func runPass(now: () -> Double) -> Report {
        passes += 1
        let limit = pendingCount
        let start = now()
        var ran = 0, deferred = 0, examined = 0
        let tracking = isTracking
        while examined < limit {
            let spent = now() - start
            guard let next = queue[head...].first(where: { !tracking || $0.mode == .common }) else { break }
            if ran > 0 {
                if spent >= sliceMs { break }
                if let est = averageCostMs[next.costKey], spent + est > sliceMs { deferred += 1; break }
            }
            guard let task = takeNext(where: { $0.key == next.key }) else { break }
            examined += 1
            let t0 = now()
            task.run()
            record(task, cost: now() - t0)
            ran += 1
        }
        return Report(ran: ran, deferred: deferred)
    }

    /// Runs every runnable task now, including ones enqueued while draining, ignoring slices
    /// (`tasks.drain`, for deterministic scripts). Returns how many ran.
    public func drain(now: () -> Double, limit: Int = 1_000_000) -> Int {
        var ran = 0
        let tracking = isTracking
        while ran < limit, let task = takeNext(where: { !tracking || $0.mode == .common }) {
            let t0 = now()
            task.run()
            record(task, cost: now() - t0)
            ran += 1
        }
        return ran
    }
}
