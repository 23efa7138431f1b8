import ArgumentParser
import CJansson
import Glibc
import GreenroomRPC
import GreenroomHost
import Histogram

/// `greenroom bench`: measures the host and, in the same run with the same load generator, the
/// baselines it is judged against; prints a table of values, ratios and the budgets
/// (docs/performance.md). `--repeat N` runs the table N times and reports each ratio's spread.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Measure the host against baselines and print ratios.")

    @Option(help: "Round trips per server.") var roundTrips = 20_000
    @Option(help: "Pipelined requests per server.") var pipelined = 400_000
    @Option(help: "Repeat each measurement and keep the best (less noise on a shared machine).") var repeats = 3
    @Option(name: .customLong("repeat"),
            help: "Run the whole table N times: each row shows its median ratio and the spread across runs, and a budget missed by less than that spread is reported as within noise.")
    var runs: Int?
    @Flag(help: "A short run (for smoke tests).") var quick = false
    @Flag(help: "Only the in-process range.didScroll handling rows, where read and in a task (for profilers).") var rangeHandlingOnly = false
    @Option(help: "Only these groups of rows, comma-separated: wire, prerender, plugins, transitions, pages, ranges, memory, connections, auth.")
    var only: String?

    func wants(_ group: String) -> Bool {
        guard let only else { return true }
        return only.split(separator: ",").contains { String($0).trimmingWhitespace() == group }
    }

    func run() throws {
        if rangeHandlingOnly {
            print("range.didScroll host handling, median us:", inProcessDidScroll(items: quick ? 1_000 : 1_000_000, samples: 20_000))
            print("the same in a task, median us:", inProcessDidScrollInTask(items: quick ? 1_000 : 1_000_000, samples: 20_000))
            return
        }
        let rt = quick ? 2_000 : roundTrips
        let pl = quick ? 20_000 : pipelined
        let reps = quick ? 1 : repeats
        let dir = "/tmp/greenroom-bench-\(getpid())"
        mkdir(dir, 0o700)
        defer { rmdir(dir) }

        let runs = max(1, self.runs ?? (quick ? 1 : 2))
        print("greenroom bench: \(rt) round trips, \(pl) pipelined requests per server, best of \(reps); "
              + "\(runs) run\(runs == 1 ? "" : "s") of the table; 2 cores shared by client and server")
        var tables: [BenchTable] = []
        for run in 1...runs {
            if runs > 1 { print("run \(run) of \(runs)...") }
            tables.append(try measure(rt: rt, pl: pl, reps: reps, dir: dir))
        }
        BenchTable.merged(tables).print()
    }

    /// One run of every wanted row.
    private func measure(rt: Int, pl: Int, reps: Int, dir: String) throws -> BenchTable {
        var table = BenchTable()

        if wants("wire") {
            let servers: [(name: String, args: [String])] = [
                ("host", ["serve", "--listen", "ws:127.0.0.1:0", "--listen", "tcp:127.0.0.1:0", "--socket", "\(dir)/host.sock"]),
                ("host 1 thread", ["serve", "--read-ahead", "off", "--socket", "\(dir)/host1.sock"]),
                ("raw echo", ["echo-server", "--mode", "raw", "--tcp-port", "0", "--socket", "\(dir)/raw.sock"]),
                ("naive echo", ["echo-server", "--mode", "naive", "--socket", "\(dir)/naive.sock"]),
            ]
            var p50: [String: Double] = [:], p99: [String: Double] = [:], rate: [String: Double] = [:]
            // Over loopback TCP, measured interleaved with the same server's Unix socket (same moments):
            // the host's tcp: lines and ws: frames, and the raw echo's TCP port (the kernel's floor).
            var tcp50: [String: Double] = [:], tcpRate: [String: Double] = [:]
            var ws50 = Double.infinity, wsRate = 0.0
            for s in servers {
                let child = try ChildProcess(arguments: s.args)
                defer { child.stop() }
                let gen = LoadGenerator(socket: s.args.last!)
                let tcp = child.tcpPort.map { LoadGenerator(tcpPort: $0) }
                let ws = child.port(of: "ws").map { WebSocketLoad(port: $0) }
                var best50 = Double.infinity, best99 = Double.infinity, bestRate = 0.0
                var bestTCP50 = Double.infinity, bestTCPRate = 0.0
                for _ in 0..<reps {
                    let h = try gen.roundTrips(count: rt)
                    best50 = min(best50, Double(h.valueAtPercentile(50)) / 1000)
                    best99 = min(best99, Double(h.valueAtPercentile(99)) / 1000)
                    bestRate = max(bestRate, try gen.pipelinedRate(total: pl))
                    if let tcp {
                        bestTCP50 = min(bestTCP50, Double(try tcp.roundTrips(count: rt).valueAtPercentile(50)) / 1000)
                        bestTCPRate = max(bestTCPRate, try tcp.pipelinedRate(total: pl))
                    }
                    if let ws {
                        ws50 = min(ws50, Double(try ws.roundTrips(count: rt).valueAtPercentile(50)) / 1000)
                        wsRate = max(wsRate, try ws.pipelinedRate(total: pl))
                    }
                }
                p50[s.name] = best50
                p99[s.name] = best99
                rate[s.name] = bestRate
                if tcp != nil {
                    tcp50[s.name] = bestTCP50
                    tcpRate[s.name] = bestTCPRate
                }
            }
            table.add("ping round trip p50", unit: "us", values: p50,
                      ratio: ("host / raw echo", p50["host"]! / p50["raw echo"]!), budget: .atMost(1.5))
            table.add("ping round trip p99", unit: "us", values: p99,
                      ratio: ("host / raw echo", p99["host"]! / p99["raw echo"]!), budget: nil)
            table.add("pipelined rate", unit: "req/s", values: rate,
                      ratio: ("host / raw echo", rate["host"]! / rate["raw echo"]!), budget: .atLeast(0.25))
            table.add("pipelined rate", unit: "req/s", values: rate,
                      ratio: ("host / naive echo", rate["host"]! / rate["naive echo"]!), budget: .atLeast(3))
            // What loopback TCP itself costs over a Unix socket on this machine: the same raw echo on both.
            table.add("raw echo ping p50, loopback TCP vs Unix", unit: "us", values: ["unix": p50["raw echo"]!, "tcp": tcp50["raw echo"]!],
                      ratio: ("tcp / unix", tcp50["raw echo"]! / p50["raw echo"]!), budget: nil)
            table.add("host ping p50, tcp: lines vs Unix", unit: "us", values: ["unix": p50["host"]!, "tcp": tcp50["host"]!],
                      ratio: ("tcp / unix", tcp50["host"]! / p50["host"]!), budget: nil)
            table.add("WebSocket ping round trip p50", unit: "us", values: ["unix": p50["host"]!, "tcp": tcp50["host"]!, "ws": ws50],
                      ratio: ("ws / unix", ws50 / p50["host"]!), budget: .atMost(1.3))
            // The codec's own share: frames against lines over the same kind of socket.
            table.add("WebSocket ping round trip p50", unit: "us", values: ["tcp": tcp50["host"]!, "ws": ws50],
                      ratio: ("ws / tcp", ws50 / tcp50["host"]!), budget: nil)
            table.add("WebSocket pipelined rate", unit: "req/s", values: ["unix": rate["host"]!, "tcp": tcpRate["host"]!, "ws": wsRate],
                      ratio: ("ws / unix", wsRate / rate["host"]!), budget: .atLeast(0.7))
            // The ceiling for any host that parses each request with Jansson: json_loadb alone, in
            // process, no I/O, no dispatch, no reply.
            let floor = janssonParseRate(line: LoadGenerator.pingLine, count: pl)
            table.add("Jansson parse only, no I/O", unit: "msg/s", values: ["json_loadb": floor],
                      ratio: ("json_loadb / raw echo", floor / rate["raw echo"]!), budget: nil)
            // What the whole host keeps of that ceiling: reading, parsing (ahead, on the second thread),
            // dispatch, the reply and the writes, against the parse alone.
            table.add("pipelined rate vs Jansson's parse alone", unit: "req/s", values: ["host": rate["host"]!, "json_loadb": floor],
                      ratio: ("host / json_loadb", rate["host"]! / floor), budget: .atLeast(0.75))
        }
        // Prerender, page and range rows, against a real-clock host of their own.
        let child = try ChildProcess(arguments: ["serve", "--socket", "\(dir)/prerender.sock"])
        defer { child.stop() }
        let client = try LineClient(unixPath: "\(dir)/prerender.sock")
        if wants("memory") {
            // An idle host: started, answered one request, nothing created.
            let idle = try ChildProcess(arguments: ["serve", "--socket", "\(dir)/idle.sock"])
            defer { idle.stop() }
            let rss = Double(try LineClient(unixPath: "\(dir)/idle.sock").call("host.stats")["rssBytes"]?.intValue ?? 0)
            table.add("idle host resident set", unit: "MiB", values: ["rss": rss / 1048576],
                      ratio: ("MiB", rss / 1048576), budget: .atMost(15))
        }
        let pre = PrerenderBench(client: client)
        if wants("prerender") {
            let shows = try pre.showRendered(loadMs: 20, hits: quick ? 20 : 200, colds: quick ? 5 : 20)
            table.add("showRendered hit round trip", unit: "us", values: ["host.ping": shows.ping, "hit": shows.hit],
                      ratio: ("hit / ping", shows.hit / shows.ping), budget: .atMost(2))
            table.add("showRendered, viewDidLoad 20 ms", unit: "us", values: ["cold": shows.cold, "warm": shows.hit],
                      ratio: ("cold / warm", shows.cold / shows.hit), budget: .atLeast(100))
            // The article's two figures (navigation start 443 -> 56 ms, page loaded 2353 -> 2068 ms): the
            // pool removes viewDidLoad's 20 ms from both, which is nearly all of the first and a little
            // of the second, whose 60 ms page load it cannot remove.
            let fig = try pre.experimentFigures(loadMs: 20, configureMs: 60, runs: quick ? 5 : 20)
            table.add("experiment: navigation start", unit: "us",
                      values: ["cold": fig.navigationStart.cold, "warm": fig.navigationStart.warm],
                      ratio: ("cold / warm", fig.navigationStart.cold / fig.navigationStart.warm), budget: .atLeast(20))
            table.add("experiment: page loaded, configure 60 ms", unit: "us",
                      values: ["cold": fig.pageLoaded.cold, "warm": fig.pageLoaded.warm],
                      ratio: ("cold / warm", fig.pageLoaded.cold / fig.pageLoaded.warm), budget: nil)
            let present = try pre.presentOnSuccess(hits: quick ? 20 : 200)
            table.add("showRendered hit, present onSuccess", unit: "us",
                      values: ["plain": present.plain, "onSuccess": present.onSuccess],
                      ratio: ("onSuccess / plain", present.onSuccess / present.plain), budget: .atMost(1.5))
        }
        if wants("plugins") {
            // The isolation tax: the same plugin in a worker and in process, each host of its own.
            let samples = quick ? 200 : 2_000, hits = quick ? 20 : 200
            let isolated = try PluginBench.costs(isolation: "process", dir: dir, samples: samples, hits: hits)
            let inProcess = try PluginBench.costs(isolation: "none", dir: dir, samples: samples, hits: hits)
            table.add("plugin hook round trip (configure)", unit: "us",
                      values: ["worker": isolated.hook, "in process": inProcess.hook, "host.ping": isolated.ping],
                      ratio: ("worker / in process", isolated.hook / inProcess.hook), budget: nil)
            table.add("showRendered hit, plugin class", unit: "us",
                      values: ["worker": isolated.hit, "in process": inProcess.hit, "host.ping": isolated.hitPing],
                      ratio: ("worker hit / ping", isolated.hit / isolated.hitPing), budget: .atMost(3))
            // What the language costs: the Counter class in C, Python and JavaScript, workers of one host.
            let langs = try PluginBench.languageCosts(dir: dir, samples: quick ? 200 : 2_000, hits: hits)
            for (name, costs) in [("Python", langs.python), ("JavaScript", langs.node)] {
                guard let costs else { continue }
                let key = name.lowercased()
                table.add("plugin configure round trip, \(name) class", unit: "us",
                          values: [key: costs.hook, "host.ping": costs.ping],
                          ratio: ("\(key) / ping", costs.hook / costs.ping), budget: nil)
                table.add("plugin configure round trip, \(name) vs C worker", unit: "us",
                          values: [key: costs.hook, "C worker": langs.c.hook],
                          ratio: ("\(key) / C", costs.hook / langs.c.hook), budget: nil)
                table.add("showRendered hit, \(name) class", unit: "us",
                          values: [key: costs.hit, "host.ping": costs.hitPing],
                          ratio: ("\(key) hit / ping", costs.hit / costs.hitPing), budget: nil)
                table.add("showRendered hit, \(name) vs C worker", unit: "us",
                          values: [key: costs.hit, "C worker": langs.c.hit],
                          ratio: ("\(key) / C", costs.hit / langs.c.hit), budget: nil)
            }
            for why in langs.missing { writeStandardError("greenroom bench: no plugin language row for \(why)\n") }
            let during = try PluginBench.pingsDuringLongHook(dir: dir, hookMs: 1000)
            table.add("ping while another plugin's hook runs 1 s", unit: "us",
                      values: ["p50": during.p50, "p99": during.p99, "max": during.max, "pings": Double(during.count)],
                      ratio: ("p99 ms", during.p99 / 1000), budget: .atMost(1))
            // Calls that depend on nothing the slow call touches pass it (the lane's dependency rule).
            let other = try PluginBench.otherPluginDuringLongHook(dir: dir, hookMs: 1000)
            table.add("configure of another plugin's container while a hook runs 1 s", unit: "us",
                      values: ["p50": other.p50, "p99": other.p99, "max": other.max, "calls": Double(other.count)],
                      ratio: ("p99 ms", other.p99 / 1000), budget: .atMost(5))
            let scripted = try PluginBench.pingsDuringScriptedCost(dir: dir, costMs: 2000)
            table.add("ping while a scripted hook spends 2 s", unit: "us",
                      values: ["p50": scripted.p50, "p99": scripted.p99, "max": scripted.max, "pings": Double(scripted.count)],
                      ratio: ("p99 ms", scripted.p99 / 1000), budget: .atMost(1))
            // 1,000 calls waiting at once (each a Swift task suspended on the loop): what each costs in
            // resident memory, and a ping meanwhile.
            let parked = try ParkedCallsBench.run(dir: dir, calls: quick ? 100 : 1_000, costMs: quick ? 2_000 : 4_000)
            table.add("calls waiting at once, resident bytes per call", unit: "B",
                      values: ["per call": parked.bytesPerCall, "waiting": Double(parked.waiting)],
                      ratio: ("KiB per call", parked.bytesPerCall / 1024), budget: .atMost(16))
            table.add("ping while 1,000 calls wait", unit: "us",
                      values: ["p50": parked.pingP50us, "p99": parked.pingP99us],
                      ratio: ("p99 ms", parked.pingP99us / 1000), budget: .atMost(1))
            // What hook batching (and the record journal it needs to undo a plan) saves a hit in a worker.
            let unbatched = try PluginBench.costs(isolation: "process", dir: dir, samples: samples / 4, hits: hits,
                                                  extra: ["--hook-batching", "off"])
            table.add("showRendered hit, plugin class, hook batching off", unit: "us",
                      values: ["off": unbatched.hit, "on": isolated.hit],
                      ratio: ("off / on", unbatched.hit / isolated.hit), budget: nil)
        }
        if wants("memory") {
            let perContainer = try pre.bytesPerPooledContainer(count: quick ? 1000 : 5000)
            table.add("host bytes per idle pooled container", unit: "B", values: ["scripted": perContainer],
                      ratio: ("KiB", perContainer / 1024), budget: .atMost(2))
            let purge = try pre.purgeReturn(count: quick ? 20 : 100, bytesEach: 512 * 1024)
            table.add("purge gives back", unit: "MiB", values: ["pooled": purge.pooled / 1048576],
                      ratio: ("returned / pooled", purge.returned), budget: .atLeast(0.9))
        }
        if wants("transitions") {
            let t = try TransitionBench(client: client).transitions(rounds: quick ? 50 : 1000)
            table.add("present + dismiss (fullScreen)", unit: "us", values: ["push + pop": t.pushPop, "present + dismiss": t.presentDismiss],
                      ratio: ("present / push", t.presentDismiss / t.pushPop), budget: .atMost(1.2))
            table.add("tab switch", unit: "us", values: ["push + pop": t.pushPop, "tabs.select": t.tabSwitch],
                      ratio: ("switch / push", t.tabSwitch / t.pushPop), budget: .atMost(1.2))
        }
        if wants("pages") {
            let pages = PageBench(client: client)
            let scroll = try pages.didScrollRoundTrip(samples: quick ? 500 : 5000)
            table.add("page.didScroll round trip", unit: "us", values: ["host.ping": scroll.ping, "didScroll": scroll.didScroll],
                      ratio: ("didScroll / ping", scroll.didScroll / scroll.ping), budget: nil)
            // The cost of recording transcripts: the same round trip on a host with --record, measured right
            // after the one without (docs/transcripts.md: off, recording costs nothing).
            let recording = try ChildProcess(arguments: ["serve", "--socket", "\(dir)/record.sock", "--record", "\(dir)/transcripts"])
            defer { recording.stop() }
            let recorded = try PageBench(client: try LineClient(unixPath: "\(dir)/record.sock"))
                .didScrollRoundTrip(samples: quick ? 500 : 5000)
            table.add("page.didScroll round trip, --record", unit: "us",
                      values: ["without": scroll.didScroll, "recording": recorded.didScroll, "host.ping recording": recorded.ping],
                      ratio: ("recording / without", recorded.didScroll / scroll.didScroll), budget: nil)
            let limited = try pages.sweep(cache: ["limit": 3])
            let reused = try pages.sweep(cache: ["mode": "reuse"])
            table.add("containers alive after a 1000-page sweep", unit: "count",
                      values: ["limit 3": Double(limited), "reuse": Double(reused)],
                      ratio: ("of 1000 pages", Double(max(limited, reused)) / 1000), budget: nil)
        }
        if wants("ranges") {
            let ranges = RangeBench(client: client)
            // The median of 21 creates (each destroyed again): a single first call also paid for what
            // the host warms once (and read 0.28 ms one day, 1.12 the next).
            var creates: [Double] = []
            for _ in 0..<21 {
                let t = monotonicNanos()
                let s = try ranges.createSession(items: 1_000)
                creates.append(Double(monotonicNanos() - t) / 1e6)
                _ = try client.call("range.destroy", ["session": .string(s)])
            }
            let create1k = PrerenderBench.median(creates)
            let small = try ranges.createSession(items: 1_000)
            let t0 = monotonicNanos()
            let large = try ranges.createSession(items: 1_000_000)
            let create1M = Double(monotonicNanos() - t0) / 1e6
            // No budget: building the length tree is O(n), and the loop serves no one meanwhile.
            table.add("range.create round trip", unit: "ms", values: ["1k items": create1k, "1M items": create1M],
                      ratio: ("ns per item, 1M", create1M * 1e6 / 1_000_000), budget: nil)
            let n = quick ? 20_000 : 200_000
            // Interleaved and repeated like the wire rows (best of each), so that the rates compared
            // saw the same moments of a shared machine.
            var rate1k = 0.0, rate1M = 0.0, pingRate = 0.0
            for _ in 0..<reps {
                rate1k = max(rate1k, try ranges.didScrollRate(session: small, total: n, span: 1_000 * 44 - 667))
                rate1M = max(rate1M, try ranges.didScrollRate(session: large, total: n, span: 1_000_000 * 44 - 667))
                pingRate = max(pingRate, try ranges.pingRate(total: n))
            }
            table.add("range.didScroll pipelined rate", unit: "req/s", values: ["1k items": rate1k, "1M items": rate1M],
                      ratio: ("cost 1M / 1k", rate1k / rate1M), budget: .atMost(2))
            table.add("range.didScroll vs ping, pipelined", unit: "req/s", values: ["didScroll 1M": rate1M, "ping": pingRate],
                      ratio: ("didScroll / ping", rate1M / pingRate), budget: .atLeast(0.5))
            let handling1k = inProcessDidScroll(items: 1_000, samples: quick ? 2_000 : 20_000)
            let handling1M = inProcessDidScroll(items: 1_000_000, samples: quick ? 2_000 : 20_000)
            table.add("range.didScroll host handling, median", unit: "us", values: ["1k items": handling1k, "1M items": handling1M],
                      ratio: ("1M items, us", handling1M), budget: .atMost(5))
            // The cost of a task: the same step run as a call that may wait (a task on the loop's executor)
            // against where it is read.
            let inTask = inProcessDidScrollInTask(items: 1_000_000, samples: quick ? 2_000 : 20_000)
            table.add("range.didScroll handling, in a task vs where read, median", unit: "us",
                      values: ["task": inTask, "read": handling1M],
                      ratio: ("task / read", inTask / handling1M), budget: .atMost(1.5))
            // docs/ranges.md: O(log n + changes) per update, inserts and deletes included.
            let edits1k = inProcessEdits(items: 1_000, samples: quick ? 2_000 : 20_000)
            let edits1M = inProcessEdits(items: 1_000_000, samples: quick ? 2_000 : 20_000)
            table.add("range.insertItems/deleteItems on screen, median", unit: "us", values: ["1k items": edits1k, "1M items": edits1M],
                      ratio: ("cost 1M / 1k", edits1M / edits1k), budget: .atMost(2))
            // Rows as containers: each step of a drag binds, parks, shows and hides a cell (four hooks and
            // more); the same drag without cells is the baseline.
            let steps = quick ? 200 : 2_000
            let plain = try ranges.didScrollRoundTrip(session: try ranges.createSession(items: 1_000_000), steps: steps)
            let withCells = try ranges.didScrollRoundTrip(session: try ranges.createCellSession(items: 1_000_000), steps: steps)
            table.add("range.didScroll round trip, cells vs none", unit: "us", values: ["cells": withCells, "none": plain],
                      ratio: ("cells / none", withCells / plain), budget: nil)
            // One batch of 1,000 updates is one update; 1,000 calls are 1,000 round trips and updates.
            let batched = try ranges.batchVsSingles(items: 1_000_000, updates: quick ? 200 : 1_000)
            table.add("\(quick ? 200 : 1000) inserts on 1M items, one batch vs single calls", unit: "ms",
                      values: ["batch": batched.batch, "singles": batched.singles],
                      ratio: ("batch / singles", batched.batch / batched.singles), budget: .atMost(1))
            // A feed whose 1,000 rows each hold a nested carousel: each step that moves a row in or out
            // of a range updates that row's carousel too.
            let flat = try ranges.nestedDidScroll(rows: 1_000, nested: false, steps: steps)
            let nestedFeed = try ranges.nestedDidScroll(rows: 1_000, nested: true, steps: steps)
            table.add("range.didScroll round trip, 1,000 nested sessions vs none", unit: "us",
                      values: ["nested": nestedFeed, "none": flat], ratio: ("nested / none", nestedFeed / flat), budget: nil)
            let fling = try ranges.containersAfterFling(rows: 10_000)
            table.add("containers alive after a 10,000-row fling (cells)", unit: "count",
                      values: ["alive": fling.alive, "bound": fling.bound, "parked": fling.parked],
                      ratio: ("alive - bound - parked", fling.alive - fling.bound - fling.parked), budget: .atMost(0))
        }
        if wants("connections") {
            // 1,000 connections, each streaming 60 didScroll/s (a fresh host: its own sessions).
            let crowdHost = try ChildProcess(arguments: ["serve", "--socket", "\(dir)/crowd.sock"])
            defer { crowdHost.stop() }
            let crowd = try ConnectionsBench(socket: "\(dir)/crowd.sock")
                .run(connections: quick ? 200 : 1_000, perSecond: 60, seconds: quick ? 2 : 5)
            table.add("\(quick ? 200 : 1000) connections x 60 didScroll/s", unit: "us",
                      values: ["p50": crowd.p50us, "p99": crowd.p99us, "errors": Double(crowd.errors), "replies": Double(crowd.received)],
                      ratio: ("p99 ms", crowd.p99us / 1000), budget: .atMost(5))
        }
        if wants("auth") {
            // A well-behaved client's ping p99 while 1,000 unauthenticated TCP connections sit idle,
            // against its p99 on the same host without them.
            let idle = quick ? 200 : 1_000
            let r = try IdleAuthBench(dir: dir).run(idle: idle, roundTrips: rt, repeats: reps)
            table.add("ping p99 with \(idle) idle unauthenticated TCP peers", unit: "us",
                      values: ["alone": r.p99Alone, "idle peers": r.p99Idle, "admitted": Double(r.idleAdmitted)],
                      ratio: ("with / without", r.p99Idle / r.p99Alone), budget: .atMost(1.5))
        }
        return table
    }
}

/// Messages per second json_loadb can parse (the same line, arena off, one thread).
func janssonParseRate(line: [UInt8], count: Int) -> Double {
    let body = Array(line.dropLast())
    var error = json_error_t()
    let t0 = monotonicNanos()
    body.withUnsafeBytes { raw in
        let p = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
        for _ in 0..<count {
            if let j = json_loadb(p, raw.count, 0, &error) { gr_json_decref(j) }
        }
    }
    return Double(count) / (Double(monotonicNanos() - t0) / 1e9)
}

/// Rows of measurements with a ratio against a baseline and the budget it is held to.
struct BenchTable {
    enum Budget {
        case atMost(Double), atLeast(Double)
        var text: String {
            switch self {
            case .atMost(let v): "<= \(fmt(v))"
            case .atLeast(let v): ">= \(fmt(v))"
            }
        }
        func met(_ r: Double) -> Bool {
            switch self {
            case .atMost(let v): r <= v
            case .atLeast(let v): r >= v
            }
        }
    }

    struct Row {
        var what: String
        var values: String
        var ratioName: String
        var ratio: Double
        var budget: Budget?
        /// The lowest and highest ratio over repeated runs of the table (nil after one run).
        var range: ClosedRange<Double>? = nil

        /// "yes", "NO", or — when the median misses but the runs' spread reaches the budget — a plain
        /// statement that the miss is within the noise this bench measured.
        var verdict: String {
            guard let budget else { return "-" }
            if budget.met(ratio) { return "yes" }
            if let range, budget.met(range.lowerBound) || budget.met(range.upperBound) {
                return "no, by less than the run-to-run noise (\(fmt(range.lowerBound))-\(fmt(range.upperBound)))"
            }
            return "NO"
        }
    }

    var rows: [Row] = []

    mutating func add(_ what: String, unit: String, values: [String: Double], ratio: (String, Double), budget: Budget?) {
        let order = ["host", "host 1 thread", "raw echo", "naive echo"]
        let keys = order.filter { values[$0] != nil } + values.keys.filter { !order.contains($0) }.sorted()
        let text = keys.map { "\($0) \(fmt(values[$0]!))" }.joined(separator: ", ")
        rows.append(Row(what: "\(what) (\(unit))", values: text, ratioName: ratio.0, ratio: ratio.1, budget: budget))
    }

    /// Tables from repeated runs (the same rows in the same order), row by row: the run with the
    /// median ratio gives the values, and the range of the ratios is kept as the row's noise.
    static func merged(_ tables: [BenchTable]) -> BenchTable {
        guard let first = tables.first, tables.count > 1 else { return tables.first ?? BenchTable() }
        var out = BenchTable()
        for (i, row) in first.rows.enumerated() {
            let runs = tables.compactMap { $0.rows.indices.contains(i) ? $0.rows[i] : nil }.sorted { $0.ratio < $1.ratio }
            var median = runs[(runs.count - 1) / 2]
            median.range = runs.first!.ratio...runs.last!.ratio
            median.what = row.what
            out.rows.append(median)
        }
        return out
    }

    func print() {
        let w0 = max(4, rows.map(\.what.count).max() ?? 0)
        let w1 = max(6, rows.map(\.values.count).max() ?? 0)
        func ratioText(_ r: Row) -> String {
            let spread = r.range.map { " [\(fmt($0.lowerBound))-\(fmt($0.upperBound))]" } ?? ""
            return "\(r.ratioName) \(fmt(r.ratio))\(spread)"
        }
        let w2 = max(5, rows.map { ratioText($0).count }.max() ?? 0)
        func pad(_ s: String, _ w: Int) -> String { s + String(repeating: " ", count: max(0, w - s.count)) }
        Swift.print(pad("what", w0) + "  " + pad("values", w1) + "  " + pad("ratio", w2) + "  budget   met")
        for r in rows {
            Swift.print(pad(r.what, w0) + "  " + pad(r.values, w1) + "  " + pad(ratioText(r), w2)
                + "  " + pad(r.budget?.text ?? "-", 7) + "  " + r.verdict)
        }
    }
}

func fmt(_ v: Double) -> String {
    if v >= 1000 { return String(Int(v.rounded())) }
    if v >= 100 { return String(format1(v, 1)) }
    return format1(v, 2)
}

private func format1(_ v: Double, _ digits: Int) -> String {
    var buf = [CChar](repeating: 0, count: 64)
    _ = withVaList([v]) { vsnprintf(&buf, 64, "%.\(digits)f", $0) }
    return String(cString: buf)
}
