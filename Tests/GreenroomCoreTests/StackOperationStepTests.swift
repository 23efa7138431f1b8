import Testing
@testable import GreenroomCore

/// The stack machine's steps, read directly: each answer the host gives returns the next thing to do,
/// and a failed hook goes back in as an answer (stopping the push, or reported and stepped past).
@Suite struct StackOperationStepTests {
    let size = Size(width: 10, height: 20)

    func fresh(_ id: String) -> ContainerRecord { ContainerRecord(id: id, className: "K", owner: nil) }

    /// What a step asks for, in words: "perform a:willMoveToParent,a:loadView", "report b:viewDidAppear",
    /// "timer 300", "cancel 7", "done", "done failing a:viewWillAppear".
    func describe(_ step: StackOperation.Step, _ op: StackOperation) -> String {
        switch step {
        case .perform:
            return "perform " + op.actions.words
        case .report(let f): return "report \(f.container):\(f.hook.rawValue)"
        case .startTimer(_, let ms): return "timer \(Int(ms))"
        case .cancelTimer(let token): return "cancel \(token)"
        case .done(nil): return "done"
        case .done(let f?): return "done failing \(f.container):\(f.hook.rawValue)"
        }
    }

    /// Runs `op` to its end, answering every perform with success except the hooks in `failing`, and every
    /// timer with `token`. Returns the steps in words.
    func steps(_ op: inout StackOperation, failing: Set<String> = [], token: Int = 7) -> [String] {
        var out: [String] = []
        var input = StackOperation.Input.start
        while true {
            let step = op.next(input)
            out.append(describe(step, op))
            switch step {
            case .perform:
                input = .performed(op.actions.failure(failing: failing))
            case .report, .cancelTimer: input = .resumed
            case .startTimer: input = .timerStarted(token)
            case .done: return out
            }
        }
    }

    func stack(with items: [ContainerRecord] = []) -> StackRecord {
        let s = StackRecord(id: "s", size: size, owner: nil)
        for c in items {
            var op = StackOperation.push(c, onto: s, animated: false)
            _ = steps(&op)
        }
        return s
    }

    @Test func aPushAsksForOneStepAtATimeAndBuildsEachWhenItGetsThere() {
        let a = fresh("a"), b = fresh("b")
        let s = stack(with: [a])
        var op = StackOperation.push(b, onto: s, animated: false)
        #expect(steps(&op) == [
            "perform b:willMoveToParent",
            "perform b:loadView,b:viewDidLoad",
            "perform a:viewWillDisappear",
            "perform b:viewWillAppear,b:viewIsAppearing,b:viewWillLayoutSubviews,b:viewDidLayoutSubviews",
            "perform a:viewDidDisappear",
            "perform b:viewDidAppear",
            "perform b:didMoveToParent",
            "done",
        ])
        #expect(s.items.map(\.id) == ["a", "b"] && b.state == .appeared && a.state == .disappeared)
    }

    @Test func aFailureOfThePushedContainerStopsThePushAndIsTheCallers() {
        let a = fresh("a"), b = fresh("b")
        let s = stack(with: [a])
        var op = StackOperation.push(b, onto: s, animated: false)
        #expect(steps(&op, failing: ["b:viewDidLoad"]) == [
            "perform b:willMoveToParent",
            "perform b:loadView,b:viewDidLoad",
            "done failing b:viewDidLoad",
        ])
        #expect(a.state == .appeared, "the old top was never asked to leave: the incoming loads first")
        let c = fresh("c"), top = fresh("top")
        let t = stack(with: [top])
        var late = StackOperation.push(c, onto: t, animated: false)
        #expect(steps(&late, failing: ["c:viewWillAppear", "c:viewIsAppearing"]).suffix(3) == [
            "perform top:viewWillDisappear",
            "perform c:viewWillAppear,c:viewIsAppearing,c:viewWillLayoutSubviews,c:viewDidLayoutSubviews",
            "done failing c:viewWillAppear",
        ])
        #expect(top.state == .disappearing, "the caller tears c down and the old top, uncovered, appears again")
    }

    @Test func aFailureOfTheOldTopIsReportedAndThePushGoesOn() {
        let a = fresh("a"), b = fresh("b")
        let s = stack(with: [a])
        var op = StackOperation.push(b, onto: s, animated: false)
        let all = steps(&op, failing: ["a:viewWillDisappear"])
        #expect(all.contains("report a:viewWillDisappear"))
        #expect(all.suffix(3) == ["perform b:viewDidAppear", "perform b:didMoveToParent", "done"],
                "a failed container gets no end call; the push completes")
        #expect(!all.contains("perform a:viewDidDisappear"))
    }

    @Test func anAnimatedPushAsksForATimerAndItsEndIsDataOnTheStack() throws {
        let a = fresh("a"), b = fresh("b")
        let s = stack(with: [a])
        var op = StackOperation.push(b, onto: s, animated: true, animationMs: 250)
        #expect(steps(&op, token: 42).suffix(2) == ["timer 250", "done"])
        let t = try #require(s.transition)
        #expect(t.timer == 42)
        guard case .navigation(let e) = t.pending else { Issue.record("not a navigation"); return }
        #expect(e.incoming === b && e.stack === s && e.outgoing === a && e.joined.map(\.id) == ["b"] && e.left.isEmpty)

        var end = StackOperation.transitionEnded(s)
        #expect(steps(&end) == ["perform a:viewDidDisappear", "perform b:viewDidAppear", "perform b:didMoveToParent", "done"])
        #expect(s.transition == nil)
        var again = StackOperation.transitionEnded(s)
        #expect(steps(&again) == ["done"], "an ended transition ends once")
    }

    @Test func anotherOperationCancelsTheTimerAndDeliversTheEndCallsFirst() {
        let a = fresh("a"), b = fresh("b")
        let s = stack(with: [a])
        var push = StackOperation.push(b, onto: s, animated: true)
        _ = steps(&push, token: 9)
        var pop = StackOperation.pop(s, animated: false)
        #expect(steps(&pop) == [
            "cancel 9",
            "perform a:viewDidDisappear", "perform b:viewDidAppear", "perform b:didMoveToParent",
            "perform b:willMoveToParent",
            "perform b:viewWillDisappear", "perform a:viewWillAppear,a:viewIsAppearing",
            "perform b:viewDidDisappear", "perform a:viewDidAppear", "perform b:didMoveToParent",
            "done",
        ])
        #expect(pop.popped === b && b.parent == .none && s.top === a)
    }

    @Test func anEndFailureSkipsThatContainersLaterHooksOnly() {
        let a = fresh("a"), b = fresh("b")
        let s = stack(with: [a, b])
        var pop = StackOperation.pop(s, animated: false)
        let all = steps(&pop, failing: ["b:viewDidDisappear"])
        #expect(all.suffix(4) == ["perform b:viewDidDisappear", "report b:viewDidDisappear", "perform a:viewDidAppear", "done"],
                "the revealed one still ends its appearance; the failed one gets no didMoveToParent")
    }

    @Test func popOfAnEmptyStackIsDoneAtOnce() {
        let s = stack()
        var op = StackOperation.pop(s, animated: true)
        #expect(steps(&op) == ["done"])
        #expect(op.popped == nil)
    }

    @Test func destroyTearsDownTopFirstAndIgnoresFailures() {
        let a = fresh("a"), b = fresh("b")
        let s = stack(with: [a, b])
        var op = StackOperation.destroy(s)
        #expect(steps(&op, failing: ["b:viewWillDisappear"]) == [
            "perform b:viewWillDisappear,b:viewDidDisappear,b:deinit",
            "perform a:deinit",
            "done",
        ])
        #expect(s.items.isEmpty && a.isDestroyed && b.isDestroyed)
    }
}
