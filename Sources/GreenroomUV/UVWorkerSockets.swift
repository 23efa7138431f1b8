import CLibUV
import Glibc
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
        var done: (() -> Void)?
        init(_ done: @escaping () -> Void) { self.done = done }
    }

    func after(ms: Int, _ done: @escaping () -> Void) -> () -> Void {
        let t = allocateZeroed(uv_timer_t.self)
        guard uvReport(uv_timer_init(loop, t), "uv_timer_init (a parked call's sleep)") else {
            UnsafeMutableRawPointer(t).deallocate()
            done()
            return {}
        }
        let sleeper = Sleeper(done)
        t.pointee.data = Unmanaged.passRetained(sleeper).toOpaque()
        uvReport(uv_timer_start(t, { t in
            guard let t else { return }
            let sleeper = Unmanaged<Sleeper>.fromOpaque(t.pointee.data!).takeRetainedValue()
            closeAndFree(asHandle(t))
            let done = sleeper.done
            sleeper.done = nil
            done?()
        }, UInt64(max(0, ms)), 0), "uv_timer_start (a parked call's sleep)")
        return {
            // Cancelled before it fired: the timer goes (its retain of the sleeper with it).
            guard sleeper.done != nil else { return }
            sleeper.done = nil
            Unmanaged<Sleeper>.fromOpaque(t.pointee.data!).release()
            closeAndFree(asHandle(t))
        }
    }

    // MARK: Child processes

    var canSpawn: Bool { true }

    func spawn(_ executable: String, _ arguments: [String], descriptors: [Int32]) -> Result<any SpawnedProcess, SpawnFailure> {
        let child = UVChildProcess()
        let process = allocateZeroed(uv_process_t.self)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var stdio = [uv_stdio_container_t](repeating: uv_stdio_container_t(), count: 3 + descriptors.count)
        for (i, fd) in ([0, 1, 2] + descriptors).enumerated() {
            stdio[i].flags = UV_INHERIT_FD
            stdio[i].data.fd = fd
        }
        let rc = executable.withCString { file in
            argv.withUnsafeBufferPointer { args in
                stdio.withUnsafeMutableBufferPointer { containers in
                    var options = uv_process_options_t()
                    options.exit_cb = { p, status, signal in
                        guard let p else { return }
                        let child = Unmanaged<UVChildProcess>.fromOpaque(p.pointee.data!).takeRetainedValue()
                        closeAndFree(asHandle(p))
                        child.ended(exitStatus: Int32(truncatingIfNeeded: status), signal: signal)
                    }
                    options.file = file
                    options.args = UnsafeMutablePointer(mutating: args.baseAddress!)
                    // A session (and process group) of its own: a terminal's ^C reaches the host, which
                    // stops its workers after its graceful shutdown. libuv resets the child's signal
                    // dispositions and mask to the defaults.
                    options.flags = UInt32(UV_PROCESS_DETACHED.rawValue)
                    options.stdio_count = Int32(containers.count)
                    options.stdio = containers.baseAddress
                    return uv_spawn(loop, process, &options)
                }
            }
        }
        guard rc == 0 else {
            // A handle uv_spawn failed on is initialised: it is closed like any other.
            closeAndFree(asHandle(process))
            return .failure(SpawnFailure(message: String(cString: uv_strerror(rc))))
        }
        process.pointee.data = Unmanaged.passRetained(child).toOpaque()
        child.pid = process.pointee.pid
        return .success(child)
    }

    func runOnce() {
        uv_run(loop, UV_RUN_ONCE)
    }
}

/// A worker process started with uv_spawn: libuv reaps it and reports how it ended.
final class UVChildProcess: SpawnedProcess {
    var pid: Int32 = 0
    private(set) var ending: (exitStatus: Int32, signal: Int32)?
    private var waiting: [() -> Void] = []

    func whenEnded(_ ended: @escaping () -> Void) {
        if ending != nil { return ended() }
        waiting.append(ended)
    }

    func ended(exitStatus: Int32, signal: Int32) {
        ending = (exitStatus, signal)
        let ready = waiting
        waiting.removeAll()
        for call in ready { call() }
    }
}
