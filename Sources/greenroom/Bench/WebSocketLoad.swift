import Glibc
import Histogram

/// The WebSocket rows' load generator: the same requests as `LoadGenerator` (one ping per message), sent
/// as masked text frames over a `ws:` listener after the opening handshake, replies counted as frames.
struct WebSocketLoad {
    let port: UInt16

    /// One client connection past its `101 Switching Protocols`.
    final class Connection {
        let client: LineClient
        private var buffer: [UInt8] = []

        init(port: UInt16) throws {
            client = try LineClient(tcpHost: "127.0.0.1", port: port)
            try client.send("GET /rpc HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
            let end = Array("\r\n\r\n".utf8)
            while !buffer.starts(with: Array("HTTP/1.1 101".utf8)) || buffer.firstRange(of: end) == nil {
                guard try fill() > 0, buffer.count < 4096 else { throw LineClient.Failure(description: "no 101 from the ws: listener") }
            }
            buffer.removeSubrange(..<buffer.firstRange(of: end)!.upperBound)
        }

        private func fill() throws -> Int {
            var chunk = [UInt8](repeating: 0, count: 256 * 1024)
            while true {
                let n = chunk.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress!, $0.count, 0) }
                if n < 0 { if errno == EINTR { continue }; throw LineClient.Failure(description: "recv: \(String(cString: strerror(errno)))") }
                buffer.append(contentsOf: chunk[0..<n])
                return n
            }
        }

        /// Reads until `wanted` whole server frames have arrived.
        func countFrames(_ wanted: Int) throws {
            var seen = 0
            var at = 0
            while seen < wanted {
                while at + 2 <= buffer.count {
                    var length = Int(buffer[at + 1] & 0x7F)
                    var header = 2
                    if length == 126 {
                        guard at + 4 <= buffer.count else { break }
                        length = Int(buffer[at + 2]) << 8 | Int(buffer[at + 3])
                        header = 4
                    } else if length == 127 {
                        guard at + 10 <= buffer.count else { break }
                        length = (0..<8).reduce(0) { $0 << 8 | Int(buffer[at + 2 + $1]) }
                        header = 10
                    }
                    guard at + header + length <= buffer.count else { break }
                    at += header + length
                    seen += 1
                    if seen == wanted { break }
                }
                if seen < wanted {
                    guard try fill() > 0 else { throw LineClient.Failure(description: "ws: connection closed after \(seen) of \(wanted) frames") }
                }
            }
            buffer.removeSubrange(..<at)
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
