import GreenroomHost
import GreenroomJSON

/// The range rows, with their budgets.
struct RangeBench {
    let client: LineClient

    func createSession(items: Int) throws -> String {
        let r = try client.call("range.create", ["count": .int(items), "itemLength": 44, "viewport": ["width": 375, "height": 667]])
        guard let s = r["session"]?.stringValue else { throw LineClient.Failure(description: "range.create failed") }
        return s
    }

    /// Pipelined `range.didScroll` (a steady drag, 7 points per frame, back and forth) in requests/s.
    func didScrollRate(session: String, total: Int, window: Int = 256, span: Double) throws -> Double {
        var offset = 0.0, step = 7.0
        func chunk() -> [UInt8] {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(window * 96)
            for _ in 0..<window {
                if offset + step > span || offset + step < 0 { step = -step }
                offset += step
                bytes += Array("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"range.didScroll\",\"params\":{\"session\":\"\(session)\",\"offset\":\(offset)}}\n".utf8)
            }
            return bytes
        }
        _ = try client.call("range.willBeginDragging", ["session": .string(session), "offset": 0])
        for _ in 0..<10 { try client.send(chunk()); try client.countLines(window) }
        let rounds = max(1, total / window)
        var elapsed: UInt64 = 0
        for _ in 0..<rounds {
            let c = chunk()
            let t0 = monotonicNanos()
            try client.send(c)
            try client.countLines(window)
            elapsed += monotonicNanos() - t0
        }
        return Double(rounds * window) / (Double(elapsed) / 1e9)
    }

    func pingRate(total: Int, window: Int = 256) throws -> Double {
        var chunk: [UInt8] = []
        for _ in 0..<window { chunk += LoadGenerator.pingLine }
        for _ in 0..<10 { try client.send(chunk); try client.countLines(window) }
        let rounds = max(1, total / window)
        let t0 = monotonicNanos()
        for _ in 0..<rounds { try client.send(chunk); try client.countLines(window) }
        return Double(rounds * window) / (Double(monotonicNanos() - t0) / 1e9)
    }
}

/// A host in this process with an in-memory connection and one range session of `items` rows of 44
/// points, dragging: what the server's loop thread does per line, without the socket.
struct InProcessRangeHost {
    let host: Host
    let connection: HostConnection

    init(items: Int) {
        // As on the server's loop thread: Jansson's short-lived trees come from the arena.
        JSONCodec.useArenaOnThisThread()
        var config = HostConfig()
        config.clockMode = .virtual
        host = Host(config: config)
        connection = host.openConnection(kind: .memory, transport: MemoryTransport())
        send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"range.create\",\"params\":{\"count\":\(items),\"itemLength\":44,\"viewport\":{\"width\":375,\"height\":667}}}")
        send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"range.willBeginDragging\",\"params\":{\"session\":\"r-1\",\"offset\":0}}")
        connection.out.removeAll()
    }

    func send(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.append(0x0A)
        connection.receive(bytes)
    }

    static func line(_ text: String) -> [UInt8] { Array((text + "\n").utf8) }

    /// The median time, in microseconds, the host takes to handle each line (reply and events included).
    func medianHandling(_ lines: [[UInt8]]) -> Double {
        var times: [Double] = []
        times.reserveCapacity(lines.count)
        for line in lines {
            let t0 = monotonicNanos()
            connection.receive(line)
            times.append(Double(monotonicNanos() - t0) / 1000)
            connection.out.removeAll()
        }
        return PrerenderBench.median(times)
    }
}

/// Host-side handling of one `range.didScroll` (parse, dispatch, range update, reply), in process
/// with an in-memory connection: the median in microseconds.
func inProcessDidScroll(items: Int, samples: Int) -> Double {
    let h = InProcessRangeHost(items: items)
    let lines: [[UInt8]] = (0..<samples).map { i in
        let offset = Double(i % 5_000) * 7  // a drag within the first 35,000 points (inside 1k items too)
        return InProcessRangeHost.line("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"range.didScroll\",\"params\":{\"session\":\"r-1\",\"offset\":\(offset)}}")
    }
    return h.medianHandling(lines)
}

/// Host-side handling of `range.insertItems` and `range.deleteItems` on screen (a row inserted among the
/// visible ones, then deleted again: both announce what enters and leaves), in process: the median in
/// microseconds of either.
func inProcessEdits(items: Int, samples: Int) -> Double {
    let h = InProcessRangeHost(items: items)
    h.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"events.subscribe\",\"params\":{\"topics\":[\"range\",\"prefetch\"]}}")
    h.connection.out.removeAll()
    let insert = InProcessRangeHost.line("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"range.insertItems\",\"params\":{\"session\":\"r-1\",\"at\":[0,5],\"lengths\":[44]}}")
    let delete = InProcessRangeHost.line("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"range.deleteItems\",\"params\":{\"session\":\"r-1\",\"paths\":[[0,5]]}}")
    return h.medianHandling((0..<samples).map { $0 % 2 == 0 ? insert : delete })
}
