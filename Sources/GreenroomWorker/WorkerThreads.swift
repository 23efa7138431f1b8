import Glibc
import GreenroomHost

/// `queue_work` in a plugin worker: each `work` runs on a thread of its own, and its `done` runs on the
/// worker's main thread before the next request is handled (where the host would have run it on its
/// loop), so a plugin sees the same order of events in a worker as in process.
final class WorkerThreads: WorkScheduler {
    private var lock = pthread_mutex_t()
    private var finished: [() -> Void] = []

    init() { pthread_mutex_init(&lock, nil) }

    private final class Job {
        let work: () -> Void
        let done: () -> Void
        unowned let owner: WorkerThreads
        init(work: @escaping () -> Void, done: @escaping () -> Void, owner: WorkerThreads) {
            self.work = work
            self.done = done
            self.owner = owner
        }
    }

    func queue(work: @escaping () -> Void, done: @escaping () -> Void) {
        let job = Unmanaged.passRetained(Job(work: work, done: done, owner: self)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            let job = Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue()
            job.work()
            job.owner.finish(job.done)
            return nil
        }, job)
        if rc == 0 {
            pthread_detach(thread)
        } else {
            // No thread: run it here, as a host without a pool would.
            let j = Unmanaged<Job>.fromOpaque(job).takeRetainedValue()
            j.work()
            j.done()
        }
    }

    private func finish(_ done: @escaping () -> Void) {
        pthread_mutex_lock(&lock)
        finished.append(done)
        pthread_mutex_unlock(&lock)
    }

    /// Runs the `done` of every job that finished, on the calling (main) thread.
    func runFinished() {
        pthread_mutex_lock(&lock)
        let ready = finished
        finished.removeAll()
        pthread_mutex_unlock(&lock)
        for done in ready { done() }
    }
}
