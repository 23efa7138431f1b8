import CLibUV
import GreenroomHost

/// Runs background work on libuv's thread pool (`uv_queue_work`): `work` on a pool thread, `done` back
/// on the loop thread. Each request is heap-allocated and freed in its after-work callback; a queued
/// request keeps the loop alive until its `done` ran.
public final class UVWorkScheduler: WorkScheduler {
    let loop: UnsafeMutablePointer<uv_loop_t>
    /// Requests queued whose `done` has not run yet.
    public private(set) var pending = 0

    public init(loop: UnsafeMutablePointer<uv_loop_t>) {
        self.loop = loop
    }

    /// What one request carries; retained from `queue` until its after-work callback.
    private final class Job {
        let work: () -> Void
        let done: () -> Void
        let scheduler: UVWorkScheduler
        init(work: @escaping () -> Void, done: @escaping () -> Void, scheduler: UVWorkScheduler) {
            self.work = work
            self.done = done
            self.scheduler = scheduler
        }
    }

    public func queue(work: @escaping () -> Void, done: @escaping () -> Void) {
        let request = allocateZeroed(uv_work_t.self)
        request.pointee.data = Unmanaged.passRetained(Job(work: work, done: done, scheduler: self)).toOpaque()
        let rc = uv_queue_work(loop, request, { request in
            Unmanaged<Job>.fromOpaque(request!.pointee.data).takeUnretainedValue().work()
        }, { request, _ in
            // Also called (with UV_ECANCELED) for a cancelled request: `done` runs exactly once either way.
            let job = Unmanaged<Job>.fromOpaque(request!.pointee.data).takeRetainedValue()
            UnsafeMutableRawPointer(request!).deallocate()
            job.scheduler.pending -= 1
            job.done()
        })
        if rc < 0 {
            // Only an invalid argument fails here; keep the promise anyway: work, then done.
            Unmanaged<Job>.fromOpaque(request.pointee.data).release()
            UnsafeMutableRawPointer(request).deallocate()
            work()
            done()
            return
        }
        pending += 1
    }
}
