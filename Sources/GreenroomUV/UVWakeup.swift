import CLibUV
import GreenroomHost

/// Wakes the loop when a job is queued on the host's executor (`LoopExecutor.wake`), so it runs before the
/// loop blocks for I/O: from the loop's own thread (a callback resumed a waiting call) the loop's next
/// poll is made not to block (`uv_stop`); from another thread, `uv_async_send` wakes it. The turn that
/// follows runs the jobs (`UVServer.turn`).
final class UVWakeup {
    private let async: UnsafeMutablePointer<uv_async_t>
    private let executor: LoopExecutor

    init(loop: UnsafeMutablePointer<uv_loop_t>, executor: LoopExecutor) throws {
        self.executor = executor
        async = allocateZeroed(uv_async_t.self)
        try uvCheck(uv_async_init(loop, async) { _ in }, "uv_async_init (the executor's wake-up)")
        // It never keeps the loop alive by itself: a job belongs to work that does.
        uv_unref(asHandle(async))
        let handles = Handles(loop: loop, async: async)
        executor.wake = { [executor] in
            if executor.isCurrent { uv_stop(handles.loop) } else { uv_async_send(handles.async) }
        }
    }

    /// At shutdown: no more wake-ups, and the handle is closed.
    func close() {
        executor.wake = nil
        closeAndFree(asHandle(async))
    }

    /// The handles the wake-up touches: `uv_async_send` is thread-safe, and `uv_stop` is called only on
    /// the loop's thread.
    private struct Handles: @unchecked Sendable {
        let loop: UnsafeMutablePointer<uv_loop_t>
        let async: UnsafeMutablePointer<uv_async_t>
    }
}
