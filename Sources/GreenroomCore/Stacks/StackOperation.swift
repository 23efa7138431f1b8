/// Navigation stacks as UINavigationController runs them (docs/lifecycle.md "Stacks"): push, pop,
/// popToRoot, setContainers and the interactive pop, and the host's own moves (remove, discard), hide,
/// resize and destroy, as a machine that hands the host one step at a time.
///
/// Every navigation is one shape. The containers that join the stack get `willMoveToParent` and those
/// that leave `willMoveToParent(nil)`; the incoming top loads; the outgoing top gets `viewWillDisappear`,
/// the incoming `viewWillAppear` and then its layout; after the transition's duration (at once when not
/// animated) the outgoing gets `viewDidDisappear`, the incoming `viewDidAppear`, and the joiners and
/// leavers their `didMoveToParent`. Containers that are only passed over or kept get no appearance call.
/// Starting another operation on the same stack first completes the running transition (its end calls
/// are delivered) and cancels a live interactive pop at once.
///
/// What an operation does next can depend on whether a hook failed, so it cannot hand over all its
/// actions at once. Instead each input returns the next step: lifecycle actions to perform (the host
/// answers with the failure, if one), a failure to report (the host tears that container down, which may
/// itself change the stack, and resumes), or a timer to start or cancel. The operation builds each step's
/// actions only when it gets there, from the records as they are then, and every appearance call is made
/// only from a state the table allows, so a container a failure moved meanwhile stays balanced. It holds
/// no reference to the host; a running animation is data on its stack (`StackTransition`), not a closure.
public struct StackOperation {
    /// What the host does next.
    public enum Step {
        /// Perform `actions` (the operation's, as they are now), then answer `.performed` with the first
        /// hook failure (nil: none).
        case perform
        /// A container failed where the caller is not told (an old top, an animation's end): the host
        /// tears it down, then answers `.resumed`.
        case report(ContainerFailure)
        /// Start the stack's animation timer: after `ms`, the host runs `StackOperation.transitionEnded`
        /// on `stack`. Answer `.timerStarted` with its token.
        case startTimer(StackRecord, ms: Double)
        /// Cancel a timer this operation's stack started; answer `.resumed`.
        case cancelTimer(Int)
        /// The operation is over. A failure is the caller's to report (its container is already failed).
        case done(ContainerFailure?)
    }

    /// What the host says back.
    public enum Input {
        case start
        case performed(ContainerFailure?)
        case timerStarted(Int)
        case resumed
    }

    /// What a failed hook means for the rest of the operation. A failed container's later hooks are
    /// never built (its teardown ran its last ones), so nothing needs skipping by hand.
    private enum OnFailure {
        /// The operation stops and the caller gets the failure (a pushed container's own hooks).
        case stop
        /// Reported; the rest goes on.
        case report
        /// Dropped (a teardown's hooks).
        case ignore
    }

    /// Lifecycle inputs, built when reached. The conditional ones make their call only from a state the
    /// appearance table allows.
    private enum Actions {
        case willMove(ContainerRecord, to: String?)
        case didMove(ContainerRecord, to: String?)
        case load(ContainerRecord)
        /// viewWillDisappear, if it is on screen (appearing or appeared).
        case beginDisappearing(ContainerRecord, animated: Bool)
        /// viewWillAppear, then layout at `size`, if it is off screen (disappeared or disappearing).
        case beginAppearing(ContainerRecord, animated: Bool, size: Size)
        /// The end call, if the container is still `state`.
        case endIf(ContainerRecord, Appearance, animated: Bool)
        case appear(ContainerRecord, animated: Bool, size: Size)
        case disappear(ContainerRecord, animated: Bool)
        case layout(ContainerRecord, size: Size)
        case teardown(ContainerRecord)
    }

    /// A navigation between the containment will-calls and the appearance calls: the top before it,
    /// who joins and who leaves (top first), and whose failures are the caller's.
    private struct Navigation {
        let stack: StackRecord
        let oldTop: ContainerRecord?
        let joined: [ContainerRecord]
        let left: [ContainerRecord]
        let animated: Bool
        let callerOwns: ContainerRecord?
    }

    private enum Instruction {
        case run(Actions, OnFailure)
        case completeTransition(StackRecord)
        case pushRest(ContainerRecord, StackRecord, animated: Bool)
        case popRest(StackRecord, animated: Bool)
        case popToRootRest(StackRecord, animated: Bool)
        case setContainersRest(StackRecord, [ContainerRecord], animated: Bool)
        case navigate(Navigation)
        /// The incoming top (nil: none) has loaded: the appearance calls, unless a failure took it away.
        case navigateLoaded(Navigation, incoming: ContainerRecord?)
        case beginInteractivePopRest(StackRecord)
        /// `Actions` of an interactive pop's begin, run only while that gesture is still live.
        case duringInteractivePop(StackRecord, top: ContainerRecord, Actions)
        case removeRest(ContainerRecord, StackRecord)
        case discardRest(ContainerRecord, StackRecord)
        case setHiddenRest(StackRecord, Bool)
        case destroyRest(StackRecord)
        case startTransition(StackRecord, StackTransition)
        case clearParent(ContainerRecord, ifIn: StackRecord?)
    }

    /// What the operation waits for.
    private enum State {
        case ready
        case performing(OnFailure)
        case reporting
        case startingTimer(StackRecord, StackTransition)
        case cancelling
        case done
    }

    private let lifecycle = Lifecycle()
    /// How long this operation's transition runs on the host clock (0: its end calls come at once).
    private let animationMs: Double
    /// Instructions still to run, the next last.
    private var pending: [Instruction]
    private var state = State.ready
    /// `pop`, `finishInteractivePop`: the container it took off; `popToRoot`: the old top (nil: none).
    public var popped: ContainerRecord? { removed.last }
    /// Every container the operation took off the stack, bottom first (`pop`, `popToRoot`,
    /// `setContainers`, `finishInteractivePop`).
    public private(set) var removed: [ContainerRecord] = []
    /// What a `perform` step asks for. Kept here rather than in the step: a list is large, and is read
    /// where it lies.
    public var actions: LifecycleActions {
        _read {
            if let stepActions { yield stepActions.list } else { yield LifecycleActions() }
        }
    }
    /// Made at the first perform, so that the operation itself stays small to make, return and drop.
    private var stepActions: StepActions?

    /// An operation of `first`, then `then` (at most two to start with: the rest is expanded as it runs).
    private init(animationMs: Double, _ first: Instruction? = nil, then: Instruction? = nil) {
        self.animationMs = animationMs
        pending = []
        pending.reserveCapacity(8)
        if let then { pending.append(then) }
        if let first { pending.append(first) }
    }

    // MARK: Navigation

    /// Pushes `c` (which the caller has taken out of any other parent). A failure of `c`'s hooks before
    /// the push is over stops it (`done` carries it); the old top's failures are reported.
    public static func push(_ c: ContainerRecord, onto s: StackRecord, animated: Bool, animationMs: Double = 300) -> StackOperation {
        StackOperation(animationMs: animated ? animationMs : 0, .completeTransition(s), then: .pushRest(c, s, animated: animated))
    }

    /// Pops the top container (`popped`); the one below appears (in a green room too, offscreen).
    public static func pop(_ s: StackRecord, animated: Bool, animationMs: Double = 300) -> StackOperation {
        // Nothing to pop changes nothing: a running transition (the pop that emptied the stack) keeps its
        // time.
        guard !s.items.isEmpty else { return StackOperation(animationMs: 0) }
        return StackOperation(animationMs: animated ? animationMs : 0, .completeTransition(s), then: .popRest(s, animated: animated))
    }

    /// Pops every container above the root (`removed`, bottom first): only the old top and the root get
    /// appearance calls; the ones passed over only leave (UINavigationController's popToRootViewController).
    public static func popToRoot(_ s: StackRecord, animated: Bool, animationMs: Double = 300) -> StackOperation {
        guard s.items.count > 1 else { return StackOperation(animationMs: 0) }
        return StackOperation(animationMs: animated ? animationMs : 0, .completeTransition(s), then: .popToRootRest(s, animated: animated))
    }

    /// Replaces the stack's containers with `list` (bottom first; no duplicates; the caller has taken
    /// the newcomers out of any other parent): UINavigationController's setViewControllers. Kept ones get
    /// no call, newcomers join and the others leave (`removed`); only a top that changes gets appearance
    /// calls, between the old top and the new.
    public static func setContainers(_ s: StackRecord, _ list: [ContainerRecord], animated: Bool, animationMs: Double = 300) -> StackOperation {
        StackOperation(animationMs: animated ? animationMs : 0, .completeTransition(s), then: .setContainersRest(s, list, animated: animated))
    }

    // MARK: The interactive pop

    /// The edge-swipe back gesture begins on a shown stack of two or more: the top leaves
    /// (`willMoveToParent(nil)`, `viewWillDisappear`) and the one below loads and begins appearing. The
    /// stack keeps both until the gesture finishes or is cancelled.
    public static func beginInteractivePop(_ s: StackRecord) -> StackOperation {
        guard s.interactivePop == nil, s.isShown, s.items.count > 1 else { return StackOperation(animationMs: 0) }
        return StackOperation(animationMs: 0, .completeTransition(s), then: .beginInteractivePopRest(s))
    }

    /// The gesture moved: no lifecycle call, only how far it has gone (clamped to 0...1).
    public static func updateInteractivePop(_ s: StackRecord, progress: Double) {
        s.interactivePop?.progress = min(1, max(0, progress))
    }

    /// The gesture completes: after the rest of the transition (`durationMs * (1 - progress)`) the top
    /// gets `viewDidDisappear`, the one below `viewDidAppear`, and the top `didMoveToParent(nil)`; the top
    /// is off the stack (`popped`) at once.
    public static func finishInteractivePop(_ s: StackRecord, durationMs: Double = 300) -> StackOperation {
        guard let g = s.interactivePop else { return StackOperation(animationMs: 0) }
        s.interactivePop = nil
        if s.top === g.top { s.items.removeLast() }
        var op = StackOperation(animationMs: durationMs * (1 - g.progress))
        op.removed = [g.top]
        let end = NavigationEnd(stack: s, outgoing: g.top, incoming: g.revealed, joined: [], left: [g.top], animated: true)
        op.finish(.navigation(end), animated: true)
        return op
    }

    /// The gesture is called off: after the way back (`durationMs * progress`) UIKit's cancelled order
    /// runs: the one below `viewWillDisappear`, `viewDidDisappear`, then the top `viewWillAppear`,
    /// `viewDidAppear` and `didMoveToParent` (the stack). The stack is as it was.
    public static func cancelInteractivePop(_ s: StackRecord, durationMs: Double = 300) -> StackOperation {
        guard let g = s.interactivePop else { return StackOperation(animationMs: 0) }
        s.interactivePop = nil
        var op = StackOperation(animationMs: durationMs * g.progress)
        op.finish(.cancelledPop(g.top, from: s, revealed: g.revealed), animated: true)
        return op
    }

    // MARK: The host's own moves

    /// Takes `c` out of `s` at once (not animated): the top disappears and the one below appears. Used to
    /// move a container to another stack, to release one, and to take a warm container out of the green
    /// room.
    public static func remove(_ c: ContainerRecord, from s: StackRecord) -> StackOperation {
        StackOperation(animationMs: 0, .completeTransition(s), then: .removeRest(c, s))
    }

    /// Drops a failed container from the stack without running any hook on it.
    public static func discard(_ c: ContainerRecord, from s: StackRecord) -> StackOperation {
        StackOperation(animationMs: 0, .completeTransition(s), then: .discardRest(c, s))
    }

    /// Shows or hides the window: the top appears (loading, then layout after viewWillAppear) or
    /// disappears.
    public static func setHidden(_ s: StackRecord, _ hidden: Bool) -> StackOperation {
        guard s.isHidden != hidden else { return StackOperation(animationMs: 0) }
        return StackOperation(animationMs: 0, .completeTransition(s), then: .setHiddenRest(s, hidden))
    }

    /// Resizes the window; the top (if loaded) lays out again, others when they next appear.
    public static func resize(_ s: StackRecord, to size: Size) -> StackOperation {
        if s.size != size { for c in s.items { Lifecycle().stackResized(c) } }
        s.size = size
        guard s.isShown, let top = s.top, top.viewLoaded else { return StackOperation(animationMs: 0) }
        return StackOperation(animationMs: 0, .run(.layout(top, size: size), .report))
    }

    /// Tears the stack down: the running animation completes (a live gesture is cancelled), then every
    /// container (top first) disappears if on screen and is deinited.
    public static func destroy(_ s: StackRecord) -> StackOperation {
        StackOperation(animationMs: 0, .completeTransition(s), then: .destroyRest(s))
    }

    /// Delivers a running animation's end calls now, and cancels a live interactive pop at once.
    public static func completeTransition(_ s: StackRecord) -> StackOperation {
        StackOperation(animationMs: 0, .completeTransition(s))
    }

    /// The stack's animation timer fired: its end calls are delivered (unless a later operation did).
    public static func transitionEnded(_ s: StackRecord) -> StackOperation {
        guard let t = s.transition else { return StackOperation(animationMs: 0) }
        s.transition = nil
        var op = StackOperation(animationMs: 0)
        op.scheduleCompletion(of: t.pending, callerOwns: nil)
        return op
    }

    // MARK: The machine

    /// Takes the host's answer to the last step and returns the next.
    public mutating func next(_ input: Input) -> Step {
        switch (state, input) {
        case (.ready, .start), (.reporting, .resumed), (.cancelling, .resumed):
            break
        case (.performing(let onFailure), .performed(let failure)):
            if let failure {
                switch onFailure {
                case .stop:
                    state = .done
                    return .done(failure)
                case .report:
                    state = .reporting
                    return .report(failure)
                case .ignore:
                    break
                }
            }
        case (.startingTimer(let s, let pending), .timerStarted(let token)):
            s.transition = (pending, token)
        default:
            preconditionFailure("StackOperation: \(input) does not answer the last step")
        }
        return advance()
    }

    /// Runs instructions until one needs the host.
    private mutating func advance() -> Step {
        while let instruction = pending.popLast() {
            switch instruction {
            case .run(let actions, let onFailure):
                let built = build(actions)
                guard !built.isEmpty else { continue }
                if let stepActions { stepActions.list = built } else { stepActions = StepActions(built) }
                state = .performing(onFailure)
                return .perform

            case .completeTransition(let s):
                if let g = s.interactivePop {
                    // A gesture nobody finished (its stack is torn down, or one of its containers failed):
                    // it is cancelled at once, so that everything comes to rest balanced.
                    s.interactivePop = nil
                    scheduleCompletion(of: .cancelledPop(g.top, from: s, revealed: g.revealed), callerOwns: nil)
                    continue
                }
                guard let t = s.transition else { continue }
                s.transition = nil
                scheduleCompletion(of: t.pending, callerOwns: nil)
                state = .cancelling
                return .cancelTimer(t.timer)

            case .pushRest(let c, let s, let animated):
                // Torn down on its way here (a hook failed as it left its last parent): nothing to push.
                guard !c.isFailed, !c.isDestroyed else { continue }
                let oldTop = s.top
                // The parent is set first so every event of the move says where it happens (offscreen
                // for the green room); the stack holds it from the start, as UIKit's viewControllers does.
                c.parent = parent(in: s)
                s.items.append(c)
                then(.run(.willMove(c, to: s.id), .stop),
                     .navigate(Navigation(stack: s, oldTop: oldTop, joined: [c], left: [], animated: animated, callerOwns: c)))

            case .popRest(let s, let animated):
                let oldTop = s.top
                guard let top = s.items.popLast() else { continue }
                removed = [top]
                then(.run(.willMove(top, to: nil), .report),
                     .navigate(Navigation(stack: s, oldTop: oldTop, joined: [], left: [top], animated: animated, callerOwns: nil)))

            case .popToRootRest(let s, let animated):
                guard s.items.count > 1 else { continue }
                let oldTop = s.top
                removed = Array(s.items.dropFirst())
                s.items.removeSubrange(1...)
                leave(Navigation(stack: s, oldTop: oldTop, joined: [], left: removed.reversed(), animated: animated, callerOwns: nil))

            case .setContainersRest(let s, let all, let animated):
                let list = all.filter { !$0.isFailed && !$0.isDestroyed }
                let oldTop = s.top
                let old = s.items
                let joined = list.filter { c in !old.contains { $0 === c } }
                let left = old.filter { c in !list.contains { $0 === c } }
                removed = left
                for c in joined { c.parent = parent(in: s) }
                s.items = list
                leave(Navigation(stack: s, oldTop: oldTop, joined: joined, left: left.reversed(), animated: animated, callerOwns: nil))

            case .navigate(let n):
                let incoming = incomingTop(of: n)
                pending.append(.navigateLoaded(n, incoming: incoming))
                if let incoming { pending.append(.run(.load(incoming), onFailure(of: incoming, in: n))) }

            case .navigateLoaded(let n, let incoming):
                // It failed as it loaded (and left the stack): the top under it, if any, comes on instead.
                if let incoming, incoming.isFailed || incoming.isDestroyed || n.stack.top !== incoming,
                   let next = incomingTop(of: n), next !== incoming {
                    then(.run(.load(next), onFailure(of: next, in: n)), .navigateLoaded(n, incoming: next))
                    continue
                }
                navigate(n, incoming: incoming)

            case .beginInteractivePopRest(let s):
                guard s.isShown, let top = s.top, let below = s.belowTop else { continue }
                s.interactivePop = InteractivePop(top: top, revealed: below, progress: 0)
                // Pushed last to first: `pending` runs from its end.
                pending.append(.duringInteractivePop(s, top: top, .beginAppearing(below, animated: true, size: s.size)))
                pending.append(.duringInteractivePop(s, top: top, .beginDisappearing(top, animated: true)))
                pending.append(.duringInteractivePop(s, top: top, .load(below)))
                pending.append(.run(.willMove(top, to: nil), .report))

            case .duringInteractivePop(let s, let top, let actions):
                // A failure reported so far tore its container down, which cancelled the gesture and brought
                // the stack to rest: nothing is left to begin.
                guard s.interactivePop?.top === top else { continue }
                then(.run(actions, .report))

            case .removeRest(let c, let s):
                if s.top === c {
                    then(.popRest(s, animated: false))
                    continue
                }
                guard let i = s.items.firstIndex(where: { $0 === c }) else { continue }
                s.items.remove(at: i)
                pending.append(.clearParent(c, ifIn: nil))
                pending.append(.run(.didMove(c, to: nil), .report))
                then(.run(.willMove(c, to: nil), .report), .run(.disappear(c, animated: false), .report))

            case .discardRest(let c, let s):
                s.items.removeAll { $0 === c }
                c.parent = .none

            case .setHiddenRest(let s, let hidden):
                s.isHidden = hidden
                guard let top = s.top, !s.isCovered else { continue }
                then(.run(hidden ? .disappear(top, animated: false) : .appear(top, animated: false, size: s.size), .report))

            case .destroyRest(let s):
                guard let c = s.items.popLast() else { continue }
                then(.run(.teardown(c), .ignore), .destroyRest(s))

            case .startTransition(let s, let transition):
                state = .startingTimer(s, transition)
                return .startTimer(s, ms: animationMs)

            case .clearParent(let c, let s):
                // The parent changes last, so every event of the move says where it happened.
                if let s {
                    if c.parent == parent(in: s) { c.parent = .none }
                } else {
                    c.parent = .none
                }
            }
        }
        state = .done
        return .done(nil)
    }

    /// Runs `first`, then `second`, before what was pending.
    private mutating func then(_ first: Instruction, _ second: Instruction? = nil) {
        if let second { pending.append(second) }
        pending.append(first)
    }

    private func parent(in s: StackRecord) -> ContainerParent {
        s.isGreenRoom ? .greenRoom(s.id) : .stack(s.id)
    }

    /// The containment will-calls of `n` (joiners, then leavers top first), then its navigation.
    private mutating func leave(_ n: Navigation) {
        // Pushed last to first: `pending` runs from its end.
        pending.append(.navigate(n))
        for c in n.left.reversed() { pending.append(.run(.willMove(c, to: nil), .report)) }
        for c in n.joined.reversed() { pending.append(.run(.willMove(c, to: n.stack.id), .report)) }
    }

    /// The top that appears in navigation `n`, from the stack as it is now (nil: the window is hidden, or
    /// the top did not change, or it failed).
    private func incomingTop(of n: Navigation) -> ContainerRecord? {
        guard n.stack.isShown, let top = n.stack.top, top !== n.oldTop, !top.isFailed, !top.isDestroyed else { return nil }
        return top
    }

    /// A pushed container's failures are its caller's; every other one is reported.
    private func onFailure(of c: ContainerRecord, in n: Navigation) -> OnFailure { c === n.callerOwns ? .stop : .report }

    /// The appearance calls of a navigation once its incoming top has loaded: the outgoing begins
    /// disappearing, the incoming begins appearing and lays out; then the end, after the transition or at
    /// once.
    private mutating func navigate(_ n: Navigation, incoming: ContainerRecord?) {
        let s = n.stack
        let newTop = s.isShown ? s.top : nil
        let outgoing = n.oldTop.flatMap { old in
            old !== newTop && (old.state == .appeared || old.state == .appearing) ? old : nil
        }
        let end = NavigationEnd(stack: s, outgoing: outgoing, incoming: incoming, joined: n.joined, left: n.left,
                                animated: n.animated)
        // Pushed last to first: `pending` runs from its end.
        finish(.navigation(end), animated: n.animated && (incoming != nil || outgoing != nil), callerOwns: n.callerOwns)
        if let incoming { pending.append(.run(.beginAppearing(incoming, animated: n.animated, size: s.size), onFailure(of: incoming, in: n))) }
        if let outgoing { pending.append(.run(.beginDisappearing(outgoing, animated: n.animated), .report)) }
    }

    /// The end of a transition: after this operation's duration when `animated` (a timer), else now.
    private mutating func finish(_ t: StackTransition, animated: Bool, callerOwns: ContainerRecord? = nil) {
        if animated && animationMs > 0 {
            pending.append(.startTransition(t.stack, t))
        } else {
            scheduleCompletion(of: t, callerOwns: callerOwns)
        }
    }

    /// Runs the end calls of a transition next (its animation ended, or there is none). The failures of
    /// `callerOwns` stop the operation (a push not animated); every other one is reported.
    private mutating func scheduleCompletion(of t: StackTransition, callerOwns: ContainerRecord?) {
        func onFailure(_ c: ContainerRecord) -> OnFailure { c === callerOwns ? .stop : .report }
        // Pushed last to first: `pending` runs from its end.
        switch t {
        case .navigation(let e):
            for c in e.left.reversed() {
                pending.append(.clearParent(c, ifIn: e.stack))
                pending.append(.run(.didMove(c, to: nil), .report))
            }
            for c in e.joined.reversed() { pending.append(.run(.didMove(c, to: e.stack.id), onFailure(c))) }
            if let c = e.incoming { pending.append(.run(.endIf(c, .appearing, animated: e.animated), onFailure(c))) }
            if let c = e.outgoing { pending.append(.run(.endIf(c, .disappearing, animated: e.animated), .report)) }
        case .cancelledPop(let top, let s, let revealed):
            pending.append(.run(.didMove(top, to: s.id), .report))
            pending.append(.run(.appear(top, animated: true, size: s.size), .report))
            pending.append(.run(.disappear(revealed, animated: true), .report))
        }
    }

    private func build(_ a: Actions) -> LifecycleActions {
        switch a {
        case .willMove(let c, let parent):
            guard !c.isFailed, !c.isDestroyed else { return LifecycleActions() }
            lifecycle.stackMembershipChanged(c, joined: parent != nil)
            return lifecycle.willMove(c, toParent: parent)
        case .didMove(let c, let parent):
            return c.isFailed || c.isDestroyed ? LifecycleActions() : lifecycle.didMove(c, toParent: parent)
        case .load(let c):
            return c.isFailed || c.isDestroyed ? LifecycleActions() : lifecycle.loadIfNeeded(c, size: nil)
        case .beginDisappearing(let c, let animated):
            guard c.state == .appeared || c.state == .appearing else { return LifecycleActions() }
            return lifecycle.begin(c, appearing: false, animated: animated)
        case .beginAppearing(let c, let animated, let size):
            guard c.state == .disappeared || c.state == .disappearing else { return LifecycleActions() }
            return lifecycle.begin(c, appearing: true, animated: animated, size: size, layout: .afterWillAppear)
        case .endIf(let c, let state, let animated):
            return c.state == state ? lifecycle.end(c, animated: animated) : LifecycleActions()
        case .appear(let c, let animated, let size):
            return lifecycle.appear(c, animated: animated, size: size, layout: .afterWillAppear)
        case .disappear(let c, let animated): return lifecycle.disappear(c, animated: animated)
        case .layout(let c, let size): return lifecycle.layout(c, size: size)
        case .teardown(let c): return lifecycle.teardown(c)
        }
    }
}

/// A stack's running transition: whose end calls are still to come.
public enum StackTransition {
    /// A push, pop, popToRoot, setContainers or finished interactive pop.
    case navigation(NavigationEnd)
    /// A cancelled interactive pop: `revealed` goes back off screen and `top` comes back.
    case cancelledPop(ContainerRecord, from: StackRecord, revealed: ContainerRecord)

    var stack: StackRecord {
        switch self {
        case .navigation(let e): e.stack
        case .cancelledPop(_, let s, _): s
        }
    }
}

/// The end calls of a navigation: the outgoing top's `viewDidDisappear`, the incoming top's
/// `viewDidAppear`, then `didMoveToParent` for those that joined and (with `nil`) those that left.
public struct NavigationEnd {
    public let stack: StackRecord
    /// The top that is disappearing (nil: none was on screen).
    public let outgoing: ContainerRecord?
    /// The top that is appearing (nil: the top did not change, or the window is hidden).
    public let incoming: ContainerRecord?
    public let joined: [ContainerRecord]
    /// Top first.
    public let left: [ContainerRecord]
    public let animated: Bool
}
