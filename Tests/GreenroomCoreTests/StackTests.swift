import Testing
@testable import GreenroomCore

@Suite struct StackTests {
    let d = RecordingDelegate()
    var ops: RecordingStackDriver { RecordingStackDriver(d) }
    let size = Size(width: 100, height: 200)
    let noFailure: (ContainerFailure) -> Void = { Issue.record("unexpected failure \($0)") }

    func container(_ id: String) -> ContainerRecord { ContainerRecord(id: id, className: "K", owner: "conn") }

    /// Appearance hooks only (loading, layout and containment filtered out).
    func appearance(_ log: [String]) -> [String] {
        log.filter { $0.contains("Appear") || $0.contains("Disappear") }
    }

    @Test func pushOrderNewTopWillAppearOldWillDisappearThenDidAppearDidDisappear() throws {
        let s = StackRecord(id: "s", size: size, owner: "conn")
        let a = container("a"), b = container("b")
        try ops.push(a, onto: s, animated: false, onFailure: noFailure)
        #expect(d.take() == ["a:willMoveToParent", "a:loadView", "a:viewDidLoad", "a:viewWillLayoutSubviews",
                             "a:viewDidLayoutSubviews", "a:viewWillAppear", "a:viewDidAppear", "a:didMoveToParent"])
        try ops.push(b, onto: s, animated: true, onFailure: noFailure)
        #expect(appearance(d.take()) == ["b:viewWillAppear", "a:viewWillDisappear"])
        #expect(s.isAnimating)
        d.advance(299)
        #expect(d.take().isEmpty)
        d.advance(1)
        #expect(d.take() == ["b:viewDidAppear", "b:didMoveToParent", "a:viewDidDisappear"])
        #expect(a.state == .disappeared && b.state == .appeared)
        #expect(d.unbalancedCalls.isEmpty)
    }

    @Test func popRevealsTheOneBelow() throws {
        let s = StackRecord(id: "s", size: size, owner: "conn")
        let a = container("a"), b = container("b")
        try ops.push(a, onto: s, animated: false, onFailure: noFailure)
        try ops.push(b, onto: s, animated: false, onFailure: noFailure)
        _ = d.take()
        let popped = ops.pop(s, animated: true, onFailure: noFailure)
        #expect(popped === b)
        #expect(appearance(d.take()) == ["a:viewWillAppear", "b:viewWillDisappear"])
        d.advance(300)
        #expect(d.take() == ["a:viewDidAppear", "b:viewDidDisappear", "b:didMoveToParent"])
        #expect(b.parent == .none)
        #expect(d.unbalancedCalls.isEmpty)
    }

    @Test func aNewTransitionCompletesTheRunningOneFirst() throws {
        let s = StackRecord(id: "s", size: size, owner: "conn")
        let a = container("a"), b = container("b"), c = container("c")
        try ops.push(a, onto: s, animated: false, onFailure: noFailure)
        try ops.push(b, onto: s, animated: true, onFailure: noFailure)
        _ = d.take()
        try ops.push(c, onto: s, animated: true, onFailure: noFailure)
        #expect(appearance(d.take()) == ["b:viewDidAppear", "a:viewDidDisappear", "c:viewWillAppear", "b:viewWillDisappear"])
        d.advance(300)
        #expect(appearance(d.take()) == ["c:viewDidAppear", "b:viewDidDisappear"])
        d.advance(1000)
        #expect(d.take().isEmpty, "the cancelled timer never fires")
        #expect(d.unbalancedCalls.isEmpty)
    }

    @Test func hiddenWindowsLoadAndShowNothingUntilShown() throws {
        let s = StackRecord(id: "s", size: size, hidden: true, owner: "conn")
        let a = container("a")
        try ops.push(a, onto: s, animated: false, onFailure: noFailure)
        #expect(d.take() == ["a:willMoveToParent", "a:didMoveToParent"])
        #expect(!a.viewLoaded)
        ops.setHidden(s, false, onFailure: noFailure)
        #expect(d.take() == ["a:loadView", "a:viewDidLoad", "a:viewWillLayoutSubviews", "a:viewDidLayoutSubviews",
                             "a:viewWillAppear", "a:viewDidAppear"])
        ops.setHidden(s, true, onFailure: noFailure)
        #expect(d.take() == ["a:viewWillDisappear", "a:viewDidDisappear"])
    }

    @Test func removingTheTopOfAGreenRoomRevealsTheOneBelowOffscreen() throws {
        let g = StackRecord(id: "g", size: size, owner: nil, greenRoom: true)
        let a = container("a"), b = container("b")
        try ops.push(a, onto: g, animated: false, onFailure: noFailure)
        try ops.push(b, onto: g, animated: false, onFailure: noFailure)
        #expect(a.state == .disappeared && a.isOffscreen)
        _ = d.take()
        ops.remove(b, from: g, onFailure: noFailure)
        // A green room is a shown window: like any stack, the one below appears again, so it too
        // leaves from on screen when it is taken.
        #expect(appearance(d.take()) == ["a:viewWillAppear", "b:viewWillDisappear", "a:viewDidAppear", "b:viewDidDisappear"])
        #expect(a.state == .appeared && a.isOffscreen)
        ops.remove(a, from: g, onFailure: noFailure)
        #expect(appearance(d.take()) == ["a:viewWillDisappear", "a:viewDidDisappear"])
        let c = container("c")
        try ops.push(c, onto: g, animated: false, onFailure: noFailure)
        #expect(appearance(d.take()) == ["c:viewWillAppear", "c:viewDidAppear"])
        #expect(d.unbalancedCalls.isEmpty)
    }

    @Test func layoutHappensWhenTheWindowSizeDiffers() throws {
        let g = StackRecord(id: "g", size: Size(width: 50, height: 50), owner: nil, greenRoom: true)
        let s = StackRecord(id: "s", size: size, owner: "conn")
        let a = container("a")
        try ops.push(a, onto: g, animated: false, onFailure: noFailure)
        ops.remove(a, from: g, onFailure: noFailure)
        _ = d.take()
        try ops.push(a, onto: s, animated: false, onFailure: noFailure)
        #expect(d.take() == ["a:willMoveToParent", "a:viewWillLayoutSubviews", "a:viewDidLayoutSubviews",
                             "a:viewWillAppear", "a:viewDidAppear", "a:didMoveToParent"])
        #expect(a.laidOutSize == size)
    }

    @Test func destroyTearsEverythingDownBalanced() throws {
        let s = StackRecord(id: "s", size: size, owner: "conn")
        let a = container("a"), b = container("b")
        try ops.push(a, onto: s, animated: false, onFailure: noFailure)
        try ops.push(b, onto: s, animated: true, onFailure: noFailure)
        _ = d.take()
        ops.destroy(s)
        #expect(d.take() == ["b:viewDidAppear", "b:didMoveToParent", "a:viewDidDisappear",
                             "b:viewWillDisappear", "b:viewDidDisappear", "b:deinit", "a:deinit"])
        #expect(s.items.isEmpty)
        #expect(d.unbalancedCalls.isEmpty)
    }

    /// docs/plugins.md: a failing hook fails that container and nothing else. The pushed container fails when
    /// the animation ends; the host tears it down and the one it covered appears again at once (as
    /// `Containers.fail` does): the push's end call for that one must not run on top of it.
    @Test func aPushedContainerFailingAtTheAnimationEndLeavesTheCoveredOneBalanced() throws {
        let s = StackRecord(id: "s", size: size, owner: "conn")
        let a = container("a"), b = container("b")
        try ops.push(a, onto: s, animated: false, onFailure: noFailure)
        d.failOn = ["b:viewDidAppear"]
        let ops = self.ops
        var failed: [String] = []
        try ops.push(b, onto: s, animated: true) { failure in
            failed.append(failure.container)
            ops.discard(b, from: s)
            try? ops.d.perform(Lifecycle().appear(a, size: s.size))
        }
        _ = d.take()
        d.advance(300)
        #expect(failed == ["b"])
        #expect(appearance(d.take()) == ["b:viewDidAppear", "a:viewWillAppear", "a:viewDidAppear"])
        #expect(a.state == .appeared && s.top === a)
        #expect(d.unbalancedCalls.isEmpty)
    }
}
