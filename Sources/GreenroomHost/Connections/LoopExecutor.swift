import Glibc

/// The host's loop thread as an executor: the work that may wait (a call whose hook waits on a plugin
/// worker or a scripted cost, a timer, an idle pass, a connection's teardown) runs as Swift tasks whose
/// jobs all run here, on the thread that runs the host, one at a time. A task that waits suspends at an
/// `await` the compiler sees; the loop goes on serving everyone else, and the callback that ends the wait
/// (a worker's reply read by the loop, a timer) resumes it: its next job is queued here and run by the
/// loop before it blocks again.
///
/// It is a `TaskExecutor` (SE-0417) that the lane's tasks prefer, so every nonisolated async function they
/// call runs here too, and a `SerialExecutor` (SE-0392) with `checkIsolated` (SE-0424). The anchors:
/// swift-nio's event loop as an executor (its `NIOLoopBound` is `LoopBound` here), and sourcekit-lsp's one
/// task per message, ordered by a dependency tracker (the lane's `LaneDependency`).
///
/// `enqueue` may be called from any thread (the lock guards the queue); jobs run only in `runJobs`, which
/// the loop thread calls between its turns — never from inside a job. A host with no loop (tests over
/// in-memory connections) runs them where the work was queued.
public final class LoopExecutor: TaskExecutor, SerialExecutor, @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    /// Jobs queued and not yet run, guarded by `lock`.
    private var queue: [UnownedJob] = []
    /// The thread that runs the jobs (the loop's).
    private var owner: pthread_t
    /// Whether `runJobs` is running (a job never runs jobs).
    private var isRunning = false
    /// Called after a job is queued, from whichever thread queued it: the server wakes its loop so that
    /// the job runs before the loop blocks (`uv_stop` on the loop's thread, `uv_async_send` elsewhere).
    public var wake: (@Sendable () -> Void)?
    /// Jobs run since start (for `host.stats`).
    public private(set) var jobsRun = 0

    public init() {
        lock = .allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
        owner = pthread_self()
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// The calling thread runs the jobs from now on (a server that runs its loop on another thread than
    /// the one that made the host).
    public func adoptCurrentThread() { owner = pthread_self() }

    /// Whether the calling thread is the one that runs the jobs.
    public var isCurrent: Bool { pthread_equal(pthread_self(), owner) != 0 }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pthread_mutex_lock(lock)
        queue.append(job)
        pthread_mutex_unlock(lock)
        wake?()
    }

    /// Whether jobs wait to run.
    public var hasJobs: Bool {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return !queue.isEmpty
    }

    /// Runs the queued jobs, and those they queue, until none is left. On the loop's thread, outside any
    /// job: a call from inside one does nothing (its jobs run when it returns to the loop).
    public func runJobs() {
        guard !isRunning else { return }
        precondition(isCurrent, "a host's jobs run on its loop's thread")
        isRunning = true
        defer { isRunning = false }
        while true {
            pthread_mutex_lock(lock)
            let batch = queue
            queue.removeAll(keepingCapacity: true)
            pthread_mutex_unlock(lock)
            if batch.isEmpty { return }
            for job in batch {
                jobsRun += 1
                // On the task executor alone, not isolated to the serial one: the lane's tasks and the
                // nonisolated async functions they call then share one executor, and an `await` of one
                // switches nowhere (isolated to the serial executor, every such call hopped through the
                // queue: a job per call).
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
    }

    public func checkIsolated() {
        precondition(isCurrent, "not on the host's loop thread")
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor { UnownedTaskExecutor(ordinary: self) }
}

/// A value that belongs to one loop, handed to a task that runs on that loop (what swift-nio's
/// `NIOLoopBound` is to its event loop): the host's state is not `Sendable`, and the compiler cannot see
/// that a task preferring the loop's executor runs where the state lives, so this says it, and checks
/// it where the value is taken out.
public struct LoopBound<Value>: @unchecked Sendable {
    private let stored: Value
    private let executor: LoopExecutor

    public init(_ value: Value, on executor: LoopExecutor) {
        self.stored = value
        self.executor = executor
    }

    /// The value, on the loop's thread only.
    public var value: Value {
        precondition(executor.isCurrent, "a loop-bound value taken off its loop's thread")
        return stored
    }
}
