import Glibc
import Testing
@testable import GreenroomHost

/// What the jobs ran, in order (touched only on the executor's thread, which the tests check).
private final class Log: @unchecked Sendable {
    var items: [String] = []
    var wakes = 0
}

@Suite struct LoopExecutorTests {
    @Test func aTasksJobsRunOnlyWhenTheLoopRunsThemAndEachQueuedJobWakesIt() {
        let executor = LoopExecutor()
        let log = Log()
        executor.wake = { log.wakes += 1 }
        let bound = LoopBound(log, on: executor)
        Task(executorPreference: executor) {
            bound.value.items.append("start")
            await Task.yield()  // its next job is queued on the executor again
            bound.value.items.append("after yield")
        }
        // Nothing ran: the task's first job waits for the loop, which was woken for it.
        #expect(log.items.isEmpty && executor.hasJobs && log.wakes == 1)
        executor.runJobs()
        #expect(log.items == ["start", "after yield"] && !executor.hasJobs && executor.jobsRun >= 2)
    }

    @Test func onlyTheThreadThatRunsTheJobsIsIsolatedToIt() {
        let executor = LoopExecutor()
        #expect(executor.isCurrent)
        executor.checkIsolated()  // on its own thread: passes
        final class Seen: @unchecked Sendable { var isCurrent = true }
        let seen = Seen()
        let context = Unmanaged.passRetained(Pair(executor, seen)).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { arg in
            let pair = Unmanaged<Pair>.fromOpaque(arg!).takeRetainedValue()
            (pair.seen as! Seen).isCurrent = pair.executor.isCurrent
            return nil
        }, context)
        #expect(started == 0)
        pthread_join(thread, nil)
        #expect(!seen.isCurrent)
        // A server that runs its loop on another thread adopts the executor there.
        executor.adoptCurrentThread()
        #expect(executor.isCurrent)
    }

    @Test func aContinuationResumedFromACallbackQueuesTheRestOfItsTask() {
        let executor = LoopExecutor()
        let log = Log()
        executor.wake = { log.wakes += 1 }
        final class Resumer: @unchecked Sendable { var resume: (() -> Void)? }
        let resumer = Resumer()
        let bound = LoopBound((log, resumer), on: executor)
        Task(executorPreference: executor) {
            let (log, resumer) = bound.value
            log.items.append("waits")
            await withCheckedContinuation { (k: CheckedContinuation<Void, Never>) in resumer.resume = { k.resume() } }
            log.items.append("resumed")
        }
        executor.runJobs()
        // Suspended at its await: no job is left until the callback comes.
        #expect(log.items == ["waits"] && !executor.hasJobs)
        let wakes = log.wakes
        resumer.resume?()
        // The resumption is a job queued from the callback: it wakes the loop, and runs with its jobs.
        #expect(executor.hasJobs && log.items == ["waits"] && log.wakes == wakes + 1)
        executor.runJobs()
        #expect(log.items == ["waits", "resumed"])
    }
}

/// What the other thread is handed.
private final class Pair {
    let executor: LoopExecutor
    let seen: AnyObject
    init(_ executor: LoopExecutor, _ seen: AnyObject) {
        self.executor = executor
        self.seen = seen
    }
}
