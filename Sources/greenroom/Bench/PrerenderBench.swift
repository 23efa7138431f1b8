import Glibc
import GreenroomRPC
import GreenroomJSON
import Histogram

/// Benchmarks of the prerender rows, run against a real-clock host process.
struct PrerenderBench {
    let client: LineClient

    /// Round trip of one call, in microseconds.
    func time(_ method: String, _ params: JSONValue? = nil) throws -> (Double, JSONValue) {
        let t0 = monotonicNanos()
        let r = try client.call(method, params)
        return (Double(monotonicNanos() - t0) / 1000, r)
    }

    /// Polls `pool.status` until the class's pool has `idle` warm containers (idle tasks run on the
    /// host's own loop; bounded wait).
    /// Waits until the pool holds `idle` warm containers and warms no more (a measured hit must not
    /// share the host with a warm-up still running).
    func waitForIdle(_ cls: String, _ idle: Int, timeoutMs: Double = 60_000) throws {
        let deadline = monotonicNanos() + UInt64(timeoutMs * 1e6)
        while monotonicNanos() < deadline {
            let status = try client.call("pool.status", ["class": .string(cls)])
            let pool = status["pools"]?.arrayValue?.first
            if let n = pool?["idle"]?.intValue, n >= idle, pool?["warming"]?.intValue ?? 0 == 0 { return }
            usleep(200)
        }
        throw LineClient.Failure(description: "pool \(cls) did not reach \(idle) idle containers in time")
    }

    static func median(_ xs: [Double]) -> Double {
        let s = xs.sorted()
        return s.isEmpty ? .nan : s[s.count / 2]
    }

    /// showRendered hit vs cold for a class whose viewDidLoad burns `loadMs`, and the ping round trip
    /// on the same connection. Returns medians in microseconds: (ping, hit, cold).
    func showRendered(loadMs: Double, hits: Int, colds: Int) throws -> (ping: Double, hit: Double, cold: Double) {
        let cls = "BenchLoad\(Int(loadMs))"
        _ = try client.call("classes.define", ["name": .string(cls), "hooks": ["viewDidLoad": ["costMs": .double(loadMs)]]])
        let stack = try client.call("stack.create", ["width": 375, "height": 667])["stack"]!
        let (pings, warm) = try self.hits(cls, stack: stack, count: hits)
        // Cold: depth 0 so a miss schedules no warm-up.
        let cold = try self.colds(cls, stack: stack, count: colds)
        _ = try client.call("stack.destroy", ["stack": stack])
        return (Self.median(pings), Self.median(warm), Self.median(cold))
    }

    /// The prerender experiment's two figures, as round trips: "navigation start" is `showRendered`
    /// without data (the page is shown: the moment the article's `setUrl` starts loading), "page loaded"
    /// with data (its `configure`, burning `configureMs`, has run: the analogue of `document.onload`).
    /// Medians in microseconds, cold and warm, of each.
    func experimentFigures(loadMs: Double, configureMs: Double, runs: Int) throws
        -> (navigationStart: (cold: Double, warm: Double), pageLoaded: (cold: Double, warm: Double))
    {
        let cls = "BenchPage\(Int(loadMs))x\(Int(configureMs))"
        _ = try client.call("classes.define", ["name": .string(cls), "hooks": [
            "viewDidLoad": ["costMs": .double(loadMs)], "configure": ["costMs": .double(configureMs)]]])
        let stack = try client.call("stack.create", ["width": 375, "height": 667])["stack"]!
        let data: JSONObject = ["data": ["url": "http://m.you.163.com"]]
        let navWarm = try hits(cls, stack: stack, count: runs).hits
        let loadedWarm = try hits(cls, stack: stack, count: runs, extra: data).hits
        let navCold = try colds(cls, stack: stack, count: runs)
        let loadedCold = try colds(cls, stack: stack, count: runs, extra: data)
        _ = try client.call("stack.destroy", ["stack": stack])
        return ((Self.median(navCold), Self.median(navWarm)), (Self.median(loadedCold), Self.median(loadedWarm)))
    }

    /// A `showRendered` hit with `present: "onSuccess"` (configured in the green room, then moved) against
    /// a plain hit configured after the push, both with the same data. Medians in microseconds.
    func presentOnSuccess(hits count: Int) throws -> (plain: Double, onSuccess: Double) {
        let cls = "BenchPresent"
        _ = try client.call("classes.define", ["name": .string(cls), "hooks": ["configure": ["output": ["ok": true]]]])
        let stack = try client.call("stack.create", ["width": 375, "height": 667])["stack"]!
        var plain: [Double] = [], onSuccess: [Double] = []
        // Alternating, so that neither gets a warmer cache or a quieter machine.
        for _ in 0..<count {
            plain += try hits(cls, stack: stack, count: 1, extra: ["data": ["n": 1]]).hits
            onSuccess += try hits(cls, stack: stack, count: 1, extra: ["data": ["n": 1], "present": "onSuccess"]).hits
        }
        _ = try client.call("stack.destroy", ["stack": stack])
        return (Self.median(plain), Self.median(onSuccess))
    }

    /// `count` cold `showRendered` of `cls` on `stack` (a pool of depth 0: a miss warms nothing).
    func colds(_ cls: String, stack: JSONValue, count: Int, extra: JSONObject = [:]) throws -> [Double] {
        _ = try client.call("pool.configure", ["class": .string(cls), "depth": 0, "width": 375, "height": 667])
        var cold: [Double] = []
        var params: JSONObject = ["class": .string(cls), "stack": stack]
        for m in extra.members { params[m.key] = m.value }
        for _ in 0..<count {
            let (us, r) = try time("showRendered", .object(params))
            guard r["warm"] == false else { throw LineClient.Failure(description: "expected a cold miss") }
            cold.append(us)
            _ = try client.call("stack.pop", ["stack": stack])
            _ = try client.call("container.release", ["container": r["container"]!])
        }
        return cold
    }

    /// `count` warm hits of `cls` on `stack`, each after a ping on the same connection, both right after
    /// the same wait for the pool (so neither gets hotter caches). Returns the round trips, in microseconds.
    func hits(_ cls: String, stack: JSONValue, count: Int, extra: JSONObject = [:]) throws -> (pings: [Double], hits: [Double]) {
        var pings: [Double] = []
        _ = try client.call("pool.configure", ["class": .string(cls), "depth": 1, "policy": "lazy", "width": 375, "height": 667])
        var warm: [Double] = []
        for _ in 0..<count {
            _ = try client.call("pool.warm", ["class": .string(cls), "count": 1, "width": 375, "height": 667])
            try waitForIdle(cls, 1)
            pings.append(try time("host.ping").0)
            var params: JSONObject = ["class": .string(cls), "stack": stack]
            for m in extra.members { params[m.key] = m.value }
            let (us, r) = try time("showRendered", .object(params))
            guard r["warm"] == true else { throw LineClient.Failure(description: "expected a warm hit") }
            warm.append(us)
            _ = try client.call("stack.pop", ["stack": stack])
            _ = try client.call("container.release", ["container": r["container"]!])
        }
        return (pings, warm)
    }

    func rss() throws -> Double { Double(try client.call("host.stats")["rssBytes"]?.intValue ?? 0) }

    /// Host bytes per idle pooled container of a scripted class that holds nothing itself.
    func bytesPerPooledContainer(count: Int) throws -> Double {
        _ = try client.call("classes.define", ["name": "BenchTiny"])
        let before = try rss()
        _ = try client.call("pool.configure", ["class": "BenchTiny", "depth": .int(count), "policy": "eager"])
        try waitForIdle("BenchTiny", count)
        let after = try rss()
        _ = try client.call("pool.configure", ["class": "BenchTiny", "depth": 0])
        return (after - before) / Double(count)
    }

    /// The share of pooled bytes a purge gives back (RSS drop / bytes the pooled containers held).
    func purgeReturn(count: Int, bytesEach: Int) throws -> (pooled: Double, returned: Double) {
        _ = try client.call("classes.define", ["name": "BenchHeavy", "memoryBytes": .int(bytesEach)])
        _ = try client.call("pool.configure", ["class": "BenchHeavy", "depth": .int(count), "policy": "eager"])
        try waitForIdle("BenchHeavy", count)
        _ = try client.call("pool.configure", ["class": "BenchHeavy", "depth": .int(count), "policy": "lazy"])
        let before = try rss()
        let purge = try client.call("pool.purge", ["class": "BenchHeavy"])
        let after = try rss()
        let pooled = Double(purge["bytes"]?.intValue ?? 0)
        return (pooled, (before - after) / pooled)
    }
}
