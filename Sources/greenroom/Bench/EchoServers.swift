import ArgumentParser
import CJansson
import CLibUV
import Glibc

/// The baselines `bench` measures the host against, run as separate processes like the host:
/// `raw` echoes bytes as they arrive (the kernel's floor: no parsing, no framing); `naive` is what a
/// straightforward libuv + Jansson server does — parse each line, build the reply, one write per reply.
struct EchoServer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "echo-server", abstract: "Baseline servers for bench.", shouldDisplay: false)

    @Option var mode: String = "raw"
    @Option var socket: String
    /// Raw mode only: also echo on a loopback TCP port (0 picks one; the ready line shows it), the
    /// kernel's floor for a TCP round trip beside the Unix socket's.
    @Option var tcpPort: Int32?

    func run() throws {
        let loop = uv_default_loop()!
        let server = UnsafeMutablePointer<uv_pipe_t>.allocate(capacity: 1)
        uv_pipe_init(loop, server, 0)
        unlink(socket)
        guard uv_pipe_bind(server, socket) == 0 else { throw ValidationError("cannot bind \(socket)") }
        let naive = mode == "naive"
        let rc = uv_listen(UnsafeMutableRawPointer(server).assumingMemoryBound(to: uv_stream_t.self), 128,
                           naive ? naiveOnConnection : rawOnConnection)
        guard rc == 0 else { throw ValidationError("cannot listen") }
        var listen = ["\"unix:\(socket)\""]
        if let tcpPort, !naive { listen.append("\"tcp:127.0.0.1:\(try listenTCP(loop, port: tcpPort))\"") }
        print("{\"event\":\"ready\",\"listen\":[\(listen.joined(separator: ","))],\"pid\":\(getpid())}")
        fflush(nil)  // every stream: naming `stdout` is a shared global to Swift 6
        uv_run(loop, UV_RUN_DEFAULT)
    }
}

/// A raw echo on 127.0.0.1:`port`; returns the port bound.
private func listenTCP(_ loop: UnsafeMutablePointer<uv_loop_t>, port: Int32) throws -> Int {
    let server = UnsafeMutablePointer<uv_tcp_t>.allocate(capacity: 1)
    uv_tcp_init(loop, server)
    var addr = sockaddr_in()
    uv_ip4_addr("127.0.0.1", port, &addr)
    let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { uv_tcp_bind(server, $0, 0) } }
    guard bound == 0, uv_listen(UnsafeMutableRawPointer(server).assumingMemoryBound(to: uv_stream_t.self), 128, { server, status in
        guard status == 0 else { return }
        let client = UnsafeMutablePointer<uv_tcp_t>.allocate(capacity: 1)
        uv_tcp_init(server!.pointee.loop, client)
        let s = UnsafeMutableRawPointer(client).assumingMemoryBound(to: uv_stream_t.self)
        s.pointee.data = nil
        uv_accept(server, s)
        uv_tcp_nodelay(client, 1)
        uv_read_start(s, allocBuffer, rawEcho)
    }) == 0 else { throw ValidationError("cannot listen on 127.0.0.1:\(port)") }
    var name = sockaddr_in()
    var len = Int32(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &name) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { uv_tcp_getsockname(server, $0, &len) } }
    return Int(UInt16(bigEndian: name.sin_port))
}

private func allocBuffer(_ h: UnsafeMutablePointer<uv_handle_t>?, _ size: Int, _ buf: UnsafeMutablePointer<uv_buf_t>?) {
    let n = 65536
    buf!.pointee = uv_buf_init(malloc(n)!.assumingMemoryBound(to: CChar.self), UInt32(n))
}

private func acceptClient(_ server: UnsafeMutablePointer<uv_stream_t>?) -> UnsafeMutablePointer<uv_stream_t> {
    let client = UnsafeMutablePointer<uv_pipe_t>.allocate(capacity: 1)
    uv_pipe_init(server!.pointee.loop, client, 0)
    let s = UnsafeMutableRawPointer(client).assumingMemoryBound(to: uv_stream_t.self)
    s.pointee.data = nil  // libuv leaves `data` alone; closeStream frees it when set
    uv_accept(server, s)
    return s
}

/// One write request that owns its buffer.
private func writeOwned(_ stream: UnsafeMutablePointer<uv_stream_t>?, _ base: UnsafeMutablePointer<CChar>, _ len: Int) {
    let req = UnsafeMutablePointer<uv_write_t>.allocate(capacity: 1)
    req.pointee.data = UnsafeMutableRawPointer(base)
    var buf = uv_buf_init(base, UInt32(len))
    uv_write(req, stream, &buf, 1) { req, _ in
        free(req!.pointee.data)
        req!.deallocate()
    }
}

private func closeStream(_ s: UnsafeMutablePointer<uv_stream_t>?) {
    uv_close(UnsafeMutableRawPointer(s!).assumingMemoryBound(to: uv_handle_t.self)) { h in
        if let p = h?.pointee.data { free(p) }
        UnsafeMutableRawPointer(h!).deallocate()
    }
}

private let rawOnConnection: uv_connection_cb = { server, status in
    guard status == 0 else { return }
    uv_read_start(acceptClient(server), allocBuffer, rawEcho)
}

private let rawEcho: uv_read_cb = { stream, nread, buf in
    if nread > 0 {
        writeOwned(stream, buf!.pointee.base, nread)  // the read buffer becomes the write buffer
    } else {
        free(buf!.pointee.base)
        if nread < 0 { closeStream(stream) }
    }
}

/// Per connection: the bytes of an incomplete line.
private final class Pending { var bytes: [CChar] = [] }

private let naiveOnConnection: uv_connection_cb = { server, status in
    guard status == 0 else { return }
    let s = acceptClient(server)
    s.pointee.data = Unmanaged.passRetained(Pending()).toOpaque()
    uv_read_start(s, allocBuffer) { stream, nread, buf in
        defer { free(buf!.pointee.base) }
        guard nread > 0 else {
            if nread < 0 {
                Unmanaged<Pending>.fromOpaque(stream!.pointee.data).release()
                stream!.pointee.data = nil
                closeStream(stream)
            }
            return
        }
        let pending = Unmanaged<Pending>.fromOpaque(stream!.pointee.data).takeUnretainedValue()
        pending.bytes.append(contentsOf: UnsafeBufferPointer(start: buf!.pointee.base, count: nread))
        var start = 0
        while let nl = pending.bytes[start...].firstIndex(of: 0x0A) {
            pending.bytes.withUnsafeBufferPointer { p in
                var err = json_error_t()
                let req = json_loadb(p.baseAddress! + start, nl - start, 0, &err)
                let reply = json_object()!
                json_object_set_new(reply, "jsonrpc", json_string("2.0"))
                json_object_set(reply, "id", req.flatMap { json_object_get($0, "id") } ?? json_null())
                let result = json_object()!
                json_object_set_new(result, "pong", json_true())
                json_object_set_new(reply, "result", result)
                if let text = json_dumps(reply, gr_json_flags_compact()) {
                    let len = strlen(text)
                    let line = malloc(len + 1)!.assumingMemoryBound(to: CChar.self)
                    memcpy(line, text, len)
                    line[len] = 0x0A
                    free(text)
                    writeOwned(stream, line, len + 1)  // one write per reply: the naive way
                }
                gr_json_decref(reply)
                if let req { gr_json_decref(req) }
            }
            start = nl + 1
        }
        pending.bytes.removeFirst(start)
    }
}
