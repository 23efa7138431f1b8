import Glibc

/// A blocking newline-delimited client over a Unix or TCP socket, for `call` and the benchmarks' load
/// generator (the host itself never blocks; its clients may).
final class LineClient {
    let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    /// Where `countLines` receives: allocated once, so that a round trip costs the load generator no
    /// allocation (its cost is part of every latency the benchmarks print).
    private lazy var scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)

    struct Failure: Error, CustomStringConvertible { let description: String }

    init(unixPath: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(unixPath.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
            close(fd)
            throw Failure(description: "socket path too long: \(unixPath)")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { p in
            for (i, b) in bytes.enumerated() { p[i] = b }
        }
        let rc = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard rc == 0 else {
            let e = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "cannot connect to \(unixPath): \(e)")
        }
    }

    init(tcpHost: String, port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        inet_pton(AF_INET, tcpHost, &addr.sin_addr)
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let rc = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            let e = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "cannot connect to \(tcpHost):\(port): \(e)")
        }
    }

    deinit {
        close(fd)
        scratch.deallocate()
    }

    func send(_ bytes: [UInt8]) throws {
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + off, bytes.count - off, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "send: \(String(cString: strerror(errno)))")
            }
            off += n
        }
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Reads one line (without its newline); nil at end of stream.
    func readLine() throws -> [UInt8]? {
        while true {
            if let nl = buffer[start...].firstIndex(of: 0x0A) {
                let line = Array(buffer[start..<nl])
                start = nl + 1
                if start == buffer.count { buffer.removeAll(keepingCapacity: true); start = 0 }
                return line
            }
            if start > 0 { buffer.removeFirst(start); start = 0 }
            if try fill() == 0 { return nil }
        }
    }

    /// Counts newlines as they arrive, without materialising lines (the load generator's fast path).
    func countLines(_ wanted: Int) throws {
        var seen = 0
        let chunk = scratch
        while seen < wanted {
            let n = recv(fd, chunk.baseAddress!, chunk.count, 0)
            if n < 0 { if errno == EINTR { continue }; throw Failure(description: "recv: \(String(cString: strerror(errno)))") }
            if n == 0 { throw Failure(description: "connection closed after \(seen) of \(wanted) lines") }
            for i in 0..<n where chunk[i] == 0x0A { seen += 1 }
        }
    }

    private func fill() throws -> Int {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "recv: \(String(cString: strerror(errno)))")
            }
            buffer.append(contentsOf: chunk[0..<n])
            return n
        }
    }
}

import GreenroomJSON

extension LineClient {
    /// A JSON-RPC error reply, as the blocking client sees it.
    struct RPCFailure: Error, CustomStringConvertible {
        let error: JSONValue
        var description: String { JSONCodec.encodeString(error) }
    }

    /// Sends one request and returns its whole reply, skipping events that arrive first.
    func roundTrip(id: Int, method: String, params: JSONValue?) throws -> JSONValue {
        var request: JSONObject = ["jsonrpc": "2.0", "id": .int(id), "method": .string(method)]
        if let params { request["params"] = params }
        try send(JSONCodec.encode(.object(request)) + [0x0A])
        while let line = try readLine() {
            guard let reply = try? JSONCodec.decode(line) else { continue }
            if reply["id"] == .int(id) || (reply["id"] == .null && reply["error"] != nil) { return reply }
        }
        throw Failure(description: "the host closed the connection before replying")
    }

    /// The result of one request; a JSON-RPC error throws `RPCFailure`.
    func call(_ method: String, _ params: JSONValue? = nil) throws -> JSONValue {
        let reply = try roundTrip(id: 1, method: method, params: params)
        if let error = reply["error"] { throw RPCFailure(error: error) }
        return reply["result"] ?? .null
    }
}
