/// Push, pop, remove, hide and destroy with balanced appearance calls (docs/lifecycle.md "Stacks"), as a
/// machine that hands the host one step at a time. Animated transitions end after `animationMs` on the
/// host clock; starting another transition on the same stack first completes the running one (its end
/// calls are delivered).
///
/// What an operation does next can depend on whether a hook failed, so it cannot hand over all its
/// actions at once. Instead each input returns the next step: lifecycle actions to perform (the host
/// answers with the failure, if one), a failure to report (the host tears that container down, which may
/// itself change the stack, and resumes), or a timer to start or cancel. The operation builds each step's
/// actions only when it gets there, from the records as they are then, exactly where a call-and-return
/// version would. It holds no reference to the host; a running animation is data on its stack
/// (`StackTransition`), not a closure.
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

    /// What a failed hook means for the rest of the operation.
    private enum OnFailure {
        /// The operation stops and the caller gets the failure.
        case stop
        /// Reported; the rest goes on.
        case report
        /// Reported, and the next `n` instructions (the rest of its block) are skipped.
        case reportSkipping(Int)
        /// Dropped (a teardown's hooks).
        case ignore
    }

    /// Lifecycle inputs, built when reached.
    private enum Actions {
        case willMove(ContainerRecord, to: String?)
        case didMove(ContainerRecord, to: String?)
        case begin(ContainerRecord, appearing: Bool, animated: Bool, size: Size?)
        case end(ContainerRecord, animated: Bool)
        /// end, if the container is still disappearing (a failure meanwhile may have brought it back).
        case endIfDisappearing(ContainerRecord, animated: Bool)
        case appear(ContainerRecord, size: Size)
        case disappear(ContainerRecord)
        case layout(ContainerRecord, size: Size)
        case teardown(ContainerRecord)
    }

    private enum Instruction {
        case run(Actions, OnFailure)
        case completeTransition(StackRecord)
        case pushRest(ContainerRecord, StackRecord, animated: Bool)
        case pushAfterWillMove(ContainerRecord, StackRecord, old: ContainerRecord?, animated: Bool)
        case popRest(StackRecord, animated: Bool)
        case popAfterWillMove(ContainerRecord, StackRecord, revealed: ContainerRecord?, animated: Bool)
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
    private let animationMs: Double
    /// Instructions still to run, the next last.
    private var pending: [Instruction]
    private var state = State.ready
    /// `pop`: the container it took off (nil: the stack was empty).
    public private(set) var popped: ContainerRecord?
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

    // MARK: Operations

    /// Pushes `c` (which the caller has taken out of any other parent). The new top gets willAppear, the
    /// old top willDisappear, then didAppear / didDisappear. A failure of `c`'s hooks before the push is
    /// over stops it (`done` carries it); the old top's failures are reported.
    public static func push(_ c: ContainerRecord, onto s: StackRecord, animated: Bool, animationMs: Double = 300) -> StackOperation {
        StackOperation(animationMs: animationMs, .completeTransition(s), then: .pushRest(c, s, animated: animated))
    }

    /// Pops the top container (`popped`); the one below appears (in a green room too, offscreen).
    public static func pop(_ s: StackRecord, animated: Bool, animationMs: Double = 300) -> StackOperation {
        // Nothing to pop changes nothing: a running transition (the pop that emptied the stack) keeps its
        // time.
        guard !s.items.isEmpty else { return StackOperation(animationMs: animationMs) }
        return StackOperation(animationMs: animationMs, .completeTransition(s), then: .popRest(s, animated: animated))
    }

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

    /// Shows or hides the window: the top appears (loading and laying out) or disappears.
    public static func setHidden(_ s: StackRecord, _ hidden: Bool) -> StackOperation {
        guard s.isHidden != hidden else { return StackOperation(animationMs: 0) }
        return StackOperation(animationMs: 0, .completeTransition(s), then: .setHiddenRest(s, hidden))
    }

    /// Resizes the window; the top (if loaded) lays out again, others when they next appear.
    public static func resize(_ s: StackRecord, to size: Size) -> StackOperation {
        s.size = size
        guard !s.isHidden, let top = s.top, top.viewLoaded else { return StackOperation(animationMs: 0) }
        return StackOperation(animationMs: 0, .run(.layout(top, size: size), .report))
    }

    /// Tears the stack down: the running animation completes, then every container (top first)
    /// disappears if on screen and is deinited.
    public static func destroy(_ s: StackRecord) -> StackOperation {
        StackOperation(animationMs: 0, .completeTransition(s), then: .destroyRest(s))
    }

    /// Delivers a running animation's end calls now.
    public static func completeTransition(_ s: StackRecord) -> StackOperation {
        StackOperation(animationMs: 0, .completeTransition(s))
    }

    /// The stack's animation timer fired: its end calls are delivered (unless a later operation did).
    public static func transitionEnded(_ s: StackRecord) -> StackOperation {
        guard let t = s.transition else { return StackOperation(animationMs: 0) }
        s.transition = nil
        var op = StackOperation(animationMs: 0)
        op.scheduleCompletion(of: t.pending)
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
                case .reportSkipping(let n):
                    pending.removeLast(n)
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
                guard let t = s.transition else { continue }
                s.transition = nil
                scheduleCompletion(of: t.pending)
                state = .cancelling
                return .cancelTimer(t.timer)

            case .pushRest(let c, let s, let animated):
                let old = s.top
                // The parent is set first so every event of the move says where it happens (offscreen
                // for the green room).
                c.parent = s.isGreenRoom ? .greenRoom(s.id) : .stack(s.id)
                then(.run(.willMove(c, to: s.id), .stop), .pushAfterWillMove(c, s, old: old, animated: animated))

            case .pushAfterWillMove(let c, let s, let old, let animated):
                s.items.append(c)
                guard !s.isHidden else {
                    then(.run(.didMove(c, to: s.id), .stop))
                    continue
                }
                let oldVisible = old.map { $0.state == .appeared || $0.state == .appearing } ?? false
                let covered = oldVisible ? old : nil
                // Pushed last to first: `pending` runs from its end.
                if animated {
                    pending.append(.startTransition(s, .push(c, onto: s, old: covered)))
                } else {
                    // Not animated: the end calls run now, and a failure of the pushed container is the
                    // caller's to report; the old top's is reported.
                    if let covered { pending.append(.run(.end(covered, animated: false), .report)) }
                    pending.append(.run(.didMove(c, to: s.id), .stop))
                    pending.append(.run(.end(c, animated: false), .stop))
                }
                if let covered { pending.append(.run(.begin(covered, appearing: false, animated: animated, size: nil), .report)) }
                pending.append(.run(.begin(c, appearing: true, animated: animated, size: s.size), .stop))

            case .popRest(let s, let animated):
                guard let top = s.items.popLast() else { continue }
                popped = top
                // The one below appears again, in a green room too (offscreen): it is a shown window, so
                // the next warm container taken leaves from on screen like the first.
                let revealed = s.top
                then(.run(.willMove(top, to: nil), .report), .popAfterWillMove(top, s, revealed: revealed, animated: animated))

            case .popAfterWillMove(let top, let s, let revealed, let animated):
                let visible = !s.isHidden && (top.state == .appeared || top.state == .appearing)
                let ending = StackTransition.pop(top, from: s, revealed: s.isHidden ? nil : revealed, visible: visible, animated: animated)
                // Pushed last to first: `pending` runs from its end.
                if animated && visible {
                    pending.append(.startTransition(s, ending))
                } else {
                    scheduleCompletion(of: ending)
                }
                if visible { pending.append(.run(.begin(top, appearing: false, animated: animated, size: nil), .report)) }
                if let revealed, !s.isHidden {
                    pending.append(.run(.begin(revealed, appearing: true, animated: animated, size: s.size), .report))
                }

            case .removeRest(let c, let s):
                if s.top === c {
                    then(.completeTransition(s), .popRest(s, animated: false))
                    continue
                }
                guard let i = s.items.firstIndex(where: { $0 === c }) else { continue }
                s.items.remove(at: i)
                pending.append(.clearParent(c, ifIn: nil))
                pending.append(.run(.didMove(c, to: nil), .report))
                then(.run(.willMove(c, to: nil), .reportSkipping(1)), .run(.disappear(c), .report))

            case .discardRest(let c, let s):
                s.items.removeAll { $0 === c }
                c.parent = .none

            case .setHiddenRest(let s, let hidden):
                s.isHidden = hidden
                guard let top = s.top else { continue }
                then(.run(hidden ? .disappear(top) : .appear(top, size: s.size), .report))

            case .destroyRest(let s):
                guard let c = s.items.popLast() else { continue }
                then(.run(.teardown(c), .ignore), .destroyRest(s))

            case .startTransition(let s, let transition):
                state = .startingTimer(s, transition)
                return .startTimer(s, ms: animationMs)

            case .clearParent(let c, let s):
                // The parent changes last, so every event of the move says where it happened.
                if let s {
                    if c.parent == (s.isGreenRoom ? .greenRoom(s.id) : .stack(s.id)) { c.parent = .none }
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

    /// Runs the end calls of a transition next (its animation ended, or there is none).
    private mutating func scheduleCompletion(of t: StackTransition) {
        // Pushed last to first: `pending` runs from its end.
        switch t {
        case .push(let c, let s, let old):
            // When the pushed container failed, it was torn down and `old`, the top again, appeared at
            // once: its transition is over, and ending it again would be unbalanced.
            if let old { pending.append(.run(.endIfDisappearing(old, animated: true), .report)) }
            then(.run(.end(c, animated: true), .reportSkipping(1)), .run(.didMove(c, to: s.id), .report))
        case .pop(let top, let s, let revealed, let visible, let animated):
            pending.append(.clearParent(top, ifIn: s))
            pending.append(.run(.didMove(top, to: nil), .report))
            if visible { pending.append(.run(.end(top, animated: animated), .reportSkipping(1))) }
            if let revealed { pending.append(.run(.end(revealed, animated: animated), .report)) }
        }
    }

    private func build(_ a: Actions) -> LifecycleActions {
        switch a {
        case .willMove(let c, let parent): lifecycle.willMove(c, toParent: parent)
        case .didMove(let c, let parent): lifecycle.didMove(c, toParent: parent)
        case .begin(let c, let appearing, let animated, let size): lifecycle.begin(c, appearing: appearing, animated: animated, size: size)
        case .end(let c, let animated): lifecycle.end(c, animated: animated)
        case .endIfDisappearing(let c, let animated): c.state == .disappearing ? lifecycle.end(c, animated: animated) : LifecycleActions()
        case .appear(let c, let size): lifecycle.appear(c, size: size)
        case .disappear(let c): lifecycle.disappear(c)
        case .layout(let c, let size): lifecycle.layout(c, size: size)
        case .teardown(let c): lifecycle.teardown(c)
        }
    }
}

/// A stack's running push or pop animation: whose end calls are still to come.
public enum StackTransition {
    /// `c` was pushed onto `stack`; `old`, the top it covered, is disappearing (nil: none was on screen).
    case push(ContainerRecord, onto: StackRecord, old: ContainerRecord?)
    /// `top` was popped off `stack`; `revealed` is appearing (nil: none, or the window is hidden).
    case pop(ContainerRecord, from: StackRecord, revealed: ContainerRecord?, visible: Bool, animated: Bool)
}
