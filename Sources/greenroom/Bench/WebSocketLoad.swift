import Glibc
import GreenroomRPC
import Histogram

/// The WebSocket rows' load generator: the same requests as `LoadGenerator` (one ping per message), sent
/// as masked text frames over a `ws:` listener after the opening handshake, replies counted as frames.
struct WebSocketLoad {
    let port: UInt16

    /// One client connection past its `101 Switching Protocols`. Frames are counted as they stream in,
    /// from a receive buffer allocated once (as `LineClient.countLines` does), so that the client costs
    /// the ws: rows what it costs the line rows.
    final class Connection {
        let client: LineClient
        private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        /// The header of the frame being read, while incomplete (at most 10 bytes).
        private var header: [UInt8] = []
        /// Payload bytes of the current frame still to come.
        private var remaining = 0
        /// Whole frames read and not yet counted by `countFrames`.
        private var frames = 0

        init(port: UInt16) throws {
            client = try LineClient(tcpHost: "127.0.0.1", port: port)
            header.reserveCapacity(16)
            try client.send("GET /rpc HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
            // The response head, a byte at a time (nothing follows it until a frame is sent).
            var head: [UInt8] = []
            var byte: UInt8 = 0
            while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
                guard recv(client.fd, &byte, 1, 0) == 1, head.count < 4096 else { throw LineClient.Failure(description: "no 101 from the ws: listener") }
                head.append(byte)
            }
            guard head.starts(with: Array("HTTP/1.1 101".utf8)) else { throw LineClient.Failure(description: "no 101 from the ws: listener") }
        }

        deinit { scratch.deallocate() }

        /// Reads until `wanted` whole server frames have arrived.
        func countFrames(_ wanted: Int) throws {
            while frames < wanted {
                let n = recv(client.fd, scratch.baseAddress!, scratch.count, 0)
                if n < 0 { if errno == EINTR { continue }; throw LineClient.Failure(description: "recv: \(String(cString: strerror(errno)))") }
                if n == 0 { throw LineClient.Failure(description: "ws: connection closed after \(frames) of \(wanted) frames") }
                scan(n)
            }
            frames -= wanted
        }

        private func scan(_ n: Int) {
            var i = 0
            while i < n {
                if remaining > 0 {
                    let skip = min(remaining, n - i)
                    i += skip
                    remaining -= skip
                    if remaining == 0 { frames += 1 }
                    continue
                }
                header.append(scratch[i])
                i += 1
                guard header.count >= 2 else { continue }
                let short = Int(header[1] & 0x7F)
                let size = short == 126 ? 4 : short == 127 ? 10 : 2
                guard header.count == size else { continue }
                let length = size == 2 ? short : header[2..<size].reduce(0) { $0 << 8 | Int($1) }
                header.removeAll(keepingCapacity: true)
                if length == 0 { frames += 1 } else { remaining = length }
            }
        }
    }

    /// `payload` as one masked client text frame.
    static func frame(_ payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x81]
        if payload.count < 126 { out.append(0x80 | UInt8(payload.count)) } else { out += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] }
        let key: [UInt8] = [0x11, 0x22, 0x33, 0x44]
        out += key
        for (i, b) in payload.enumerated() { out.append(b ^ key[i % 4]) }
        return out
    }

    static let pingFrame = frame(Array(LoadGenerator.pingLine.dropLast()))

    /// Round trips of one ping at a time; the latency histogram in nanoseconds.
    func roundTrips(count: Int, warmup: Int = 2000) throws -> Histogram<UInt64> {
        let c = try Connection(port: port)
        var h = Histogram<UInt64>(highestTrackableValue: 10_000_000_000, numberOfSignificantValueDigits: .three)
        for i in 0..<(warmup + count) {
            let t0 = monotonicNanos()
            try c.client.send(Self.pingFrame)
            try c.countFrames(1)
            if i >= warmup { _ = h.record(monotonicNanos() - t0) }
        }
        return h
    }

    /// Pipelined pings, `window` frames at a time; requests per second.
    func pipelinedRate(total: Int, window: Int = 256) throws -> Double {
        let c = try Connection(port: port)
        let chunk = Array(repeating: Self.pingFrame, count: window).flatMap { $0 }
        for _ in 0..<20 {
            try c.client.send(chunk)
            try c.countFrames(window)
        }
        let rounds = max(1, total / window)
        let t0 = monotonicNanos()
        for _ in 0..<rounds {
            try c.client.send(chunk)
            try c.countFrames(window)
        }
        return Double(rounds * window) / (Double(monotonicNanos() - t0) / 1e9)
    }
}
