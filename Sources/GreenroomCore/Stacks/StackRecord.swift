/// A window with a navigation stack (docs/lifecycle.md "Stacks"). Only the top container is on screen, and
/// only while the window is shown: a hidden window loads and shows nothing (the prerendering article: rendering
/// depends on the window being shown, not on being on screen).
public final class StackRecord {
    public let id: String
    public internal(set) var size: Size { willSet { journal?.willChange(self) } }
    public internal(set) var isHidden: Bool { willSet { journal?.willChange(self) } }
    /// Bottom first. Changed in place (a green room may hold thousands): saved before the change.
    public internal(set) var items: [ContainerRecord] {
        get { _items }
        set {
            journal?.willChange(self)
            _items = newValue
        }
        _modify {
            journal?.willChange(self)
            yield &_items
        }
    }
    private var _items: [ContainerRecord] = []
    public var owner: String? { willSet { journal?.willChange(self) } }
    /// True for the green room's stacks: popping their top does not reveal the one below.
    public let isGreenRoom: Bool
    /// The running push/pop animation: its completion and timer.
    var transition: (complete: () -> Void, timer: Int)? { willSet { journal?.willChange(self) } }

    /// Where its changes are saved during a speculative run (nil: never).
    private let journal: RecordJournal?
    /// The journal run that last saved it.
    var journalRun = 0

    public init(id: String, size: Size, hidden: Bool = false, owner: String?, greenRoom: Bool = false,
                journal: RecordJournal? = nil) {
        self.id = id
        self.size = size
        self.isHidden = hidden
        self.owner = owner
        self.isGreenRoom = greenRoom
        self.journal = journal
    }

    /// Its whole changeable state, for `RecordJournal`.
    struct Saved {
        var size: Size, isHidden: Bool, items: [ContainerRecord], owner: String?
        var transition: (complete: () -> Void, timer: Int)?
    }

    var saved: Saved { Saved(size: size, isHidden: isHidden, items: items, owner: owner, transition: transition) }

    func restore(_ s: Saved) {
        size = s.size
        isHidden = s.isHidden
        _items = s.items
        owner = s.owner
        transition = s.transition
    }

    public var top: ContainerRecord? { items.last }
    public var isAnimating: Bool { transition != nil }
    public func contains(_ c: ContainerRecord) -> Bool { items.contains { $0 === c } }
}

/// Push, pop, remove, hide and destroy with balanced appearance calls. Animated transitions end after
/// `animationMs` on the host clock; starting another transition on the same stack first completes the
/// running one (its end calls are delivered).
///
/// Not yet a machine returning actions: it hands the lifecycle's actions to the host as it goes
/// (`LifecycleHost`), because what it does next depends on whether they failed.
public struct StackOperations {
    public let lifecycle = Lifecycle()
    public unowned let host: LifecycleHost
    public var animationMs: Double = 300

    public init(host: LifecycleHost) { self.host = host }

    /// Delivers a running animation's end calls now.
    public func completeTransition(_ s: StackRecord) {
        guard let t = s.transition else { return }
        s.transition = nil
        host.cancel(t.timer)
        t.complete()
    }

    /// Ends appearance calls either now or after the animation.
    private func finish(_ s: StackRecord, animated: Bool, _ complete: @escaping () -> Void) {
        if animated {
            let token = host.schedule(afterMs: animationMs) { [weak s] in
                guard let s, s.transition != nil else { return }
                s.transition = nil
                complete()
            }
            s.transition = (complete, token)
        } else {
            complete()
        }
    }

    /// Pushes `c` (which the caller has taken out of any other parent). The new top gets willAppear,
    /// the old top willDisappear, then didAppear / didDisappear.
    /// Failures of `c`'s hooks are reported through `onFailure` (also for deferred end calls).
    public func push(_ c: ContainerRecord, onto s: StackRecord, animated: Bool,
                     onFailure: @escaping (ContainerFailure) -> Void) throws(ContainerFailure) {
        completeTransition(s)
        let old = s.top
        // The parent is set first so every event of the move says where it happens (offscreen for
        // the green room).
        c.parent = s.isGreenRoom ? .greenRoom(s.id) : .stack(s.id)
        try host.perform(lifecycle.willMove(c, toParent: s.id))
        s.items.append(c)
        guard !s.isHidden else {
            try host.perform(lifecycle.didMove(c, toParent: s.id))
            return
        }
        let oldVisible = old.map { $0.state == .appeared || $0.state == .appearing } ?? false
        try host.perform(lifecycle.begin(c, appearing: true, animated: animated, size: s.size))
        if let old, oldVisible {
            do throws(ContainerFailure) { try host.perform(lifecycle.begin(old, appearing: false, animated: animated)) } catch { onFailure(error) }
        }
        guard animated else {
            // Not animated: the end calls run now, and a failure of the pushed container is the
            // caller's to report (it throws); the old top's is reported through `onFailure`.
            try host.perform(lifecycle.end(c, animated: false))
            try host.perform(lifecycle.didMove(c, toParent: s.id))
            if let old, oldVisible {
                do throws(ContainerFailure) { try host.perform(lifecycle.end(old, animated: false)) } catch { onFailure(error) }
            }
            return
        }
        let lifecycle = self.lifecycle, host = self.host
        finish(s, animated: true) {
            do throws(ContainerFailure) {
                try host.perform(lifecycle.end(c, animated: true))
                try host.perform(lifecycle.didMove(c, toParent: s.id))
            } catch { onFailure(error) }
            // When the pushed container failed, it was torn down and `old`, the top again, appeared
            // at once: its transition is over, and ending it again would be unbalanced.
            if let old, oldVisible, old.state == .disappearing {
                do throws(ContainerFailure) { try host.perform(lifecycle.end(old, animated: true)) } catch { onFailure(error) }
            }
        }
    }

    /// Pops the top container and returns it; the revealed one appears (unless this is a green room).
    public func pop(_ s: StackRecord, animated: Bool,
                    onFailure: @escaping (ContainerFailure) -> Void) -> ContainerRecord? {
        // Nothing to pop changes nothing: a running transition (the pop that emptied the stack) keeps
        // its 300 ms.
        guard !s.items.isEmpty else { return nil }
        completeTransition(s)
        guard let top = s.items.popLast() else { return nil }
        // The one below appears again, in a green room too (offscreen): it is a shown window, so the
        // next warm container taken leaves from on screen like the first.
        let revealed = s.top
        do throws(ContainerFailure) { try host.perform(lifecycle.willMove(top, toParent: nil)) } catch { onFailure(error) }
        let visible = !s.isHidden && (top.state == .appeared || top.state == .appearing)
        if let revealed, !s.isHidden {
            do throws(ContainerFailure) { try host.perform(lifecycle.begin(revealed, appearing: true, animated: animated, size: s.size)) } catch { onFailure(error) }
        }
        if visible {
            do throws(ContainerFailure) { try host.perform(lifecycle.begin(top, appearing: false, animated: animated)) } catch { onFailure(error) }
        }
        let lifecycle = self.lifecycle, host = self.host
        let hidden = s.isHidden
        finish(s, animated: animated && visible) {
            if let revealed, !hidden {
                do throws(ContainerFailure) { try host.perform(lifecycle.end(revealed, animated: animated)) } catch { onFailure(error) }
            }
            do throws(ContainerFailure) {
                if visible { try host.perform(lifecycle.end(top, animated: animated)) }
                try host.perform(lifecycle.didMove(top, toParent: nil))
            } catch { onFailure(error) }
            // The parent changes last, so every event of the move says where it happened (offscreen
            // for the green room).
            if top.parent == (s.isGreenRoom ? .greenRoom(s.id) : .stack(s.id)) { top.parent = .none }
        }
        return top
    }

    /// Takes `c` out of `s` at once (not animated): the top disappears and the one below appears. Used to move a container to another stack, to release one, and to take
    /// a warm container out of the green room.
    public func remove(_ c: ContainerRecord, from s: StackRecord,
                       onFailure: @escaping (ContainerFailure) -> Void) {
        completeTransition(s)
        if s.top === c {
            _ = pop(s, animated: false, onFailure: onFailure)
            return
        }
        guard let i = s.items.firstIndex(where: { $0 === c }) else { return }
        s.items.remove(at: i)
        do throws(ContainerFailure) {
            try host.perform(lifecycle.willMove(c, toParent: nil))
            try host.perform(lifecycle.disappear(c))
        } catch { onFailure(error) }
        do throws(ContainerFailure) { try host.perform(lifecycle.didMove(c, toParent: nil)) } catch { onFailure(error) }
        c.parent = .none
    }

    /// Drops a failed container from the stack without running any hook on it.
    public func discard(_ c: ContainerRecord, from s: StackRecord) {
        completeTransition(s)
        s.items.removeAll { $0 === c }
        c.parent = .none
    }

    /// Shows or hides the window: the top appears (loading and laying out) or disappears.
    public func setHidden(_ s: StackRecord, _ hidden: Bool, onFailure: @escaping (ContainerFailure) -> Void) {
        guard s.isHidden != hidden else { return }
        completeTransition(s)
        s.isHidden = hidden
        guard let top = s.top else { return }
        do throws(ContainerFailure) {
            if hidden { try host.perform(lifecycle.disappear(top)) } else { try host.perform(lifecycle.appear(top, size: s.size)) }
        } catch { onFailure(error) }
    }

    /// Resizes the window; the top (if loaded) lays out again, others when they next appear.
    public func resize(_ s: StackRecord, to size: Size, onFailure: @escaping (ContainerFailure) -> Void) {
        s.size = size
        guard !s.isHidden, let top = s.top, top.viewLoaded else { return }
        do throws(ContainerFailure) { try host.perform(lifecycle.layout(top, size: size)) } catch { onFailure(error) }
    }

    /// Tears the stack down: the running animation completes, then every container (top first)
    /// disappears if on screen and is deinited.
    public func destroy(_ s: StackRecord) {
        completeTransition(s)
        while let c = s.items.popLast() { try? host.perform(lifecycle.teardown(c)) }
    }
}
