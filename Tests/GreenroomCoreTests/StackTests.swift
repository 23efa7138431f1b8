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

    /// UINavigationController's push: the incoming joins and loads, the outgoing's viewWillDisappear,
    /// the incoming's viewWillAppear and then its layout; after the animation the outgoing's
    /// viewDidDisappear, the incoming's viewDidAppear and didMoveToParent.
    @Test func pushOrderIsUINavigationControllers() throws {
        let s = StackRecord(id: "s", size: size, owner: "conn")
        let a = container("a"), b = container("b")
        try ops.push(a, onto: s, animated: false, onFailure: noFailure)
        #expect(d.take() == ["a:willMoveToParent", "a:loadView", "a:viewDidLoad", "a:viewWillAppear", "a:viewIsAppearing",
                             "a:viewWillLayoutSubviews", "a:viewDidLayoutSubviews", "a:viewDidAppear", "a:didMoveToParent"])
        try ops.push(b, onto: s, animated: true, onFailure: noFailure)
        #expect(d.take() == ["b:willMoveToParent", "b:loadView", "b:viewDidLoad", "a:viewWillDisappear", "b:viewWillAppear", "b:viewIsAppearing",
                             "b:viewWillLayoutSubviews", "b:viewDidLayoutSubviews"])
        #expect(s.isAnimating)
        d.advance(299)
        #expect(d.take().isEmpty)
        d.advance(1)
        #expect(d.take() == ["a:viewDidDisappear", "b:viewDidAppear", "b:didMoveToParent"])
        #expect(a.state == .disappeared && b.state == .appeared)
        #expect(d.unbalancedCalls.isEmpty)
    }

    // MARK: The inset hooks (viewSafeAreaInsetsDidChange, viewLayoutMarginsDidChange)

    func insetted(_ id: String, _ hooks: Set<Hook> = Hook.optional) -> ContainerRecord {
        ContainerRecord(id: id, className: "K", owner: "conn", optionalHooks: hooks)
    }

    /// Joining a stack, a class that asks for them gets the inset hooks as its layout pass begins: after
    /// viewWillAppear, before viewWillLayoutSubviews, safe area first (its margins follow the safe area).
    @Test func joiningAStackStartsTheLayoutPassWithTheInsetHooks() throws {
        let s = StackRecord(id: "s", size: size, owner: "conn")
        let a = insetted("a")
        try ops.push(a, onto: s, animated: false, onFailure: noFailure)
        #expect(d.take() == ["a:willMoveToParent", "a:loadView", "a:viewDidLoad", "a:viewWillAppear", "a:viewIsAppearing",
                             "a:viewSafeAreaInsetsDidChange", "a:viewLayoutMarginsDidChange",
                             "a:viewWillLayoutSubviews", "a:viewDidLayoutSubviews", "a:viewDidAppear", "a:didMoveToParent"])
        // Revealed again by a pop, it is still in the stack: nothing changed, no inset hooks.
        let b = insetted("b", [.viewLayoutMarginsDidChange])
        try ops.push(b, onto: s, animated: false, onFailure: noFailure)
        #expect(d.take().filter { $0.hasPrefix("b:view") && $0.contains("Insets") || $0.contains("Margins") } == ["b:viewLayoutMarginsDidChange"],
                "only the hook the class asked for")
        _ = ops.pop(s, animated: false, onFailure: noFailure)
        #expect(d.take() == ["b:willMoveToParent", "b:viewWillDisappear", "a:viewWillAppear", "a:viewIsAppearing", "b:viewDidDisappear",
                             "a:viewDidAppear", "b:didMoveToParent"])
    }

    /// A container already laid out at the stack's size (a warm one from the green room) lays out no
    /// more when it joins, but its insets are new: the inset hooks run alone where the layout would be.
    @Test func aContainerLaidOutAtTheSizeStillHearsTheInsetsOfItsNewStack() throws {
        let room = StackRecord(id: "g", size: size, owner: "host")
        let s = StackRecord(id: "s", size: size, owner: "conn")
        let a = insetted("a")
        try ops.push(a, onto: room, animated: false, onFailure: noFailure)
        _ = ops.pop(room, animated: false, onFailure: noFailure)
        _ = d.take()
        try ops.push(a, onto: s, animated: false, onFailure: noFailure)
        #expect(d.take() == ["a:willMoveToParent", "a:viewWillAppear", "a:viewIsAppearing", "a:viewSafeAreaInsetsDidChange",
                             "a:viewLayoutMarginsDidChange", "a:viewDidAppear", "a:didMoveToParent"])
    }

    @Test func aClassThatAsksForNoneGetsNone() throws {
        let s = StackRecord(id: "s", size: size, owner: "conn")
        let a = container("a")
        try ops.push(a, onto: s, animated: false, onFailure: noFailure)
        ops.resize(s, to: Size(width: 300, height: 200), onFailure: noFailure)
        #expect(!d.take().contains { $0.contains("Insets") || $0.contains("Margins") })
        #expect(!a.insetsChanged)
    }

    /// On a hidden stack nothing is laid out: the hooks wait for the first layout, when it is shown. A
    /// resize gives them to the top now and to the others when they next appear; the same size, none.
    @Test func hiddenStacksAndResizesDeferTheHooksToTheNextLayout() throws {
        let s = StackRecord(id: "s", size: size, hidden: true, owner: "conn")
        let a = insetted("a"), b = insetted("b")
        try ops.push(a, onto: s, animated: false, onFailure: noFailure)
        try ops.push(b, onto: s, animated: false, onFailure: noFailure)
        #expect(!d.take().contains { $0.contains("Insets") })
        ops.setHidden(s, false, onFailure: noFailure)
        #expect(d.take() == ["b:loadView", "b:viewDidLoad", "b:viewWillAppear", "b:viewIsAppearing", "b:viewSafeAreaInsetsDidChange",
                             "b:viewLayoutMarginsDidChange", "b:viewWillLayoutSubviews", "b:viewDidLayoutSubviews",
                             "b:viewDidAppear"])
        ops.resize(s, to: size, onFailure: noFailure)
        #expect(d.take().isEmpty, "the same size changes nothing")
        ops.resize(s, to: Size(width: 200, height: 100), onFailure: noFailure)
        #expect(d.take() == ["b:viewSafeAreaInsetsDidChange", "b:viewLayoutMarginsDidChange",
                             "b:viewWillLayoutSubviews", "b:viewDidLayoutSubviews"])
        _ = ops.pop(s, animated: false, onFailure: noFailure)
        #expect(d.take().filter { $0.hasPrefix("a:") } == ["a:loadView", "a:viewDidLoad", "a:viewWillAppear", "a:viewIsAppearing",
                "a:viewSafeAreaInsetsDidChange", "a:viewLayoutMarginsDidChange", "a:viewWillLayoutSubviews",
                "a:viewDidLayoutSubviews", "a:viewDidAppear"])
    }

    /// One that leaves before its stack laid it out owes no inset hooks.
    @Test func leavingBeforeTheLayoutClearsThem() throws {
        let s = StackRecord(id: "s", size: size, hidden: true, owner: "conn")
        let a = insetted("a")
        try ops.push(a, onto: s, animated: false, onFailure: noFailure)
        #expect(a.insetsChanged)
        _ = ops.pop(s, animated: false, onFailure: noFailure)
        #expect(!a.insetsChanged)
    }

    @Test func popRevealsTheOneBelow() throws {
        let s = StackRecord(id: "s", size: size, owner: "conn")
        let a = container("a"), b = container("b")
        try ops.push(a, onto: s, animated: false, onFailure: noFailure)
        try ops.push(b, onto: s, animated: false, onFailure: noFailure)
        _ = d.take()
        let popped = ops.pop(s, animated: true, onFailure: noFailure)
        #expect(popped === b)
        #expect(d.take() == ["b:willMoveToParent", "b:viewWillDisappear", "a:viewWillAppear", "a:viewIsAppearing"])
        d.advance(300)
        #expect(d.take() == ["b:viewDidDisappear", "a:viewDidAppear", "b:didMoveToParent"])
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
        #expect(appearance(d.take()) == ["a:viewDidDisappear", "b:viewDidAppear", "b:viewWillDisappear", "c:viewWillAppear", "c:viewIsAppearing"])
        d.advance(300)
        #expect(appearance(d.take()) == ["b:viewDidDisappear", "c:viewDidAppear"])
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
        #expect(d.take() == ["a:loadView", "a:viewDidLoad", "a:viewWillAppear", "a:viewIsAppearing", "a:viewWillLayoutSubviews",
                             "a:viewDidLayoutSubviews", "a:viewDidAppear"])
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
        #expect(appearance(d.take()) == ["b:viewWillDisappear", "a:viewWillAppear", "a:viewIsAppearing", "b:viewDidDisappear", "a:viewDidAppear"])
        #expect(a.state == .appeared && a.isOffscreen)
        ops.remove(a, from: g, onFailure: noFailure)
        #expect(appearance(d.take()) == ["a:viewWillDisappear", "a:viewDidDisappear"])
        let c = container("c")
        try ops.push(c, onto: g, animated: false, onFailure: noFailure)
        #expect(appearance(d.take()) == ["c:viewWillAppear", "c:viewIsAppearing", "c:viewDidAppear"])
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
        #expect(d.take() == ["a:willMoveToParent", "a:viewWillAppear", "a:viewIsAppearing", "a:viewWillLayoutSubviews",
                             "a:viewDidLayoutSubviews", "a:viewDidAppear", "a:didMoveToParent"])
        #expect(a.laidOutSize == size)
    }

    @Test func destroyTearsEverythingDownBalanced() throws {
        let s = StackRecord(id: "s", size: size, owner: "conn")
        let a = container("a"), b = container("b")
        try ops.push(a, onto: s, animated: false, onFailure: noFailure)
        try ops.push(b, onto: s, animated: true, onFailure: noFailure)
        _ = d.take()
        ops.destroy(s)
        #expect(d.take() == ["a:viewDidDisappear", "b:viewDidAppear", "b:didMoveToParent",
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
        #expect(appearance(d.take()) == ["a:viewDidDisappear", "b:viewDidAppear", "a:viewWillAppear", "a:viewIsAppearing", "a:viewDidAppear"])
        #expect(a.state == .appeared && s.top === a)
        #expect(d.unbalancedCalls.isEmpty)
    }

    func stack(_ items: [ContainerRecord], hidden: Bool = false) throws -> StackRecord {
        let s = StackRecord(id: "s", size: size, owner: "conn")
        for c in items { try ops.push(c, onto: s, animated: false, onFailure: noFailure) }
        if hidden { ops.setHidden(s, true, onFailure: noFailure) }
        _ = d.take()
        return s
    }

    /// popToRootViewController: only the old top and the root get appearance calls; the ones passed
    /// over only leave (willMoveToParent(nil) first, didMoveToParent(nil) last, top first).
    @Test func popToRootCallsOnlyTheOldTopAndTheRoot() throws {
        let a = container("a"), b = container("b"), c = container("c"), e = container("e")
        let s = try stack([a, b, c, e])
        let removed = ops.popToRoot(s, animated: true)
        #expect(removed.map(\.id) == ["b", "c", "e"])
        #expect(s.items.map(\.id) == ["a"])
        #expect(d.take() == ["e:willMoveToParent", "c:willMoveToParent", "b:willMoveToParent",
                             "e:viewWillDisappear", "a:viewWillAppear", "a:viewIsAppearing"])
        d.advance(300)
        #expect(d.take() == ["e:viewDidDisappear", "a:viewDidAppear",
                             "e:didMoveToParent", "c:didMoveToParent", "b:didMoveToParent"])
        #expect([b, c, e].allSatisfy { $0.parent == .none && $0.state == .disappeared })
        #expect(ops.popToRoot(s, animated: true).isEmpty && d.take().isEmpty, "the root alone: nothing to pop")
        #expect(d.unbalancedCalls.isEmpty)
    }

    /// setViewControllers keeping the top: no appearance call, only the joiners and leavers move.
    @Test func setContainersKeepingTheTopOnlyMovesTheOthers() throws {
        let a = container("a"), b = container("b"), c = container("c"), n = container("n")
        let s = try stack([a, b, c])
        let removed = ops.setContainers(s, [n, a, c], animated: true)
        #expect(removed.map(\.id) == ["b"])
        #expect(d.take() == ["n:willMoveToParent", "b:willMoveToParent", "n:didMoveToParent", "b:didMoveToParent"])
        #expect(!s.isAnimating && s.items.map(\.id) == ["n", "a", "c"] && !n.viewLoaded)
    }

    /// setViewControllers with a new top, the old top kept below: the old top only disappears.
    @Test func setContainersReorderingGivesAppearanceCallsToTheTwoTopsOnly() throws {
        let a = container("a"), b = container("b"), c = container("c")
        let s = try stack([a, b, c])
        _ = ops.setContainers(s, [c, b, a], animated: false)
        #expect(d.take() == ["c:viewWillDisappear", "a:viewWillAppear", "a:viewIsAppearing", "c:viewDidDisappear", "a:viewDidAppear"])
        let n = container("n")
        _ = ops.setContainers(s, [n], animated: true)
        #expect(d.take() == ["n:willMoveToParent", "a:willMoveToParent", "b:willMoveToParent", "c:willMoveToParent",
                             "n:loadView", "n:viewDidLoad", "a:viewWillDisappear", "n:viewWillAppear", "n:viewIsAppearing",
                             "n:viewWillLayoutSubviews", "n:viewDidLayoutSubviews"])
        d.advance(300)
        #expect(d.take() == ["a:viewDidDisappear", "n:viewDidAppear", "n:didMoveToParent",
                             "a:didMoveToParent", "b:didMoveToParent", "c:didMoveToParent"])
        _ = ops.setContainers(s, [], animated: true)
        d.advance(300)
        #expect(d.take() == ["n:willMoveToParent", "n:viewWillDisappear", "n:viewDidDisappear", "n:didMoveToParent"])
        #expect(s.items.isEmpty && d.unbalancedCalls.isEmpty)
    }

    @Test func aHiddenStackOnlyMovesContainers() throws {
        let a = container("a"), b = container("b"), c = container("c")
        let s = try stack([a, b], hidden: true)
        _ = ops.setContainers(s, [c], animated: true)
        #expect(d.take() == ["c:willMoveToParent", "b:willMoveToParent", "a:willMoveToParent",
                             "c:didMoveToParent", "b:didMoveToParent", "a:didMoveToParent"])
        #expect(!c.viewLoaded && !s.isAnimating)
    }

    /// The edge-swipe back gesture, completed: begin gives the top's willMoveToParent(nil) and
    /// viewWillDisappear and the one below's viewWillAppear; the finish runs the rest of the duration.
    @Test func anInteractivePopThatFinishesEndsAfterTheRestOfTheDuration() throws {
        let a = container("a"), b = container("b")
        let s = try stack([a, b])
        ops.beginInteractivePop(s)
        #expect(d.take() == ["b:willMoveToParent", "b:viewWillDisappear", "a:viewWillAppear", "a:viewIsAppearing"])
        #expect(s.interactivePop?.top === b && s.items.count == 2)
        StackOperation.updateInteractivePop(s, progress: 0.25)
        #expect(d.take().isEmpty)
        #expect(ops.finishInteractivePop(s) === b)
        #expect(s.items.map(\.id) == ["a"] && s.interactivePop == nil)
        d.advance(224)
        #expect(d.take().isEmpty)
        d.advance(1)
        #expect(d.take() == ["b:viewDidDisappear", "a:viewDidAppear", "b:didMoveToParent"])
        #expect(b.parent == .none && d.unbalancedCalls.isEmpty)
    }

    /// Cancelled: UIKit's order, the one below's viewWillDisappear and viewDidDisappear, then the top's
    /// viewWillAppear and viewDidAppear (and its didMoveToParent back to the stack), after the way back.
    @Test func aCancelledInteractivePopLeavesTheStackAsItWas() throws {
        let a = container("a"), b = container("b")
        let s = try stack([a, b])
        ops.beginInteractivePop(s)
        _ = d.take()
        StackOperation.updateInteractivePop(s, progress: 0.4)
        ops.cancelInteractivePop(s)
        d.advance(119)
        #expect(d.take().isEmpty)
        d.advance(1)
        #expect(d.take() == ["a:viewWillDisappear", "a:viewDidDisappear", "b:viewWillAppear", "b:viewIsAppearing", "b:viewDidAppear",
                             "b:didMoveToParent"])
        #expect(s.items.map(\.id) == ["a", "b"] && b.state == .appeared && a.state == .disappeared)
        #expect(d.unbalancedCalls.isEmpty)
    }

    /// A first appearance during the gesture loads the one below before the top's viewWillDisappear.
    @Test func theOneBelowLoadsFirstWhenItNeverAppeared() throws {
        let a = container("a"), b = container("b")
        let s = StackRecord(id: "s", size: size, hidden: true, owner: "conn")
        _ = ops.setContainers(s, [a, b], animated: false)
        ops.setHidden(s, false, onFailure: noFailure)
        #expect(!a.viewLoaded)
        _ = d.take()
        ops.beginInteractivePop(s)
        #expect(d.take() == ["b:willMoveToParent", "a:loadView", "a:viewDidLoad", "b:viewWillDisappear",
                             "a:viewWillAppear", "a:viewIsAppearing", "a:viewWillLayoutSubviews", "a:viewDidLayoutSubviews"])
    }

    /// A stack torn down mid-gesture cancels it at once, then tears down, balanced.
    @Test func destroyMidGestureCancelsItFirst() throws {
        let a = container("a"), b = container("b")
        let s = try stack([a, b])
        ops.beginInteractivePop(s)
        _ = d.take()
        ops.destroy(s)
        #expect(d.take() == ["a:viewWillDisappear", "a:viewDidDisappear", "b:viewWillAppear", "b:viewIsAppearing", "b:viewDidAppear",
                             "b:didMoveToParent", "b:viewWillDisappear", "b:viewDidDisappear", "b:deinit", "a:deinit"])
        #expect(d.unbalancedCalls.isEmpty)
    }

    @Test func aDurationOfZeroEndsAtOnceStillAnimated() throws {
        let a = container("a"), b = container("b")
        let s = try stack([a])
        var ops = self.ops
        ops.animationMs = 0
        try ops.push(b, onto: s, animated: true, onFailure: noFailure)
        #expect(!s.isAnimating && b.state == .appeared && a.state == .disappeared)
        ops.animationMs = 50
        _ = ops.pop(s, animated: true, onFailure: noFailure)
        d.advance(50)
        #expect(appearance(d.take()).suffix(2) == ["b:viewDidDisappear", "a:viewDidAppear"])
    }
}
