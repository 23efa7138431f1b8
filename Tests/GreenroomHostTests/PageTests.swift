import Testing
import GreenroomJSON
import GreenroomRPC
@testable import GreenroomHost

/// The GYPageViewController article's words for appearance events of page children ("willAppear 2").
func pageLog(_ events: [JSONValue]) -> [String] {
    events.compactMap { e -> String? in
        guard e["method"] == "lifecycle", let p = e["params"], let ev = p["event"]?.stringValue,
              let index = p["page"]?["index"]?.intValue else { return nil }
        switch ev {
        case "viewWillAppear": return "willAppear \(index)"
        case "viewDidAppear": return "didAppear \(index)"
        case "viewWillDisappear": return "willDisappear \(index)"
        case "viewDidDisappear": return "didDisappear \(index)"
        default: return nil
        }
    }
}

func deinits(_ events: [JSONValue]) -> Int {
    events.filter { $0["method"] == "lifecycle" && $0["params"]?["event"] == "deinit" }.count
}

@Suite struct PageTests {
    func client() -> MemoryClient {
        let c = MemoryClient(virtualHost())
        c.call("events.subscribe", ["topics": ["lifecycle", "page"]])
        return c
    }

    @Test func createShowsTheInitialPageAtOnceWithoutAStack() {
        let c = client()
        let r = c.call("page.create", ["class": "Container", "count": 4, "width": 100, "height": 200, "initialIndex": 2])
        #expect(pageLog(r.events) == ["willAppear 2", "didAppear 2"])
        #expect(r.reply["result"]?["index"] == 2)
        #expect(r.reply["result"]?["children"]?.arrayValue?.count == 1)
    }

    @Test func pageChildrenSayWhichPageTheyAreFromInitToDeinit() {
        let c = client()
        let r = c.call("page.create", ["class": "Container", "count": 10, "width": 100, "height": 200, "cache": ["limit": 1]])
        let s = r.reply["result"]!["session"]!
        let initEvent = r.events.first { $0["params"]?["event"] == "init" }?["params"]
        #expect(initEvent?["page"] == ["session": s, "index": 0])
        let shown = c.call("page.show", ["session": s, "index": 5, "animated": false])
        let deinitEvent = shown.events.first { $0["params"]?["event"] == "deinit" }?["params"]
        #expect(deinitEvent?["page"] == ["session": s, "index": 0])
        #expect(errorOf(c.call("page.create", ["pages": [["class": "Container"]], "data": [1], "width": 100, "height": 200]))?["data"]?["path"] == "data")
    }

    @Test func nonInteractiveShowThroughTheHostClock() {
        let c = client()
        let s = result(c.call("page.create", ["class": "Container", "count": 3, "width": 100, "height": 200, "initialIndex": 1]))["session"]!
        let shown = c.call("page.show", ["session": s, "index": 0])
        #expect(pageLog(shown.events) == ["willAppear 0", "willDisappear 1"])
        #expect(shown.events.contains { $0["method"] == "page" && $0["params"]?["kind"] == "willTransition" })
        let ended = c.call("clock.advance", ["ms": 300])
        #expect(pageLog(ended.events) == ["didAppear 0", "didDisappear 1"])
        let did = ended.events.first { $0["method"] == "page" }?["params"]
        #expect(did?["kind"] == "didTransition" && did?["completed"] == true && did?["from"] == 1 && did?["to"] == 0)
    }

    @Test func badInputIsAClearErrorAndChangesNothing() {
        let c = client()
        let s = result(c.call("page.create", ["class": "Container", "count": 3, "width": 100, "height": 200]))["session"]!
        #expect(errorOf(c.call("page.show", ["session": s, "index": 3]))?["data"]?["path"] == "index")
        #expect(errorOf(c.call("page.didScroll", ["session": s, "offset": 1e9]))?["data"]?["path"] == "offset")
        #expect(errorOf(c.call("page.didEndDecelerating", ["session": s, "offset": 0]))?["code"] == -32003)
        #expect(errorOf(c.call("page.willEndDragging", ["session": s, "offset": 0, "velocity": 1]))?["data"]?["phase"] == "idle")
        #expect(errorOf(c.call("page.show", ["session": "p-99", "index": 0]))?["code"] == -32002)
        #expect(errorOf(c.call("page.create", ["class": "Container", "width": 100, "height": 200]))?["data"]?["path"] == "count")
        #expect(errorOf(c.call("page.create", ["class": "Nope", "count": 2, "width": 100, "height": 200]))?["code"] == -32001)
        #expect(errorOf(c.call("page.create", ["class": "Container", "count": 2, "width": 100, "height": 200, "initialIndex": 2]))?["data"]?["path"] == "initialIndex")
        #expect(errorOf(c.call("page.create", ["class": "Container", "count": 2, "width": 100, "height": 200, "cache": ["limit": 0]]))?["data"]?["path"] == "cache.limit")
        #expect(errorOf(c.call("page.create", ["pages": [["class": "Container", "colour": 1]], "width": 100, "height": 200]))?["data"]?["path"] == "pages[0].colour")
        #expect(result(c.call("page.info", ["session": s]))["index"] == 0)
        #expect(result(c.call("host.stats"))["unbalancedTransitions"] == 0)
    }

    @Test func aThousandPageSweepKeepsTheCacheLimitWithCountedDeinits() {
        let c = client()
        let s = result(c.call("page.create", ["class": "Container", "count": 1000, "width": 100, "height": 200, "cache": ["limit": 3]]))["session"]!
        var released = 0
        for i in 1..<1000 {
            let r = c.call("page.show", ["session": s, "index": .int(i), "animated": false])
            released += deinits(r.events)
        }
        let info = result(c.call("page.info", ["session": s]))
        #expect(info["children"]?.arrayValue?.count == 3)
        #expect(released == 997, "every page past the limit is deinited")
        #expect(result(c.call("host.stats"))["containers"]?["total"] == 3)
    }

    @Test func reuseModeReconfiguresRecycledChildrenWithTheEnteringPagesData() {
        let c = client()
        c.call("classes.define", ["name": "Article", "hooks": ["configure": ["output": "ok"]]])
        let data: [JSONValue] = (0..<50).map { ["id": .int($0)] }
        let s = result(c.call("page.create", ["class": "Article", "data": .array(data), "width": 100, "height": 200, "cache": ["mode": "reuse"]]))["session"]!
        var created = 0, configured = 0
        for i in 1..<50 {
            let r = c.call("page.show", ["session": s, "index": .int(i), "animated": false])
            created += r.events.filter { $0["params"]?["event"] == "init" }.count
            configured += r.events.filter { $0["params"]?["event"] == "configure" }.count
        }
        #expect(created <= 4, "only current +- 1 (and one parked) are ever made: \(created)")
        #expect(configured >= 45, "recycled children are re-configured")
        let info = result(c.call("page.info", ["session": s]))
        #expect((info["children"]?.arrayValue?.count ?? 0) <= 3)
        #expect(result(c.call("host.stats"))["unbalancedTransitions"] == 0)
    }

    @Test func memoryWarningReleasesCachedPagesButNotTheCurrentOne() {
        let c = client()
        let s = result(c.call("page.create", ["class": "Container", "count": 10, "width": 100, "height": 200, "cache": ["limit": 5]]))["session"]!
        for i in 1...4 { c.call("page.show", ["session": s, "index": .int(i), "animated": false]) }
        let warning = c.call("host.memoryWarning")
        #expect(result(warning)["purged"]?["pageChildrenReleased"] == 4)
        #expect(deinits(warning.events) == 4)
        #expect(warning.events.contains { $0["params"]?["event"] == "didReceiveMemoryWarning" && $0["params"]?["page"]?["index"] == 4 })
        #expect(result(c.call("page.info", ["session": s]))["children"]?.arrayValue?.count == 1)
    }

    @Test func trackingPausesDefaultModeIdleTasks() {
        let c = client()
        let s = result(c.call("page.create", ["class": "Container", "count": 3, "width": 100, "height": 200]))["session"]!
        c.call("pool.warm", ["class": "Container"])
        c.call("page.willBeginDragging", ["session": s, "offset": 0])
        #expect(result(c.call("tasks.status"))["paused"] == true)
        #expect(result(c.call("tasks.drain"))["ran"] == 0)
        c.call("page.didEndDragging", ["session": s, "offset": 0, "willDecelerate": false])
        #expect(result(c.call("tasks.drain"))["ran"] == 1)
    }

    @Test func prerenderedChildrenComeFromThePool() {
        let c = client()
        c.call("classes.define", ["name": "Card"])
        c.call("pool.configure", ["class": "Card", "depth": 2, "width": 100, "height": 200, "policy": "eager"])
        c.call("tasks.drain")
        let r = c.call("page.create", ["class": "Card", "count": 5, "width": 100, "height": 200, "prerender": true])
        let loads = r.events.filter { $0["params"]?["event"] == "viewDidLoad" }.count
        #expect(loads == 0, "the first page was already loaded in the green room")
        let pool = result(c.call("pool.status", ["class": "Card"]))["pools"]?.arrayValue?.first
        #expect(pool?["hits"] == 1)
    }

    @Test func destroyAndDisconnectTearEverythingDown() {
        let host = virtualHost()
        let observer = MemoryClient(host)
        observer.call("events.subscribe", ["topics": ["lifecycle"], "scope": "all"])
        let c = MemoryClient(host)
        let s = result(c.call("page.create", ["class": "Container", "count": 5, "width": 100, "height": 200]))["session"]!
        c.call("page.show", ["session": s, "index": 1])
        _ = observer.readAll()
        host.connectionClosed(c.connection)
        let events = observer.readAll()
        #expect(deinits(events) == 2)
        #expect(pageLog(events) == ["didAppear 1", "didDisappear 0", "willDisappear 1", "didDisappear 1"])
        #expect(result(observer.call("host.stats"))["containers"]?["total"] == 0)
    }
}
