/// One input of a page session, as a machine that hands the host one step at a time (in the shape of
/// `StackOperation`). What the session does next can depend on whether a child could be made or a hook
/// failed, so it cannot hand over all its work at once: each answer from the host goes back in with
/// `next`, and the operation builds each step's lifecycle actions only when it gets there, from the
/// records as they are then.
///
/// Failures travel as in call-and-return code, but as data: a failed step throws a `PageError` that
/// unwinds the instructions still pending to the nearest frame (a catch or a `defer` of that code);
/// one that reaches the bottom is the operation's result. A running animation is data on the session
/// (`PageSession.animation`), and its end is an operation of its own (`PageSession.animationEnded`).
public struct PageOperation {
    /// What the host does next.
    public enum Step {
        /// Perform `actions` (the operation's, as they are now), then answer `.performed` with the first
        /// hook failure (nil: none).
        case perform
        /// Make a container for page `index` and attach it to the session's view (created, taken from a
        /// reuse queue and re-configured, or taken from a prerender pool; containment hooks run). Answer
        /// `.made`, or `.notMade` with the failure.
        case makeChild(Int)
        /// Detach and deinit a child the session let go of (willMoveToParent nil, didMoveToParent nil,
        /// deinit). Answer `.resumed`.
        case release(ContainerRecord, index: Int)
        /// Reuse mode: park a child that left current +- 1 in its class's reuse queue. Answer `.resumed`.
        case recycle(ContainerRecord, index: Int)
        /// Emit a `page` event (`willTransition {from, to}`, `didTransition {from, to, completed}`).
        /// Answer `.resumed`.
        case event(PageTransitionEvent, from: Int, to: Int, completed: Bool?)
        /// The session started or stopped tracking (dragging, decelerating, animating). Answer `.resumed`.
        case trackingChanged
        /// A child failed where no reply carries the error (an animation's end, a hide mid-gesture): the
        /// session has let it go; the host tears it down (docs/plugins.md), then answers `.resumed`.
        case report(ContainerFailure)
        /// Start the session's animation timer: after `ms`, the host runs `PageSession.animationEnded`.
        /// Answer `.timerStarted` with its token.
        case startTimer(ms: Double)
        /// Cancel the animation timer; answer `.resumed`.
        case cancelTimer(Int)
        /// The operation is over; an error is the caller's to report.
        case done(PageError?)
    }

    /// What the host says back.
    public enum Input {
        case start
        case performed(ContainerFailure?)
        case made(ContainerRecord)
        case notMade(ContainerFailure)
        case timerStarted(Int)
        case resumed
    }

    /// Lifecycle inputs, built when reached. The `rule` ones are the session's own rules, which take a
    /// page over from a forwarded transition (`PageSession.takeOver`) as they are performed.
    enum Actions {
        case begin(ContainerRecord, appearing: Bool, animated: Bool, size: Size?)
        case end(ContainerRecord, animated: Bool)
        case appear(ContainerRecord, animated: Bool, size: Size?)
        case disappear(ContainerRecord, animated: Bool)
        case ruleBegin(ContainerRecord, appearing: Bool, animated: Bool, size: Size?)
        case ruleEnd(ContainerRecord, animated: Bool)
        case ruleAppear(ContainerRecord, animated: Bool, size: Size?)
        case ruleDisappear(ContainerRecord)
        /// Loads a neighbour ahead of time: its view and its layout at the page size, no appearance.
        case load(ContainerRecord, size: Size)
    }

    /// What a failed hook means for the rest of the operation.
    enum OnFailure {
        /// Thrown: unwinds to the nearest frame.
        case propagate
        /// Dropped (a child on its way out).
        case ignore
        /// The page being shown failed before anything else moved: it leaves the session, the
        /// transition is reported as not completed, and the error is thrown.
        case showNewFailed(ContainerRecord, from: Int, to: Int)
        /// The page being left failed as it began to disappear: it leaves; the show goes on, and the
        /// caller gets that failure at the end.
        case showOldFailed(ContainerRecord)
        /// At a show's end: the destination failed (it did not arrive), or the page it left did; either
        /// leaves the session, the rest goes on, and the failures are collected.
        case finishNewFailed(ContainerRecord)
        case finishLeavingFailed(ContainerRecord)
        /// The page brought back after a failed destination failed too.
        case finishRevealFailed(ContainerRecord)
        /// The page leaves the session and the failure goes to the host.
        case forgetAndReport(ContainerRecord)
        /// The page a swipe is heading to failed as it began to appear: it leaves, the guess stays where
        /// it was, and the error is thrown.
        case incomingFailed(ContainerRecord, lastGuess: Int)
    }

    /// Where a thrown error stops, or passes through doing something first.
    enum Frame {
        /// The guess of a swipe whose page could not be made goes back; the error goes on.
        case restoreGuess(Int?)
        /// Coming to rest failed: the failed page leaves, the others come to rest balanced, then the
        /// error goes on.
        case settleFailed(old: Int, new: Int, guess: Int?)
        /// Settling because the session hides: a failure goes to the host, and the hide goes on.
        case reportFailure
        /// Tracking changed whichever way coming to rest ended.
        case trackingChanged
    }

    /// Who ran a show's end calls, which says where its failures go.
    enum Finisher {
        /// Its animation ended (or was interrupted): every failure goes to the host.
        case animationEnded
        /// A show that is not animated: the first failure is the caller's (after a failure of the page it
        /// left, which came first).
        case showNotAnimated
    }

    enum Instruction {
        case run(Actions, OnFailure)
        /// The child of page `index`, attached (made by the host when there is none).
        case attach(Int, alsoRelated: Int?)
        case releaseNow(Int)
        case recycleNow(Int)
        case handOver(ContainerRecord, index: Int, recycle: Bool)
        case emit(PageTransitionEvent, from: Int, to: Int, completed: Bool?)
        case tracking
        case report(ContainerFailure)
        /// Throws: unwinds the pending instructions to the nearest frame.
        case fail(PageError)
        case frame(Frame)

        case completeAnimation
        case finish(PageTransition, Finisher)
        case finishAfterNew(PageTransition, Finisher)
        case finishAfterLeaving(PageTransition, Finisher)
        case finishEnd(Finisher)
        case cleanUpAtRest
        case cleanUpAfterDeferred
        case setVisibleRest(Bool, animated: Bool)
        case appearCurrent(animated: Bool)
        case forwardBeginRest(appearing: Bool, animated: Bool)
        case forwardBeginCurrent(appearing: Bool, animated: Bool)
        case setForwarded(ContainerRecord)
        case settleForHide
        case settle(Double)
        case settleElsewhere(old: Int, new: Int, oldChild: ContainerRecord?)
        case settleWithoutGuess(old: Int, new: Int)
        case settleRest(old: Int, new: Int, guess: Int?)
        case restChild(Int)
        case settleFailedRest(old: Int, new: Int, guess: Int?, ContainerFailure)
        case showAfterCompletion(Int, animated: Bool, interactive: Bool = false)
        case showOffscreenRest(Int)
        case showOnscreenRest(to: Int, from: Int, old: ContainerRecord?, animated: Bool, interactive: Bool)
        case showAfterNewBegan(to: Int, from: Int, old: ContainerRecord?, new: ContainerRecord, animated: Bool, interactive: Bool)
        case showAfterOldBegan(to: Int, from: Int, new: ContainerRecord, animated: Bool, interactive: Bool)
        /// A finished or cancelled curl: its end calls after `animationMs` (a timer), or now.
        case endCurl(PageTransition)
        /// A cancelled curl's end calls.
        case cancelledCurlEnd(PageTransition)
        case beginDragRest(Double, newInteraction: Bool)
        case didScrollAfterAttach(Int, lastGuess: Int)
        case didScrollRest(lastGuess: Int)
        case destroyRest
        case destroyEnd
        /// The child of page `index`, made by the `attach` before it, loads (neighbour preloading).
        case preloadChild(Int)
        /// After their children were released: pages `at ..< at + count` go, the rest move down.
        case removePagesRest(at: Int, count: Int)
    }

    /// What the operation waits for.
    private enum State {
        case ready
        case performing(OnFailure)
        case making(Int, alsoRelated: Int?)
        case resuming
        case startingTimer(PageTransition)
        case done
    }

    private let session: PageSession
    private let lifecycle = Lifecycle()
    /// Instructions still to run, the next last.
    private var pending: [Instruction] = []
    private var state = State.ready
    /// `purgeForMemoryWarning`: the pages it releases.
    public internal(set) var purged: [Int] = []

    /// What a `perform` step asks for (read where it lies: a list is large).
    public var actions: LifecycleActions {
        _read {
            if let stepActions { yield stepActions.list } else { yield LifecycleActions() }
        }
    }
    /// Made at the first perform, so that the operation itself stays small to make, return and drop.
    private var stepActions: StepActions?

    /// A show's registers: what its begin calls left (the page it leaves, and that page's failure) and
    /// what its end calls did (whether it arrived, the page still leaving, the failures in order). Kept
    /// apart and made when first needed: most inputs never need them, and the operation stays small.
    private final class Registers {
        var showLeaving: ContainerRecord?
        var beginFailure: ContainerFailure?
        var arrived = true
        var finishLeaving: ContainerRecord?
        var finishFailures: [ContainerFailure] = []
    }
    private var registers: Registers?
    private var r: Registers {
        mutating get {
            if let registers { return registers }
            let made = Registers()
            registers = made
            return made
        }
    }

    /// An operation with nothing to do.
    init(_ session: PageSession) {
        self.session = session
    }

    /// An operation of `instructions`, in order (nil ones skipped).
    init(_ session: PageSession, _ instructions: Instruction?...) {
        self.session = session
        for i in instructions.reversed() { if let i { pending.append(i) } }
    }

    /// An operation that is over at once with `error` (a check failed before anything changed).
    init(_ session: PageSession, failing error: PageError) {
        self.init(session, .fail(error))
    }

    /// Neighbour preloading: each page of `indices` is attached (made when it has no child), then loads.
    mutating func preload(_ indices: [Int]) {
        then(indices.flatMap { [Instruction.attach($0, alsoRelated: nil), .preloadChild($0)] })
    }

    /// Removing pages: each removed page's child is released (brought to rest first), then the indices move.
    mutating func removePages(at: Int, count k: Int) {
        then((at..<(at + k)).map { Instruction.releaseNow($0) } + [.removePagesRest(at: at, count: k)])
    }

    /// Releases the children of `indices`, in order.
    init(_ session: PageSession, releasing indices: [Int]) {
        self.session = session
        pending = indices.reversed().map { .releaseNow($0) }
    }

    /// Takes the host's answer to the last step and returns the next.
    public mutating func next(_ input: Input) -> Step {
        switch (state, input) {
        case (.ready, .start), (.resuming, .resumed):
            break
        case (.performing(let onFailure), .performed(let failure)):
            if let failure, let step = handle(failure, onFailure) { return step }
        case (.making(let index, let alsoRelated), .made(let c)):
            then(session.attach(c, at: index, alsoRelated: alsoRelated).map { .releaseNow($0) })
        case (.making, .notMade(let failure)):
            if let step = unwind(.child(failure)) { return step }
        case (.startingTimer(let t), .timerStarted(let token)):
            session.animation = (t, token)
        default:
            preconditionFailure("PageOperation: \(input) does not answer the last step")
        }
        return advance()
    }

    /// Runs instructions until one needs the host.
    private mutating func advance() -> Step {
        while let instruction = pending.popLast() {
            if let step = execute(instruction) { return step }
        }
        state = .done
        return .done(nil)
    }

    /// Runs `instructions` next, in order, before what was pending. One call per instruction executed: a
    /// second call would run before the first's.
    private mutating func then(_ instructions: [Instruction]) {
        pending.append(contentsOf: instructions.reversed())
    }

    private mutating func then(_ instructions: Instruction?...) {
        for i in instructions.reversed() { if let i { pending.append(i) } }
    }

    private mutating func wait(_ next: State, _ step: Step) -> Step? {
        state = next
        return step
    }

    // MARK: Failures

    /// A hook failed: what `onFailure` says happens next (a step when the operation is over).
    private mutating func handle(_ f: ContainerFailure, _ onFailure: OnFailure) -> Step? {
        let s = session
        switch onFailure {
        case .propagate:
            return unwind(.child(f))
        case .ignore:
            break
        case .showNewFailed(let new, let from, let to):
            s.forget(new)
            then(.emit(.didTransition, from: from, to: to, completed: false), .fail(.child(f)))
        case .showOldFailed(let old):
            s.forget(old)
            r.showLeaving = nil
            r.beginFailure = f
        case .finishNewFailed(let new):
            s.forget(new)
            r.arrived = false
            r.finishFailures.append(f)
        case .finishLeavingFailed(let o):
            s.forget(o)
            r.finishLeaving = nil
            r.finishFailures.append(f)
        case .finishRevealFailed(let o):
            s.forget(o)
            r.finishFailures.append(f)
        case .forgetAndReport(let c):
            s.forget(c)
            then(.report(f))
        case .incomingFailed(let incoming, let lastGuess):
            s.forget(incoming)
            s.guess = lastGuess == s.current ? nil : lastGuess
            return unwind(.child(f))
        }
        return nil
    }

    /// Throws `error`: pending instructions are dropped up to the nearest frame, which catches it or
    /// does its part and passes it on. Uncaught, the operation is done with it.
    private mutating func unwind(_ error: PageError) -> Step? {
        let s = session
        while let instruction = pending.popLast() {
            guard case .frame(let frame) = instruction else { continue }
            switch frame {
            case .restoreGuess(let g):
                s.guess = g
            case .settleFailed(let old, let new, let g):
                guard case .child(let failure) = error else { continue }
                // The failed page leaves; the session rests on `new` when its page still has a child,
                // else back on `old`, and every other child comes to rest balanced (docs/plugins.md: the
                // failure is that container's alone).
                if let failed = s.children.values.first(where: { $0.id == failure.container }) { s.forget(failed) }
                s.current = s.children[new] != nil ? new : old
                then(s.children.keys.sorted().map { .restChild($0) } + [.settleFailedRest(old: old, new: new, guess: g, failure)])
                return nil
            case .reportFailure:
                if case .child(let failure) = error { then(.report(failure)) }
                return nil
            case .trackingChanged:
                then(.tracking, .fail(error))
                return nil
            }
        }
        state = .done
        return .done(error)
    }

    // MARK: Instructions

    private mutating func execute(_ instruction: Instruction) -> Step? {
        let s = session
        switch instruction {
        case .run(let a, let onFailure):
            let built = build(a)
            guard !built.isEmpty else { return nil }
            if let stepActions { stepActions.list = built } else { stepActions = StepActions(built) }
            return wait(.performing(onFailure), .perform)

        case .removePagesRest(let at, let k):
            // A child of a removed page that was deferred or failed is gone already; the others were released.
            for i in at..<(at + k) { _ = s.detach(i) }
            s.count -= k
            s.shiftPages(from: at + k, by: -k)

        case .preloadChild(let index):
            guard let c = s.children[index], !c.viewLoaded else { return nil }
            then(.run(.load(c, size: s.pageSize), .forgetAndReport(c)))

        case .attach(let index, let alsoRelated):
            if s.children[index] != nil {
                s.touch(index)
                return nil
            }
            return wait(.making(index, alsoRelated: alsoRelated), .makeChild(index))

        case .releaseNow(let index):
            guard let c = s.detach(index) else { return nil }
            // A page at rest is disappeared; anything else is brought there balanced first.
            then(.run(.ruleDisappear(c), .ignore), .handOver(c, index: index, recycle: false))

        case .recycleNow(let index):
            guard let c = s.detach(index) else { return nil }
            then(.run(.ruleDisappear(c), .ignore), .handOver(c, index: index, recycle: true))

        case .handOver(let c, let index, let recycle):
            // A child that failed on its way out (its disappearance was still running) is released, never
            // queued for reuse: a failed container runs nothing but deinit.
            return wait(.resuming, recycle && !c.isFailed ? .recycle(c, index: index) : .release(c, index: index))

        case .emit(let kind, let from, let to, let completed):
            return wait(.resuming, .event(kind, from: from, to: to, completed: completed))

        case .tracking:
            return wait(.resuming, .trackingChanged)

        case .report(let failure):
            return wait(.resuming, .report(failure))

        case .fail(let error):
            return unwind(error)

        case .frame(let frame):
            // Reached without an error: only a `defer` does anything.
            if case .trackingChanged = frame { return wait(.resuming, .trackingChanged) }

        case .completeAnimation:
            if let c = s.curl {
                // A curl nobody finished (the session hides, or goes): called off at once.
                s.curl = nil
                var t = c.transition
                t.cancelled = true
                then(.finish(t, .animationEnded))
                return nil
            }
            guard let a = s.animation else { return nil }
            then(.finish(a.transition, .animationEnded))
            return wait(.resuming, .cancelTimer(a.timer))

        case .finish(let t, let finisher):
            s.animation = nil
            s.phase = .idle
            if t.cancelled {
                then(.cancelledCurlEnd(t))
                return nil
            }
            r.arrived = true
            r.finishLeaving = t.leaving
            r.finishFailures = []
            if s.transitionStyle == .pageCurl {
                // A curl ends the other way round: the page it leaves disappears before the new one has
                // appeared (wangling.me's logs of UIPageViewController).
                then(t.leaving.map { .run(.ruleEnd($0, animated: t.animated), .finishLeavingFailed($0)) },
                     .run(.ruleEnd(t.new, animated: t.animated), .finishNewFailed(t.new)), .finishAfterLeaving(t, finisher))
                return nil
            }
            then(.run(.ruleEnd(t.new, animated: t.animated), .finishNewFailed(t.new)), .finishAfterNew(t, finisher))

        case .cancelledCurlEnd(let t):
            // wangling.me, cancelled curl: New WD, Current WA, New DD, Current DA. The session stays.
            let new = t.new, old = t.leaving
            then(.run(.ruleBegin(new, appearing: false, animated: t.animated, size: nil), .forgetAndReport(new)),
                 old.map { .run(.ruleBegin($0, appearing: true, animated: t.animated, size: s.pageSize), .forgetAndReport($0)) },
                 .run(.ruleEnd(new, animated: t.animated), .forgetAndReport(new)),
                 old.map { .run(.ruleEnd($0, animated: t.animated), .forgetAndReport($0)) },
                 .cleanUpAtRest, .emit(.didTransition, from: t.from, to: t.to, completed: false), .tracking)

        case .endCurl(let t):
            guard s.animationMs > 0 else {
                then(.finish(t, .animationEnded))
                return nil
            }
            s.phase = .animating
            return wait(.startingTimer(t), .startTimer(ms: s.animationMs))

        case .finishAfterNew(let t, let finisher):
            then(r.finishLeaving.map { .run(.ruleEnd($0, animated: t.animated), .finishLeavingFailed($0)) },
                 .finishAfterLeaving(t, finisher))

        case .finishAfterLeaving(let t, let finisher):
            var reveal: Instruction?
            if r.arrived {
                s.current = t.to
                s.offset = Double(t.to) * s.width
            } else if let o = r.finishLeaving, s.isVisible {
                // The destination failed: the page it was leaving comes back, as a stack reveals the
                // container under a failed top.
                reveal = .run(.ruleAppear(o, animated: t.animated, size: s.pageSize), .finishRevealFailed(o))
            }
            then(reveal, .cleanUpAtRest, .emit(.didTransition, from: t.from, to: t.to, completed: r.arrived), .tracking,
                 .finishEnd(finisher))

        case .finishEnd(let finisher):
            let failures = r.finishFailures
            r.finishFailures = []
            // The first failure is the caller's to report; any other goes to the host at once.
            var rest: [Instruction] = failures.dropFirst().map { .report($0) }
            switch finisher {
            case .animationEnded:
                if let first = failures.first { rest.append(.report(first)) }
            case .showNotAnimated:
                if let b = r.beginFailure {
                    if let first = failures.first { rest.append(.report(first)) }
                    rest.append(.fail(.child(b)))
                } else if let first = failures.first {
                    rest.append(.fail(.child(first)))
                }
            }
            then(rest)

        case .cleanUpAtRest:
            // At rest: deferred pages go (except the final page); reuse mode recycles what left current +- 1.
            then(s.deferred.sorted().filter { $0 != s.current }.map { .releaseNow($0) } + [.cleanUpAfterDeferred])

        case .cleanUpAfterDeferred:
            s.deferred.remove(s.current)
            switch s.cacheMode {
            case .limit: then(s.evictions().map { .releaseNow($0) })
            case .reuse:
                // MJianshu keeps current +- 1 alive; neighbour preloading widens that to its limit.
                let keep = max(1, s.offscreenLimit)
                then(s.children.keys.sorted().filter { abs($0 - s.current) > keep }.map { .recycleNow($0) })
            }

        case .setVisibleRest(let visible, let animated):
            s.isVisible = visible
            if visible {
                then(.attach(s.current, alsoRelated: nil), .appearCurrent(animated: animated))
            } else if let c = s.attached(s.current) {
                // Hiding makes no child: a page whose child failed has nothing on screen to leave.
                then(.run(.disappear(c, animated: animated), .propagate))
            }

        case .appearCurrent(let animated):
            guard let c = s.children[s.current] else { return nil }
            then(.run(.appear(c, animated: animated, size: s.pageSize), .propagate))

        case .forwardBeginRest(let appearing, let animated):
            s.isVisible = appearing
            if appearing {
                then(.attach(s.current, alsoRelated: nil), .forwardBeginCurrent(appearing: true, animated: animated))
            } else if s.attached(s.current) != nil {
                // Disappearing makes no child: a page whose child failed (it left the session) has nothing
                // on screen, and a new one would get unbalanced calls.
                then(.forwardBeginCurrent(appearing: false, animated: animated))
            }

        case .forwardBeginCurrent(let appearing, let animated):
            // A page already where the session is going (its own rules moved it) gets no call.
            guard let c = s.children[s.current], (c.state == .appearing || c.state == .appeared) != appearing else { return nil }
            then(.run(.begin(c, appearing: appearing, animated: animated, size: s.pageSize), .propagate), .setForwarded(c))

        case .setForwarded(let c):
            s.forwarded = (c, c.state)

        case .settleForHide:
            // Hiding mid-gesture: the gesture is settled where it is, so nothing is left half way.
            guard s.phase == .dragging || s.phase == .decelerating else { return nil }
            then(.settle(s.offset), .frame(.reportFailure))

        case .settle(let x):
            settle(at: x)

        case .settleElsewhere(let old, let new, let oldChild):
            guard let nc = s.children[new] else { return nil }
            then(.emit(.willTransition, from: old, to: new, completed: nil),
                 .run(.ruleBegin(nc, appearing: true, animated: true, size: s.pageSize), .propagate),
                 .run(.ruleEnd(nc, animated: true), .propagate),
                 oldChild.map { .run(.ruleEnd($0, animated: true), .propagate) })

        case .settleWithoutGuess(let old, let new):
            guard let nc = s.children[new] else { return nil }
            let oc = s.attached(old)
            then(.emit(.willTransition, from: old, to: new, completed: nil),
                 .run(.ruleBegin(nc, appearing: true, animated: true, size: s.pageSize), .propagate),
                 oc.map { .run(.ruleBegin($0, appearing: false, animated: true, size: nil), .propagate) },
                 .run(.ruleEnd(nc, animated: true), .propagate),
                 oc.map { .run(.ruleEnd($0, animated: true), .propagate) })

        case .settleRest(let old, let new, let g):
            s.current = new
            // A cancelled swipe names the page it gave up on.
            let event: Instruction? = g != nil || new != old
                ? .emit(.didTransition, from: old, to: new == old ? (g ?? new) : new, completed: new != old) : nil
            then(event, .cleanUpAtRest)

        case .restChild(let i):
            guard let c = s.children[i] else { return nil }
            then(.run(i == s.current && s.isVisible ? .ruleAppear(c, animated: false, size: s.pageSize) : .ruleDisappear(c),
                      .forgetAndReport(c)))

        case .settleFailedRest(let old, let new, let g, let failure):
            let event: Instruction? = g != nil || new != old
                ? .emit(.didTransition, from: old, to: new == old ? (g ?? new) : new, completed: s.current != old) : nil
            then(event, .cleanUpAtRest, .fail(.child(failure)))

        case .showAfterCompletion(let index, let animated, let interactive):
            guard index != s.current else { return nil }
            let from = s.current
            guard s.isVisible else {
                // Off screen: the page changes, no appearance calls (nothing is shown).
                then(.attach(index, alsoRelated: nil), .showOffscreenRest(index))
                return nil
            }
            // The current page's child, unless it failed earlier (then nothing is on screen to leave).
            let old = s.attached(from)
            then(.attach(index, alsoRelated: nil), .showOnscreenRest(to: index, from: from, old: old, animated: animated, interactive: interactive))

        case .showOffscreenRest(let index):
            s.current = index
            s.offset = Double(index) * s.width
            then(.cleanUpAtRest)

        case .showOnscreenRest(let to, let from, let old, let animated, let interactive):
            guard let new = s.children[to] else { return nil }
            then(.emit(.willTransition, from: from, to: to, completed: nil),
                 .run(.ruleBegin(new, appearing: true, animated: animated, size: s.pageSize), .showNewFailed(new, from: from, to: to)),
                 .showAfterNewBegan(to: to, from: from, old: old, new: new, animated: animated, interactive: interactive))

        case .showAfterNewBegan(let to, let from, let old, let new, let animated, let interactive):
            // A failing hook fails its container and nothing else (docs/plugins.md): the other page's calls
            // still run, balanced, and the failed one leaves the session (the host tears it down).
            r.showLeaving = old
            r.beginFailure = nil
            then(old.map { .run(.ruleBegin($0, appearing: false, animated: animated, size: nil), .showOldFailed($0)) },
                 .showAfterOldBegan(to: to, from: from, new: new, animated: animated, interactive: interactive))

        case .showAfterOldBegan(let to, let from, let new, let animated, let interactive):
            let t = PageTransition(from: from, to: to, new: new, leaving: r.showLeaving, animated: animated)
            if interactive {
                // The curl gesture holds the transition until it is finished or cancelled.
                s.curl = (t, 0)
                s.phase = .dragging
                then(.tracking, r.beginFailure.map { .fail(.child($0)) })
                return nil
            }
            // A zero duration ends at once, its calls still marked animated.
            guard animated && s.animationMs > 0 else {
                then(.finish(t, .showNotAnimated))
                return nil
            }
            s.phase = .animating
            then(.tracking, r.beginFailure.map { .fail(.child($0)) })
            return wait(.startingTimer(t), .startTimer(ms: s.animationMs))

        case .beginDragRest(let x, let newInteraction):
            if newInteraction {
                s.origin = x
                s.guess = nil
            }
            s.offset = x
            s.phase = .dragging
            then(.tracking)

        case .didScrollAfterAttach(let next, let lastGuess):
            guard let incoming = s.children[next] else { return nil }
            then(.emit(.willTransition, from: lastGuess == s.current ? s.current : lastGuess, to: next, completed: nil),
                 .run(.ruleBegin(incoming, appearing: true, animated: true, size: s.pageSize), .incomingFailed(incoming, lastGuess: lastGuess)),
                 .didScrollRest(lastGuess: lastGuess))

        case .didScrollRest(let lastGuess):
            if lastGuess == s.current {
                if let c = s.attached(s.current) { then(.run(.ruleBegin(c, appearing: false, animated: true, size: nil), .propagate)) }
            } else if let previous = s.children[lastGuess] {
                then(.run(.ruleBegin(previous, appearing: false, animated: true, size: nil), .propagate),
                     .run(.ruleEnd(previous, animated: true), .propagate))
            }

        case .destroyRest:
            then(s.children.keys.sorted().map { .releaseNow($0) } + [.destroyEnd])

        case .destroyEnd:
            s.phase = .idle
            s.guess = nil
        }
        return nil
    }

    /// Comes to rest at `x`: new = round(x / w), clamped to the pages. Tracking changes however it ends.
    private mutating func settle(at x: Double) {
        let s = session
        s.offset = x
        let new = min(max(Int((x / s.width).rounded()), 0), s.count - 1)
        let old = s.current
        let g = s.guess
        s.phase = .idle
        s.guess = nil
        var body: [Instruction] = []
        func enter(_ c: ContainerRecord, appearing: Bool) {
            body.append(.run(.ruleBegin(c, appearing: appearing, animated: true, size: appearing ? s.pageSize : nil), .propagate))
            body.append(.run(.ruleEnd(c, animated: true), .propagate))
        }
        if let g {
            // A page whose child failed earlier has nothing on screen to end.
            let oldChild = s.attached(old)
            if new == old {
                // Cancelled: the old page comes back, the guess goes.
                if let oldChild { enter(oldChild, appearing: true) }
                if let gc = s.children[g] { enter(gc, appearing: false) }
            } else if new == g {
                if let nc = s.attached(new) { body.append(.run(.ruleEnd(nc, animated: true), .propagate)) }
                if let oldChild { body.append(.run(.ruleEnd(oldChild, animated: true), .propagate)) }
            } else {
                // Settled on a page other than the last guess: the guess goes, the real one comes.
                if let gc = s.children[g] { enter(gc, appearing: false) }
                body.append(.attach(new, alsoRelated: nil))
                body.append(.settleElsewhere(old: old, new: new, oldChild: oldChild))
            }
        } else if new != old {
            // No guess was made (no didScroll crossed a page) but the rest is elsewhere.
            body.append(.attach(new, alsoRelated: nil))
            body.append(.settleWithoutGuess(old: old, new: new))
        }
        body.append(.frame(.settleFailed(old: old, new: new, guess: g)))
        body.append(.settleRest(old: old, new: new, guess: g))
        body.append(.frame(.trackingChanged))
        then(body)
    }

    private func build(_ a: Actions) -> LifecycleActions {
        switch a {
        case .begin(let c, let appearing, let animated, let size): return lifecycle.begin(c, appearing: appearing, animated: animated, size: size)
        case .end(let c, let animated): return lifecycle.end(c, animated: animated)
        case .appear(let c, let animated, let size): return lifecycle.appear(c, animated: animated, size: size)
        case .disappear(let c, let animated): return lifecycle.disappear(c, animated: animated)
        case .ruleBegin(let c, let appearing, let animated, let size):
            session.takeOver(c)
            return lifecycle.begin(c, appearing: appearing, animated: animated, size: size)
        case .ruleEnd(let c, let animated):
            session.takeOver(c)
            return lifecycle.end(c, animated: animated)
        case .ruleAppear(let c, let animated, let size):
            session.takeOver(c)
            return lifecycle.appear(c, animated: animated, size: size)
        case .ruleDisappear(let c):
            session.takeOver(c)
            return lifecycle.disappear(c)
        case .load(let c, let size):
            return lifecycle.loadIfNeeded(c, size: size)
        }
    }
}
