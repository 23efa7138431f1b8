import Testing
import GreenroomJSON
import GreenroomRPC
@testable import GreenroomHost

/// A failing hook is reported in the reply of the call that caused it, what it tore down is in that
/// reply's events, and every flow the host drives stays balanced.
@Suite struct FailingHookTests {
    func client() -> MemoryClient {
        let c = MemoryClient(virtualHost())
        c.call("events.subscribe", ["topics": ["lifecycle", "page"]])
        return c
    }

    func unbalanced(_ events: [JSONValue]) -> [String] {
        events.filter { $0["params"]?["event"] == "unbalancedAppearanceTransition" }.compactMap { $0["params"]?["container"]?.stringValue }
    }

    /// The smallest sequence: a page session in a stack whose pages fail in viewDidAppear.
    @Test func aPageSessionInAStackWithFailingPagesStaysBalanced() {
        let c = client()
        c.call("classes.define", ["name": "ScFail", "hooks": ["viewDidAppear": ["fail": true]]])
        c.call("stack.create", ["width": 100, "height": 100])
        let created = c.call("page.create", ["class": "ScFail", "count": 8, "width": 100, "height": 100, "stack": "s-1"])
        // The current page's viewDidAppear failed while page.create ran: its reply says so, and the
        // failed child was torn down in its events.
        #expect(errorOf(created)?["code"] == -32004)
        #expect(errorOf(created)?["data"]?["container"] == "c-2")
        #expect(errorOf(created)?["data"]?["class"] == "ScFail")
        #expect(errorOf(created)?["data"]?["hook"] == "viewDidAppear")
        #expect(lifecycleLog(created.events).contains("c-2:deinit"))
        let info = result(c.call("page.info", ["session": "p-1"]))
        #expect(info["children"] == [])
        let shown = c.call("page.show", ["session": "p-1", "index": 4, "animated": true])
        #expect(errorOf(shown) == nil)
        let pushed = c.call("container.create", ["class": "Container"])
        #expect(result(pushed)["container"] == "c-4")
        let push = c.call("stack.push", ["stack": "s-1", "container": "c-4"])
        #expect(unbalanced(push.events) == [])
        // c-3, page 4, failed in viewDidAppear when the push ended the show's animation.
        #expect(errorOf(push)?["code"] == -32004)
        #expect(errorOf(push)?["data"]?["container"] == "c-3")
        #expect(lifecycleLog(push.events).contains("c-3:deinit"))
        #expect(result(c.call("host.stats"))["unbalancedTransitions"] == 0)
        #expect(result(c.call("host.ping")) == ["pong": true])
    }

    /// host.memoryWarning reaches every container; one whose hook fails is torn down and listed in
    /// the result (the warning itself was delivered), with its deinit among the reply's events.
    @Test func aFailingMemoryWarningHookIsListedInTheReply() {
        let c = client()
        c.call("classes.define", ["name": "Fragile", "hooks": ["didReceiveMemoryWarning": ["fail": true]]])
        let bad = result(c.call("container.create", ["class": "Fragile"]))["container"]!
        let good = result(c.call("container.create", ["class": "Container"]))["container"]!
        let r = c.call("host.memoryWarning")
        #expect(errorOf(r) == nil)
        let failed = result(r)["failed"]?.arrayValue ?? []
        #expect(failed.count == 1)
        #expect(failed.first?["container"] == bad)
        #expect(failed.first?["class"] == "Fragile")
        #expect(failed.first?["hook"] == "didReceiveMemoryWarning")
        #expect(lifecycleLog(r.events).contains("\(bad.stringValue!):deinit"))
        #expect(errorOf(c.call("container.info", ["container": bad]))?["code"] == -32002)
        #expect(result(c.call("container.info", ["container": good]))["container"] == good)
        // Nothing is left over for the next call to report.
        #expect(errorOf(c.call("host.stats")) == nil)
        #expect(result(c.call("host.memoryWarning"))["failed"] == nil)
    }

    /// Found by the state fuzzer: a pop reveals a container whose loadView fails. It is torn down when
    /// its viewWillAppear cannot run; the pop's end calls must not end it (that was unbalanced).
    @Test func aRevealedContainerFailingToLoadGetsNoEndCall() {
        let c = client()
        c.call("classes.define", ["name": "NoView", "hooks": ["loadView": ["fail": true]]])
        let s = result(c.call("stack.create", ["width": 100, "height": 100, "hidden": true]))["stack"]!
        let under = result(c.call("container.create", ["class": "NoView"]))["container"]!
        let top = result(c.call("container.create", ["class": "Container"]))["container"]!
        c.call("stack.push", ["stack": s, "container": under])
        c.call("stack.push", ["stack": s, "container": top])
        c.call("stack.setHidden", ["stack": s, "hidden": false])
        let r = c.call("stack.pop", ["stack": s])
        #expect(unbalanced(r.events) == [])
        #expect(errorOf(r)?["code"] == -32004)
        #expect(errorOf(r)?["data"]?["container"] == under)
        #expect(errorOf(r)?["data"]?["hook"] == "loadView")
        #expect(errorOf(r)?["data"]?["result"]?["container"] == top)
        #expect(lifecycleLog(r.events).contains("\(under.stringValue!):deinit"))
        #expect(result(c.call("host.stats"))["unbalancedTransitions"] == 0)
    }

    /// Found by the state fuzzer: a pop whose stack the failure emptied (the running push's end failed)
    /// answers -32004 for the failure, with the -32003 it answers otherwise in data.error.
    @Test func aPopThatAFailureEmptiedReportsTheFailureAndTheEmptyStack() {
        let c = client()
        c.call("classes.define", ["name": "LateFail", "hooks": ["viewDidAppear": ["fail": true]]])
        let s = result(c.call("stack.create", ["width": 100, "height": 100]))["stack"]!
        let bad = result(c.call("container.create", ["class": "LateFail"]))["container"]!
        #expect(errorOf(c.call("stack.push", ["stack": s, "container": bad, "animated": true])) == nil)
        let r = c.call("stack.pop", ["stack": s])
        #expect(errorOf(r)?["code"] == -32004)
        #expect(errorOf(r)?["data"]?["container"] == bad)
        #expect(errorOf(r)?["data"]?["failures"]?.arrayValue?.count == 1)
        #expect(errorOf(r)?["data"]?["error"]?["code"] == -32003)
        #expect(unbalanced(r.events) == [])
    }

    /// A failure outside any call (a timer on the real clock) is not reported by the next call.
    @Test func aFailureIsNeverReportedByALaterCall() async {
        let c = client()
        c.call("classes.define", ["name": "LateFail", "hooks": ["viewDidAppear": ["fail": true]]])
        let s = result(c.call("stack.create", ["width": 100, "height": 100]))["stack"]!
        let bad = result(c.call("container.create", ["class": "LateFail"]))["container"]!
        c.call("stack.push", ["stack": s, "container": bad, "animated": true])
        _ = await c.host.timers.advanceVirtualClock(by: 300)  // as the real clock's timer would, between calls
        _ = c.readAll()
        #expect(errorOf(c.call("stack.info", ["stack": s])) == nil)
        #expect(errorOf(c.call("host.ping")) == nil)
    }
}

/// Memory a script can ask for is bounded host-wide, pooled or not.
@Suite struct ScriptedMemoryBudgetTests {
    @Test func scriptedInstancesPastTheBudgetAreLimitExceeded() {
        let c = MemoryClient(virtualHost { $0.scriptedMemoryBudgetBytes = 3 * 4096 })
        c.call("events.subscribe", ["topics": ["pool"]])
        c.call("classes.define", ["name": "Heavy", "memoryBytes": 4096])
        var made: [JSONValue] = []
        for _ in 0..<3 { made.append(result(c.call("container.create", ["class": "Heavy"]))["container"]!) }
        let r = c.call("container.create", ["class": "Heavy"])
        #expect(errorOf(r)?["code"] == -32005)
        #expect(errorOf(r)?["data"]?["limit"] == "scriptedMemoryBytes")
        #expect(errorOf(r)?["data"]?["budget"] == .int(3 * 4096))
        #expect(errorOf(r)?["data"]?["used"] == .int(3 * 4096))
        #expect(errorOf(r)?["data"]?["asked"] == 4096)
        // Every way of making one counts: a page child, showRendered, a warm-up.
        #expect(errorOf(c.call("page.create", ["class": "Heavy", "count": 2, "width": 10, "height": 10]))?["code"] == -32005)
        #expect(errorOf(c.call("showRendered", ["class": "Heavy"]))?["code"] == -32005)
        c.call("pool.warm", ["class": "Heavy"])
        let drained = c.call("tasks.drain")
        #expect(drained.events.contains { $0["params"]?["kind"] == "warmFailed" && $0["params"]?["error"]?["code"] == -32005 })
        // The built-in class holds nothing and is not limited.
        #expect(errorOf(c.call("container.create", ["class": "Container"])) == nil)
        // Releasing gives the budget back.
        c.call("container.release", ["container": made[0]])
        #expect(errorOf(c.call("container.create", ["class": "Heavy"])) == nil)
        let stats = result(c.call("host.stats"))["scriptedMemory"]
        #expect(stats == ["usedBytes": .int(3 * 4096), "budgetBytes": .int(3 * 4096)])
    }
}

/// The state fuzzer's finds with the navigation controller's orders, one test each.
extension FailingHookTests {
    /// setContainers whose new top fails as it loads: the next one down comes on instead.
    @Test func aNewTopThatFailsToLoadHandsTheTransitionToTheOneBelowIt() {
        let c = client()
        c.call("classes.define", ["name": "NoLoad", "hooks": ["viewDidLoad": ["fail": true]]])
        let s = result(c.call("stack.create", ["width": 100, "height": 100]))["stack"]!
        let a = result(c.call("container.create", ["class": "Container"]))["container"]!
        let bad = result(c.call("container.create", ["class": "NoLoad"]))["container"]!
        let r = c.call("stack.setContainers", ["stack": s, "containers": [a, bad]])
        #expect(errorOf(r)?["data"]?["container"] == bad)
        #expect(lifecycleLog(r.events).filter { $0.hasPrefix("\(a.stringValue!):") } == [
            "c-1:willMoveToParent", "c-1:loadView", "c-1:viewDidLoad", "c-1:viewWillAppear", "c-1:viewIsAppearing",
            "c-1:viewWillLayoutSubviews", "c-1:viewDidLayoutSubviews", "c-1:viewDidAppear", "c-1:didMoveToParent"])
        #expect(result(c.call("container.info", ["container": a]))["appearance"] == "appeared")
        #expect(unbalanced(r.events).isEmpty)
    }

    /// A container torn down as it left its last stack (a disappearing hook failed) is not pushed: the
    /// stack it was going to never lists it.
    @Test func aContainerThatFailsLeavingItsStackIsNotPushedElsewhere() {
        let c = client()
        c.call("classes.define", ["name": "NoLeave", "hooks": ["viewWillDisappear": ["fail": true]]])
        let s1 = result(c.call("stack.create", ["width": 100, "height": 100]))["stack"]!
        let s2 = result(c.call("stack.create", ["width": 100, "height": 100]))["stack"]!
        let bad = result(c.call("container.create", ["class": "NoLeave"]))["container"]!
        c.call("stack.push", ["stack": s1, "container": bad])
        let r = c.call("stack.push", ["stack": s2, "container": bad])
        #expect(errorOf(r)?["code"] == -32004)
        #expect(errorOf(r)?["data"]?["hook"] == "viewWillDisappear")
        #expect(result(c.call("stack.info", ["stack": s2]))["containers"] == [])
        #expect(result(c.call("stack.info", ["stack": s1]))["containers"] == [])
    }

    /// The top fails as an interactive pop begins: it is torn down, the gesture is over, and the one below
    /// is the top, appeared.
    @Test func aTopThatFailsAsTheGestureBeginsEndsItBalanced() {
        let c = client()
        c.call("classes.define", ["name": "NoLeave", "hooks": ["viewWillDisappear": ["fail": true]]])
        let s = result(c.call("stack.create", ["width": 100, "height": 100]))["stack"]!
        let a = result(c.call("container.create", ["class": "Container"]))["container"]!
        let bad = result(c.call("container.create", ["class": "NoLeave"]))["container"]!
        c.call("stack.push", ["stack": s, "container": a])
        c.call("stack.push", ["stack": s, "container": bad])
        let r = c.call("stack.beginInteractivePop", ["stack": s])
        #expect(errorOf(r)?["data"]?["container"] == bad)
        let info = result(c.call("stack.info", ["stack": s]))
        #expect(info["containers"] == [a] && info["interactivePop"] == JSONValue.null)
        #expect(result(c.call("container.info", ["container": a]))["appearance"] == "appeared")
        #expect(unbalanced(r.events).isEmpty)
    }

    /// A reuse-mode page whose disappearance fails as it leaves current +- 1 is released, not queued for
    /// reuse: a failed container runs nothing but deinit.
    @Test func aPageThatFailsOnItsWayToTheReuseQueueIsReleased() {
        let c = client()
        c.call("classes.define", ["name": "NoHide", "hooks": ["viewDidDisappear": ["fail": true]]])
        let s = result(c.call("stack.create", ["width": 100, "height": 100]))["stack"]!
        let created = result(c.call("page.create", ["class": "NoHide", "count": 6, "width": 100, "height": 100,
                                                    "initialIndex": 1, "stack": s, "cache": ["mode": "reuse"]]))
        let page = created["children"]?.arrayValue?.first?["container"]?.stringValue ?? "?"
        let own = created["container"]!
        // Covered halfway (an animated push over the session's container): its page begins disappearing.
        let other = result(c.call("container.create", ["class": "Container"]))["container"]!
        c.call("stack.push", ["stack": s, "container": other, "animated": true])
        #expect(result(c.call("container.info", ["container": own]))["appearance"] == "disappearing")
        let r = c.call("page.show", ["session": "p-1", "index": 4])
        #expect(errorOf(r)?["data"]?["container"] == .string(page))
        #expect(lifecycleLog(r.events).contains("\(page):deinit"))
        #expect(result(c.call("page.info", ["session": "p-1"]))["reuseQueue"] == JSONValue.object([:]))
        c.call("clock.advance", ["ms": 300])
        #expect(result(c.call("host.stats"))["unbalancedTransitions"] == 0)
    }
}
