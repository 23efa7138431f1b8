import CLibUV
import Glibc
import GreenroomHost

/// Plugin workers' sockets on the loop, each a libuv pipe (`UVWorkerLink`): its read callback keeps
/// what the worker writes and wakes the call parked on it (`CallLane.waitReceived`), and reports a
/// worker that hangs up between calls. Also the real-time timers parked calls sleep on (a scripted
/// hook's cost, a worker's exit grace), and the workers' processes (uv_spawn).
final class UVWorkerSockets: LoopWaits {
    let loop: UnsafeMutablePointer<uv_loop_t>
    /// Where every link's reads land before they are kept (libuv reads into it and the read callback
    /// copies out at once, so one buffer serves them all).
    let readBuffer: UnsafeMutableRawPointer
    let readBufferSize: Int
    /// The links still open.
    private var links: [ObjectIdentifier: UVWorkerLink] = [:]
    private var closed = false

    init(loop: UnsafeMutablePointer<uv_loop_t>, readBuffer: UnsafeMutableRawPointer, readBufferSize: Int) {
        self.loop = loop
        self.readBuffer = readBuffer
        self.readBufferSize = readBufferSize
    }

    func link(fd: Int32) -> WorkerLink {
        let link = UVWorkerLink(sockets: self, fd: fd)
        if !closed && link.open() { links[ObjectIdentifier(link)] = link }
        return link
    }

    func forget(_ link: UVWorkerLink) { links[ObjectIdentifier(link)] = nil }

    /// At shutdown, after the teardown stopped the workers: a link still open is closed (its worker reads
    /// end of file and exits), so no handle outlives the loop.
    func closeAll() {
        closed = true
        for link in Array(links.values) { link.close() }
    }

    private final class Sleeper {
        var done: (() -> Void)?
        /// When it is due (uv_hrtime nanoseconds).
        let due: UInt64
        init(_ done: @escaping () -> Void, due: UInt64) {
            self.done = done
            self.due = due
        }
    }

    /// The loop's timers count whole milliseconds of a clock read when the turn began, so one may fire a
    /// little early: a sleep's timer is started again until its real time has passed (a scripted cost
    /// of 20 ms takes at least 20 ms).
    private static let fired: uv_timer_cb = { t in
        guard let t else { return }
        let sleeper = Unmanaged<Sleeper>.fromOpaque(t.pointee.data!).takeUnretainedValue()
        let now = uv_hrtime()
        if now < sleeper.due {
            uvReport(uv_timer_start(t, UVWorkerSockets.fired, (sleeper.due - now + 999_999) / 1_000_000, 0),
                     "uv_timer_start (a parked call's sleep)")
            return
        }
        Unmanaged<Sleeper>.fromOpaque(t.pointee.data!).release()
        closeAndFree(asHandle(t))
        let done = sleeper.done
        sleeper.done = nil
        done?()
    }

    func after(ms: Int, _ done: @escaping () -> Void) -> () -> Void {
        let t = allocateZeroed(uv_timer_t.self)
        guard uvReport(uv_timer_init(loop, t), "uv_timer_init (a parked call's sleep)") else {
            UnsafeMutableRawPointer(t).deallocate()
            done()
            return {}
        }
        let wait = UInt64(max(0, ms))
        let sleeper = Sleeper(done, due: uv_hrtime() + wait * 1_000_000)
        t.pointee.data = Unmanaged.passRetained(sleeper).toOpaque()
        uv_update_time(loop)
        uvReport(uv_timer_start(t, Self.fired, wait, 0), "uv_timer_start (a parked call's sleep)")
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
