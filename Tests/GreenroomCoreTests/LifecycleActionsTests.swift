import Testing
@testable import GreenroomCore

/// The lifecycle machine's actions, read directly: each input returns what the host must do, in order,
/// and changes the record; `perform` feeds what the hooks did back in.
@Suite struct LifecycleActionsTests {
    let life = Lifecycle()
    let size = Size(width: 10, height: 20)

    func fresh(_ id: String = "c") -> ContainerRecord { ContainerRecord(id: id, className: "K", owner: nil) }

    func run(_ hook: Hook, _ c: ContainerRecord, _ context: HookContext = HookContext()) -> LifecycleAction {
        .run(hook, c, context)
    }

    func actions(_ list: [LifecycleAction]) -> LifecycleActions {
        var a = LifecycleActions()
        for action in list { a.append(action) }
        return a
    }

    @Test func aFirstAppearanceLoadsLaysOutBeginsAndEndsInOneListThatFitsInline() {
        let c = fresh()
        let a = life.appear(c, animated: true, size: size)
        #expect(a == actions([
            run(.loadView, c), run(.viewDidLoad, c),
            run(.viewWillLayoutSubviews, c, HookContext(size: size)), run(.viewDidLayoutSubviews, c, HookContext(size: size)),
            run(.viewWillAppear, c, HookContext(animated: true)), run(.viewIsAppearing, c, HookContext(animated: true)), run(.viewDidAppear, c, HookContext(animated: true)),
        ]))
        #expect(c.state == .appeared && c.viewLoaded && c.laidOutSize == size, "the record moves as the list is made")
    }

    @Test func theLongestInputIsAFirstAppearanceWithNewInsetsAndFillsTheInlineStorageExactly() {
        let c = ContainerRecord(id: "c", className: "K", owner: nil, optionalHooks: Hook.optional)
        Lifecycle().stackMembershipChanged(c, joined: true)
        let a = life.appear(c, animated: true, size: size, layout: .afterWillAppear)
        #expect(a == actions([
            run(.loadView, c), run(.viewDidLoad, c), run(.viewWillAppear, c, HookContext(animated: true)), run(.viewIsAppearing, c, HookContext(animated: true)),
            run(.viewSafeAreaInsetsDidChange, c), run(.viewLayoutMarginsDidChange, c),
            run(.viewWillLayoutSubviews, c, HookContext(size: size)), run(.viewDidLayoutSubviews, c, HookContext(size: size)),
            run(.viewDidAppear, c, HookContext(animated: true)),
        ]))
        #expect(a.count == LifecycleActions.capacity)
        #expect(!c.insetsChanged)
    }

    @Test func layoutRunsOnlyWhenTheSizeChanges() {
        let c = fresh()
        _ = life.appear(c, size: size)
        #expect(life.appear(c, size: size).isEmpty, "appeared at that size: nothing to do")
        let bigger = Size(width: 11, height: 20)
        #expect(life.appear(c, size: bigger) == actions([
            run(.viewWillLayoutSubviews, c, HookContext(size: bigger)), run(.viewDidLayoutSubviews, c, HookContext(size: bigger)),
        ]))
        _ = life.disappear(c)
        #expect(life.begin(c, appearing: true, animated: false, size: bigger) == actions([run(.viewWillAppear, c, HookContext(animated: false)), run(.viewIsAppearing, c, HookContext(animated: false))]))
    }

    @Test func anUnbalancedCallRunsNoHookChangesNothingAndCarriesTheState() {
        let c = fresh()
        #expect(life.end(c, animated: false) == actions([.unbalanced(c, .end, state: .disappeared)]))
        _ = life.appear(c)
        #expect(life.begin(c, appearing: true, animated: false) == actions([.unbalanced(c, .beginAppearing, state: .appeared)]))
        #expect(c.state == .appeared)
    }

    @Test func containmentHooksSayTheNewParent() {
        let c = fresh()
        #expect(life.willMove(c, toParent: "s-1") == actions([run(.willMoveToParent, c, HookContext(parent: .some("s-1")))]))
        #expect(life.didMove(c, toParent: nil) == actions([run(.didMoveToParent, c, HookContext(parent: .some(nil)))]))
    }

    @Test func teardownDisappearsThenDeinitsAndTheRecordIsGoneOnlyOnceDeinitRan() throws {
        let c = fresh()
        c.parent = .greenRoom("g-1")
        _ = life.appear(c)
        let a = life.teardown(c)
        #expect(a == actions([run(.viewWillDisappear, c, HookContext(animated: false)), run(.viewDidDisappear, c, HookContext(animated: false)),
                              run(.deinitialize, c)]))
        #expect(!c.isDestroyed && c.parent == .greenRoom("g-1"), "its events still say where it is")
        var seen: [Hook] = []
        try life.perform(a) { action in
            if case .run(let hook, _, _) = action { seen.append(hook) }
            return true
        }
        #expect(seen == [.viewWillDisappear, .viewDidDisappear, .deinitialize])
        #expect(c.isDestroyed && c.parent == .none)
        #expect(life.teardown(c).isEmpty, "teardown runs once")
    }

    @Test func aFailedContainerGetsNoAppearanceCallAndGoesStraightToDeinit() {
        let c = fresh()
        _ = life.appear(c)
        _ = life.hookFailed(c, .configure)
        #expect(life.begin(c, appearing: false, animated: false).isEmpty)
        #expect(life.end(c, animated: false).isEmpty)
        #expect(life.teardown(c) == actions([run(.deinitialize, c)]))
    }

    @Test func aFailingHookIsFedBackAndSkipsTheContainersLaterHooks() {
        let c = fresh()
        var seen: [Hook] = []
        #expect(throws: ContainerFailure(container: "c", hook: .viewDidLoad)) {
            try life.perform(life.appear(c, size: size)) { action in
                guard case .run(let hook, _, _) = action else { return true }
                seen.append(hook)
                return hook != .viewDidLoad
            }
        }
        #expect(seen == [.loadView, .viewDidLoad])
        #expect(c.isFailed)
    }

    @Test func deinitRunsEvenWhenTheTeardownsDisappearanceFails() {
        let c = fresh()
        _ = life.appear(c)
        var seen: [Hook] = []
        #expect(throws: ContainerFailure(container: "c", hook: .viewWillDisappear)) {
            try life.perform(life.teardown(c)) { action in
                guard case .run(let hook, _, _) = action else { return true }
                seen.append(hook)
                return hook != .viewWillDisappear
            }
        }
        #expect(seen == [.viewWillDisappear, .deinitialize])
        #expect(c.isDestroyed && !c.isFailed)
    }

    @Test func aContainerFailedMeanwhileRunsNothingAndTheFirstRefusedHookIsThrown() {
        let c = fresh()
        let a = life.willMove(c, toParent: "s-1")
        c.markFailed()
        var called = false
        #expect(throws: ContainerFailure(container: "c", hook: .willMoveToParent)) {
            try life.perform(a) { _ in
                called = true
                return true
            }
        }
        #expect(!called)
    }
}

extension Lifecycle {
    /// What a host does with a `LifecyclePass`: performs each action through `effect` (false: its hook
    /// failed) and throws the first failure once the list is done.
    func perform(_ actions: LifecycleActions, _ effect: (LifecycleAction) -> Bool) throws(ContainerFailure) {
        var pass = LifecyclePass()
        while let action = pass.next(in: actions) { pass.ran(action, ok: effect(action)) }
        if let failure = pass.failure { throw failure }
    }
}

/// `viewIsAppearing` (UIKit 17): once per appearance, right after `viewWillAppear`, before the container's
/// own layout and `viewDidAppear`; none on a host that models UIKit 16.
@Suite struct ViewIsAppearingTests {
    let life = Lifecycle()
    let size = Size(width: 10, height: 20)

    private func hooks(_ a: LifecycleActions) -> [Hook] {
        a.compactMap { if case .run(let h, _, _) = $0 { h } else { nil } }
    }

    @Test func itFollowsEveryWillAppearBeforeTheLayoutAndTheDidAppear() {
        let c = ContainerRecord(id: "c", className: "K", owner: nil)
        #expect(c.uikit == .ios17)
        #expect(hooks(life.appear(c, animated: true, size: size, layout: .afterWillAppear)) == [
            .loadView, .viewDidLoad, .viewWillAppear, .viewIsAppearing, .viewWillLayoutSubviews, .viewDidLayoutSubviews, .viewDidAppear,
        ])
        // A page lays its view out first: it still comes right after viewWillAppear.
        let p = ContainerRecord(id: "p", className: "K", owner: nil)
        #expect(hooks(life.appear(p, size: size, layout: .beforeWillAppear)) == [
            .loadView, .viewDidLoad, .viewWillLayoutSubviews, .viewDidLayoutSubviews, .viewWillAppear, .viewIsAppearing, .viewDidAppear,
        ])
    }

    @Test func itCarriesTheAnimationFlagAndComesAgainOnAReappearanceMidTransition() {
        let c = ContainerRecord(id: "c", className: "K", owner: nil)
        _ = life.appear(c, size: size)
        _ = life.begin(c, appearing: false, animated: true)
        // A cancelled disappearance: it appears again, and is told so again.
        let back = life.begin(c, appearing: true, animated: true)
        #expect(back == LifecycleActions([.run(.viewWillAppear, c, HookContext(animated: true)), .run(.viewIsAppearing, c, HookContext(animated: true))]))
        // Disappearing, ending, or an unbalanced call sends none.
        #expect(!hooks(life.end(c, animated: true)).contains(.viewIsAppearing))
        #expect(!hooks(life.begin(c, appearing: true, animated: false)).contains(.viewIsAppearing), "unbalanced: no hook at all")
        #expect(!hooks(life.disappear(c)).contains(.viewIsAppearing))
    }

    @Test func aUIKit16ContainerNeverGetsIt() {
        let c = ContainerRecord(id: "c", className: "K", owner: nil, uikit: .ios16)
        #expect(hooks(life.appear(c, animated: true, size: size, layout: .afterWillAppear)) == [
            .loadView, .viewDidLoad, .viewWillAppear, .viewWillLayoutSubviews, .viewDidLayoutSubviews, .viewDidAppear,
        ])
    }
}

extension LifecycleActions {
    init(_ list: [LifecycleAction]) {
        self.init()
        for a in list { append(a) }
    }
}
