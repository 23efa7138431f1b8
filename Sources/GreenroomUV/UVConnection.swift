import CLibUV
import Glibc
import GreenroomHost

/// One accepted stream (Unix pipe or TCP). Owns its heap-allocated handle, freed in the close
/// callback. Replies produced during a loop pass are coalesced and written once per pass: first with
/// `uv_try_write` (no request, no copy when the socket has room), the rest queued with `uv_write`.
final class UVConnection: ConnectionTransport {
    unowned let server: UVServer
    let stream: UnsafeMutablePointer<uv_stream_t>
    var hostConnection: HostConnection!
    /// Bytes handed to uv_write and not yet completed.
    var queuedBytes = 0
    /// Loop time (ms) of the last write the peer took, or of when the server started watching it.
    var lastProgress: UInt64 = 0
    /// Bytes libuv had not yet written at the watchdog's last look.
    var lastUnsent = 0
    /// In the server's watch list (paused or past the outbound limit: closed if it takes nothing for
    /// the slow-reader grace period).
    var isWatched = false
    /// In the server's list of connections to resume after this loop pass's I/O.
    var resumeQueued = false
    /// Loop time (ms) by which `host.auth` must succeed (0: none).
    var authDeadline: UInt64 = 0
    /// Loop time (ms) by which a refused peer must have closed its side (0: not refused).
    var drainDeadline: UInt64 = 0
    var isDirty = false
    private(set) var isClosing = false
    /// Set when the host asked to close once writes finish.
    var closeWhenFlushed = false
    /// Set once `uv_shutdown` was issued: the stream takes no more writes (libuv would fail them, and a
    /// failed write closes at once, dropping what is queued), so later output is dropped.
    private(set) var isShuttingDown = false
    /// The reason the graceful close reports ("eof" when the peer finished first).
    private var shutdownReason = "closed"

    init(server: UVServer, stream: UnsafeMutablePointer<uv_stream_t>) {
        self.server = server
        self.stream = stream
    }

    static func from(_ stream: UnsafeMutablePointer<uv_stream_t>?) -> UVConnection? {
        guard let data = stream?.pointee.data else { return nil }
        return Unmanaged<UVConnection>.fromOpaque(data).takeUnretainedValue()
    }

    func startReading() throws {
        try uvCheck(uv_read_start(stream, { handle, suggested, buf in
            guard let handle, let buf, let c = UVConnection.from(asStream(handle)) else { return }
            buf.pointee = uv_buf_init(c.server.readBuffer.assumingMemoryBound(to: CChar.self), UInt32(c.server.readBufferSize))
        }, { stream, nread, buf in
            guard let c = UVConnection.from(stream) else { return }
            if nread > 0 {
                c.hostConnection.receive(UnsafeRawBufferPointer(start: c.server.readBuffer, count: nread))
            } else if nread == Int(UV_EOF.rawValue) {
                c.peerFinished()
            } else if nread < 0 {
                c.close(reason: String(cString: uv_strerror(Int32(nread))))
            }
        }), "uv_read_start")
    }

    /// The peer shut down its writing side (EOF): it sends no more requests but may still be reading.
    /// EOF means "no more requests", not "stop answering": everything read before it is answered and
    /// its events written, then the stream is shut down gracefully and only then closed (which tears
    /// the connection's objects down).
    func peerFinished() {
        uvReport(uv_read_stop(stream), "uv_read_stop")
        shutdownReason = "eof"
        hostConnection.finishInput()
    }

    // MARK: ConnectionTransport

    func outputReady(_ connection: HostConnection) {
        guard !isDirty, !isClosing else { return }
        isDirty = true
        server.markDirty(self)
    }

    func closeRequested(_ connection: HostConnection) {
        closeWhenFlushed = true
        outputReady(connection)
    }

    func flushNow(_ connection: HostConnection) {
        guard !isClosing else { return }
        flush()
    }

    var supportsBackpressure: Bool { true }

    func pauseReading(_ connection: HostConnection) {
        uvReport(uv_read_stop(stream), "uv_read_stop")
        server.watch(self)
    }

    func resumeReading(_ connection: HostConnection) {
        guard !isClosing, !isShuttingDown else { return }
        do { try startReading() } catch { close(reason: "read failed") }
    }

    // MARK: Writing

    /// Writes everything the host queued. Backpressure keeps the queue near the high-water mark for
    /// replies (the host stops running requests past it); what goes past the outbound limit (one reply
    /// larger than it, or events for a paused connection) is still queued whole, and the server closes
    /// the connection only if its peer then takes nothing for the slow-reader grace period.
    func flush() {
        isDirty = false
        guard !isClosing else { return }
        let out = hostConnection.out
        if isShuttingDown {
            out.removeAll()  // events after our shutdown: the stream takes no more writes
            return
        }
        if !out.isEmpty {
            var written = 0
            let total = out.count
            if queuedBytes == 0 {
                var buf = uv_buf_init(out.base.assumingMemoryBound(to: CChar.self), UInt32(total))
                let n = uv_try_write(stream, &buf, 1)
                written = n > 0 ? Int(n) : 0
            }
            if written < total {
                enqueueWrite(UnsafeRawBufferPointer(start: out.base + written, count: total - written))
                if queuedBytes > server.outboundLimit { server.watch(self) }
            }
            out.removeAll()
        }
        if closeWhenFlushed { shutdownAndClose() }
    }

    /// Layout of one queued write: [uv_write_t][byte count][bytes].
    private static let headerSize = (MemoryLayout<uv_write_t>.size + 15) & ~15

    private func enqueueWrite(_ bytes: UnsafeRawBufferPointer) {
        let count = bytes.count
        let raw = UnsafeMutableRawPointer.allocate(byteCount: Self.headerSize + 16 + count, alignment: 16)
        memset(raw, 0, MemoryLayout<uv_write_t>.size)
        raw.storeBytes(of: count, toByteOffset: Self.headerSize, as: Int.self)
        let payload = raw + Self.headerSize + 16
        payload.copyMemory(from: bytes.baseAddress!, byteCount: count)
        let req = raw.assumingMemoryBound(to: uv_write_t.self)
        req.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        var buf = uv_buf_init(payload.assumingMemoryBound(to: CChar.self), UInt32(count))
        queuedBytes += count
        let rc = uv_write(req, stream, &buf, 1) { req, status in
            guard let req else { return }
            let raw = UnsafeMutableRawPointer(req)
            let count = raw.load(fromByteOffset: UVConnection.headerSize, as: Int.self)
            if let data = req.pointee.data {
                let c = Unmanaged<UVConnection>.fromOpaque(data).takeUnretainedValue()
                c.queuedBytes -= count
                c.lastProgress = uv_now(c.server.loop)
                if let hc = c.hostConnection, hc.isPaused, c.queuedBytes + hc.out.count <= hc.lowWater {
                    c.server.queueResume(c)
                }
                if status < 0 && status != Int32(UV_ECANCELED.rawValue) { c.close(reason: "write failed") }
            }
            raw.deallocate()
        }
        if rc < 0 {
            queuedBytes -= count
            raw.deallocate()
            close(reason: "write failed")
        }
    }

    // MARK: Closing

    /// Closes a refused connection gracefully: after the refusal line (already written), our side is
    /// shut down (FIN), and what the peer sends is read and dropped until it closes its side or
    /// `deadline` (loop ms) passes; only then is the handle closed. Closing with the peer's bytes
    /// unread would reset the connection, and the peer might never read why it was refused.
    func drainAndClose(deadline: UInt64) {
        guard !isClosing, !isShuttingDown else { return }
        isShuttingDown = true
        drainDeadline = deadline
        server.watch(self)
        let req = allocateZeroed(uv_shutdown_t.self)
        if uv_shutdown(req, stream, { req, _ in req.map { UnsafeMutableRawPointer($0).deallocate() } }) < 0 {
            UnsafeMutableRawPointer(req).deallocate()
        }
        let rc = uv_read_start(stream, { handle, _, buf in
            guard let handle, let buf, let c = UVConnection.from(asStream(handle)) else { return }
            buf.pointee = uv_buf_init(c.server.readBuffer.assumingMemoryBound(to: CChar.self), UInt32(c.server.readBufferSize))
        }, { stream, nread, _ in
            if nread < 0, let c = UVConnection.from(stream) { c.close(reason: "refused") }
        })
        if rc < 0 { close(reason: "refused") }
    }

    /// Finishes queued writes, then closes (graceful: used at shutdown and for refused peers).
    func shutdownAndClose() {
        guard !isClosing, !isShuttingDown else { return }
        isShuttingDown = true
        let req = allocateZeroed(uv_shutdown_t.self)
        req.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        let rc = uv_shutdown(req, stream) { req, _ in
            guard let req else { return }
            if let data = req.pointee.data {
                let c = Unmanaged<UVConnection>.fromOpaque(data).takeUnretainedValue()
                c.close(reason: c.shutdownReason)
            }
            UnsafeMutableRawPointer(req).deallocate()
        }
        if rc < 0 {
            UnsafeMutableRawPointer(req).deallocate()
            close(reason: shutdownReason)
        }
    }

    /// Closes now; the host tears the connection's objects down. Memory is freed in the close callback.
    func close(reason: String) {
        guard !isClosing else { return }
        isClosing = true
        if let hc = hostConnection { server.host.connectionClosed(hc, reason: reason) }
        server.connectionClosing(self)
        uv_close(asHandle(stream)) { handle in
            guard let handle else { return }
            if let data = handle.pointee.data {
                Unmanaged<UVConnection>.fromOpaque(data).release()
            }
            UnsafeMutableRawPointer(handle).deallocate()
        }
    }
}
