/// What a page session needs from the host: children made, attached, recycled and released, and
/// its `page` events delivered.
public protocol PageSessionDelegate: AnyObject {
    /// A container for page `index`, attached to the session (created, taken from a reuse queue and
    /// re-configured, or taken from a prerender pool). Runs containment hooks.
    func makeChild(_ session: PageSession, index: Int) throws(ContainerFailure) -> ContainerRecord
    /// Detaches and deinits a child (willMoveToParent nil, didMoveToParent nil, deinit).
    func releaseChild(_ session: PageSession, _ child: ContainerRecord, index: Int)
    /// Reuse mode: parks a child that left current +- 1 in its class's reuse queue.
    func recycleChild(_ session: PageSession, _ child: ContainerRecord, index: Int)
    /// `willTransition {from, to}` / `didTransition {from, to, completed}`.
    func pageEvent(_ session: PageSession, _ kind: PageTransitionEvent, from: Int, to: Int, completed: Bool?)
    /// The session started or stopped tracking (dragging, decelerating, animating).
    func trackingChanged(_ session: PageSession)
    /// A child's hook failed where no reply carries the error (an animation's end, a hide mid-gesture):
    /// the session has let it go; the host tears it down (docs/plugins.md).
    func childFailed(_ session: PageSession, _ failure: ContainerFailure)
}

extension PageSessionDelegate {
    public func childFailed(_ session: PageSession, _ failure: ContainerFailure) {}
}

/// Errors of the scroll stream and `show` that the host turns into -32003 / -32602 (it names the
/// calls and fields on the wire).
public enum PageError: Error, Equatable, Sendable {
    case indexOutOfRange(index: Int, count: Int)
    case offsetOutOfRange(offset: Double, min: Double, max: Double)
    /// A call that does not fit the session's phase.
    case outOfOrder(PageCall, phase: PageSession.Phase)
    /// A call that needs the session on screen.
    case offscreen(PageCall)
    case child(ContainerFailure)
}

/// The calls a page session can refuse as out of order.
public enum PageCall: Equatable, Sendable { case show, willBeginDragging, willEndDragging, didEndDragging, didEndDecelerating }

/// The two `page` events of a transition.
public enum PageTransitionEvent: Equatable, Sendable { case willTransition, didTransition }

/// A page session (docs/pages.md; the GYPageViewController and MJianshu articles): UIPageViewController-exact
/// child lifecycles from a scroll stream named after UIScrollViewDelegate, regular where UIPageViewController is not.
///
/// Interactive rules: willBeginDragging (not decelerating) sets origin = offset, guess = current.
/// didScroll while dragging: lastGuess = guess; guess = ceil(offset / w) when offset > origin,
/// floor(offset / w) when offset < origin; when guess changed, is not current and is in range:
/// guess.begin(true), then current.begin(false) if lastGuess == current, else lastGuess.begin(false)
/// and lastGuess.end(). At rest new = round(offset / w): cancelled (new == old): old.begin(true),
/// old.end(), guess.begin(false), guess.end(); else new.end(), old.end().
public final class PageSession {
    public enum CacheMode: Equatable, Sendable {
        case limit(Int)
        case reuse
    }

    public enum Phase: Equatable, Sendable { case idle, dragging, decelerating, animating }

    public let id: String
    public let count: Int
    public private(set) var pageSize: Size
    public let cacheMode: CacheMode
    public var animationMs: Double = 300

    public private(set) var current: Int
    public private(set) var phase: Phase = .idle
    /// Attached children by page index.
    public private(set) var children: [Int: ContainerRecord] = [:]
    /// Attached indices, least recently used first.
    public private(set) var lru: [Int] = []
    /// Evicted while interaction-related: released when the session comes to rest (except the final page).
    public private(set) var deferred: Set<Int> = []
    public private(set) var offset: Double
    /// Whether the session itself is on screen (its appearance is forwarded to the current page).
    public private(set) var isVisible: Bool

    // Interaction state.
    private var origin: Double = 0
    /// The page the current interaction is heading to (nil: none started).
    public private(set) var guess: Int?
    /// Non-interactive animation: destination and timer.
    private var animation: (to: Int, from: Int, timer: Int, complete: () -> Void)?

    let lifecycle = Lifecycle()
    /// Not yet a machine returning actions: the session hands the lifecycle's actions to the host as it
    /// goes, because what it does next depends on whether they failed.
    unowned let host: LifecycleHost
    public unowned let delegate: PageSessionDelegate

    public init(id: String, count: Int, pageSize: Size, initialIndex: Int, cacheMode: CacheMode,
                host: LifecycleHost, delegate: PageSessionDelegate) {
        self.id = id
        self.count = count
        self.pageSize = pageSize
        self.cacheMode = cacheMode
        self.current = initialIndex
        self.offset = Double(initialIndex) * pageSize.width
        self.host = host
        self.delegate = delegate
        self.isVisible = false
    }

    var width: Double { pageSize.width }
    public var isTracking: Bool { phase != .idle }

    // MARK: Children and cache

    /// The child for `index`, attached (and counted as most recently used). A new child may push the
    /// cache past its limit; `index` and `alsoRelated` count as interaction-related for that eviction.
    func child(_ index: Int, alsoRelated: Int? = nil) throws(PageError) -> ContainerRecord {
        if let c = children[index] {
            touch(index)
            return c
        }
        let c: ContainerRecord
        do { c = try delegate.makeChild(self, index: index) } catch { throw .child(error) }
        children[index] = c
        touch(index)
        deferred.remove(index)
        enforceCache(protecting: index, alsoRelated: alsoRelated)
        return c
    }

    /// The child attached for `index`, if any (counted as most recently used). Unlike `child`, never
    /// makes one: a page whose child failed has nothing to end.
    func attached(_ index: Int) -> ContainerRecord? {
        guard let c = children[index] else { return nil }
        touch(index)
        return c
    }

    private func touch(_ index: Int) {
        lru.removeAll { $0 == index }
        lru.append(index)
    }

    /// Pages the current motion involves: never released mid-transition.
    func interactionRelated() -> Set<Int> {
        var s: Set<Int> = [current]
        if let a = animation { s.insert(a.to); s.insert(a.from) }
        if let g = guess {
            s.insert(g)
            if phase == .dragging || phase == .decelerating { s.formUnion([g - 1, g + 1]) }
        }
        return s
    }

    /// LRU past the limit: an interaction-related page is deferred to rest; any other is released at
    /// once, whatever the deferral set holds (GYPageViewController held them back: its bug).
    private func enforceCache(protecting attaching: Int? = nil, alsoRelated: Int? = nil) {
        guard case .limit(let limit) = cacheMode else { return }
        var related = interactionRelated()
        if let attaching { related.insert(attaching) }
        if let alsoRelated { related.insert(alsoRelated) }
        var attached = lru.filter { !deferred.contains($0) }
        var i = 0
        while attached.count > limit, i < attached.count {
            let victim = attached[i]
            // Neither the current page nor the one being attached is ever evicted.
            if victim == current || victim == attaching { i += 1; continue }
            attached.remove(at: i)
            if related.contains(victim) {
                deferred.insert(victim)
            } else {
                releaseNow(victim)
            }
        }
    }

    private func releaseNow(_ index: Int) {
        guard let c = children.removeValue(forKey: index) else { return }
        lru.removeAll { $0 == index }
        deferred.remove(index)
        takeOver(c)
        // A page at rest is disappeared; anything else is brought there balanced first.
        try? host.perform(lifecycle.disappear(c))
        delegate.releaseChild(self, c, index: index)
    }

    /// At rest: deferred pages go (except the final page); reuse mode recycles what left current +- 1.
    private func cleanUpAtRest() {
        for index in deferred.sorted() where index != current { releaseNow(index) }
        deferred.remove(current)
        if case .limit = cacheMode { enforceCache() }
        if cacheMode == .reuse {
            for index in children.keys.sorted() where abs(index - current) > 1 {
                guard let c = children.removeValue(forKey: index) else { continue }
                lru.removeAll { $0 == index }
                takeOver(c)
                try? host.perform(lifecycle.disappear(c))
                delegate.recycleChild(self, c, index: index)
            }
        }
    }

    /// Releases every cached child that is neither current nor interaction-related (memory warning).
    /// Returns the released indices.
    public func purgeForMemoryWarning() -> [Int] {
        let keep = interactionRelated()
        let victims = children.keys.filter { !keep.contains($0) }.sorted()
        for i in victims { releaseNow(i) }
        return victims
    }

    // MARK: Appearance of the session itself

    /// The session appears or disappears (on its stack, or at creation when it has none): the
    /// current page gets the same calls; other children are untouched.
    public func setVisible(_ visible: Bool, animated: Bool = false) throws(PageError) {
        guard visible != isVisible else { return }
        completeAnimation()
        if !visible { settleInteractionForHide() }
        isVisible = visible
        // Hiding makes no child: a page whose child failed has nothing on screen to leave.
        guard let c = visible ? try child(current) : attached(current) else { return }
        do {
            if visible { try host.perform(lifecycle.appear(c, animated: animated, size: pageSize)) } else { try host.perform(lifecycle.disappear(c, animated: animated)) }
        } catch { throw .child(error) }
    }

    /// The page that received the session's last forwarded begin, and the state it left it in.
    private var forwarded: (container: ContainerRecord, state: Appearance)?

    /// Forwards one begin/end call of the session's own appearance to the current page.
    public func forwardBegin(appearing: Bool, animated: Bool) throws(PageError) {
        if !appearing { completeAnimation(); settleInteractionForHide() }
        isVisible = appearing
        // Disappearing makes no child: a page whose child failed (it left the session) has nothing on
        // screen, and a new one would get unbalanced calls.
        guard let c = appearing ? try child(current) : attached(current) else { return }
        // A page already where the session is going (its own rules moved it) gets no call.
        guard (c.state == .appearing || c.state == .appeared) != appearing else { return }
        do { try host.perform(lifecycle.begin(c, appearing: appearing, animated: animated, size: pageSize)) } catch { throw .child(error) }
        forwarded = (c, c.state)
    }

    /// Ends the session's appearance transition on the page that began it, unless the session's own
    /// rules took that page over since. A page change during the session's own transition (a
    /// `page.show` or a swipe while a push covers or a pop reveals the session) ends what it began:
    /// ending it here again would be unbalanced, or would end a later transition of that page (a
    /// swipe back onto it) before that one comes to rest.
    public func forwardEnd(animated: Bool) throws(PageError) {
        guard let f = forwarded else { return }
        forwarded = nil
        guard children.values.contains(where: { $0 === f.container }), f.container.state == f.state else { return }
        do { try host.perform(lifecycle.end(f.container, animated: animated)) } catch { throw .child(error) }
    }

    /// The session's own rules make an appearance call on `c`: a forwarded transition on it is theirs now.
    private func takeOver(_ c: ContainerRecord) {
        if forwarded?.container === c { forwarded = nil }
    }

    /// begin(appearing:) by the session's own rules (page.show, the scroll stream).
    private func ruleBegin(_ c: ContainerRecord, appearing: Bool, animated: Bool, size: Size? = nil) throws(ContainerFailure) {
        takeOver(c)
        try host.perform(lifecycle.begin(c, appearing: appearing, animated: animated, size: size))
    }

    /// end() by the session's own rules.
    private func ruleEnd(_ c: ContainerRecord, animated: Bool) throws(ContainerFailure) {
        takeOver(c)
        try host.perform(lifecycle.end(c, animated: animated))
    }

    /// Hiding mid-gesture: the gesture is settled where it is, so nothing is left half way.
    private func settleInteractionForHide() {
        guard phase == .dragging || phase == .decelerating else { return }
        do { try settle(at: offset) } catch {
            if case .child(let failure) = error { delegate.childFailed(self, failure) }
        }
    }

    // MARK: Non-interactive

    /// `page.show`: new.begin(true), old.begin(false), both end after the animation (at once when not
    /// animated). A running animation completes first.
    public func show(_ index: Int, animated: Bool) throws(PageError) {
        guard (0..<count).contains(index) else { throw .indexOutOfRange(index: index, count: count) }
        if phase == .dragging || phase == .decelerating { throw .outOfOrder(.show, phase: phase) }
        completeAnimation()
        guard index != current else { return }
        let from = current
        guard isVisible else {
            // Off screen: the page changes, no appearance calls (nothing is shown).
            _ = try child(index)
            current = index
            offset = Double(index) * width
            cleanUpAtRest()
            return
        }
        // The current page's child, unless it failed earlier (then nothing is on screen to leave).
        let old = attached(from)
        let new = try child(index)  // most recently used: the destination
        delegate.pageEvent(self, .willTransition, from: from, to: index, completed: nil)
        do {
            try ruleBegin(new, appearing: true, animated: animated, size: pageSize)
        } catch {
            // The new page failed before anything else moved: it leaves the session, the transition
            // is reported as not completed, and the old page stays.
            forget(new)
            delegate.pageEvent(self, .didTransition, from: from, to: index, completed: false)
            throw .child(error)
        }
        // A failing hook fails its container and nothing else (docs/plugins.md): the other page's calls
        // still run, balanced, and the failed one leaves the session (the host tears it down).
        var leaving = old
        var beginFailure: ContainerFailure?
        if let old {
            do throws(ContainerFailure) { try ruleBegin(old, appearing: false, animated: animated) } catch {
                forget(old)
                leaving = nil
                beginFailure = error
            }
        }
        let finish: () -> ContainerFailure? = { [unowned self] in
            self.animation = nil
            self.phase = .idle
            var failures: [ContainerFailure] = []
            var arrived = true
            do throws(ContainerFailure) { try self.ruleEnd(new, animated: animated) } catch {
                self.forget(new)
                arrived = false
                failures.append(error)
            }
            if let o = leaving {
                do throws(ContainerFailure) { try self.ruleEnd(o, animated: animated) } catch {
                    self.forget(o)
                    leaving = nil
                    failures.append(error)
                }
            }
            if arrived {
                self.current = index
                self.offset = Double(index) * self.width
            } else if let o = leaving, self.isVisible {
                // The destination failed: the page it was leaving comes back, as a stack reveals the
                // container under a failed top.
                self.takeOver(o)
                do throws(ContainerFailure) { try self.host.perform(self.lifecycle.appear(o, animated: animated, size: self.pageSize)) } catch {
                    self.forget(o)
                    failures.append(error)
                }
            }
            self.cleanUpAtRest()
            self.delegate.pageEvent(self, .didTransition, from: from, to: index, completed: arrived)
            self.delegate.trackingChanged(self)
            // The first failure is the caller's to report; any other goes to the host at once.
            for extra in failures.dropFirst() { self.delegate.childFailed(self, extra) }
            return failures.first
        }
        if animated {
            phase = .animating
            let timer = host.schedule(afterMs: animationMs) { [weak self] in
                guard let self, self.animation != nil else { return }
                self.animation?.complete()
            }
            animation = (index, from, timer, { [unowned self] in
                if let failure = finish() { self.delegate.childFailed(self, failure) }
            })
            delegate.trackingChanged(self)
            if let beginFailure { throw .child(beginFailure) }
        } else {
            let failure = finish()
            if let beginFailure {
                if let failure { delegate.childFailed(self, failure) }
                throw .child(beginFailure)
            }
            if let failure { throw .child(failure) }
        }
    }

    /// Delivers a running animation's end calls now (a new show or drag interrupts it).
    public func completeAnimation() {
        guard let a = animation else { return }
        host.cancel(a.timer)
        a.complete()
    }

    // MARK: Interactive

    func checkOffset(_ x: Double) throws(PageError) {
        let lo = -width, hi = Double(count) * width
        guard x >= lo, x <= hi else { throw .offsetOutOfRange(offset: x, min: lo, max: hi) }
    }

    public func willBeginDragging(offset x: Double) throws(PageError) {
        try checkOffset(x)
        guard isVisible else { throw .offscreen(.willBeginDragging) }
        switch phase {
        case .dragging:
            throw .outOfOrder(.willBeginDragging, phase: phase)
        case .decelerating:
            // Continues the same interaction: origin re-anchored to the page boundary behind the motion.
            let movingForward = x >= origin
            let page = x / width
            origin = (movingForward ? page.rounded(.down) : page.rounded(.up)) * width
        case .animating, .idle:
            completeAnimation()
            origin = x
            guess = nil
        }
        offset = x
        phase = .dragging
        delegate.trackingChanged(self)
    }

    public func didScroll(offset x: Double) throws(PageError) {
        try checkOffset(x)
        offset = x
        // Outside a drag (programmatic or decelerating scrolls) the offset is recorded only.
        guard phase == .dragging else { return }
        let lastGuess = guess ?? current
        var next = lastGuess
        if x > origin { next = Int((x / width).rounded(.up)) } else if x < origin { next = Int((x / width).rounded(.down)) }
        // Back on the current page mid-gesture, the guess is kept: it settles at rest.
        guard next != lastGuess, next != current, (0..<count).contains(next) else { return }
        // The new guess and its neighbours are interaction-related from now on (docs/pages.md; GYPageViewController:
        // the guess is set before its page is attached, so the cache keeps them). The previous guess
        // still is until its end calls ran: a small cache must not release it before the new page
        // appears (the GYPageViewController article's order).
        let previousGuess = guess
        guess = next
        let incoming: ContainerRecord
        do { incoming = try child(next, alsoRelated: lastGuess) } catch {
            guess = previousGuess
            throw error
        }
        if lastGuess == current {
            delegate.pageEvent(self, .willTransition, from: current, to: next, completed: nil)
        } else {
            delegate.pageEvent(self, .willTransition, from: lastGuess, to: next, completed: nil)
        }
        do {
            do { try ruleBegin(incoming, appearing: true, animated: true, size: pageSize) } catch {
                // The incoming page failed: it leaves the session and the guess stays where it was.
                forget(incoming)
                guess = lastGuess == current ? nil : lastGuess
                throw error
            }
            if lastGuess == current {
                if let c = attached(current) { try ruleBegin(c, appearing: false, animated: true) }
            } else if let previous = children[lastGuess] {
                try ruleBegin(previous, appearing: false, animated: true)
                try ruleEnd(previous, animated: true)
            }
        } catch let e as ContainerFailure { throw .child(e) } catch let e as PageError { throw e } catch { }
    }

    public func willEndDragging(offset x: Double) throws(PageError) {
        try checkOffset(x)
        guard phase == .dragging else { throw .outOfOrder(.willEndDragging, phase: phase) }
        offset = x
    }

    public func didEndDragging(offset x: Double, willDecelerate: Bool) throws(PageError) {
        try checkOffset(x)
        guard phase == .dragging else { throw .outOfOrder(.didEndDragging, phase: phase) }
        offset = x
        if willDecelerate {
            phase = .decelerating
            delegate.trackingChanged(self)
        } else {
            try settle(at: x)
        }
    }

    public func didEndDecelerating(offset x: Double) throws(PageError) {
        try checkOffset(x)
        guard phase == .decelerating else { throw .outOfOrder(.didEndDecelerating, phase: phase) }
        try settle(at: x)
    }

    /// Comes to rest at `x`: new = round(x / w), clamped to the pages.
    func settle(at x: Double) throws(PageError) {
        offset = x
        let new = min(max(Int((x / width).rounded()), 0), count - 1)
        let old = current
        let g = guess
        phase = .idle
        guess = nil
        defer { delegate.trackingChanged(self) }
        do {
            if let g {
                // A page whose child failed earlier has nothing on screen to end.
                let oldChild = attached(old)
                if new == old {
                    // Cancelled: the old page comes back, the guess goes.
                    if let oldChild {
                        try ruleBegin(oldChild, appearing: true, animated: true, size: pageSize)
                        try ruleEnd(oldChild, animated: true)
                    }
                    if let gc = children[g] {
                        try ruleBegin(gc, appearing: false, animated: true)
                        try ruleEnd(gc, animated: true)
                    }
                } else if new == g {
                    if let nc = attached(new) { try ruleEnd(nc, animated: true) }
                    if let oldChild { try ruleEnd(oldChild, animated: true) }
                } else {
                    // Settled on a page other than the last guess: the guess goes, the real one comes.
                    if let gc = children[g] {
                        try ruleBegin(gc, appearing: false, animated: true)
                        try ruleEnd(gc, animated: true)
                    }
                    let nc = try child(new)
                    delegate.pageEvent(self, .willTransition, from: old, to: new, completed: nil)
                    try ruleBegin(nc, appearing: true, animated: true, size: pageSize)
                    try ruleEnd(nc, animated: true)
                    if let oldChild { try ruleEnd(oldChild, animated: true) }
                }
            } else if new != old {
                // No guess was made (no didScroll crossed a page) but the rest is elsewhere.
                let nc = try child(new)
                let oc = attached(old)
                delegate.pageEvent(self, .willTransition, from: old, to: new, completed: nil)
                try ruleBegin(nc, appearing: true, animated: true, size: pageSize)
                if let oc { try ruleBegin(oc, appearing: false, animated: true) }
                try ruleEnd(nc, animated: true)
                if let oc { try ruleEnd(oc, animated: true) }
            }
        } catch {
            let failure: ContainerFailure
            switch error {
            case let e as ContainerFailure: failure = e
            case PageError.child(let e): failure = e
            case let e as PageError: throw e
            default: return
            }
            restAfterFailure(failure, old: old, new: new)
            if g != nil || new != old {
                delegate.pageEvent(self, .didTransition, from: old, to: new == old ? (g ?? new) : new, completed: current != old)
            }
            cleanUpAtRest()
            throw .child(failure)
        }
        current = new
        if g != nil || new != old {
            // A cancelled swipe names the page it gave up on.
            delegate.pageEvent(self, .didTransition, from: old, to: new == old ? (g ?? new) : new, completed: new != old)
        }
        cleanUpAtRest()
    }

    /// A child failed while the session came to rest: it leaves the session, and every other child
    /// comes to rest balanced (docs/plugins.md: the failure is that container's alone). The session rests on
    /// `new` when its page still has a child, else back on `old`.
    private func restAfterFailure(_ failure: ContainerFailure, old: Int, new: Int) {
        if let failed = children.values.first(where: { $0.id == failure.container }) { forget(failed) }
        current = children[new] != nil ? new : old
        for i in children.keys.sorted() {
            guard let c = children[i] else { continue }
            takeOver(c)
            do throws(ContainerFailure) {
                if i == current && isVisible { try host.perform(lifecycle.appear(c, size: pageSize)) } else { try host.perform(lifecycle.disappear(c)) }
            } catch {
                forget(c)
                delegate.childFailed(self, error)
            }
        }
    }

    /// Drops a child whose hook failed (the host tears it down): it is no longer attached anywhere.
    public func forget(_ c: ContainerRecord) {
        for (i, child) in children where child === c {
            children[i] = nil
            lru.removeAll { $0 == i }
            deferred.remove(i)
        }
    }

    /// Tears every child down (disappear if on screen, then release), e.g. on page.destroy.
    public func destroy() {
        completeAnimation()
        for index in children.keys.sorted() { releaseNow(index) }
        phase = .idle
        guess = nil
    }
}
