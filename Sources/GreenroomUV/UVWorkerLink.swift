import CLibUV
import Glibc
import GreenroomHost

/// One plugin worker's socket as a libuv pipe. Reading never stops while the link is open: what the
/// worker writes is kept until a call takes it, its end of file is the hang-up watch. A parked call
/// (`whenReceived`) holds a reference on the loop; an idle link does not keep the loop alive.
final class UVWorkerLink: WorkerLink {
    let fd: Int32
    private unowned(unsafe) let sockets: UVWorkerSockets
    private var pipe: UnsafeMutablePointer<uv_pipe_t>?
    /// Read and not taken yet.
    private var received: [UInt8] = []
    /// How the socket ended (end of file, a reset, an error), once it has; reported after what was read.
    private var ended: WireError?
    /// Reading paused: this many bytes wait with no call to take them (a worker that writes unasked).
    private var paused = false
    private static let pauseAbove = 1 << 20
    /// The parked call's wake-up and its deadline's timer.
    private var waiter: ((Bool) -> Void)?
    private var timer: UnsafeMutablePointer<uv_timer_t>?
    private var hungUp: (() -> Void)?
    /// Writes handed to libuv and not completed.
    private var writesQueued = 0

    init(sockets: UVWorkerSockets, fd: Int32) {
        self.sockets = sockets
        self.fd = fd
    }

    /// Opens the pipe on the socket and starts reading; false (the socket closed, `ended` set) when libuv
    /// refuses it.
    func open() -> Bool {
        let p = allocateZeroed(uv_pipe_t.self)
        guard uvReport(uv_pipe_init(sockets.loop, p, 0), "uv_pipe_init (a worker's socket)") else {
            UnsafeMutableRawPointer(p).deallocate()
            Glibc.close(fd)
            ended = .io(EBADF)
            return false
        }
        guard uvReport(uv_pipe_open(p, fd), "uv_pipe_open (a worker's socket)") else {
            closeAndFree(asHandle(p))
            Glibc.close(fd)
            ended = .io(EBADF)
            return false
        }
        // The handle holds the link until its close callback.
        p.pointee.data = Unmanaged.passRetained(self).toOpaque()
        pipe = p
        uv_unref(asHandle(p))
        startReading()
        return true
    }

    private static func from(_ h: UnsafeMutableRawPointer?) -> UVWorkerLink {
        Unmanaged<UVWorkerLink>.fromOpaque(h!.assumingMemoryBound(to: uv_handle_t.self).pointee.data!).takeUnretainedValue()
    }

    private func startReading() {
        guard let pipe else { return }
        paused = false
        uvReport(uv_read_start(asStream(pipe), { h, _, buf in
            let link = UVWorkerLink.from(UnsafeMutableRawPointer(h))
            buf!.pointee = uv_buf_init(link.sockets.readBuffer.assumingMemoryBound(to: CChar.self), UInt32(link.sockets.readBufferSize))
        }, { stream, nread, _ in
            UVWorkerLink.from(UnsafeMutableRawPointer(stream)).read(nread)
        }), "uv_read_start (a worker's socket)")
    }

    private func read(_ nread: Int) {
        if nread > 0 {
            received.append(contentsOf: UnsafeRawBufferPointer(start: sockets.readBuffer, count: nread))
            if waiter == nil && received.count > Self.pauseAbove, let pipe {
                uvReport(uv_read_stop(asStream(pipe)), "uv_read_stop (a worker's socket)")
                paused = true
            }
        } else if nread < 0 {
            let code = Int32(nread)
            ended = code == UV_EOF.rawValue || code == -ECONNRESET ? .closed : .io(-code)
            if let pipe { uvReport(uv_read_stop(asStream(pipe)), "uv_read_stop (a worker's socket)") }
        } else {
            return
        }
        if waiter != nil { return wake(true) }
        hungUpIfEnded()
    }

    private func wake(_ ready: Bool) {
        guard let waiter else { return }
        self.waiter = nil
        if let timer { uvReport(uv_timer_stop(timer), "uv_timer_stop (a worker's deadline)") }
        if let pipe { uv_unref(asHandle(pipe)) }
        waiter(ready)
    }

    // MARK: WorkerLink

    func send(_ bytes: [UInt8]) {
        guard let pipe, ended == nil else { return }
        var done = 0
        if writesQueued == 0 {
            let n = bytes.withUnsafeBytes { b in
                var buf = uv_buf_init(UnsafeMutablePointer(mutating: b.baseAddress!.assumingMemoryBound(to: CChar.self)), UInt32(b.count))
                return uv_try_write(asStream(pipe), &buf, 1)
            }
            if n >= 0 { done = Int(n) } else if n != UV_EAGAIN.rawValue { return failed(n) }
        }
        guard done < bytes.count else { return }
        // The rest is copied and queued: libuv writes it as the worker reads, in order.
        let rest = bytes.count - done
        let request = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<uv_write_t>.size + rest, alignment: 16)
        let req = request.assumingMemoryBound(to: uv_write_t.self)
        let data = request + MemoryLayout<uv_write_t>.size
        bytes.withUnsafeBytes { data.copyMemory(from: $0.baseAddress! + done, byteCount: rest) }
        var buf = uv_buf_init(data.assumingMemoryBound(to: CChar.self), UInt32(rest))
        let rc = uv_write(req, asStream(pipe), &buf, 1) { req, status in
            guard let req else { return }
            let link = UVWorkerLink.from(UnsafeMutableRawPointer(req.pointee.handle))
            UnsafeMutableRawPointer(req).deallocate()
            link.writesQueued -= 1
            if status < 0 && status != UV_ECANCELED.rawValue { link.failed(status) }
        }
        guard rc == 0 else {
            request.deallocate()
            return failed(rc)
        }
        writesQueued += 1
    }

    /// A write failed: the socket is over (what was read is still taken first).
    private func failed(_ code: Int32) {
        if ended == nil { ended = code == -EPIPE || code == -ECONNRESET ? .closed : .io(-code) }
        wake(true)
    }

    func take(into buffer: inout FrameBuffer) throws(WireError) -> Bool {
        if !received.isEmpty {
            buffer.append(&received)
            if paused && ended == nil { startReading() }
            return true
        }
        if let ended { throw ended }
        if pipe == nil { throw .closed }
        return false
    }

    func whenReceived(timeoutMs: Int?, _ done: @escaping (Bool) -> Void) {
        guard let pipe, received.isEmpty, ended == nil else { return done(true) }
        precondition(waiter == nil, "two calls parked on one worker's socket")
        waiter = done
        uv_ref(asHandle(pipe))
        if paused { startReading() }
        guard let timeoutMs else { return }
        if timer == nil {
            let t = allocateZeroed(uv_timer_t.self)
            uvReport(uv_timer_init(sockets.loop, t), "uv_timer_init (a worker's deadline)")
            t.pointee.data = pipe.pointee.data
            timer = t
        }
        uvReport(uv_timer_start(timer!, { t in
            UVWorkerLink.from(UnsafeMutableRawPointer(t)).wake(false)
        }, UInt64(max(0, timeoutMs)), 0), "uv_timer_start (a worker's deadline)")
    }

    func watchHangUp(_ hungUp: @escaping () -> Void) {
        guard pipe != nil else { return }
        self.hungUp = hungUp
        // It ended already: told on the next turn of the loop, as if the read had come then (not from
        // inside whoever asked for the watch).
        if ended != nil { _ = sockets.after(ms: 0) { self.hungUpIfEnded() } }
    }

    private func hungUpIfEnded() {
        guard ended != nil, waiter == nil, let hungUp else { return }
        self.hungUp = nil
        hungUp()
    }

    func stopWatching() { hungUp = nil }

    var hasHungUp: Bool { pipe == nil || (ended != nil && received.isEmpty) }

    func close() {
        guard let pipe else { return }
        self.pipe = nil
        hungUp = nil
        if ended == nil { ended = .closed }
        sockets.forget(self)
        if let timer {
            // Its data is the link, released by the pipe's close callback below.
            closeAndFree(asHandle(timer))
            self.timer = nil
        }
        // A parked call learns the socket is gone (it closed it, or shutdown did).
        wake(true)
        uv_close(asHandle(pipe)) { h in
            guard let h else { return }
            Unmanaged<UVWorkerLink>.fromOpaque(h.pointee.data!).release()
            UnsafeMutableRawPointer(h).deallocate()
        }
    }
}
