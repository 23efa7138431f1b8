import Testing
import GreenroomJSON
import GreenroomRPC
@testable import GreenroomHost

/// A client on an in-memory connection: write a request, read every line the host wrote.
final class MemoryClient {
    let host: Host  // connections hold their host unowned; the test keeps it alive
    let connection: HostConnection
    let transport = MemoryTransport()
    private var nextID = 1

    init(_ host: Host, kind: HostConnection.Kind = .unix) {
        self.host = host
        connection = host.openConnection(kind: kind, transport: transport)
    }

    func sendRaw(_ text: String) -> [JSONValue] {
        connection.receive(Array((text + "\n").utf8))
        return readAll()
    }

    func readAll() -> [JSONValue] {
        let bytes = connection.out.take()
        return bytes.split(separator: 0x0A).map { try! JSONCodec.decode(Array($0)) }
    }

    /// Sends a request; returns (events written before the reply, the reply).
    @discardableResult
    func call(_ method: String, _ params: JSONValue? = nil) -> (events: [JSONValue], reply: JSONValue) {
        let lines = request(method, params).lines
        return (Array(lines.dropLast()), lines.last ?? .null)
    }

    /// Sends a request; returns its id and every line written meanwhile (a reply held for later, as
    /// `reply: "afterAppear"` does, is not among them; earlier held replies may be).
    func request(_ method: String, _ params: JSONValue? = nil) -> (id: Int, lines: [JSONValue]) {
        let id = nextID
        var req: JSONObject = ["jsonrpc": "2.0", "id": .int(id), "method": .string(method)]
        nextID += 1
        if let params { req["params"] = params }
        return (id, sendRaw(JSONCodec.encodeString(.object(req))))
    }
}

func virtualHost(_ edit: (inout HostConfig) -> Void = { _ in }) -> Host {
    var c = HostConfig()
    c.clockMode = .virtual
    edit(&c)
    return Host(config: c)
}

@Suite struct HostTests {
    @Test func ping() {
        let c = MemoryClient(virtualHost())
        #expect(c.call("host.ping").reply["result"] == ["pong": true])
    }

    @Test func infoListsMethodsAndLimits() {
        let host = virtualHost { $0.limits.maxBatch = 9 }
        let r = MemoryClient(host).call("host.info").reply["result"]
        #expect(r?["clock"] == "virtual")
        #expect(r?["limits"]?["maxBatch"] == 9)
        let methods = r?["methods"]?.arrayValue?.compactMap(\.stringValue) ?? []
        for m in ["rpc.discover", "host.ping", "host.info", "host.stats", "host.memoryWarning", "host.shutdown",
                  "events.subscribe", "events.unsubscribe", "clock.now", "clock.advance", "tasks.status", "tasks.drain"] {
            #expect(methods.contains(m), "\(m) registered")
        }
    }

    @Test func subscribeRejectsUnknownTopics() {
        let c = MemoryClient(virtualHost())
        let r = c.call("events.subscribe", ["topics": ["host", "nope"]]).reply
        #expect(r["error"]?["code"] == -32602)
        #expect(r["error"]?["data"]?["path"] == "topics[1]")
        #expect(c.call("events.subscribe", ["topics": ["host"], "scope": "everyone"]).reply["error"]?["code"] == -32602)
        #expect(c.call("events.subscribe", ["topics": ["host"]]).reply["result"] == ["topics": ["host"], "scope": "own"])
    }

    @Test func observersSeeOtherConnectionsWithSeqAndTime() async throws {
        let host = virtualHost()
        let observer = MemoryClient(host)
        observer.call("events.subscribe", ["topics": ["host"], "scope": "all"])
        _ = await host.timers.advanceVirtualClock(by: 12.5)
        let other = MemoryClient(host)
        host.connectionClosed(other.connection)
        let events = observer.readAll()
        #expect(events.count == 2)
        #expect(events.map { $0["method"] } == ["host", "host"])
        #expect(events.map { $0["params"]?["kind"] } == ["connectionOpened", "connectionClosed"])
        #expect(events.map { $0["params"]?["seq"] } == [1, 2])
        #expect(events[0]["params"]?["t"] == 12.5)
        #expect(events[0]["params"]?["connection"] == .string(other.connection.id))
        #expect(events[0]["id"] == nil)
    }

    @Test func ownScopeDoesNotSeeOthers() {
        let host = virtualHost()
        let c = MemoryClient(host)
        c.call("events.subscribe", ["topics": ["host"]])
        _ = MemoryClient(host)
        #expect(c.readAll().isEmpty)
    }

    @Test func eventsCausedByARequestPrecedeItsReply() {
        let host = virtualHost()
        let c = MemoryClient(host)
        c.call("events.subscribe", ["topics": ["host"]])
        let (events, reply) = c.call("host.memoryWarning", ["level": "critical"])
        #expect(events.count == 1)
        #expect(events.first?["params"]?["kind"] == "memoryWarning")
        #expect(events.first?["params"]?["level"] == "critical")
        #expect(reply["result"]?["level"] == "critical")
        #expect(c.call("host.memoryWarning", ["level": "severe"]).reply["error"]?["data"]?["path"] == "level")
    }

    @Test func unsubscribeStopsEvents() {
        let host = virtualHost()
        let c = MemoryClient(host)
        c.call("events.subscribe", ["topics": ["host", "page"]])
        #expect(c.call("events.unsubscribe", ["topics": ["host"]]).reply["result"]?["topics"] == ["page"])
        c.call("host.memoryWarning")
        #expect(c.readAll().isEmpty)
    }

    @Test func virtualClockRunsTimersInTimeOrderAtTheirDeadlines() {
        let host = virtualHost()
        var fired: [(String, Double)] = []
        host.timers.schedule(at: 300) { fired.append(("b", host.now)) }
        host.timers.schedule(at: 100) {
            fired.append(("a", host.now))
            host.timers.schedule(at: 150) { fired.append(("a2", host.now)) }
        }
        host.timers.schedule(at: 900) { fired.append(("late", host.now)) }
        let c = MemoryClient(host)
        let r = c.call("clock.advance", ["ms": 500]).reply["result"]
        #expect(r == ["now": 500.0, "ms": 500.0, "fired": 3])  // `now` names the new time; `ms` is kept
        #expect(fired.map(\.0) == ["a", "a2", "b"])
        #expect(fired.map(\.1) == [100, 150, 300])
        #expect(c.call("clock.now").reply["result"] == ["ms": 500.0, "mode": "virtual"])
    }

    @Test func clockAdvanceValidation() {
        let c = MemoryClient(virtualHost())
        #expect(c.call("clock.advance", ["ms": -1]).reply["error"]?["data"]?["path"] == "ms")
        #expect(c.call("clock.advance", ["ms": "x"]).reply["error"]?["code"] == -32602)
        #expect(c.call("clock.advance").reply["error"]?["data"]?["path"] == "ms")
        let real = MemoryClient(Host(config: HostConfig()))
        let e = real.call("clock.advance", ["ms": 1]).reply["error"]
        #expect(e?["code"] == -32007)
        #expect(e?["data"]?["kind"] == "virtualClockOnly")
    }

    @Test func tasksStatusAndDrain() {
        let host = virtualHost()
        var ran: [String] = []
        host.dispatcher.enqueue(key: "warm:A") { ran.append("A") }
        host.dispatcher.enqueue(key: "warm:B", mode: .common) { ran.append("B") }
        let c = MemoryClient(host)
        let s = c.call("tasks.status").reply["result"]
        #expect(s?["pending"] == 2)
        #expect(s?["tasks"]?.arrayValue?.map { $0["key"] } == ["warm:A", "warm:B"])
        #expect(c.call("tasks.drain").reply["result"] == ["ran": 2, "pending": 0])
        #expect(ran == ["A", "B"])
    }

    @Test func tcpConnectionsMustAuthenticateWhenATokenIsSet() {
        let host = virtualHost { $0.token = "s3cret" }
        let tcp = MemoryClient(host, kind: .tcp)
        let denied = tcp.call("host.ping").reply["error"]
        #expect(denied?["code"] == -32006)
        #expect(denied?["data"]?["method"] == "host.ping")
        #expect(tcp.call("host.auth", ["token": "wrong"]).reply["error"]?["code"] == -32006)
        #expect(tcp.call("host.ping").reply["error"]?["code"] == -32006)
        #expect(tcp.call("host.auth", ["token": "s3cret"]).reply["result"] == ["authenticated": true])
        #expect(tcp.call("host.ping").reply["result"] == ["pong": true])
        #expect(MemoryClient(host, kind: .unix).call("host.ping").reply["result"] == ["pong": true])
    }

    @Test func statsCountConnectionsRequestsAndErrors() {
        let host = virtualHost()
        let c = MemoryClient(host)
        c.call("host.ping")
        c.call("no.such")
        _ = c.sendRaw("{oops")
        let s = c.call("host.stats").reply["result"]
        #expect(s?["connections"]?["open"] == 1)
        #expect(s?["requests"] == 3)
        #expect(s?["errors"] == 2)
    }

    @Test func shutdownIsRequestedOnce() {
        let host = virtualHost()
        var requests = 0
        host.onShutdownRequested = { requests += 1 }
        let c = MemoryClient(host)
        #expect(c.call("host.shutdown").reply["result"] == ["shuttingDown": true])
        c.call("host.shutdown")
        #expect(requests == 1)
    }

    @Test func oversizedLineGetsOneErrorAndTheConnectionGoesOn() {
        let host = virtualHost { $0.limits.maxMessageBytes = 64 }
        let c = MemoryClient(host)
        let lines = c.sendRaw(String(repeating: "x", count: 200) + "\n" + #"{"jsonrpc":"2.0","id":5,"method":"host.ping"}"#)
        #expect(lines.count == 2)
        #expect(lines[0]["error"]?["data"]?["kind"] == "messageTooLarge")
        #expect(lines[0]["id"] == .null)
        #expect(lines[1]["result"] == ["pong": true])
    }

    @Test func discoverServesTheGeneratedDocument() throws {
        let r = MemoryClient(virtualHost()).call("rpc.discover").reply["result"]
        #expect(r == GreenroomProtocol.document)
        #expect(r?["openrpc"] == "1.3.2")
    }
}

/// The message types are the one source of the protocol: the host registers exactly the methods the
/// catalog lists, and the document made from them is whole.
@Suite struct ProtocolCatalogTests {
    @Test func theRegistryHoldsExactlyTheCatalogsMethods() {
        let host = virtualHost()
        PluginSupervisor.install(on: host)  // as `greenroom serve` always does: plugins.restart is its method
        let registered = Set(host.processor.registry.names)
        let catalogued = Set(GreenroomProtocol.methodNames)
        #expect(registered.subtracting(catalogued).isEmpty, "registered but not described: \(registered.subtracting(catalogued))")
        #expect(catalogued.subtracting(registered).isEmpty, "described but not registered: \(catalogued.subtracting(registered))")
        #expect(GreenroomProtocol.methodNames.count == catalogued.count, "a method is listed twice")
    }

    @Test func everyReferenceNamesAComponentAndEveryMethodHasItsParts() {
        let doc = GreenroomProtocol.document
        #expect(OpenRPCGenerator.danglingReferences(in: doc).isEmpty)
        for m in doc["methods"]?.arrayValue ?? [] {
            let name = m["name"]?.stringValue ?? "?"
            #expect(m["summary"]?.stringValue?.isEmpty == false, "\(name) has no summary")
            #expect(m["result"]?["schema"] != nil, "\(name) has no result schema")
            for e in m["errors"]?.arrayValue ?? [] {
                #expect(e["code"]?.intValue != nil && e["message"] != nil, "\(name): an error object without code or message")
            }
        }
    }

    /// Positional params follow the declared order, and the typed decoder keeps the old errors: a
    /// missing member is "is required", a wrong type names the member (and the element inside it).
    @Test func typedParamsKeepTheirErrorsAndOrder() {
        let c = MemoryClient(virtualHost())
        let missing = c.call("stack.create", ["height": 10]).reply["error"]
        #expect(missing?["data"]?["path"] == "width" && missing?["message"]?.stringValue?.contains("is required") == true)
        let wrong = c.call("events.subscribe", ["topics": ["lifecycle", 5]]).reply["error"]
        #expect(wrong?["data"]?["path"] == "topics[1]")
        let positional = c.call("stack.create", [320, 480, true]).reply["result"]
        #expect(positional?["hidden"] == true && positional?["width"] == 320.0)
        let unknown = c.call("host.memoryWarning", ["level": "warning", "lvl": 1]).reply["error"]
        #expect(unknown?["data"]?["path"] == "lvl")
        let choice = c.call("host.memoryWarning", ["level": "severe"]).reply["error"]
        #expect(choice?["data"]?["path"] == "level")
        #expect(c.call("host.memoryWarning", ["level": .null]).reply["error"]?["data"]?["path"] == "level",
                "by name null is not a value of the schema")
        #expect(c.call("host.memoryWarning", [.null]).reply["result"]?["level"] == "critical", "by position null is absent: the default")
    }
}

/// A transport whose peer reads nothing: asked to write early, it closes the connection as the libuv one
/// does past its outbound limit.
final class StalledTransport: ConnectionTransport {
    unowned let host: Host
    var flushes = 0
    init(host: Host) { self.host = host }
    func outputReady(_ connection: HostConnection) {}
    func closeRequested(_ connection: HostConnection) {}
    func flushNow(_ connection: HostConnection) {
        flushes += 1
        connection.out.removeAll()
        host.connectionClosed(connection, reason: "outbound limit exceeded")
    }
}

@Suite struct OutboundLimitTests {
    /// docs/protocol.md: past the queued-outbound limit the connection is closed — mid-read, before the host
    /// builds the replies to the rest of the lines it received at once.
    @Test func linesAfterTheOutboundLimitIsPassedAreNotRun() {
        let host = virtualHost { $0.maxOutboundBytes = 4096 }
        let transport = StalledTransport(host: host)
        let c = host.openConnection(kind: .unix, transport: transport)
        var burst = ""
        for i in 0..<200 { burst += "{\"jsonrpc\":\"2.0\",\"id\":\(i),\"method\":\"host.info\"}\n" }
        c.receive(Array(burst.utf8))
        #expect(transport.flushes == 1)
        #expect(c.isClosed)
        #expect(host.processor.counters.requests < 20, "every line was run: \(host.processor.counters.requests)")
    }
}


/// A transport whose peer is gone: the write that backpressure tries mid-read fails, and it reports
/// the connection closed there and then (as a libuv stream does when a write fails).
final class LostPeerTransport: ConnectionTransport {
    unowned let host: Host
    /// The stacks that were still there just after the close was reported.
    var stacksAtClose: Int?
    init(_ host: Host) { self.host = host }
    func outputReady(_ connection: HostConnection) {}
    func closeRequested(_ connection: HostConnection) {}
    func flushNow(_ connection: HostConnection) {
        host.connectionClosed(connection, reason: "write failed")
        stacksAtClose = host.containers.stacks.count
    }
}

@Suite struct ConnectionTeardownTests {
    @Test func aConnectionLostMidReadIsTornDownAfterTheReadNotInsideIt() {
        let host = virtualHost { $0.maxOutboundBytes = 4096 }
        let transport = LostPeerTransport(host)
        let c = host.openConnection(kind: .unix, transport: transport)
        c.receive(Array(#"{"jsonrpc":"2.0","id":1,"method":"stack.create","params":{"width":10,"height":10}}"#.utf8) + [0x0A])
        #expect(host.containers.stacks.count == 1)
        // A large reply pushes the queue past the high-water mark: backpressure flushes, and the write fails.
        let read = #"{"jsonrpc":"2.0","id":2,"method":"rpc.discover"}"# + "\n" +
            #"{"jsonrpc":"2.0","id":3,"method":"container.create","params":{"class":"Container"}}"# + "\n"
        c.receive(Array(read.utf8))
        #expect(transport.stacksAtClose == 1, "torn down inside the parse loop")
        #expect(c.isClosed)
        #expect(host.containers.stacks.isEmpty)
        // The line after the failed write never ran.
        #expect(host.containers.containers.isEmpty)
    }
}


@Suite struct LaneDependencyTests {
    private func dependency(_ host: Host, _ method: String, _ params: JSONValue? = nil) -> LaneDependency {
        host.laneDependency(method: method, params: params)
    }

    /// The methods that may run while a call waits on a plugin worker, as docs/plugins.md lists them:
    /// each method's type says so, and a new method touches everything unless its type says otherwise.
    @Test func exactlyTheDocumentedMethodsTouchNothing() {
        let host = virtualHost()
        #expect(Set(host.processor.registry.names.filter { dependency(host, $0) == .none }) == [
            "host.ping", "host.auth", "host.info", "host.stats", "events.subscribe", "events.unsubscribe", "rpc.discover", "clock.now",
            "range.didScroll", "range.willBeginDragging", "range.willEndDragging", "range.didEndDecelerating",
            "range.setViewport", "range.setVisible", "range.insertItems", "range.deleteItems",
            "range.batchFetchDone", "range.state", "tasks.add", "tasks.cancel",
        ])
        #expect(dependency(host, "showRendered") == .everything && dependency(host, "no.such.method") == .everything)
    }

    /// A push touches its stack and the runners of what is in it; a show, its class's pool and runner.
    @Test func stackCallsAndShowsTouchTheirStackAndClassesOnly() {
        let host = Host(config: HostConfig())
        let c = MemoryClient(host)
        for name in ["Card", "Container"] { _ = c.call("classes.define", ["name": .string(name)]) }
        let a = result(c.call("container.create", ["class": "Card"]))["container"]!
        let s = result(c.call("stack.create", ["width": 320, "height": 480]))["stack"]!
        _ = c.call("stack.push", ["stack": s, "container": a])
        let b = result(c.call("container.create", ["class": "Container"]))["container"]!
        let stack: Set<LaneScope> = [.stack(s.stringValue!), host.runnerScope(of: "Card")]
        #expect(dependency(host, "stack.pop", ["stack": s]) == .only(stack))
        #expect(dependency(host, "stack.push", ["stack": s, "container": b])
            == .only(stack.union([.container(b.stringValue!), host.runnerScope(of: "Container")])))
        #expect(dependency(host, "showRendered", ["class": "Container"]) == .only([host.runnerScope(of: "Container")]))
        #expect(dependency(host, "showRendered", ["class": "Container", "stack": s]) == .only(stack.union([host.runnerScope(of: "Container")])))
        // A push of a container another stack holds, a stack that is not there, params that do not decode.
        #expect(dependency(host, "stack.push", ["stack": s, "container": a]) == .everything)
        #expect(dependency(host, "stack.pop", ["stack": "s-404"]) == .everything)
        #expect(dependency(host, "showRendered", ["class": 7]) == .everything)
        // Calls on another class and stack do not depend on these; the same stack's do.
        #expect(!dependency(host, "showRendered", ["class": "Container"]).isDependency(of: dependency(host, "stack.pop", ["stack": s])))
        #expect(dependency(host, "showRendered", ["class": "Card"]).isDependency(of: dependency(host, "stack.pop", ["stack": s])))
    }

    /// A page session's calls touch it and its pages' classes; one in a stack touches everything.
    @Test func pageCallsTouchTheirSessionAndItsClassesOnly() {
        let host = Host(config: HostConfig())
        let c = MemoryClient(host)
        for name in ["Card", "Photo"] { _ = c.call("classes.define", ["name": .string(name)]) }
        let alone = result(c.call("page.create", ["class": "Card", "count": 3, "width": 320, "height": 480]))["session"]!
        #expect(dependency(host, "page.show", ["session": alone, "index": 1])
            == .only([.page(alone.stringValue!), host.runnerScope(of: "Card")]))
        #expect(dependency(host, "page.insertPages", ["session": alone, "at": 0, "pages": [["class": "Photo"]]])
            == .only([.page(alone.stringValue!), host.runnerScope(of: "Card"), host.runnerScope(of: "Photo")]))
        #expect(dependency(host, "page.create", ["class": "Photo", "count": 2, "width": 320, "height": 480])
            == .only([host.runnerScope(of: "Photo")]))
        let s = result(c.call("stack.create", ["width": 320, "height": 480]))["stack"]!
        let inStack = result(c.call("page.create", ["class": "Card", "count": 3, "width": 320, "height": 480, "stack": s]))["session"]!
        #expect(dependency(host, "page.show", ["session": inStack, "index": 1]) == .everything)
        #expect(dependency(host, "page.create", ["class": "Card", "count": 1, "width": 320, "height": 480, "stack": s]) == .everything)
        #expect(dependency(host, "page.show", ["session": "p-404", "index": 1]) == .everything)
        #expect(dependency(host, "page.insertPages", ["session": alone, "at": 0, "pages": [["class": "Nope"]]]) == .everything)
    }

    /// A range stream call touches nothing until a session has cells; then a session with cells touches
    /// itself and its cells' classes, one without touches nothing, a nested one everything.
    @Test func rangeCallsTouchTheirSessionsCellsOnly() {
        let host = Host(config: HostConfig())
        let c = MemoryClient(host)
        _ = c.call("classes.define", ["name": "Row"])
        let vp: JSONValue = ["width": 375, "height": 667]
        let plain = result(c.call("range.create", ["viewport": vp, "count": 100]))["session"]!
        #expect(dependency(host, "range.didScroll", ["session": plain, "offset": 10]) == .none)
        let cells = result(c.call("range.create", ["viewport": vp, "cells": ["reuseLimit": 4],
                                                   "sections": [["count": 100, "itemLength": 100, "reuseIdentifier": "Row"]]]))["session"]!
        #expect(dependency(host, "range.didScroll", ["session": cells, "offset": 10])
            == .only([.range(cells.stringValue!), host.runnerScope(of: "Row")]))
        #expect(dependency(host, "range.didScroll", ["session": plain, "offset": 10]) == .none)
        #expect(dependency(host, "range.didScroll", ["session": "r-404", "offset": 10]) == .everything)
        #expect(dependency(host, "range.didScroll") == .everything)  // no params: which session cannot be told
        _ = c.call("range.destroy", ["session": cells])
        #expect(host.ranges.hasCells == false && dependency(host, "range.didScroll") == .none)
    }

    /// Under the virtual clock, a call whose reply notes what it left waiting runs beside nothing.
    @Test func notedCallsTouchEverythingUnderTheVirtualClock() {
        let host = virtualHost()
        _ = MemoryClient(host).call("classes.define", ["name": "Container"])
        #expect(dependency(host, "showRendered", ["class": "Container"]) == .everything)
        #expect(dependency(host, "container.create", ["class": "Container"]) == .only([host.runnerScope(of: "Container")]))
    }
}

/// A scroll step that can run no hook runs where it is read, with no task; one on a session that holds
/// nested sessions runs as a task, as calls that may wait do. Both answer and announce the same.
@Suite struct ScrollStepsWithoutTasksTests {
    /// Events and reply of a drag of `steps` steps on r-1, and the jobs the loop's executor ran for it.
    private func drag(nested: Bool, steps: Int = 40) -> (lines: [JSONValue], jobs: Int) {
        let c = MemoryClient(virtualHost())
        c.call("events.subscribe", ["topics": ["range", "prefetch", "batch"]])
        c.call("range.create", ["count": 200, "itemLength": 44, "viewport": ["width": 375, "height": 667]])
        if nested {
            // In the last row: no step of the drag reaches it.
            let child = c.call("range.create", ["count": 5, "itemLength": 100, "axis": "horizontal", "viewport": ["width": 375, "height": 44],
                                                "parent": ["session": "r-1", "item": [0, 199]]])
            #expect(child.reply["error"] == nil)
        }
        c.call("range.willBeginDragging", ["session": "r-1", "offset": 0])
        let jobs = c.host.lane.executor.jobsRun
        var lines: [JSONValue] = []
        for i in 1...steps { lines += c.call("range.didScroll", ["session": "r-1", "offset": .double(Double(i) * 30)]).events }
        lines += c.request("range.didScroll", ["session": "r-1", "offset": 1234]).lines
        return (lines, c.host.lane.executor.jobsRun - jobs)
    }

    @Test func aPlainSessionsStepsRunWithNoTaskAndANestingOnesInTasks() {
        let plain = drag(nested: false)
        let nesting = drag(nested: true)
        #expect(plain.jobs == 0)
        #expect(nesting.jobs >= 41)
        #expect(plain.lines.count > 10)
        // The same events and replies either way, but for the numbering the nested session's creation
        // shifted (request ids, event `seq` and `cause`).
        func unnumbered(_ v: JSONValue) -> JSONValue {
            guard var o = v.objectValue else { return v }
            o["id"] = nil
            if var p = o["params"]?.objectValue {
                p["seq"] = nil
                p["cause"] = nil
                o["params"] = .object(p)
            }
            return .object(o)
        }
        let same = plain.lines.map(unnumbered) == nesting.lines.map(unnumbered)
        #expect(same)
    }

    @Test func aSessionThatGainsANestedOneMovesToTasksAndBackWhenItEnds() {
        let c = MemoryClient(virtualHost())
        c.call("range.create", ["count": 200, "itemLength": 44, "viewport": ["width": 375, "height": 667]])
        func jobs(_ offset: Double) -> Int {
            let before = c.host.lane.executor.jobsRun
            #expect(c.call("range.didScroll", ["session": "r-1", "offset": .double(offset)]).reply["result"] != nil)
            return c.host.lane.executor.jobsRun - before
        }
        #expect(jobs(10) == 0)
        let child = c.call("range.create", ["count": 5, "itemLength": 100, "axis": "horizontal", "viewport": ["width": 375, "height": 44],
                                            "parent": ["session": "r-1", "item": [0, 150]]]).reply["result"]?["session"]
        #expect(jobs(20) > 0)
        c.call("range.destroy", ["session": child ?? .null])
        #expect(jobs(30) == 0)
    }
}
