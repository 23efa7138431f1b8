import Testing
import GreenroomJSON
import GreenroomRPC
@testable import GreenroomHost

/// Lifecycle events as "c-1:viewDidLoad" (with "~" for offscreen ones).
func lifecycleLog(_ events: [JSONValue]) -> [String] {
    events.filter { $0["method"] == "lifecycle" }.map {
        let p = $0["params"]!
        return "\(p["container"]!.stringValue!):\(p["event"]!.stringValue!)\(p["offscreen"] == true ? "~" : "")"
    }
}

func result(_ r: (events: [JSONValue], reply: JSONValue)) -> JSONValue { r.reply["result"] ?? .null }
func errorOf(_ r: (events: [JSONValue], reply: JSONValue)) -> JSONValue? { r.reply["error"] }

@Suite struct ContainerTests {
    func client() -> MemoryClient {
        let c = MemoryClient(virtualHost())
        c.call("events.subscribe", ["topics": ["lifecycle", "pool"]])
        return c
    }

    @Test func classesListAndDefine() {
        let c = client()
        #expect(result(c.call("classes.list"))["classes"] == [["name": "Container", "plugin": nil, "scripted": false],
                                                             ["name": "PageViewController", "plugin": nil, "scripted": false]])
        let d = result(c.call("classes.define", ["name": "Card", "hooks": ["viewDidLoad": ["costMs": 1], "configure": ["output": ["x": 1]]], "memoryBytes": 4096]))
        #expect(d["scripted"] == true)
        #expect(errorOf(c.call("classes.define", ["name": "Card"]))?["code"] == -32003)
        #expect(errorOf(c.call("classes.define", ["name": "X", "hooks": ["viewDidExplode": [:]]]))?["data"]?["path"] == "hooks.viewDidExplode")
        #expect(errorOf(c.call("classes.define", ["name": "Y", "hooks": ["init": ["costMs": -1]]]))?["data"]?["path"] == "hooks.init.costMs")
        #expect(errorOf(c.call("classes.define", ["name": "Z", "memoryBytes": -5]))?["data"]?["path"] == "memoryBytes")
        #expect(result(c.call("classes.list"))["classes"]?.arrayValue?.count == 3)
    }

    @Test func createConfigureInfoRelease() {
        let c = client()
        c.call("classes.define", ["name": "Card", "hooks": ["configure": ["output": ["rendered": true]]]])
        let (events, reply) = c.call("container.create", ["class": "Card", "data": ["id": 7]])
        let id = reply["result"]!["container"]!
        #expect(reply["result"]?["state"] == "fresh")
        #expect(lifecycleLog(events) == ["c-1:init"])
        #expect(result(c.call("container.configure", ["container": id, "data": ["u": 1]])) == ["container": id, "output": ["rendered": true]])
        #expect(result(c.call("container.info", ["container": id]))["viewLoaded"] == false)
        let released = c.call("container.release", ["container": id])
        #expect(lifecycleLog(released.events) == ["c-1:deinit"])
        #expect(errorOf(c.call("container.info", ["container": id]))?["code"] == -32002)
        #expect(errorOf(c.call("container.create", ["class": "Nope"]))?["code"] == -32001)
        #expect(errorOf(c.call("container.configure", ["container": id]))?["data"]?["path"] == "data")
        #expect(errorOf(c.call("container.configure", ["container": id, "data": 1]))?["code"] == -32002)
    }

    @Test func containersBelongToTheirConnection() {
        let host = virtualHost()
        let a = MemoryClient(host), b = MemoryClient(host)
        let id = result(a.call("container.create", ["class": "Container"]))["container"]!
        #expect(errorOf(b.call("container.info", ["container": id]))?["code"] == -32002)
        #expect(errorOf(b.call("container.release", ["container": id]))?["code"] == -32002)
    }

    @Test func stackRulesSameStackIsInvalidStateOtherStackMoves() {
        let c = client()
        let s1 = result(c.call("stack.create", ["width": 100, "height": 200]))["stack"]!
        let s2 = result(c.call("stack.create", ["width": 100, "height": 200]))["stack"]!
        let a = result(c.call("container.create", ["class": "Container"]))["container"]!
        c.call("stack.push", ["stack": s1, "container": a])
        let again = errorOf(c.call("stack.push", ["stack": s1, "container": a]))
        #expect(again?["code"] == -32003)
        let moved = c.call("stack.push", ["stack": s2, "container": a])
        #expect(lifecycleLog(moved.events) == ["c-1:willMoveToParent", "c-1:viewWillDisappear", "c-1:viewDidDisappear", "c-1:didMoveToParent",
                                              "c-1:willMoveToParent", "c-1:viewWillAppear", "c-1:viewIsAppearing", "c-1:viewDidAppear", "c-1:didMoveToParent"])
        #expect(result(c.call("stack.info", ["stack": s1]))["containers"] == [])
        #expect(result(c.call("stack.info", ["stack": s2]))["top"] == a)
        #expect(errorOf(c.call("stack.pop", ["stack": s1]))?["code"] == -32003)
        #expect(errorOf(c.call("stack.create", ["width": 0, "height": 5]))?["data"]?["path"] == "width")
        #expect(result(c.call("host.stats"))["unbalancedTransitions"] == 0)
    }

    @Test func animatedPushEndsAfter300msOnTheHostClock() {
        let c = client()
        let s = result(c.call("stack.create", ["width": 100, "height": 200]))["stack"]!
        let a = result(c.call("container.create", ["class": "Container"]))["container"]!
        let pushed = c.call("stack.push", ["stack": s, "container": a, "animated": true])
        #expect(lifecycleLog(pushed.events).suffix(4) == ["c-1:viewWillAppear", "c-1:viewIsAppearing", "c-1:viewWillLayoutSubviews", "c-1:viewDidLayoutSubviews"],
                "layout follows viewWillAppear and viewIsAppearing, as in UINavigationController")
        #expect(result(c.call("clock.advance", ["ms": 299]))["fired"] == 0)
        let ended = c.call("clock.advance", ["ms": 1])
        #expect(lifecycleLog(ended.events) == ["c-1:viewDidAppear", "c-1:didMoveToParent"])
    }

    /// The virtual clock stops at 2^53 ms: an animation that would end past it is refused, not left
    /// running for ever; the same push without animation, which ends at once, goes through.
    @Test func anAnimationThatWouldEndPastTheClocksLastExactTimeIsRefused() {
        let c = client()
        let s = result(c.call("stack.create", ["width": 100, "height": 200]))["stack"]!
        let a = result(c.call("container.create", ["class": "Container"]))["container"]!
        c.call("clock.advance", ["ms": .double(VirtualClock.latestExactMs - 200)])
        let refused = errorOf(c.call("stack.push", ["stack": s, "container": a, "animated": true]))
        #expect(refused?["code"] == -32602 && refused?["data"]?["path"] == "duration")
        #expect(result(c.call("stack.info", ["stack": s]))["containers"] == [])
        #expect(errorOf(c.call("stack.push", ["stack": s, "container": a, "animated": true, "duration": 150])) == nil)
        #expect(result(c.call("clock.advance", ["ms": 150]))["fired"] == 1)
        let b = result(c.call("container.create", ["class": "Container"]))["container"]!
        #expect(errorOf(c.call("stack.push", ["stack": s, "container": b])) == nil)
        #expect(errorOf(c.call("stack.pop", ["stack": s, "animated": true, "duration": 51]))?["data"]?["path"] == "duration")
        #expect(result(c.call("host.stats"))["unbalancedTransitions"] == 0)
    }

    @Test func showRenderedLazyMissThenHit() {
        let c = client()
        c.call("classes.define", ["name": "Card", "hooks": ["viewDidLoad": ["costMs": 0]], "memoryBytes": 8192])
        let s = result(c.call("stack.create", ["width": 375, "height": 667]))["stack"]!
        let miss = c.call("showRendered", ["class": "Card", "stack": s])
        #expect(miss.reply["result"]?["warm"] == false)
        #expect(!lifecycleLog(miss.events).contains { $0.hasSuffix("~") }, "a cold container is on screen, not offscreen")
        // The replacement warm-up waits for the reply: it is an idle task.
        #expect(result(c.call("tasks.status"))["pending"] == 1)
        let drained = c.call("tasks.drain")
        #expect(lifecycleLog(drained.events) == ["c-2:init~", "c-2:willMoveToParent~", "c-2:loadView~", "c-2:viewDidLoad~",
                                                 "c-2:viewWillAppear~", "c-2:viewIsAppearing~", "c-2:viewWillLayoutSubviews~", "c-2:viewDidLayoutSubviews~",
                                                 "c-2:viewDidAppear~", "c-2:didMoveToParent~"])
        let hit = c.call("showRendered", ["class": "Card", "stack": s, "data": ["id": 1]])
        #expect(hit.reply["result"]?["warm"] == true)
        #expect(hit.reply["result"]?["container"] == "c-2")
        #expect(lifecycleLog(hit.events) == ["c-2:willMoveToParent~", "c-2:viewWillDisappear~", "c-2:viewDidDisappear~", "c-2:didMoveToParent~",
                                             "c-2:willMoveToParent", "c-1:viewWillDisappear", "c-2:viewWillAppear", "c-2:viewIsAppearing",
                                             "c-1:viewDidDisappear", "c-2:viewDidAppear", "c-2:didMoveToParent", "c-2:configure"])
        let status = result(c.call("pool.status", ["class": "Card"]))["pools"]?.arrayValue?.first
        #expect(status?["hits"] == 1 && status?["misses"] == 1 && status?["idle"] == 0)
        // The prerendering article: "use the cached one this time, and reserve the next": a lazy hit warms a
        // replacement.
        #expect(result(c.call("tasks.status"))["pending"] == 1, "lazy: a hit schedules one replacement")
        let replaced = c.call("tasks.drain")
        #expect(lifecycleLog(replaced.events).first == "c-3:init~")
        #expect(result(c.call("showRendered", ["class": "Card"]))["warm"] == true, "the third take is warm too")
        #expect(result(c.call("host.stats"))["unbalancedTransitions"] == 0)
    }

    @Test func eagerPoolsKeepDepthWarmAndNeverMixClasses() {
        let c = client()
        c.call("classes.define", ["name": "A"])
        c.call("classes.define", ["name": "B"])
        c.call("pool.configure", ["class": "A", "depth": 3, "policy": "eager"])
        c.call("pool.configure", ["class": "B", "depth": 1, "policy": "eager"])
        #expect(result(c.call("tasks.drain"))["ran"] == 4)
        let a = result(c.call("showRendered", ["class": "A"]))
        #expect(a["warm"] == true && a["class"] == "A")
        #expect(result(c.call("container.info", ["container": a["container"]!]))["class"] == "A")
        c.call("tasks.drain")
        let pools = result(c.call("pool.status"))["pools"]!.arrayValue!
        #expect(pools.map { $0["idle"] } == [3, 1])
    }

    @Test func purgeReallyFreesAndMemoryWarningCoolsDown() {
        let c = client()
        c.call("classes.define", ["name": "Big", "memoryBytes": .int(1 << 20)])
        c.call("pool.configure", ["class": "Big", "depth": 2, "policy": "eager"])
        c.call("tasks.drain")
        let purge = c.call("pool.purge", ["class": "Big"])
        #expect(result(purge) == ["purged": 2, "bytes": .int(2 << 20)])
        #expect(lifecycleLog(purge.events).filter { $0.hasSuffix("deinit~") }.count == 2)
        #expect(result(c.call("host.stats"))["containers"]?["total"] == 0)
        c.call("pool.warm", ["class": "Big", "count": 2])
        c.call("tasks.drain")
        let critical = result(c.call("host.memoryWarning", ["level": "critical"]))
        #expect(critical["purged"]?["pooledContainers"] == 2)
        #expect(result(c.call("tasks.drain"))["ran"] == 0, "no refill during the cool-down")
        c.call("clock.advance", ["ms": 5000])
        #expect(result(c.call("tasks.drain"))["ran"] == 2, "eager pools refill after the cool-down")
    }

    /// Graded memory warnings (docs/pools.md): a `warning` trims each pool to one idle container (the
    /// next hit's, the top), a `critical` one purges them all; both cool down for --pool-cooldown-ms.
    @Test func aWarningTrimsEachPoolToOneAndACriticalOnePurgesAll() {
        let host = virtualHost { $0.poolCoolDownMs = 1000 }
        let c = MemoryClient(host)
        c.call("events.subscribe", ["topics": ["pool"]])
        c.call("classes.define", ["name": "Big", "memoryBytes": .int(1 << 20)])
        c.call("classes.define", ["name": "Small"])
        c.call("pool.configure", ["class": "Big", "depth": 3, "policy": "eager"])
        c.call("pool.configure", ["class": "Small", "depth": 1, "policy": "eager"])
        c.call("tasks.drain")
        let top = result(c.call("pool.status", ["class": "Big"]))["pools"]?.arrayValue?.first?["idle"]
        #expect(top == 3)
        let warning = c.call("host.memoryWarning", ["level": "warning"])
        #expect(result(warning)["purged"]?["pooledContainers"] == 2 && result(warning)["purged"]?["pooledBytes"] == .int(2 << 20))
        let purged = warning.events.filter { $0["params"]?["kind"] == "purged" }.map { $0["params"]?["kept"] }
        #expect(purged == [1, 1], "each pool says it kept one")
        #expect(result(c.call("pool.status", ["class": "Big"]))["pools"]?.arrayValue?.first?["idle"] == 1)
        #expect(result(c.call("pool.status", ["class": "Small"]))["pools"]?.arrayValue?.first?["idle"] == 1)
        #expect(result(c.call("tasks.drain"))["ran"] == 0, "no refill during the cool-down")
        c.call("clock.advance", ["ms": 1000])
        #expect(result(c.call("tasks.drain"))["ran"] == 2, "Big refills to 3 after the 1000 ms cool-down")
        #expect(result(c.call("host.memoryWarning", ["level": "critical"]))["purged"]?["pooledContainers"] == 4)
        #expect(result(c.call("host.stats"))["containers"]?["pooled"] == 0)
        #expect(result(c.call("host.info"))["pools"] == ["coolDownMs": 1000.0, "budgetBytes": .int(256 << 20)])
    }

    @Test func budgetEvictsTheLeastRecentlyWarmedAcrossClasses() {
        let host = virtualHost()
        host.containers.pools.budgetBytes = 3 * 4096
        let c = MemoryClient(host)
        c.call("events.subscribe", ["topics": ["pool"]])
        c.call("classes.define", ["name": "A", "memoryBytes": 4096])
        c.call("classes.define", ["name": "B", "memoryBytes": 4096])
        c.call("pool.warm", ["class": "A", "count": 2])
        c.call("tasks.drain")
        c.call("clock.advance", ["ms": 10])
        c.call("pool.warm", ["class": "B", "count": 2])
        let drained = c.call("tasks.drain")
        let evicted = drained.events.filter { $0["params"]?["kind"] == "evicted" }
        #expect(evicted.count == 1)
        #expect(evicted.first?["params"]?["class"] == "A")
        #expect(result(c.call("host.stats"))["pools"]?["pooledBytes"] == .int(3 * 4096))
    }

    @Test func aFailingHookFailsOnlyItsContainer() {
        let c = client()
        c.call("classes.define", ["name": "Bad", "hooks": ["viewDidLoad": ["fail": true]]])
        let s = result(c.call("stack.create", ["width": 10, "height": 10]))["stack"]!
        let good = result(c.call("container.create", ["class": "Container"]))["container"]!
        c.call("stack.push", ["stack": s, "container": good])
        let bad = result(c.call("container.create", ["class": "Bad"]))["container"]!
        let r = c.call("stack.push", ["stack": s, "container": bad])
        #expect(errorOf(r)?["code"] == -32004)
        #expect(errorOf(r)?["data"]?["hook"] == "viewDidLoad")
        #expect(errorOf(r)?["data"]?["container"] == bad)
        #expect(lifecycleLog(r.events).last == "c-2:deinit")
        #expect(result(c.call("stack.info", ["stack": s]))["containers"] == [good])
        #expect(result(c.call("container.info", ["container": good]))["appearance"] == "appeared")
        #expect(result(c.call("host.stats"))["unbalancedTransitions"] == 0)
    }

    @Test func objectsDieWithTheirConnectionDisappearThenDeinit() {
        let host = virtualHost()
        let observer = MemoryClient(host)
        observer.call("events.subscribe", ["topics": ["lifecycle"], "scope": "all"])
        let c = MemoryClient(host)
        let s = result(c.call("stack.create", ["width": 10, "height": 10]))["stack"]!
        let a = result(c.call("container.create", ["class": "Container"]))["container"]!
        c.call("stack.push", ["stack": s, "container": a, "animated": true])
        _ = observer.readAll()
        host.connectionClosed(c.connection)
        #expect(lifecycleLog(observer.readAll()) == ["c-1:viewDidAppear", "c-1:didMoveToParent",
                                                     "c-1:viewWillDisappear", "c-1:viewDidDisappear", "c-1:deinit"])
        #expect(result(observer.call("host.stats"))["containers"]?["total"] == 0)
        #expect(result(observer.call("host.stats"))["unbalancedTransitions"] == 0)
    }

    @Test func warmupEventsGoToTheConnectionThatCausedThem() {
        let host = virtualHost()
        let a = MemoryClient(host), b = MemoryClient(host)
        a.call("events.subscribe", ["topics": ["lifecycle"]])
        b.call("events.subscribe", ["topics": ["lifecycle"]])
        a.call("pool.warm", ["class": "Container"])
        let drained = b.call("tasks.drain")
        #expect(lifecycleLog(drained.events).isEmpty, "b did not cause the warm-up")
        #expect(lifecycleLog(a.readAll()).first == "c-1:init~")
    }
}
