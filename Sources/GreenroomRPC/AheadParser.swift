import Glibc
import GreenroomJSON
import Synchronization

/// A second thread that reads (parses and validates) the lines of a pipelined burst ahead of the
/// loop thread, which dispatches them in order. On a burst of pipelined requests, parsing is half of
/// the host's work and needs no host state, so two cores share it: both threads claim lines in order
/// from one atomic counter; the loop thread reads a line itself when no one has claimed it yet, and
/// otherwise waits for the parser's output. Replies are written in request order whoever parsed them.
///
/// Between jobs the parser thread first watches the job word for up to `watchNanos`, then sleeps on a
/// condition variable. A client that pipelines sends its next burst as soon as it has the replies, so
/// the next job usually comes within that window: watching for it spares a futex wake and a context
/// switch per burst, which on a 2-core machine raised the pipelined rate by a quarter or more (see
/// docs/performance.md). The watch is adaptive, so an idle host does not pay for it: after a wait
/// that outlasted the window the thread goes straight to sleep, and it watches again only once a
/// job has come within the window after the one before. Its Jansson values live in its own arena
/// (`JSONCodec.useParserArena`), and its outputs are Swift values, so no Jansson value crosses
/// threads.
public final class AheadParser<Output> {
    public typealias Read = (UnsafeRawBufferPointer) -> Output

    /// The most lines one job holds; longer bursts run as several jobs.
    public static var maxJob: Int { 1024 }

    /// How long the parser thread watches for the next job after one ends before it sleeps, by default.
    public static var watchNanos: UInt64 { 100_000 }

    final class Slot {
        /// The generation of the job whose output `output` holds.
        let ready = AtomicWord()
        var output: Output?
    }

    private let read: Read
    private let window: UInt64
    private let now: @Sendable () -> UInt64
    private let slots: [Slot]
    private let lines: UnsafeMutablePointer<UnsafeRawBufferPointer>
    /// generation << 32 | count << 16 | next: the job and the next unclaimed line, in one word so a
    /// claim is one compare-and-swap and a late claim against an old job fails.
    private let word = AtomicWord()
    private var generation: UInt64 = 0
    private var mutex = pthread_mutex_t()
    private var cond = pthread_cond_t()
    /// Guarded by `mutex`.
    private var stopping = false
    /// Set with `stopping`, for the watch (which does not take the mutex).
    private let stopRequested = AtomicWord()
    private var thread: pthread_t = 0
    /// Lines the parser thread read, for tests and stats.
    private let readAhead = AtomicWord()
    public var linesReadAhead: Int { Int(readAhead.value.load(ordering: .relaxed)) }
    /// How many times the parser thread began to watch for a job, and to sleep for one (for tests).
    private let watchCount = AtomicWord(), sleepCount = AtomicWord()
    public var watches: Int { Int(watchCount.value.load(ordering: .acquiring)) }
    public var sleeps: Int { Int(sleepCount.value.load(ordering: .acquiring)) }

    /// Starts the parser thread. `read` must be safe to call on any thread. `window` is how long the
    /// thread watches for the next job after one ends, by `now` (monotonic nanoseconds; tests pass
    /// their own).
    public init(window: UInt64 = AheadParser.watchNanos, now: @escaping @Sendable () -> UInt64 = monotonicNanos,
                read: @escaping Read) {
        self.read = read
        self.window = window
        self.now = now
        slots = (0..<Self.maxJob).map { _ in Slot() }
        lines = .allocate(capacity: Self.maxJob)
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&cond, nil)
        let body = Unmanaged.passRetained(ThreadBody { [self] in work() }).toOpaque()
        let rc = pthread_create(&thread, nil, { arg in
            Unmanaged<ThreadBody>.fromOpaque(arg!).takeRetainedValue().run()
            return nil
        }, body)
        if rc != 0 {
            Unmanaged<ThreadBody>.fromOpaque(body).release()
            thread = 0
        } else {
            JSONCodec.useParserArena(on: thread)
        }
    }

    deinit {
        lines.deallocate()
        pthread_cond_destroy(&cond)
        pthread_mutex_destroy(&mutex)
    }

    /// True when the thread runs (false if the system refused one: then everything is read inline).
    public var isRunning: Bool { thread != 0 }

    /// Stops and joins the parser thread.
    public func stop() {
        guard thread != 0 else { return }
        stopRequested.value.store(1, ordering: .releasing)
        pthread_mutex_lock(&mutex)
        stopping = true
        pthread_cond_signal(&cond)
        pthread_mutex_unlock(&mutex)
        pthread_join(thread, nil)
        thread = 0
    }

    /// Reads `input` (at most `maxJob` lines, all valid until this returns) with the parser thread's
    /// help and calls `body` with each output in order, on the calling thread.
    public func run(_ input: UnsafeBufferPointer<UnsafeRawBufferPointer>, _ body: (Output) -> Void) {
        let count = input.count
        guard thread != 0, count > 1 else {
            for line in input { body(read(line)) }
            return
        }
        precondition(count <= Self.maxJob, "AheadParser job too large")
        generation = generation == UInt64(UInt32.max) ? 1 : generation + 1
        let gen = generation
        lines.update(from: input.baseAddress!, count: count)
        let head = gen << 32 | UInt64(count) << 16
        word.value.store(head, ordering: .releasing)
        // The parser checks the word under the mutex before it sleeps, so this wakes it either way
        // (and costs no system call while it is watching instead).
        pthread_mutex_lock(&mutex)
        pthread_cond_signal(&cond)
        pthread_mutex_unlock(&mutex)
        // Dispatch in order; while the next line is still being read by the parser thread, read the
        // next unclaimed one here instead of waiting.
        var i = 0
        var spins = 0
        while i < count {
            let slot = slots[i]
            if slot.ready.value.load(ordering: .acquiring) == gen {
                let output = slot.output!
                slot.output = nil
                body(output)
                i += 1
                spins = 0
            } else if let j = claim(gen) {
                let output = read(lines[j])
                if j == i {
                    body(output)
                    i += 1
                } else {
                    slots[j].output = output
                    slots[j].ready.value.store(gen, ordering: .relaxed)
                }
            } else {
                spins += 1
                if spins > 256 { sched_yield() }
            }
        }
    }

    /// The parser thread: waits for a job (watching, then sleeping), claims lines until none is left.
    private func work() {
        var seen: UInt64 = 0
        var watches = true
        var ended: UInt64 = 0
        while true {
            if watches, let gen = watchForJob(after: seen, since: ended) {
                seen = gen
            } else {
                sleepCount.value.add(1, ordering: .releasing)
                pthread_mutex_lock(&mutex)
                while word.value.load(ordering: .acquiring) >> 32 == seen && !stopping {
                    pthread_cond_wait(&cond, &mutex)
                }
                if stopping {
                    pthread_mutex_unlock(&mutex)
                    return
                }
                seen = word.value.load(ordering: .acquiring) >> 32
                pthread_mutex_unlock(&mutex)
                // Watch next time only if this job came within the window after the last.
                watches = now() &- ended <= window
            }
            var read = 0
            while let i = claim(seen) {
                let output = self.read(lines[i])
                let slot = slots[i]
                slot.output = output
                slot.ready.value.store(seen, ordering: .releasing)
                read += 1
            }
            readAhead.value.add(UInt64(read), ordering: .relaxed)
            ended = now()
        }
    }

    /// Watches the job word until a job newer than `seen` is posted (its generation) or the window
    /// has passed since `since` (nil).
    private func watchForJob(after seen: UInt64, since: UInt64) -> UInt64? {
        watchCount.value.add(1, ordering: .releasing)
        var polls = 0
        while true {
            let gen = word.value.load(ordering: .acquiring) >> 32
            if gen != seen { return gen }
            polls += 1
            if polls & 63 == 0 {
                if now() &- since > window || stopRequested.value.load(ordering: .acquiring) != 0 { return nil }
                // Lets a thread that shares this CPU run (the loop, or the client, whose next burst
                // is what this waits for).
                sched_yield()
            }
        }
    }

    /// Claims the next unread line of job `gen`, or nil when it has none left (or is over).
    private func claim(_ gen: UInt64) -> Int? {
        var w = word.value.load(ordering: .acquiring)
        while true {
            guard w >> 32 == gen else { return nil }
            let next = Int(w & 0xFFFF), count = Int((w >> 16) & 0xFFFF)
            guard next < count else { return nil }
            let (exchanged, original) = word.value.compareExchange(expected: w, desired: w + 1, ordering: .acquiringAndReleasing)
            if exchanged { return next }
            w = original
        }
    }
}

/// What a thread runs (C thread entry points cannot capture generic context).
private final class ThreadBody {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}

/// One atomic word in a non-generic class (the compiler mishandles `Atomic` stored directly in a
/// generic class specialised across modules).
final class AtomicWord {
    let value = Atomic<UInt64>(0)
}
