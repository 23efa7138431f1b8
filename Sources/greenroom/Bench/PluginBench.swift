import Glibc
import GreenroomRPC
import GreenroomHost
import GreenroomJSON
import Histogram

/// The isolation rows: what running a plugin in a worker process costs per hook (against the same
/// plugin in process, same run), and whether other clients are served while one plugin's hook runs long.
struct PluginBench {
    /// The Crashy example plugin, built next to this executable.
    static var crashyPath: String {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buf, buf.count - 1)
        let exe = n > 0 ? String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "."
        return exe.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/") + "/libCrashyPlugin.so"
    }

    struct Costs {
        var ping = 0.0, hook = 0.0, hit = 0.0
        /// The pings taken each right before a hit, after the same wait for the pool (as the scripted
        /// class's hit row does): the hit's own baseline, measured in the same conditions.
        var hitPing = 0.0
    }

    /// Medians, in microseconds, of a ping, a `configure` hook round trip and a `showRendered` hit of a
    /// Crashy container, on a host started with `isolation`.
    static func costs(isolation: String, dir: String, samples: Int, hits: Int, extra: [String] = []) throws -> Costs {
        let socket = "\(dir)/plugin-\(isolation)\(extra.isEmpty ? "" : "-x").sock"
        let child = try ChildProcess(arguments: ["serve", "--socket", socket, "--plugin-isolation", isolation,
                                                 "--plugin", crashyPath] + extra)
        defer { child.stop() }
        let client = try LineClient(unixPath: socket)
        let pre = PrerenderBench(client: client)
        let box = try client.call("container.create", ["class": "Crashy"])["container"]!
        var pings: [Double] = [], hooks: [Double] = []
        for _ in 0..<samples {
            pings.append(try pre.time("host.ping").0)
            hooks.append(try pre.time("container.configure", ["container": box, "data": [:]]).0)
        }
        let stack = try client.call("stack.create", ["width": 375, "height": 667])["stack"]!
        let shown = try pre.hits("Crashy", stack: stack, count: hits)
        return Costs(ping: PrerenderBench.median(pings), hook: PrerenderBench.median(hooks),
                     hit: PrerenderBench.median(shown.hits), hitPing: PrerenderBench.median(shown.pings))
    }

    /// The Counter example plugin in C, Python and JavaScript, each a worker of one host: a `configure`
    /// round trip and a `showRendered` hit of each class, with the pings taken beside each (the same
    /// conditions). Nil for a language whose runtime or example is not there (the row says so).
    struct Languages {
        var c: Costs
        var python: Costs?
        var node: Costs?
        var missing: [String] = []
    }

    static func languageCosts(dir: String, samples: Int, hits: Int) throws -> Languages {
        let socket = "\(dir)/plugin-languages.sock"
        var args = ["serve", "--socket", socket, "--plugin", libraryPath("libCounterPlugin.so")]
        var missing: [String] = []
        let root = repositoryRoot()
        var commands: [(String, String)] = []
        for (language, runner, script, cls) in [("python", "python3", "examples/plugins/python/counter.py", "CounterPy"),
                                                 ("node", "node", "examples/plugins/node/counter.mjs", "CounterNode")] {
            guard let root, access("\(root)/\(script)", R_OK) == 0 else {
                missing.append("\(language): \(script) not found from here")
                continue
            }
            guard let exe = PluginSupervisor.executable(runner) else {
                missing.append("\(language): no \(runner) in PATH")
                continue
            }
            args += ["--plugin-command", CommandLineWords.join([exe, "\(root)/\(script)"])]
            commands.append((language, cls))
        }
        let child = try ChildProcess(arguments: args)
        defer { child.stop() }
        let client = try LineClient(unixPath: socket)
        let pre = PrerenderBench(client: client)
        let stack = try client.call("stack.create", ["width": 375, "height": 667])["stack"]!
        func measure(_ cls: String) throws -> Costs {
            let box = try client.call("container.create", ["class": .string(cls)])["container"]!
            var pings: [Double] = [], hooks: [Double] = []
            for _ in 0..<samples {
                pings.append(try pre.time("host.ping").0)
                hooks.append(try pre.time("container.configure", ["container": box, "data": [:]]).0)
            }
            _ = try client.call("container.release", ["container": box])
            let shown = try pre.hits(cls, stack: stack, count: hits)
            return Costs(ping: PrerenderBench.median(pings), hook: PrerenderBench.median(hooks),
                         hit: PrerenderBench.median(shown.hits), hitPing: PrerenderBench.median(shown.pings))
        }
        var result = Languages(c: try measure("Counter"), missing: missing)
        for (language, cls) in commands {
            let costs = try measure(cls)
            if language == "python" { result.python = costs } else { result.node = costs }
        }
        return result
    }

    /// The folder holding `examples/plugins`: above this executable (a build in the checkout), else here.
    static func repositoryRoot() -> String? {
        var starts = [executableDirectory()]
        var buf = [CChar](repeating: 0, count: 4096)
        if getcwd(&buf, buf.count) != nil { starts.append(String(cString: buf)) }
        for start in starts {
            var parts = start.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            while !parts.isEmpty {
                let dir = parts.joined(separator: "/")
                if access("\(dir)/examples/plugins/README.md", R_OK) == 0 { return dir.isEmpty ? "/" : dir }
                parts.removeLast()
            }
        }
        return nil
    }

    static func executableDirectory() -> String {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buf, buf.count - 1)
        let exe = n > 0 ? String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "."
        return exe.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    }

    static func libraryPath(_ name: String) -> String { executableDirectory() + "/" + name }

    /// Round trips (p50, p99, max in microseconds, and how many) of `probe` on one client, for as long as
    /// `slowRequest` (sent first, on another client, on a host started with `arguments`) takes `ms`.
    static func roundTripsDuring(_ name: String, arguments: [String], dir: String, ms: Int,
                                 prepare: (_ slow: LineClient, _ other: LineClient) throws -> (slowRequest: JSONValue, probe: (Int) throws -> Void))
        throws -> (p50: Double, p99: Double, max: Double, count: Int)
    {
        let socket = "\(dir)/\(name).sock"
        let child = try ChildProcess(arguments: ["serve", "--socket", socket] + arguments)
        defer { child.stop() }
        let slow = try LineClient(unixPath: socket)
        let other = try LineClient(unixPath: socket)
        let (request, probe) = try prepare(slow, other)
        var req = request.objectValue ?? [:]
        req["jsonrpc"] = "2.0"
        req["id"] = 999_999
        // The slow request goes out; its reply is read after the probes.
        try slow.send(JSONCodec.encode(.object(req)) + [0x0A])
        var h = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
        let end = monotonicNanos() + UInt64(ms) * 1_000_000
        var id = 1
        while monotonicNanos() < end {
            let t0 = monotonicNanos()
            try probe(id)
            h.record(monotonicNanos() - t0)
            id += 1
        }
        _ = try slow.readLine()
        return (Double(h.valueAtPercentile(50)) / 1000, Double(h.valueAtPercentile(99)) / 1000,
                Double(h.max) / 1000, Int(h.totalCount))
    }

    /// A client's pings while another client's plugin hook sleeps `hookMs` in its worker.
    static func pingsDuringLongHook(dir: String, hookMs: Int) throws -> (p50: Double, p99: Double, max: Double, count: Int) {
        try roundTripsDuring("plugin-long", arguments: ["--plugin", crashyPath], dir: dir, ms: hookMs) { slow, other in
            let box = try slow.call("container.create", ["class": "Crashy"])["container"]!
            return (["method": "container.configure", "params": ["container": box, "data": ["crash": "sleep", "ms": .int(hookMs)]]],
                    { id in _ = try other.roundTrip(id: id, method: "host.ping", params: nil) })
        }
    }

    /// A `configure` of another plugin's container (Counter's) while Crashy's hook sleeps `hookMs`.
    static func otherPluginDuringLongHook(dir: String, hookMs: Int) throws -> (p50: Double, p99: Double, max: Double, count: Int) {
        try roundTripsDuring("plugin-other", arguments: ["--plugin", crashyPath, "--plugin", libraryPath("libCounterPlugin.so")],
                             dir: dir, ms: hookMs) { slow, other in
            let box = try slow.call("container.create", ["class": "Crashy"])["container"]!
            let counter = try other.call("container.create", ["class": "Counter"])["container"]!
            return (["method": "container.configure", "params": ["container": box, "data": ["crash": "sleep", "ms": .int(hookMs)]]],
                    { id in _ = try other.roundTrip(id: id, method: "container.configure", params: ["container": counter, "data": [:]]) })
        }
    }

    /// A client's pings while another client's scripted hook spends `costMs` (no plugin at all).
    static func pingsDuringScriptedCost(dir: String, costMs: Int) throws -> (p50: Double, p99: Double, max: Double, count: Int) {
        try roundTripsDuring("scripted-long", arguments: [], dir: dir, ms: costMs) { slow, other in
            _ = try slow.call("classes.define", ["name": "Heavy", "hooks": ["init": ["costMs": .int(costMs)]]])
            return (["method": "container.create", "params": ["class": "Heavy"]],
                    { id in _ = try other.roundTrip(id: id, method: "host.ping", params: nil) })
        }
    }
}
