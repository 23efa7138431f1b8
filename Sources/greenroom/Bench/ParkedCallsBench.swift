import Glibc
import GreenroomJSON
import GreenroomRPC
import GreenroomServe
import Histogram

/// Many calls waiting at once: `calls` connections each make a container of a scripted class of its own
/// whose `init` spends `costMs` (one class each, so that no call keeps its order behind another's and all
/// of them wait together). While they wait, the host's resident set against the same connections idle, and
/// another client's pings.
struct ParkedCallsBench {
    struct Result {
        /// Resident bytes the waiting calls added, per call.
        var bytesPerCall = 0.0
        /// How many waited at once (`host.stats` `lane.waiting`).
        var waiting = 0
        var pingP50us = 0.0
        var pingP99us = 0.0
    }

    static func run(dir: String, calls: Int, costMs: Int) throws -> Result {
        raiseFileLimit()
        let socket = "\(dir)/parked.sock"
        let child = try ChildProcess(arguments: ["serve", "--socket", socket, "--max-connections", "\(calls + 16)"])
        defer { child.stop() }
        let control = try LineClient(unixPath: socket)
        for i in 0..<calls {
            _ = try control.call("classes.define", ["name": .string("Parked\(i)"), "hooks": ["init": ["costMs": .int(costMs)]]])
        }
        var clients: [LineClient] = []
        for _ in 0..<calls { clients.append(try LineClient(unixPath: socket)) }
        // Every connection has been served once, so what the calls add is theirs alone.
        for c in clients { _ = try c.call("host.ping") }
        func stats() throws -> JSONValue { try control.call("host.stats") }
        let idle = Double(try stats()["rssBytes"]?.intValue ?? 0)
        for (i, c) in clients.enumerated() {
            try c.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"container.create\",\"params\":{\"class\":\"Parked\(i)\"}}\n")
        }
        var result = Result()
        // host.stats touches nothing a waiting call holds: it is answered while they wait.
        let deadline = monotonicNanos() + UInt64(costMs) * 1_000_000 / 2
        while monotonicNanos() < deadline {
            result.waiting = try stats()["lane"]?["waiting"]?.intValue ?? 0
            if result.waiting >= calls { break }
        }
        let parked = Double(try stats()["rssBytes"]?.intValue ?? 0)
        result.bytesPerCall = (parked - idle) / Double(calls)
        var h = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
        var id = 10
        // Pings for a quarter of the cost, well before the first call ends.
        let pingsEnd = monotonicNanos() + UInt64(costMs) * 1_000_000 / 4
        while monotonicNanos() < pingsEnd {
            let t0 = monotonicNanos()
            _ = try control.roundTrip(id: id, method: "host.ping", params: nil)
            h.record(monotonicNanos() - t0)
            id += 1
        }
        result.pingP50us = Double(h.valueAtPercentile(50)) / 1000
        result.pingP99us = Double(h.valueAtPercentile(99)) / 1000
        for c in clients { _ = try c.readLine() }
        return result
    }
}
