import CLibUV
import Glibc

/// SIGINT and SIGTERM, each with its own handle: either asks the host for its graceful shutdown (the
/// teardown's events name the signal).
final class UVSignals {
    private var handles: [UnsafeMutablePointer<uv_signal_t>] = []

    init(loop: UnsafeMutablePointer<uv_loop_t>) throws {
        for sig in [SIGINT, SIGTERM] {
            let s = allocateZeroed(uv_signal_t.self)
            try uvCheck(uv_signal_init(loop, s), "uv_signal_init")
            handles.append(s)
            try uvCheck(uv_signal_start(s, { h, signum in
                let server = UVServer.from(h)
                server.host.shutdownSignalled(signum == SIGINT ? "SIGINT" : "SIGTERM")
                server.requestShutdown()
            }, sig), "uv_signal_start")
        }
    }

    /// At shutdown: a second signal then does what the default does.
    func close() {
        for s in handles { closeAndFree(asHandle(s)) }
        handles.removeAll()
    }
}
