import Glibc
import GreenroomRPC
import GreenroomJSON
import GreenroomServe
import Histogram

/// The connections row: many connections, each with a range session, each streaming
/// `range.didScroll` at a fixed rate for a bounded time. One poll-driven client thread; sends are
/// staggered evenly; every reply's round trip goes into a histogram.
struct ConnectionsBench {
    let socket: String

    struct Result {
        var sent = 0
        var received = 0
        var errors = 0
        var p50us = 0.0
        var p99us = 0.0
    }

    func run(connections n: Int, perSecond: Double, seconds: Double) throws -> Result {
        raiseFileLimit()
        var clients: [LineClient] = []
        var sessions: [String] = []
        for _ in 0..<n {
            let c = try LineClient(unixPath: socket)
            let r = try c.call("range.create", ["count": 2000, "itemLength": 44, "viewport": ["width": 375, "height": 667]])
            let s = r["session"]?.stringValue ?? "r-0"
            _ = try c.call("range.willBeginDragging", ["session": .string(s), "offset": 0])
            clients.append(c)
            sessions.append(s)
        }
        var fds = clients.map { c -> pollfd in
            _ = fcntl(c.fd, F_SETFL, fcntl(c.fd, F_GETFL) | O_NONBLOCK)
            return pollfd(fd: c.fd, events: Int16(POLLIN), revents: 0)
        }
        var result = Result()
        var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
        var pending: [Int: UInt64] = [:]   // request id -> send time
        var offsets = [Double](repeating: 0, count: n)
        var partial = [[UInt8]](repeating: [], count: n)
        let spacing = 1e9 / (perSecond * Double(n))   // ns between consecutive sends, all connections
        let start = monotonicNanos()
        let end = start + UInt64(seconds * 1e9)
        var sendIndex = 0
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let now = monotonicNanos()
            // Send everything due.
            while now < end, start + UInt64(Double(sendIndex) * spacing) <= now {
                let i = sendIndex % n
                offsets[i] = offsets[i] >= 80_000 ? 0 : offsets[i] + 7
                let line = "{\"jsonrpc\":\"2.0\",\"id\":\(sendIndex),\"method\":\"range.didScroll\",\"params\":{\"session\":\"\(sessions[i])\",\"offset\":\(offsets[i])}}\n"
                pending[sendIndex] = monotonicNanos()
                var bytes = Array(line.utf8)
                let w = send(clients[i].fd, &bytes, bytes.count, Int32(MSG_NOSIGNAL))
                if w != bytes.count { result.errors += 1 }
                result.sent += 1
                sendIndex += 1
            }
            if now >= end && pending.isEmpty { break }
            if now >= end + 5_000_000_000 { result.errors += pending.count; break }  // replies lost
            let nextDue = start + UInt64(Double(sendIndex) * spacing)
            let waitMs = now >= end ? 10 : Int32(max(0, Double(Int64(nextDue) - Int64(now)) / 1e6))
            let ready = poll(&fds, nfds_t(fds.count), waitMs)
            guard ready > 0 else { continue }
            for i in 0..<n where fds[i].revents != 0 {
                fds[i].revents = 0
                while true {
                    let got = chunk.withUnsafeMutableBytes { recv(clients[i].fd, $0.baseAddress!, $0.count, 0) }
                    if got <= 0 { break }
                    partial[i].append(contentsOf: chunk[0..<got])
                }
                let arrived = monotonicNanos()
                var from = 0
                let buf = partial[i]
                while let nl = buf[from...].firstIndex(of: 0x0A) {
                    // The generator reads only what it needs: the id (the host writes it right after
                    // "jsonrpc") and whether the reply is an error. Decoding every reply here would
                    // make the client, not the host, the bottleneck.
                    let line = buf[from..<nl]
                    from = nl + 1
                    guard let id = replyID(line) else { result.errors += 1; continue }
                    if isError(line) { result.errors += 1 }
                    if let sent = pending.removeValue(forKey: id) {
                        _ = histogram.record((arrived - sent) / 1000)
                        result.received += 1
                    }
                }
                partial[i].removeFirst(from)
            }
        }
        result.p50us = Double(histogram.valueAtPercentile(50))
        result.p99us = Double(histogram.valueAtPercentile(99))
        return result
    }
}

/// The integer after `"id":` in a reply line.
func replyID(_ line: ArraySlice<UInt8>) -> Int? {
    let key = Array("\"id\":".utf8)
    guard line.count > key.count else { return nil }
    var i = line.startIndex
    while i + key.count <= line.endIndex {
        if line[i] == key[0] && Array(line[i..<i + key.count]) == key {
            var j = i + key.count, v = 0, digits = 0
            while j < line.endIndex, line[j] >= 0x30, line[j] <= 0x39 { v = v * 10 + Int(line[j] - 0x30); j += 1; digits += 1 }
            return digits > 0 ? v : nil
        }
        i += 1
    }
    return nil
}

/// Whether a reply line carries an error member (the host writes `,"error":` after the id).
func isError(_ line: ArraySlice<UInt8>) -> Bool {
    let key = Array(",\"error\":".utf8)
    var i = line.startIndex
    while i + key.count <= line.endIndex {
        if line[i] == key[0] && Array(line[i..<i + key.count]) == key { return true }
        i += 1
    }
    return false
}
