import Glibc
import GreenroomRPC
import Histogram

/// The one load generator every server in a comparison is measured with: same requests, same
/// connection handling, same process.
struct LoadGenerator {
    /// Opens one client connection (a Unix socket, or a `tcp:` listener on loopback).
    let connect: () throws -> LineClient

    init(socket: String) { connect = { try LineClient(unixPath: socket) } }
    init(tcpPort: UInt16) { connect = { try LineClient(tcpHost: "127.0.0.1", port: tcpPort) } }

    static let pingLine = Array("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"host.ping\"}\n".utf8)

    /// Round trips of one request at a time; returns the latency histogram in nanoseconds.
    func roundTrips(count: Int, warmup: Int = 2000, line: [UInt8] = LoadGenerator.pingLine) throws -> Histogram<UInt64> {
        let c = try connect()
        var h = Histogram<UInt64>(highestTrackableValue: 10_000_000_000, numberOfSignificantValueDigits: .three)
        for i in 0..<(warmup + count) {
            let t0 = monotonicNanos()
            try c.send(line)
            try c.countLines(1)
            let dt = monotonicNanos() - t0
            if i >= warmup { _ = h.record(dt) }
        }
        return h
    }

    /// Pipelined requests: `window` requests written at once, then their replies read, repeated.
    /// Returns requests per second.
    func pipelinedRate(total: Int, window: Int = 256, line: [UInt8] = LoadGenerator.pingLine) throws -> Double {
        let c = try connect()
        var chunk: [UInt8] = []
        chunk.reserveCapacity(line.count * window)
        for _ in 0..<window { chunk.append(contentsOf: line) }
        // Warm up.
        for _ in 0..<20 {
            try c.send(chunk)
            try c.countLines(window)
        }
        let rounds = max(1, total / window)
        let t0 = monotonicNanos()
        for _ in 0..<rounds {
            try c.send(chunk)
            try c.countLines(window)
        }
        let seconds = Double(monotonicNanos() - t0) / 1e9
        return Double(rounds * window) / seconds
    }
}
