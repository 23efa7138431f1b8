import CLibUV
import GreenroomHost

/// Plugin workers' sockets, watched for a hang-up between calls (a worker that died idle), with one
/// uv_poll handle each. Only the hang-up is asked for (UV_DISCONNECT): a reply arriving during a call
/// is read by the call itself and wakes no one here.
final class UVHangUpWatcher: HangUpWatcher {
    private let loop: UnsafeMutablePointer<uv_loop_t>
    private var handles: [Int: UnsafeMutablePointer<uv_poll_t>] = [:]
    private var callbacks: [Int: () -> Void] = [:]
    private var next = 1
    private var closed = false

    init(loop: UnsafeMutablePointer<uv_loop_t>) { self.loop = loop }

    func watchHangUp(fd: Int32, _ hungUp: @escaping () -> Void) -> Int {
        guard !closed else { return 0 }
        let token = next
        next += 1
        let h = allocateZeroed(uv_poll_t.self)
        guard uv_poll_init(loop, h, fd) == 0 else {
            UnsafeMutableRawPointer(h).deallocate()
            return 0
        }
        h.pointee.data = UnsafeMutableRawPointer(bitPattern: token)
        uv_unref(asHandle(h))  // a worker's socket never keeps the loop alive
        handles[token] = h
        callbacks[token] = hungUp
        uvReport(uv_poll_start(h, Int32(UV_DISCONNECT.rawValue)) { h, _, _ in
            guard let h else { return }
            uvReport(uv_poll_stop(h), "uv_poll_stop (a worker's hang-up)")  // once: whoever is told closes the socket
            let token = Int(bitPattern: h.pointee.data)
            let server = UVServer.from(h)
            server.hangUpWatcher.fire(token)
        }, "uv_poll_start (a worker's hang-up)")
        return token
    }

    private func fire(_ token: Int) {
        callbacks[token]?()
    }

    func stop(_ token: Int) {
        callbacks[token] = nil
        guard let h = handles.removeValue(forKey: token) else { return }
        closeAndFree(asHandle(h))
    }

    /// At shutdown: every watch ends (the workers are stopped after the loop).
    func closeAll() {
        for token in Array(handles.keys) { stop(token) }
        closed = true
    }
}
