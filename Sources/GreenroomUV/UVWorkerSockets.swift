import CLibUV
import GreenroomHost

/// Plugin workers' sockets on the loop, with one uv_poll handle per socket: a hang-up between calls (a
/// worker that died idle) is reported at once, and a call parked in the lane (`CallLane.park`) is woken
/// when its worker's reply can be read, or by a timer when its deadline passes. Also the real-time
/// timers parked calls sleep on (a scripted hook's cost, a worker's exit grace).
final class UVWorkerSockets: HangUpWatcher, LoopWaits {
    private let loop: UnsafeMutablePointer<uv_loop_t>

    /// One socket's handle and who waits on it.
    private final class Watch {
        let poll: UnsafeMutablePointer<uv_poll_t>
        /// The hang-up watch (`watchHangUp`) and its token.
        var hungUp: (() -> Void)?
        var token = 0
        /// The parked call's wake-up (`whenReady`), what it waits for, and its deadline's timer.
        var waiter: ((Bool) -> Void)?
        var writable = false
        var timer: UnsafeMutablePointer<uv_timer_t>?

        init(poll: UnsafeMutablePointer<uv_poll_t>) { self.poll = poll }
    }

    private var watches: [Int32: Watch] = [:]
    private var tokens: [Int: Int32] = [:]
    private var next = 1
    private var closed = false

    init(loop: UnsafeMutablePointer<uv_loop_t>) { self.loop = loop }

    private func watch(_ fd: Int32) -> Watch? {
        if let w = watches[fd] { return w }
        let h = allocateZeroed(uv_poll_t.self)
        guard uvReport(uv_poll_init(loop, h, fd), "uv_poll_init (a worker's socket)") else {
            UnsafeMutableRawPointer(h).deallocate()
            return nil
        }
        h.pointee.data = UnsafeMutableRawPointer(bitPattern: Int(fd) + 1)
        let w = Watch(poll: h)
        watches[fd] = w
        return w
    }

    /// Asks for what the socket's watchers want now; a socket no one watches any more is let go.
    private func update(_ fd: Int32, _ w: Watch) {
        var events: Int32 = 0
        if w.waiter != nil { events = Int32((w.writable ? UV_WRITABLE : UV_READABLE).rawValue | UV_DISCONNECT.rawValue) }
        else if w.hungUp != nil { events = Int32(UV_DISCONNECT.rawValue) }
        guard events != 0 else {
            watches[fd] = nil
            if let t = w.timer { closeAndFree(asHandle(t)) }
            closeAndFree(asHandle(w.poll))
            return
        }
        // A parked call keeps the loop alive; a hang-up watch alone never does.
        if w.waiter != nil { uv_ref(asHandle(w.poll)) } else { uv_unref(asHandle(w.poll)) }
        uvReport(uv_poll_start(w.poll, events) { h, status, events in
            guard let h else { return }
            let fd = Int32(Int(bitPattern: h.pointee.data) - 1)
            UVServer.from(h).workerSockets.fired(fd, status: status, events: events)
        }, "uv_poll_start (a worker's socket)")
    }

    private func fired(_ fd: Int32, status: Int32, events: Int32) {
        guard let w = watches[fd] else { return }
        if let waiter = w.waiter {
            w.waiter = nil
            if let t = w.timer { uvReport(uv_timer_stop(t), "uv_timer_stop (a worker's deadline)") }
            update(fd, w)
            return waiter(true)
        }
        guard status < 0 || events & Int32(UV_DISCONNECT.rawValue) != 0, let hungUp = w.hungUp else { return }
        // Once: whoever is told closes the socket (or watches again).
        w.hungUp = nil
        tokens[w.token] = nil
        update(fd, w)
        hungUp()
    }

    // MARK: HangUpWatcher

    func watchHangUp(fd: Int32, _ hungUp: @escaping () -> Void) -> Int {
        guard !closed, let w = watch(fd) else { return 0 }
        let token = next
        next += 1
        if w.hungUp != nil { tokens[w.token] = nil }
        w.hungUp = hungUp
        w.token = token
        tokens[token] = fd
        update(fd, w)
        return token
    }

    func stop(_ token: Int) {
        guard let fd = tokens.removeValue(forKey: token), let w = watches[fd], w.token == token else { return }
        w.hungUp = nil
        update(fd, w)
    }

    /// At shutdown: every hang-up watch ends (the workers are stopped after the teardown).
    func closeAll() {
        for token in Array(tokens.keys) { stop(token) }
        closed = true
    }

    // MARK: LoopWaits

    func whenReady(fd: Int32, writable: Bool, timeoutMs: Int?, _ done: @escaping (Bool) -> Void) {
        guard let w = watch(fd) else { return done(true) }  // the read or write that follows reports the error
        precondition(w.waiter == nil, "two calls parked on one worker's socket")
        w.waiter = done
        w.writable = writable
        if let timeoutMs {
            if w.timer == nil {
                let t = allocateZeroed(uv_timer_t.self)
                uvReport(uv_timer_init(loop, t), "uv_timer_init (a worker's deadline)")
                t.pointee.data = UnsafeMutableRawPointer(bitPattern: Int(fd) + 1)
                w.timer = t
            }
            uvReport(uv_timer_start(w.timer!, { t in
                guard let t else { return }
                let fd = Int32(Int(bitPattern: t.pointee.data) - 1)
                UVServer.from(t).workerSockets.timedOut(fd)
            }, UInt64(max(0, timeoutMs)), 0), "uv_timer_start (a worker's deadline)")
        }
        update(fd, w)
    }

    private func timedOut(_ fd: Int32) {
        guard let w = watches[fd], let waiter = w.waiter else { return }
        w.waiter = nil
        update(fd, w)
        waiter(false)
    }

    private final class Sleeper {
        let done: () -> Void
        init(_ done: @escaping () -> Void) { self.done = done }
    }

    func after(ms: Int, _ done: @escaping () -> Void) {
        let t = allocateZeroed(uv_timer_t.self)
        guard uvReport(uv_timer_init(loop, t), "uv_timer_init (a parked call's sleep)") else {
            UnsafeMutableRawPointer(t).deallocate()
            return done()
        }
        t.pointee.data = Unmanaged.passRetained(Sleeper(done)).toOpaque()
        uvReport(uv_timer_start(t, { t in
            guard let t else { return }
            let sleeper = Unmanaged<Sleeper>.fromOpaque(t.pointee.data!).takeRetainedValue()
            closeAndFree(asHandle(t))
            sleeper.done()
        }, UInt64(max(0, ms)), 0), "uv_timer_start (a parked call's sleep)")
    }

    func runOnce() {
        uv_run(loop, UV_RUN_ONCE)
    }
}
