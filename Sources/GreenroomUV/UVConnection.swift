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
    var isDirty = false
    private(set) var isClosing = false
    /// Set when the host asked to close once writes finish.
    var closeWhenFlushed = false

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
            } else if nread < 0 {
                c.close(reason: nread == Int(UV_EOF.rawValue) ? "eof" : String(cString: uv_strerror(Int32(nread))))
            }
        }), "uv_read_start")
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

    // MARK: Writing

    /// Writes everything the host queued. Past the outbound limit the connection is closed: a slow
    /// reader never grows the host's memory without bound.
    func flush() {
        isDirty = false
        guard !isClosing else { return }
        let out = hostConnection.out
        if !out.isEmpty {
            var written = 0
            let total = out.count
            if queuedBytes == 0 {
                var buf = uv_buf_init(out.base.assumingMemoryBound(to: CChar.self), UInt32(total))
                let n = uv_try_write(stream, &buf, 1)
                written = n > 0 ? Int(n) : 0
            }
            if written < total {
                let rest = total - written
                if queuedBytes + rest > server.host.config.maxOutboundBytes {
                    out.removeAll()
                    server.host.countSlowReaderClosed()
                    close(reason: "outbound limit exceeded")
                    return
                }
                enqueueWrite(UnsafeRawBufferPointer(start: out.base + written, count: rest))
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

    /// Finishes queued writes, then closes (graceful: used at shutdown and for refused peers).
    func shutdownAndClose() {
        guard !isClosing else { return }
        let req = allocateZeroed(uv_shutdown_t.self)
        req.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        let rc = uv_shutdown(req, stream) { req, _ in
            guard let req else { return }
            if let data = req.pointee.data {
                Unmanaged<UVConnection>.fromOpaque(data).takeUnretainedValue().close(reason: "closed")
            }
            UnsafeMutableRawPointer(req).deallocate()
        }
        if rc < 0 {
            UnsafeMutableRawPointer(req).deallocate()
            close(reason: "closed")
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
