import GreenroomCore
import GreenroomJSON
import GreenroomRPC

/// Modal presentations (UIKit's present/dismiss) over stacks and presented containers, in their styles,
/// with the sheet's swipe-down and the presentation controller's delegate events (docs/lifecycle.md
/// "Presentations"). Written as the host's other async flows are: every hook is an `await`, a transition's
/// end calls are a timer on the host clock, and an operation on a chain first completes the transitions
/// still running on it.
final class Presentations {
    unowned let containers: Containers
    /// Each presentation by its presented container, and by what presents it (a stack or a container).
    private(set) var byPresented: [String: PresentationRecord] = [:]
    private(set) var byPresenter: [String: PresentationRecord] = [:]
    /// The transitions still running: what each touches (containers, the presenter) and when it ends, so
    /// that a call on any of those completes them first, earliest first.
    private var running: [ObjectIdentifier: Running] = [:]
    private var runningOrder = 0

    private struct Running {
        let record: PresentationRecord
        let touches: Set<String>
        let deadline: Double
        let order: Int
    }

    init(containers: Containers) { self.containers = containers }

    private var lifecycle: Lifecycle { containers.lifecycle }

    /// Why UIKit would refuse a presentation (it logs a warning and does nothing).
    enum Refusal: String {
        case alreadyPresenting, presentationInProgress, notInWindowHierarchy
    }

    // MARK: Where things are

    /// The containers that appear and disappear with `p`: a shown stack's top, or the presented container.
    func tree(_ p: Presenter) -> [ContainerRecord] {
        switch p {
        case .stack(let s): s.isHidden ? [] : s.top.map { [$0] } ?? []
        case .tabs(let t): t.isHidden ? [] : t.selected.map { [$0] } ?? []
        case .container(let c): [c]
        }
    }

    /// The size of the window at the bottom of `p`'s chain.
    func windowSize(of p: Presenter) -> Size? {
        switch p {
        case .stack(let s): s.size
        case .tabs(let t): t.size
        case .container(let c): byPresented[c.id].flatMap { windowSize(of: $0.presenter) }
        }
    }

    /// The size `p` is laid out at.
    func size(of p: Presenter) -> Size? {
        switch p {
        case .stack(let s): s.size
        case .tabs(let t): t.size
        case .container(let c): byPresented[c.id]?.size
        }
    }

    /// A window's views leave it (`covered`) or come back.
    private func setCovered(_ p: Presenter, _ covered: Bool) {
        switch p {
        case .stack(let s): s.isCovered = covered
        case .tabs(let t): t.isCovered = covered
        case .container: break
        }
    }

    /// A stack a presentation hangs from (its navigations may reach the presented chain).
    func presents(stack id: String) -> Bool { byPresenter[id] != nil }

    // MARK: Present

    /// Resolves the `presenter` param: a stack, a stack's top (its window presents), or a presented container.
    func presenter(_ id: String, for x: String, owner conn: HostConnection) throws(RPCError) -> Presenter {
        if let s = containers.stacks[id], s.owner == conn.id { return .stack(s) }
        if let t = containers.tabBars.tabs[id], t.owner == conn.id { return .tabs(t) }
        guard let c = containers.containers[id], !c.isDestroyed, c.owner == conn.id else {
            throw RPCError(.unknownObject, "No stack or container with id \(id) on this connection",
                           ["id": .string(id), "expected": "stack or container", "path": "presenter"])
        }
        switch c.parent {
        case .presentation:
            return .container(c)
        case .stack(let sid):
            guard let s = containers.stacks[sid], s.top === c else {
                throw refusal(.notInWindowHierarchy, x, on: c.id, "Container \(c.id) is below the top of stack \(sid)")
            }
            return .stack(s)
        case .tabs(let tid):
            guard let t = containers.tabBars.tabs[tid], t.selected === c else {
                throw refusal(.notInWindowHierarchy, x, on: c.id, "Container \(c.id) is not the selected tab of \(tid)")
            }
            return .tabs(t)
        case .none:
            throw refusal(.notInWindowHierarchy, x, on: c.id, "Container \(c.id) is in no stack and not presented")
        case .page(let session, _), .cell(let session):
            throw .invalidState("Container \(c.id) belongs to session \(session): present from the stack its session sits in",
                                ["container": .string(c.id), "session": .string(session), "path": "presenter"])
        case .greenRoom(let g):
            throw .invalidState("Container \(c.id) is idle in green room \(g)", ["container": .string(c.id), "path": "presenter"])
        }
    }

    func refusal(_ why: Refusal, _ x: String, on p: String, _ detail: String) -> RPCError {
        let warning = switch why {
        case .alreadyPresenting: "Attempt to present \(x) on \(p) which is already presenting \(byPresenter[p]?.presented.id ?? "?")"
        case .presentationInProgress: "Attempt to present \(x) on \(p) while a presentation is in progress!"
        case .notInWindowHierarchy: "Attempt to present \(x) on \(p) whose view is not in the window hierarchy!"
        }
        return .invalidState("\(detail): UIKit refuses (\"\(warning)\") and nothing changed",
                             ["reason": .string(why.rawValue), "warning": .string(warning), "container": .string(x),
                              "presenter": .string(p)])
    }

    /// What must hold before presenting over `p` (a running stack transition completes first; UIKit's
    /// refusals are -32003): checked again by `present`, and first by `showRendered`, so that a refused call
    /// takes nothing out of a pool.
    func prepare(over p: Presenter, for x: String) async throws(RPCError) {
        switch p {
        case .stack(let s):
            try containers.refuseDuringInteractivePop(s)
            await containers.stackOps.completeTransition(s)
        case .tabs:
            break
        case .container(let c):
            if let r = byPresented[c.id], r.gesture != nil { throw liveSwipe(r) }
        }
        if let current = byPresenter[p.id] {
            throw refusal(.alreadyPresenting, x, on: p.id, "\(p.id) already presents \(current.presented.id)")
        }
        let shown = tree(p)
        if isRunning(touching: Set([p.id] + shown.map(\.id))) {
            throw refusal(.presentationInProgress, x, on: p.id, "a presentation or dismissal involving \(p.id) is still running")
        }
        let onScreen: Bool = switch p {
        case .stack(let s): s.isShown && shown.first?.state == .appeared
        case .tabs(let t): t.isShown && shown.first?.state == .appeared
        case .container(let c): c.state == .appeared
        }
        guard onScreen, windowSize(of: p) != nil else {
            throw refusal(.notInWindowHierarchy, x, on: p.id, "\(p.id) is not on screen")
        }
    }

    /// `presentation.present`: the caller checked the params and that `x` is free.
    func present(_ x: ContainerRecord, over p: Presenter, style: PresentationStyle, removesViews: Bool?, animated: Bool,
                 durationMs: Double, modal: Bool) async throws(RPCError) -> PresentationRecord {
        try await prepare(over: p, for: x.id)
        let shown = tree(p)
        let window = windowSize(of: p)!
        let removes = style.removesPresenterViews(custom: removesViews)
        let size = style.isContext ? size(of: p) ?? window : window
        let r = PresentationRecord(presented: x, presenter: p, style: style, removesPresenterViews: removes,
                                   modalInPresentation: modal, size: size)
        byPresenter[p.id] = r
        byPresented[x.id] = r
        if case .container(let c) = p { byPresented[c.id]?.presenting = r }
        x.parent = .presentation(presenter: p.id)
        let removed = removes ? shown : []
        if removes { setCovered(p, true) }
        try await containers.guarded { () throws(ContainerFailure) in
            // The presented container loads before the presenter's viewWillDisappear (logged orders).
            try await step(lifecycle.loadIfNeeded(x, size: nil), stopsOn: x)
            for c in removed { try await step(lifecycle.begin(c, appearing: false, animated: animated), stopsOn: x) }
            try await step(lifecycle.begin(x, appearing: true, animated: animated, size: size, layout: .afterWillAppear), stopsOn: x)
        }
        await start(.present(removed: removed, animated: animated), of: r, afterMs: animated ? durationMs : 0)
        return r
    }

    /// Performs `actions`; a failure of `x` is thrown (the caller's), any other is reported (torn down).
    private func step(_ actions: LifecycleActions, stopsOn x: ContainerRecord?) async throws(ContainerFailure) {
        guard let failure = await containers.failure(performing: actions) else { return }
        if failure.container == x?.id { throw failure }
        await containers.deferredFailure(failure)
    }

    /// Performs `actions`, reporting every failure.
    private func step(_ actions: LifecycleActions) async { await containers.performReporting(actions) }

    // MARK: Transitions

    /// Runs `t`'s end calls after `ms` of host clock (a timer), or now.
    private func start(_ t: PresentationTransition, of r: PresentationRecord, afterMs ms: Double) async {
        guard ms > 0 else { return await end(t, of: r) }
        let token = containers.schedule(afterMs: ms, label: "\(r.presented.id) presentation") { [weak self, weak r] in
            guard let self, let r, let pending = r.transition else { return }
            r.transition = nil
            running[ObjectIdentifier(r)] = nil
            await end(pending.pending, of: r)
        }
        r.transition = (t, token)
        var touches: Set<String> = [r.presented.id, r.presenter.id]
        switch t {
        case .present(let removed, _): touches.formUnion(removed.map(\.id))
        case .dismiss(let revealed, let dismissed, _):
            touches.formUnion(r.chain.map(\.presented.id))
            touches.formUnion(revealed.map(\.id))
            touches.formUnion(dismissed.map(\.0.id))
        case .finishSwipe: break
        case .cancelSwipe: touches.remove(r.presenter.id)
        }
        runningOrder += 1
        running[ObjectIdentifier(r)] = Running(record: r, touches: touches, deadline: containers.now + ms, order: runningOrder)
    }

    /// Whether a transition still running touches any of `ids`.
    func isRunning(touching ids: Set<String>) -> Bool {
        running.values.contains { !$0.touches.isDisjoint(with: ids) }
    }

    /// The transitions still running that touch any of `ids` end now, earliest first; what each touches
    /// joins `ids` (ending one may reach others).
    func settle(touching ids: Set<String>) async {
        var ids = ids
        while let next = running.values.filter({ !$0.touches.isDisjoint(with: ids) })
            .min(by: { ($0.deadline, $0.order) < ($1.deadline, $1.order) }) {
            ids.formUnion(next.touches)
            await settle(next.record)
        }
    }

    /// A transition still running on `r` ends now (its timer is cancelled).
    func settle(_ r: PresentationRecord) async {
        guard let pending = r.transition else { return }
        r.transition = nil
        running[ObjectIdentifier(r)] = nil
        containers.cancel(pending.timer)
        await end(pending.pending, of: r)
    }

    private func end(_ t: PresentationTransition, of r: PresentationRecord) async {
        let x = r.presented
        switch t {
        case .present(let removed, let animated):
            if x.state == .appearing { await step(lifecycle.end(x, animated: animated)) }
            for c in removed where c.state == .disappearing { await step(lifecycle.end(c, animated: animated)) }
        case .dismiss(let revealed, let dismissed, let animated):
            for c in revealed where c.state == .appearing { await step(lifecycle.end(c, animated: animated)) }
            for (c, a) in dismissed where c.state == .disappearing { await step(lifecycle.end(c, animated: a)) }
            unlink(r)
        case .finishSwipe:
            if x.state == .disappearing { await step(lifecycle.end(x, animated: true)) }
            emit("didDismiss", r)
            unlink(r)
        case .cancelSwipe:
            await step(lifecycle.appear(x, animated: true, size: r.size, layout: .afterWillAppear))
        }
    }

    /// Takes `r` and everything above it down: the containers are in no parent (their owner's, loose).
    private func unlink(_ r: PresentationRecord) {
        for link in r.chain.reversed() {
            if let t = link.transition {
                containers.cancel(t.timer)
                link.transition = nil
                running[ObjectIdentifier(link)] = nil
            }
            link.gesture = nil
            link.isDismissed = true
            link.presenting = nil
            if byPresented[link.presented.id] === link { byPresented[link.presented.id] = nil }
            if byPresenter[link.presenter.id] === link { byPresenter[link.presenter.id] = nil }
            if link.presented.parent == .presentation(presenter: link.presenter.id) { link.presented.parent = .none }
        }
        if case .container(let c) = r.presenter { byPresented[c.id]?.presenting = nil }
        if r.removesPresenterViews { setCovered(r.presenter, false) }
    }

    // MARK: Dismiss

    /// `presentation.dismiss` of the chain from `r` up.
    func dismiss(_ x: ContainerRecord, animated: Bool, durationMs: Double) async throws(RPCError) -> [ContainerRecord] {
        guard let r = byPresented[x.id] else { throw notPresented(x) }
        for link in r.chain where link.gesture != nil { throw liveSwipe(link) }
        if case .container(let c) = r.presenter, let below = byPresented[c.id], below.gesture != nil { throw liveSwipe(below) }
        // What still runs on the chain or its presenter completes first (that may be this very dismissal, or
        // one lower down).
        await settle(touching: Set(r.chain.map(\.presented.id) + [r.presenter.id] + tree(r.presenter).map(\.id)))
        if r.removesPresenterViews, case .stack(let s) = r.presenter { await containers.stackOps.completeTransition(s) }
        guard byPresented[x.id] === r else { throw notPresented(x) }
        let chain = r.chain.map(\.presented)
        await takeDown(r, animated: animated, durationMs: durationMs)
        return chain
    }

    /// The dismissal itself: the chain's on-screen containers disappear (top first, only the top animated)
    /// and a removed presenter reappears; the end calls after the duration.
    private func takeDown(_ r: PresentationRecord, animated: Bool, durationMs: Double) async {
        let chain = r.chain.map(\.presented)
        let top = chain.last
        let gone = chain.reversed().filter { $0.state == .appeared }
        var revealed: [ContainerRecord] = []
        if r.removesPresenterViews {
            setCovered(r.presenter, false)
            let t = tree(r.presenter)
            if let first = t.first, first.state == .disappeared { revealed = t }
        }
        for c in gone { await step(lifecycle.begin(c, appearing: false, animated: animated && c === top)) }
        let size = size(of: r.presenter)
        for c in revealed { await step(lifecycle.begin(c, appearing: true, animated: animated, size: size, layout: .afterWillAppear)) }
        await start(.dismiss(revealed: revealed, dismissed: gone.map { ($0, animated && $0 === top) }, animated: animated),
                    of: r, afterMs: animated ? durationMs : 0)
    }

    /// Dismisses the chain from `r` up at once, whatever runs on it: for a stack destroyed, a connection
    /// closing, a container moved. A live swipe ends as finished (its `viewDidDisappear`), silently.
    func dismissNow(_ r: PresentationRecord) async {
        for link in r.chain {
            await settle(link)
            if let g = link.gesture {
                link.gesture = nil
                if !g.refused, link.presented.state == .disappearing { await step(lifecycle.end(link.presented, animated: false)) }
            }
        }
        guard !r.isDismissed else { return }
        await takeDown(r, animated: false, durationMs: 0)
    }

    /// `c` (a presented container) failed and is about to be torn down: what it presents is dismissed at
    /// once and its presentation taken down. Returns the presenter's containers to bring back on screen
    /// after `c`'s teardown (the presentation had removed them), with their size.
    func presentedWillFail(_ c: ContainerRecord) async -> (containers: [ContainerRecord], size: Size?) {
        guard let r = byPresented[c.id] else { return ([], nil) }
        if let above = r.presenting { await dismissNow(above) }
        let p = r.presenter
        unlink(r)
        guard r.removesPresenterViews else { return ([], nil) }
        return (tree(p).filter { $0.state != .appeared }, size(of: p))
    }

    /// A window (stack or tab bar) is about to be destroyed: what it presents is dismissed at once.
    func windowWillBeDestroyed(_ id: String) async {
        if let r = byPresenter[id] { await dismissNow(r) }
    }

    // MARK: The sheet's swipe-down

    func beginSwipe(_ x: ContainerRecord, shouldDismiss: Bool) async throws(RPCError) -> PresentationRecord {
        guard let r = byPresented[x.id] else { throw notPresented(x) }
        if r.gesture != nil { throw liveSwipe(r) }
        await settle(touching: [x.id, r.presenter.id])
        guard byPresented[x.id] === r else { throw notPresented(x) }
        guard r.style.isSheet else {
            throw .invalidState("\(x.id) is presented \(r.style.rawValue): only a pageSheet or formSheet has the swipe-down",
                                ["container": .string(x.id), "style": .string(r.style.rawValue)])
        }
        if let above = r.presenting {
            throw .invalidState("\(x.id) presents \(above.presented.id): only the top sheet of a chain can be swiped down",
                                ["container": .string(x.id), "presenting": .string(above.presented.id)])
        }
        if r.isModalInPresentation {
            emit("didAttemptToDismiss", r)
            r.gesture = SheetGesture(refused: true)
            return r
        }
        emit("shouldDismiss", r)
        guard shouldDismiss else {
            emit("didAttemptToDismiss", r)
            r.gesture = SheetGesture(refused: true)
            return r
        }
        emit("willDismiss", r)
        r.gesture = SheetGesture(refused: false)
        await step(lifecycle.begin(x, appearing: false, animated: true))
        return r
    }

    /// The presentation of `x` with a live swipe (-32003 otherwise).
    func swiped(_ x: ContainerRecord) throws(RPCError) -> PresentationRecord {
        guard let r = byPresented[x.id], r.gesture != nil else {
            throw .invalidState("\(x.id) has no swipe-down in progress (presentation.beginInteractiveDismiss starts one)",
                                ["container": .string(x.id)])
        }
        return r
    }

    /// Ends the swipe: finished (`dismisses`) or cancelled. Returns the ms until its end calls, and whether
    /// it had been refused.
    func endSwipe(_ r: PresentationRecord, dismisses: Bool, durationMs: Double) async -> (remainingMs: Double, refused: Bool) {
        guard let g = r.gesture else { return (0, false) }
        r.gesture = nil
        if g.refused { return (0, true) }
        let ms = durationMs * (dismisses ? 1 - g.progress : g.progress)
        await start(dismisses ? .finishSwipe : .cancelSwipe, of: r, afterMs: ms)
        return (ms, false)
    }

    // MARK: Errors, events, info

    func notPresented(_ x: ContainerRecord) -> RPCError {
        .invalidState("\(x.id) is not presented", ["container": .string(x.id)])
    }

    func liveSwipe(_ r: PresentationRecord) -> RPCError {
        .invalidState("\(r.presented.id)'s swipe-down is in progress: finish it (presentation.finishInteractiveDismiss) or cancel it (presentation.cancelInteractiveDismiss) first",
                      ["container": .string(r.presented.id), "progress": .double(r.gesture?.progress ?? 0)])
    }

    private func emit(_ kind: String, _ r: PresentationRecord) {
        containers.events.emit(PresentationTopic.self, owner: containers.eventTarget(r.presented), [
            "kind": .string(kind), "container": .string(r.presented.id), "presenter": .string(r.presenter.id),
        ])
    }

    func info(_ r: PresentationRecord) -> JSONValue {
        var gesture: JSONValue = .null
        if let g = r.gesture { gesture = ["progress": .double(g.progress), "refused": .bool(g.refused)] }
        return [
            "container": .string(r.presented.id),
            "presenter": .string(r.presenter.id),
            "style": .string(r.style.rawValue),
            "removesPresenterViews": .bool(r.removesPresenterViews),
            "modalInPresentation": .bool(r.isModalInPresentation),
            "size": Containers.sizeJSON(r.size),
            "presenting": r.presenting.map { .string($0.presented.id) } ?? .null,
            "animating": .bool(r.transition != nil),
            "interactiveDismiss": gesture,
            "dismissed": .bool(r.isDismissed),
        ]
    }
}
