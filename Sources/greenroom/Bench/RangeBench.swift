import GreenroomHost
import GreenroomJSON
import GreenroomRPC

/// The range rows, with their budgets.
struct RangeBench {
    let client: LineClient

    func createSession(items: Int) throws -> String {
        let r = try client.call("range.create", ["count": .int(items), "itemLength": 44, "viewport": ["width": 375, "height": 667]])
        guard let s = r["session"]?.stringValue else { throw LineClient.Failure(description: "range.create failed") }
        return s
    }

    /// A session of `items` rows whose section names a class: rows as containers (`cells`).
    func createCellSession(items: Int) throws -> String {
        _ = try? client.call("classes.define", ["name": "BenchCell"])
        let r = try client.call("range.create", ["viewport": ["width": 375, "height": 667], "cells": ["reuseLimit": 8],
                                                 "sections": [["count": .int(items), "itemLength": 44, "reuseIdentifier": "BenchCell"]]])
        guard let s = r["session"]?.stringValue else { throw LineClient.Failure(description: "range.create with cells failed") }
        return s
    }

    /// Round trips of a drag through `session` (`steps` of 44 points, one row per frame), median in
    /// microseconds: with cells, each step binds one cell, parks one and makes one appear and one disappear.
    func didScrollRoundTrip(session: String, steps: Int) throws -> Double {
        _ = try client.call("range.willBeginDragging", ["session": .string(session)])
        var times: [Double] = []
        for i in 1...steps {
            let t0 = monotonicNanos()
            _ = try client.call("range.didScroll", ["session": .string(session), "offset": .double(Double(i) * 44)])
            times.append(Double(monotonicNanos() - t0) / 1000)
        }
        _ = try client.call("range.willEndDragging", ["session": .string(session), "velocity": 0])
        _ = try client.call("range.didEndDecelerating", ["session": .string(session)])
        _ = try client.call("range.destroy", ["session": .string(session)])
        return PrerenderBench.median(times)
    }

    /// Milliseconds to insert `updates` items spread over a keyless session of `items` items: as one
    /// `range.performBatchUpdates`, and as as many `range.insertItems` calls (each its own update).
    func batchVsSingles(items: Int, updates: Int) throws -> (batch: Double, singles: Double) {
        let step = max(1, items / updates)
        let a = try createSession(items: items)
        let ops: [JSONValue] = (0..<updates).map { k in
            ["op": "insertItems", "at": [0, .int(k * step)], "lengths": [44]]
        }
        let t0 = monotonicNanos()
        _ = try client.call("range.performBatchUpdates", ["session": .string(a), "updates": .array(ops)])
        let batch = Double(monotonicNanos() - t0) / 1e6
        _ = try client.call("range.destroy", ["session": .string(a)])
        let b = try createSession(items: items)
        let t1 = monotonicNanos()
        // Ascending, each call's path counts the items the calls before it inserted.
        for k in 0..<updates {
            _ = try client.call("range.insertItems", ["session": .string(b), "at": [0, .int(k * step + k)], "lengths": [44]])
        }
        let singles = Double(monotonicNanos() - t1) / 1e6
        _ = try client.call("range.destroy", ["session": .string(b)])
        return (batch, singles)
    }

    /// `range.didScroll` round trips (median, microseconds) of a drag through a feed holding `rows` nested
    /// carousel sessions spread over its rows, or none: what following the rows' children costs the parent.
    func nestedDidScroll(rows: Int, nested: Bool, steps: Int) throws -> Double {
        // Long enough for the drag (one row a step); the carousels spread evenly over it.
        let feedRows = max(rows, steps + 20)
        let feed = try createSession(items: feedRows)
        if nested {
            for r in stride(from: 0, to: feedRows, by: max(1, feedRows / rows)).prefix(rows) {
                _ = try client.call("range.create", ["count": 20, "itemLength": 120, "axis": "horizontal",
                                                     "viewport": ["width": 375, "height": 44],
                                                     "parent": ["session": .string(feed), "item": [0, .int(r)]]])
            }
        }
        return try didScrollRoundTrip(session: feed, steps: steps)
    }

    /// Containers alive after a fling through `rows` rows of a session with cells (in jumps of one screen).
    func containersAfterFling(rows: Int) throws -> (alive: Double, bound: Double, parked: Double) {
        let before = Double(try client.call("host.stats")["containers"]?["total"]?.intValue ?? 0)
        let s = try createCellSession(items: rows + 100)
        _ = try client.call("range.willBeginDragging", ["session": .string(s)])
        var offset = 0.0
        while offset < Double(rows) * 44 {
            offset += 667
            _ = try client.call("range.didScroll", ["session": .string(s), "offset": .double(offset)])
        }
        _ = try client.call("range.willEndDragging", ["session": .string(s), "velocity": 0])
        _ = try client.call("range.didEndDecelerating", ["session": .string(s)])
        let cells = try client.call("range.state", ["session": .string(s)])["cells"]
        let alive = Double(try client.call("host.stats")["containers"]?["total"]?.intValue ?? 0) - before
        let bound = Double(cells?["bound"]?.arrayValue?.count ?? 0)
        let parked = Double(cells?["parked"]?["BenchCell"]?.intValue ?? 0)
        _ = try client.call("range.destroy", ["session": .string(s)])
        return (alive, bound, parked)
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
    InProcessRangeHost(items: items).medianHandling(dragLines(samples))
}

/// `samples` scroll steps of r-1: a drag within the first 35,000 points (inside 1k items too).
private func dragLines(_ samples: Int) -> [[UInt8]] {
    (0..<samples).map { i in
        let offset = Double(i % 5_000) * 7
        return InProcessRangeHost.line("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"range.didScroll\",\"params\":{\"session\":\"r-1\",\"offset\":\(offset)}}")
    }
}

/// The same handling when the scroll step runs in a task, as every call that may wait does: the session
/// holds a nested session in its last row (off screen, so no step reaches it), which is what makes its
/// steps calls that may wait. Against `inProcessDidScroll`, the cost of a task.
func inProcessDidScrollInTask(items: Int, samples: Int) -> Double {
    let h = InProcessRangeHost(items: items)
    h.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"range.create\",\"params\":{\"count\":20,\"itemLength\":120,\"axis\":\"horizontal\",\"viewport\":{\"width\":375,\"height\":44},\"parent\":{\"session\":\"r-1\",\"item\":[0,\(items - 1)]}}}")
    h.connection.out.removeAll()
    let tasks = h.host.lane.executor.jobsRun
    let median = h.medianHandling(dragLines(samples))
    // Measured what it says only if every step ran as a task.
    precondition(h.host.lane.executor.jobsRun - tasks >= samples, "the scroll steps did not run as tasks")
    return median
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
