import CLibUV
import GreenroomHost

/// The connections a periodic timer looks at: slow readers (paused by backpressure or past the outbound
/// limit, taking no bytes for the grace period: closed), authentication deadlines (refused with
/// -32006), and refused peers that do not close their side in time (closed).
final class UVWatchdog {
    private let loop: UnsafeMutablePointer<uv_loop_t>
    /// What the host does about a connection the watchdog gives up on: refuses one whose
    /// authentication deadline passed (-32006), counts a slow reader it closes.
    private let authDeadlinePassed: (HostConnection) -> Void
    private let slowReaderClosed: (HostConnection?) -> Void
    private let outboundLimit: Int
    /// A peer whose queue is past the outbound limit, or that is paused by backpressure, and that
    /// takes no bytes for this long is closed as a slow reader.
    private let slowReaderGraceMs: UInt64
    private let period: UInt64
    private var watched: [UVConnection] = []
    private var timer: UnsafeMutablePointer<uv_timer_t>?
    private var closed = false

    init(loop: UnsafeMutablePointer<uv_loop_t>, outboundLimit: Int, slowReaderGraceMs: UInt64,
         authTimeoutMs: UInt64, refusalDrainMs: UInt64,
         authDeadlinePassed: @escaping (HostConnection) -> Void, slowReaderClosed: @escaping (HostConnection?) -> Void) {
        self.loop = loop
        self.authDeadlinePassed = authDeadlinePassed
        self.slowReaderClosed = slowReaderClosed
        self.outboundLimit = outboundLimit
        self.slowReaderGraceMs = slowReaderGraceMs
        period = max(5, min(slowReaderGraceMs, authTimeoutMs, refusalDrainMs) / 4)
    }

    /// Puts a connection under the watchdog: the slow-reader clock (paused or past the outbound
    /// limit), the authentication deadline, or a refused peer's drain deadline.
    func watch(_ c: UVConnection) {
        guard !closed, !c.isWatched, !c.isClosing else { return }
        c.isWatched = true
        c.lastProgress = uv_now(loop)
        watched.append(c)
        if timer == nil {
            let t = allocateZeroed(uv_timer_t.self)
            uvReport(uv_timer_init(loop, t), "uv_timer_init (the watchdog)")
            uv_unref(asHandle(t))
            timer = t
        }
        guard let t = timer, uv_is_active(asHandle(t)) == 0 else { return }
        uvReport(uv_timer_start(t, { h in
            let server = UVServer.from(h)
            server.watchdog.tick()
            server.flushDirty()
        }, period, period), "uv_timer_start (the watchdog)")
    }

    /// Closes (counted) every watched connection that took no bytes for the grace period while still
    /// paused or past the outbound limit; refuses those whose authentication deadline passed; closes
    /// refused peers that did not close their side in time; forgets those that recovered.
    private func tick() {
        let now = uv_now(loop)
        var keep: [UVConnection] = []
        for c in watched {
            guard !c.isClosing else { c.isWatched = false; continue }
            if c.drainDeadline != 0 {
                if now >= c.drainDeadline { c.isWatched = false; c.close(reason: "refused") } else { keep.append(c) }
                continue
            }
            if c.authDeadline != 0, let hc = c.hostConnection {
                if hc.isAuthenticated {
                    c.authDeadline = 0
                } else if now >= c.authDeadline {
                    c.authDeadline = 0
                    authDeadlinePassed(hc)
                }
            }
            let stalled = (c.hostConnection?.isPaused ?? false) || c.queuedBytes > outboundLimit
            // A large write completes only once the peer took all of it: a queue that shrank since the
            // last tick is progress too (a peer reading a many-megabyte reply steadily is not slow).
            let unsent = c.stream.pointee.write_queue_size
            if unsent < c.lastUnsent { c.lastProgress = now }
            c.lastUnsent = unsent
            if !stalled {
                if c.authDeadline != 0 { keep.append(c) } else { c.isWatched = false }
            } else if now &- c.lastProgress >= slowReaderGraceMs {
                c.isWatched = false
                slowReaderClosed(c.hostConnection)
                c.close(reason: "slow reader")
            } else {
                keep.append(c)
            }
        }
        watched = keep
        if watched.isEmpty, let t = timer { uvReport(uv_timer_stop(t), "uv_timer_stop (the watchdog)") }
    }

    /// At shutdown: nothing is watched any more.
    func close() {
        closed = true
        if let t = timer { closeAndFree(asHandle(t)) }
        timer = nil
        for c in watched { c.isWatched = false }
        watched.removeAll()
    }
}
