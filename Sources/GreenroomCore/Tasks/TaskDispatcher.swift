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
/// GapWorker) does not fit in what is left of the slice waits for the next pass. The dispatcher runs
/// nothing and reads no clock: the host asks for the next task of a pass at the time it reads (`next`),
/// runs it, and says what it cost (`ran`). What a task does is the host's (`Work`: the host's is a
/// closure); the dispatcher only holds it. A class, because a running task may enqueue more.
public final class TaskDispatcher<Work> {
    public struct Task {
        public let key: String
        public let mode: TaskMode
        /// The class of work, for cost averaging ("warm:Article"); defaults to the key.
        public let costKey: String
        /// What the host does to run it.
        public let work: Work
    }

    public struct Report: Equatable, Sendable {
        public var ran: Int
        public var deferred: Int
    }

    /// A pass in progress (`beginPass`): when it started, and what it ran so far.
    public struct Pass {
        let start: Double
        /// Tasks queued when it began: those enqueued during the pass wait for the next.
        let limit: Int
        let tracking: Bool
        var examined = 0
        var over = false
        public internal(set) var report = Report(ran: 0, deferred: 0)
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

    /// Told +1 when a task is queued and -1 when one is cancelled (not when one runs): a host counts
    /// what each call queued here.
    public var onQueuedChange: ((Int) -> Void)?

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
                        _ work: Work) -> Bool {
        guard keys.insert(key).inserted else { return false }
        queue.append(Task(key: key, mode: mode, costKey: costKey ?? key, work: work))
        onQueuedChange?(1)
        return true
    }

    /// Removes a queued task by key; returns whether one was there.
    @discardableResult
    public func cancel(key: String) -> Bool {
        guard keys.remove(key) != nil else { return false }
        if let i = queue[head...].firstIndex(where: { $0.key == key }) { queue.remove(at: i) }
        onQueuedChange?(-1)
        return true
    }

    /// The first queued task that may run now (`tracking`: only `common` ones), if any.
    private func firstRunnable(tracking: Bool) -> Int? {
        queue[head...].firstIndex { !tracking || $0.mode == .common }
    }

    /// Takes the task at queue index `i` off the queue.
    private func take(at i: Int) -> Task {
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

    /// Begins one loop pass at `now`: runnable tasks in FIFO order until the slice is spent (at least
    /// one).
    public func beginPass(now: Double) -> Pass {
        passes += 1
        return Pass(start: now, limit: pendingCount, tracking: isTracking)
    }

    /// The next task of `pass`, taken off the queue, when it fits in what is left of the slice at `now`;
    /// nil when the pass is over. The host runs it, then calls `ran`.
    public func next(in pass: inout Pass, now: Double) -> Task? {
        guard !pass.over, pass.examined < pass.limit else { return nil }
        let spent = now - pass.start
        guard let i = firstRunnable(tracking: pass.tracking) else {
            pass.over = true
            return nil
        }
        // The first task of a pass always runs; after it, one runs only while it fits in the slice.
        if pass.report.ran > 0 {
            let deferred = averageCostMs[queue[i].costKey].map { spent + $0 > sliceMs } ?? false
            if spent >= sliceMs || deferred {
                if spent < sliceMs { pass.report.deferred += 1 }
                pass.over = true
                return nil
            }
        }
        pass.examined += 1
        return take(at: i)
    }

    /// `task`, from `next`, ran and cost `costMs`.
    public func ran(_ task: Task, costMs: Double, in pass: inout Pass) {
        record(task, cost: costMs)
        pass.report.ran += 1
    }

    /// For `tasks.drain` (deterministic scripts): the next runnable task whatever the slice, including
    /// ones enqueued while draining. The host runs it, then calls `ran(_:costMs:)`.
    public func takeRunnable() -> Task? {
        firstRunnable(tracking: isTracking).map(take(at:))
    }

    /// `task`, from `takeRunnable`, ran and cost `costMs`.
    public func ran(_ task: Task, costMs: Double) {
        record(task, cost: costMs)
    }
}
