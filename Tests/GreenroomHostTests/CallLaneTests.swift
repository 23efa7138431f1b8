import Testing
import GreenroomJSON
import GreenroomRPC
@testable import GreenroomHost

/// Waits a test serves by hand: each is held until the test calls it back, as the loop would when a
/// worker's reply came.
private final class HeldWaits: LoopWaits {
    var held: [(Bool) -> Void] = []
    var turns = 0
    func link(fd: Int32) -> WorkerLink { HeldLink(self, fd: fd) }
    func after(ms: Int, _ done: @escaping () -> Void) -> () -> Void {
        held.append { _ in done() }
        return {}
    }
    func runOnce() {
        turns += 1
        if !held.isEmpty { held.removeFirst()(true) }
    }
    /// Calls back the oldest wait, as its reply's arrival would.
    func serveOne() { held.removeFirst()(true) }
}

/// A worker's socket whose arrivals the test makes (`HeldWaits.serveOne`).
private final class HeldLink: WorkerLink {
    let waits: HeldWaits
    let fd: Int32
    init(_ waits: HeldWaits, fd: Int32) {
        self.waits = waits
        self.fd = fd
    }
    func send(_ bytes: [UInt8]) {}
    func take(into buffer: inout FrameBuffer) throws(WireError) -> Bool { false }
    func whenReceived(timeoutMs: Int?, _ done: @escaping (Bool) -> Void) { waits.held.append(done) }
    func watchHangUp(_ hungUp: @escaping () -> Void) {}
    func stopWatching() {}
    var hasHungUp: Bool { false }
    func close() {}
}

private func laneHost() -> (Host, HeldWaits) {
    let host = virtualHost()
    let waits = HeldWaits()
    host.lane.waits = waits
    host.lane.isDriven = true
    return (host, waits)
}

private func ids(_ lines: [JSONValue]) -> [JSONValue] { lines.compactMap { $0["id"] } }

@Suite struct CallLaneTests {
    @Test func aHostWithNoLoopRunsTheLanesWorkWhereItIsQueued() {
        let host = virtualHost()
        let c = MemoryClient(host)
        // A call that may wait runs as a task, to its end, before the read returns.
        #expect(ids(c.sendRaw(#"{"jsonrpc":"2.0","id":1,"method":"container.create","params":{"class":"Container"}}"#)) == [1])
        #expect(!host.lane.isRunning && !host.lane.hasRunnableWork && host.lane.stats["deferredLines"] == 1)
        // A loop that drives the lane runs it between its turns instead.
        host.lane.isDriven = true
        #expect(c.sendRaw(#"{"jsonrpc":"2.0","id":2,"method":"container.create","params":{"class":"Container"}}"#).isEmpty)
        host.lane.drain()
        #expect(ids(c.readAll()) == [2])
    }

    @Test func quickCallsRunWhereTheyAreReadOthersWaitForTheLane() {
        let (host, _) = laneHost()
        let c = MemoryClient(host)
        let lines = c.sendRaw("""
            {"jsonrpc":"2.0","id":1,"method":"host.ping"}
            {"jsonrpc":"2.0","id":2,"method":"container.create","params":{"class":"Container"}}
            {"jsonrpc":"2.0","id":3,"method":"host.ping"}
            """)
        // The ping ran; the create waits in the lane and holds the ping after it.
        #expect(ids(lines) == [1])
        #expect(c.connection.isWaiting && host.lane.hasRunnableWork)
        #expect(host.lane.stats["queued"] == 1 && host.lane.stats["deferredLines"] == 1)
        host.lane.drain()
        #expect(ids(c.readAll()) == [2, 3])
        #expect(!c.connection.isWaiting && !host.lane.hasRunnableWork)
    }

    @Test func anotherConnectionsQuickCallsPassAWaitingCall() {
        let (host, _) = laneHost()
        let a = MemoryClient(host), b = MemoryClient(host)
        #expect(a.sendRaw(#"{"jsonrpc":"2.0","id":"a","method":"container.create","params":{"class":"Container"}}"#).isEmpty)
        #expect(ids(b.sendRaw(#"{"jsonrpc":"2.0","id":"b","method":"host.ping"}"#)) == ["b"])
        #expect(b.sendRaw(#"{"jsonrpc":"2.0","id":"b2","method":"container.create","params":{"class":"Container"}}"#).isEmpty)
        host.lane.drain()
        #expect(a.readAll().last?["result"]?["container"] == "c-1")
        // b's create ran after a's (the same class), in the order the lane took them.
        #expect(b.readAll().last?["result"]?["container"] == "c-2")
    }

    @Test func aBatchWithOneCallThatMayRunHooksWaitsWhole() {
        let (host, _) = laneHost()
        let c = MemoryClient(host)
        #expect(c.sendRaw(#"[{"jsonrpc":"2.0","id":1,"method":"host.ping"},{"jsonrpc":"2.0","id":2,"method":"container.create","params":{"class":"Container"}}]"#).isEmpty)
        host.lane.drain()
        #expect(c.readAll().first?.arrayValue?.compactMap { $0["id"] } == [1, 2])
        // A batch of quick calls and a line that fails to parse run at once.
        #expect(c.sendRaw(#"[{"jsonrpc":"2.0","id":3,"method":"host.ping"}]"#).count == 1)
        #expect(c.sendRaw("{nope").first?["error"]?["code"] == -32700)
    }

    @Test func aConnectionClosedWhileItsLineWaitsIsTornDownInTheLaneAndItsLineDropped() {
        let (host, _) = laneHost()
        let observer = MemoryClient(host)
        observer.call("events.subscribe", ["topics": ["host"], "scope": "all"])
        let c = MemoryClient(host)
        _ = observer.readAll()
        #expect(c.sendRaw(#"{"jsonrpc":"2.0","id":1,"method":"container.create","params":{"class":"Container"}}"#).isEmpty)
        host.connectionClosed(c.connection)
        #expect(!c.connection.isClosed && host.connections.count == 2)
        host.lane.drain()
        #expect(c.connection.isClosed && host.connections.count == 1)
        // The dropped create never ran.
        #expect(host.containers.containers.isEmpty)
        #expect(observer.readAll().contains { $0["params"]?["kind"] == "connectionClosed" })
    }

    @Test func laterLinesOfAWaitingConnectionQueueAgainBehindOthers() {
        let (host, _) = laneHost()
        let a = MemoryClient(host), b = MemoryClient(host)
        _ = a.sendRaw("""
            {"jsonrpc":"2.0","id":1,"method":"container.create","params":{"class":"Container"}}
            {"jsonrpc":"2.0","id":2,"method":"container.create","params":{"class":"Container"}}
            """)
        _ = b.sendRaw(#"{"jsonrpc":"2.0","id":3,"method":"container.create","params":{"class":"Container"}}"#)
        var order: [String] = []
        // a's first and b's creates ran before the task; a's second after it.
        host.lane.enqueue(.task { order.append(host.containers.containers.count == 2 ? "task before A2" : "task after A2") })
        host.lane.drain()
        #expect(ids(a.readAll()) == [1, 2] && ids(b.readAll()) == [3])
        // A2 waited behind a's first line, then queued again behind b's line and the task.
        #expect(order == ["task before A2"])
        #expect(host.lane.stats["deferredLines"] == 3)
    }

    @Test func anIdlePassRunsOnlyWhenNothingElseWaits() {
        let (host, _) = laneHost()
        let c = MemoryClient(host)
        var seen: [String] = []
        host.lane.enqueue(.idle { seen.append(host.containers.containers.isEmpty ? "idle first" : "idle last") })
        _ = c.sendRaw(#"{"jsonrpc":"2.0","id":1,"method":"container.create","params":{"class":"Container"}}"#)
        #expect(host.lane.stats["queued"] == 2)
        host.lane.drain()
        #expect(seen == ["idle last"])
        #expect(ids(c.readAll()) == [1])
    }

    @Test func anItemParksWhileItsWaitIsHeldAndQuickCallsRunMeanwhile() {
        let (host, waits) = laneHost()
        let c = MemoryClient(host), other = MemoryClient(host)
        var steps: [String] = []
        host.lane.enqueue(.task {
            steps.append("before")
            #expect(await host.lane.waitReceived(waits.link(fd: 0), timeoutMs: 1000))
            steps.append("after")
        })
        _ = c.sendRaw(#"{"jsonrpc":"2.0","id":1,"method":"container.create","params":{"class":"Container"}}"#)
        host.lane.drain()
        // Waiting: the item's task suspended mid-way; the drain came back here.
        #expect(steps == ["before"] && host.lane.isRunning && !host.lane.hasRunnableWork)
        #expect(host.lane.stats["parks"] == 1)
        // Quick calls of any connection run meanwhile; the create waits behind the waiting item.
        #expect(ids(other.sendRaw(#"{"jsonrpc":"2.0","id":"p","method":"host.ping"}"#)) == ["p"])
        #expect(c.readAll().isEmpty && host.containers.containers.isEmpty)
        // The wait is over: the next drain resumes the item's task where it stopped, then the create.
        waits.serveOne()
        #expect(host.lane.hasRunnableWork)
        host.lane.drain()
        #expect(steps == ["before", "after"] && !host.lane.isRunning)
        #expect(ids(c.readAll()) == [1] && host.containers.containers.count == 1)
    }

    @Test func workRunToItsEndTurnsTheLoopUntilItsWaitIsServed() {
        let (host, waits) = laneHost()
        // At start-up (a worker's ready frame), before the loop runs: the loop turns here until it comes.
        #expect(host.lane.runToEnd { await host.lane.waitReceived(waits.link(fd: 0), timeoutMs: nil) })
        #expect(waits.turns == 1 && host.lane.stats["parks"] == 1)
    }

    /// Two connections' creates of classes whose hooks cost time, and what waits behind them.
    private func costlyHost() -> (Host, HeldWaits, MemoryClient, MemoryClient) {
        let (host, waits) = laneHost()
        let a = MemoryClient(host), b = MemoryClient(host)
        for name in ["SlowA", "SlowB"] {
            a.call("classes.define", ["name": .string(name), "hooks": ["init": ["costMs": 5]]])
            host.lane.drain()  // the define went through the lane, once the first costly class made it run
        }
        _ = a.readAll()
        #expect(host.classes["SlowB"] != nil && !host.lane.hasRunnableWork)
        return (host, waits, a, b)
    }

    @Test func callsOnDifferentClassesOverlapWhileOneParks() {
        let (host, waits, a, b) = costlyHost()
        _ = a.sendRaw(#"{"jsonrpc":"2.0","id":1,"method":"container.create","params":{"class":"SlowA"}}"#)
        _ = b.sendRaw(#"{"jsonrpc":"2.0","id":2,"method":"container.create","params":{"class":"SlowB"}}"#)
        host.lane.drain()
        // Both started: the second while the first was parked spending its cost.
        #expect(waits.held.count == 2 && host.lane.stats["overlapped"] == 1)
        // The second's wait ends first: it answers first.
        waits.held.removeLast()(true)
        host.lane.drain()
        #expect(ids(b.readAll()) == [2] && a.readAll().isEmpty)
        waits.serveOne()
        host.lane.drain()
        #expect(ids(a.readAll()) == [1] && !host.lane.isRunning)
    }

    @Test func callsOnTheSameClassAndCallsOnEverythingKeepTheirOrder() {
        let (host, waits, a, b) = costlyHost()
        let c = MemoryClient(host)
        _ = a.sendRaw(#"{"jsonrpc":"2.0","id":1,"method":"container.create","params":{"class":"SlowA"}}"#)
        _ = b.sendRaw(#"{"jsonrpc":"2.0","id":2,"method":"container.create","params":{"class":"SlowA"}}"#)
        _ = c.sendRaw(#"{"jsonrpc":"2.0","id":3,"method":"container.create","params":{"class":"SlowB"}}"#)
        host.lane.drain()
        // Same class: the second waits for the first; the other class starts beside it.
        #expect(waits.held.count == 2 && host.lane.stats["overlapped"] == 1)
        // A call that depends on everything waits for both, and so does what comes after it.
        let d = MemoryClient(host)
        _ = d.sendRaw(#"{"jsonrpc":"2.0","id":4,"method":"classes.define","params":{"name":"Late"}}"#)
        _ = d.sendRaw(#"{"jsonrpc":"2.0","id":5,"method":"host.ping"}"#)
        var answered: [JSONValue] = []
        while !waits.held.isEmpty {
            waits.serveOne()
            host.lane.drain()
            answered += [a, b, c, d].flatMap { ids($0.readAll()) }
        }
        // The waits end oldest first: SlowA's first create, then SlowB's (started beside it), then SlowA's
        // second (started once the first ended); the define only after all three, the ping after it.
        #expect(answered == [1, 3, 2, 4, 5], "\(answered)")
    }

    @Test func aParkedCallKeepsItsOwnCallStateWhileAnotherRuns() {
        let (host, waits, a, b) = costlyHost()
        _ = a.sendRaw(#"{"jsonrpc":"2.0","id":"first","method":"container.create","params":{"class":"SlowA"}}"#)
        _ = b.sendRaw(#"{"jsonrpc":"2.0","id":"second","method":"container.create","params":{"class":"SlowB"}}"#)
        host.lane.drain()
        // Between items the host is between calls: no call is current, no cause is set.
        #expect(host.processor.currentCall == nil && host.events.currentCause == nil)
        waits.serveOne()
        host.lane.drain()
        waits.serveOne()
        host.lane.drain()
        // Each reply went to its own caller, with its own id.
        #expect(ids(a.readAll()) == ["first"] && ids(b.readAll()) == ["second"])
    }

    @Test func pastTheBoundOfWaitingCallsALineIsRefusedNamingTheBound() {
        let host = virtualHost { $0.maxWaitingCalls = 2 }
        host.lane.waits = HeldWaits()
        host.lane.isDriven = true
        let clients = (0..<3).map { _ in MemoryClient(host) }
        let answered = clients.enumerated().map { i, c in
            c.sendRaw(#"{"jsonrpc":"2.0","id":\#(i),"method":"container.create","params":{"class":"Container"}}"#)
        }
        // Two wait their turn; the third is refused at once, naming the bound, and nothing else changes.
        #expect(answered[0].isEmpty && answered[1].isEmpty)
        let refused = answered[2]
        #expect(refused.first?["error"]?["code"] == -32005)
        #expect(refused.first?["error"]?["data"]?["limit"] == "waitingCalls" && refused.first?["error"]?["data"]?["max"] == 2)
        #expect(host.lane.stats["refused"] == 1 && host.lane.stats["queued"] == 2)
        host.lane.drain()
        #expect(ids(clients[0].readAll()) == [0] && ids(clients[1].readAll()) == [1])
        // Once they ran, the third connection's next call goes through.
        _ = clients[2].sendRaw(#"{"jsonrpc":"2.0","id":3,"method":"container.create","params":{"class":"Container"}}"#)
        host.lane.drain()
        #expect(ids(clients[2].readAll()) == [3])
    }
}
