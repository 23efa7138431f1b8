import Glibc
import GreenroomServe

/// The unauthenticated-TCP row: a well-behaved Unix client's ping round trips on a host that also listens
/// on TCP with a token, first alone, then while 1,000 TCP connections sit idle without authenticating
/// (each holding a partial line), in the same run against the same host.
struct IdleAuthBench {
    let dir: String

    struct Result {
        var p99Alone = 0.0
        var p99Idle = 0.0
        var idleAdmitted = 0
    }

    func run(idle: Int, roundTrips: Int, repeats: Int) throws -> Result {
        raiseFileLimit()
        let tokenPath = "\(dir)/token"
        let fd = open(tokenPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw LineClient.Failure(description: "cannot write \(tokenPath)") }
        _ = "bench-token-0123456789abcdef\n".withCString { write(fd, $0, strlen($0)) }
        close(fd)
        defer { unlink(tokenPath) }
        let socket = "\(dir)/auth.sock"
        // Every idle peer admitted (the share raised to hold them all) and none timed out meanwhile.
        let child = try ChildProcess(arguments: ["serve", "--socket", socket, "--listen", "tcp:127.0.0.1:0",
                                                 "--token-file", tokenPath, "--max-connections", "\(idle * 2 + 64)",
                                                 "--max-unauthenticated", "\(idle)", "--auth-timeout-ms", "600000"])
        defer { child.stop() }
        guard let port = child.tcpPort else { throw LineClient.Failure(description: "no tcp port in the ready line") }
        let gen = LoadGenerator(socket: socket)
        func p99() throws -> Double {
            var best = Double.infinity
            for _ in 0..<repeats {
                best = min(best, Double(try gen.roundTrips(count: roundTrips).valueAtPercentile(99)) / 1000)
            }
            return best
        }
        var result = Result()
        result.p99Alone = try p99()
        var peers: [LineClient] = []
        let partial = Array(("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"host.auth\",\"params\":{\"token\":\"" + String(repeating: "x", count: 3000)).utf8)
        for _ in 0..<idle {
            let c = try LineClient(tcpHost: "127.0.0.1", port: port)
            try c.send(partial)
            peers.append(c)
        }
        // Admitted ones are still open: a ping over a fresh Unix connection after them has its answer.
        _ = try LineClient(unixPath: socket).call("host.ping")
        let stats = try LineClient(unixPath: socket).call("host.stats")
        result.idleAdmitted = stats["connections"]?["unauthenticated"]?.intValue ?? 0
        result.p99Idle = try p99()
        withExtendedLifetime(peers) {}
        return result
    }
}
