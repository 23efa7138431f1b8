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

/// A non-interactive page change whose end calls are still to come: `new` is appearing; `leaving`, the
/// page it replaces, is disappearing (nil: none was on screen, or it failed).
public struct PageTransition {
    public let from: Int
    public let to: Int
    let new: ContainerRecord
    let leaving: ContainerRecord?
    let animated: Bool
    /// An interactive curl called off: its end runs the cancelled curl's order and the session stays.
    var cancelled = false
}

/// UIPageViewController's transition style (docs/pages.md "Page curl").
public enum PageTransitionStyle: String, Sendable, CaseIterable {
    /// Pages side by side in a scroll view, driven by the scroll stream.
    case scroll
    /// A page turned like paper, driven by `page.show` or the curl gesture (begin, update, finish,
    /// cancel); its end calls come in another order (wangling.me, "The Inconsistent Order of View
    /// Transition Events"): the leaving page's `viewDidDisappear` before the new page's `viewDidAppear`.
    case pageCurl
}

/// A page session (docs/pages.md; the GYPageViewController and MJianshu articles): UIPageViewController-exact
/// child lifecycles from a scroll stream named after UIScrollViewDelegate, regular where UIPageViewController is not.
///
/// Interactive rules: willBeginDragging (not decelerating) sets origin = offset, guess = current.
/// didScroll while dragging: lastGuess = guess; guess = ceil(offset / w) when offset > origin,
/// floor(offset / w) when offset < origin; when guess changed, is not current and is in range:
/// guess.begin(true), then current.begin(false) if lastGuess == current, else lastGuess.begin(false)
/// and lastGuess.end(). At rest new = round(offset / w): cancelled (new == old): old.begin(true),
/// old.end(), guess.begin(false), guess.end(); else new.end(), old.end().
///
/// The session is the state; each input returns a `PageOperation`, the machine that hands the host its
/// steps (make a child, perform lifecycle actions, release or recycle a child, emit a page event, keep
/// the animation's timer) and takes back what came of them. It holds no reference to the host. Checks
/// that fail before anything changes come back as an operation that is done at once with the error.
public final class PageSession {
    public enum CacheMode: Equatable, Sendable {
        case limit(Int)
        case reuse
    }

    public enum Phase: Equatable, Sendable { case idle, dragging, decelerating, animating }

    public let id: String
    public internal(set) var count: Int
    public private(set) var pageSize: Size
    public let cacheMode: CacheMode
    /// Pages within this distance of the resting page are made and loaded ahead, offscreen, never
    /// appeared (ViewPager2's `offscreenPageLimit`; MJianshu's current +- 1 in reuse mode). 0: none.
    public let offscreenLimit: Int
    /// How long the last `page.show` animation runs on the host clock (its call's `duration`, else 300).
    public private(set) var animationMs: Double = 300
    public let transitionStyle: PageTransitionStyle
    /// The curl gesture in progress (pageCurl only): the transition it began, and how far it has gone.
    public internal(set) var curl: (transition: PageTransition, progress: Double)?

    public internal(set) var current: Int
    public internal(set) var phase: Phase = .idle
    /// Attached children by page index.
    public internal(set) var children: [Int: ContainerRecord] = [:]
    /// Attached indices, least recently used first.
    public private(set) var lru: [Int] = []
    /// Evicted while interaction-related: released when the session comes to rest (except the final page).
    public internal(set) var deferred: Set<Int> = []
    public internal(set) var offset: Double
    /// Whether the session itself is on screen (its appearance is forwarded to the current page).
    public internal(set) var isVisible: Bool

    // Interaction state.
    var origin: Double = 0
    /// The page the current interaction is heading to (nil: none started).
    public internal(set) var guess: Int?
    /// The running non-interactive animation and its timer's token.
    public internal(set) var animation: (transition: PageTransition, timer: Int)?
    /// The page that received the session's last forwarded begin, and the state it left it in.
    var forwarded: (container: ContainerRecord, state: Appearance)?

    public init(id: String, count: Int, pageSize: Size, initialIndex: Int, cacheMode: CacheMode, offscreenLimit: Int = 0,
                transitionStyle: PageTransitionStyle = .scroll) {
        self.transitionStyle = transitionStyle
        self.id = id
        self.count = count
        self.pageSize = pageSize
        self.cacheMode = cacheMode
        self.offscreenLimit = offscreenLimit
        self.current = initialIndex
        self.offset = Double(initialIndex) * pageSize.width
        self.isVisible = false
    }

    var width: Double { pageSize.width }
    public var isTracking: Bool { phase != .idle }

    // MARK: Inputs

    /// The session appears or disappears (on its stack, or at creation when it has none): the
    /// current page gets the same calls; other children are untouched.
    public func setVisible(_ visible: Bool, animated: Bool = false) -> PageOperation {
        guard visible != isVisible else { return PageOperation(self) }
        return PageOperation(self, .completeAnimation, visible ? nil : .settleForHide, .setVisibleRest(visible, animated: animated))
    }

    /// Forwards one begin call of the session's own appearance to the current page.
    public func forwardBegin(appearing: Bool, animated: Bool) -> PageOperation {
        let rest = PageOperation.Instruction.forwardBeginRest(appearing: appearing, animated: animated)
        return appearing ? PageOperation(self, rest) : PageOperation(self, .completeAnimation, .settleForHide, rest)
    }

    /// Ends the session's appearance transition on the page that began it, unless the session's own
    /// rules took that page over since. A page change during the session's own transition (a
    /// `page.show` or a swipe while a push covers or a pop reveals the session) ends what it began:
    /// ending it here again would be unbalanced, or would end a later transition of that page (a
    /// swipe back onto it) before that one comes to rest.
    public func forwardEnd(animated: Bool) -> PageOperation {
        guard let f = forwarded else { return PageOperation(self) }
        forwarded = nil
        guard children.values.contains(where: { $0 === f.container }), f.container.state == f.state else { return PageOperation(self) }
        return PageOperation(self, .run(.end(f.container, animated: animated), .propagate))
    }

    /// `page.show`: new.begin(true), old.begin(false), both end after the animation (`durationMs`, at once
    /// when not animated). A running animation completes first.
    public func show(_ index: Int, animated: Bool, durationMs: Double = 300) -> PageOperation {
        guard (0..<count).contains(index) else { return PageOperation(self, failing: .indexOutOfRange(index: index, count: count)) }
        if phase == .dragging || phase == .decelerating { return PageOperation(self, failing: .outOfOrder(.show, phase: phase)) }
        animationMs = durationMs
        return PageOperation(self, .completeAnimation, .showAfterCompletion(index, animated: animated))
    }

    /// The curl gesture begins toward page `index` (pageCurl): the new page is made if needed, laid out,
    /// and gets `viewWillAppear` (`viewIsAppearing`), the current page `viewWillDisappear`, all animated, as
    /// `page.show` begins. A running animation completes first.
    public func beginCurl(_ index: Int) -> PageOperation {
        guard (0..<count).contains(index) else { return PageOperation(self, failing: .indexOutOfRange(index: index, count: count)) }
        if phase == .dragging || phase == .decelerating { return PageOperation(self, failing: .outOfOrder(.show, phase: phase)) }
        guard isVisible else { return PageOperation(self, failing: .offscreen(.show)) }
        return PageOperation(self, .completeAnimation, .showAfterCompletion(index, animated: true, interactive: true))
    }

    /// The curl moved: no lifecycle call, only how far it has gone (clamped to 0...1).
    public func updateCurl(progress: Double) {
        curl?.progress = min(1, max(0, progress))
    }

    /// The curl completes after the rest of the transition (`durationMs * (1 - progress)`): the leaving
    /// page's `viewDidDisappear`, then the new page's `viewDidAppear`.
    public func finishCurl(durationMs: Double = 300) -> PageOperation {
        guard let c = curl else { return PageOperation(self) }
        curl = nil
        animationMs = durationMs * (1 - c.progress)
        return PageOperation(self, .endCurl(c.transition))
    }

    /// The curl is called off; after the way back (`durationMs * progress`): the new page's
    /// `viewWillDisappear`, the current page's `viewWillAppear` (`viewIsAppearing`), the new page's
    /// `viewDidDisappear`, the current page's `viewDidAppear`. The session stays on its page.
    public func cancelCurl(durationMs: Double = 300) -> PageOperation {
        guard let c = curl else { return PageOperation(self) }
        curl = nil
        animationMs = durationMs * c.progress
        var t = c.transition
        t.cancelled = true
        return PageOperation(self, .endCurl(t))
    }

    /// Delivers a running animation's end calls now (a new show or drag interrupts it).
    public func completeAnimation() -> PageOperation {
        PageOperation(self, .completeAnimation)
    }

    /// The animation's timer fired: its end calls are delivered (a failure goes to the host to tear down).
    public func animationEnded() -> PageOperation {
        guard let a = animation else { return PageOperation(self) }
        return PageOperation(self, .finish(a.transition, .animationEnded))
    }

    public func willBeginDragging(offset x: Double) -> PageOperation {
        if let e = offsetError(x) { return PageOperation(self, failing: e) }
        guard isVisible else { return PageOperation(self, failing: .offscreen(.willBeginDragging)) }
        switch phase {
        case .dragging:
            return PageOperation(self, failing: .outOfOrder(.willBeginDragging, phase: phase))
        case .decelerating:
            // Continues the same interaction: origin re-anchored to the page boundary behind the motion.
            let movingForward = x >= origin
            let page = x / width
            origin = (movingForward ? page.rounded(.down) : page.rounded(.up)) * width
            return PageOperation(self, .beginDragRest(x, newInteraction: false))
        case .animating, .idle:
            return PageOperation(self, .completeAnimation, .beginDragRest(x, newInteraction: true))
        }
    }

    public func didScroll(offset x: Double) -> PageOperation {
        if let e = offsetError(x) { return PageOperation(self, failing: e) }
        offset = x
        // Outside a drag (programmatic or decelerating scrolls) the offset is recorded only.
        guard phase == .dragging else { return PageOperation(self) }
        let lastGuess = guess ?? current
        var next = lastGuess
        if x > origin { next = Int((x / width).rounded(.up)) } else if x < origin { next = Int((x / width).rounded(.down)) }
        // Back on the current page mid-gesture, the guess is kept: it settles at rest.
        guard next != lastGuess, next != current, (0..<count).contains(next) else { return PageOperation(self) }
        // The new guess and its neighbours are interaction-related from now on (docs/pages.md; GYPageViewController:
        // the guess is set before its page is attached, so the cache keeps them). The previous guess
        // still is until its end calls ran: a small cache must not release it before the new page
        // appears (the GYPageViewController article's order). If the page cannot be made, the guess
        // goes back.
        let previousGuess = guess
        guess = next
        return PageOperation(self, .attach(next, alsoRelated: lastGuess), .frame(.restoreGuess(previousGuess)),
                             .didScrollAfterAttach(next, lastGuess: lastGuess))
    }

    public func willEndDragging(offset x: Double) -> PageOperation {
        if let e = offsetError(x) { return PageOperation(self, failing: e) }
        guard phase == .dragging else { return PageOperation(self, failing: .outOfOrder(.willEndDragging, phase: phase)) }
        offset = x
        return PageOperation(self)
    }

    public func didEndDragging(offset x: Double, willDecelerate: Bool) -> PageOperation {
        if let e = offsetError(x) { return PageOperation(self, failing: e) }
        guard phase == .dragging else { return PageOperation(self, failing: .outOfOrder(.didEndDragging, phase: phase)) }
        offset = x
        guard willDecelerate else { return PageOperation(self, .settle(x)) }
        phase = .decelerating
        return PageOperation(self, .tracking)
    }

    public func didEndDecelerating(offset x: Double) -> PageOperation {
        if let e = offsetError(x) { return PageOperation(self, failing: e) }
        guard phase == .decelerating else { return PageOperation(self, failing: .outOfOrder(.didEndDecelerating, phase: phase)) }
        return PageOperation(self, .settle(x))
    }

    /// Releases every cached child that is neither current nor interaction-related (memory warning).
    /// The operation's `purged` lists the released indices.
    public func purgeForMemoryWarning() -> PageOperation {
        let keep = interactionRelated()
        let victims = children.keys.filter { !keep.contains($0) }.sorted()
        var op = PageOperation(self, releasing: victims)
        op.purged = victims
        return op
    }

    /// Tears every child down (disappear if on screen, then release), e.g. on page.destroy.
    // MARK: Pages that change (UIPageViewController's data source, ViewPager2's adapter)

    /// `k` pages are inserted before page `at` (0...count): the pages from `at` on move up by `k`, their
    /// children with them; the current page keeps its child and stays current (its index moves). At rest
    /// only (the caller checks `phase`); nothing runs.
    public func insertPages(at: Int, count k: Int) {
        precondition(at >= 0 && at <= count && k > 0 && phase == .idle)
        count += k
        shiftPages(from: at, by: k)
    }

    /// Pages `at ..< at + k` are removed: their children leave the session (brought to rest, released),
    /// the pages after them move down. The current page must not be among them (the caller moves away
    /// first, as UIKit does). At rest only.
    public func removePages(at: Int, count k: Int) -> PageOperation {
        precondition(at >= 0 && k > 0 && at + k <= count && k < count && phase == .idle)
        precondition(current < at || current >= at + k)
        var op = PageOperation(self)
        op.removePages(at: at, count: k)
        return op
    }

    /// Moves every page index `>= from` by `k` (children, LRU, deferred, current, offset).
    func shiftPages(from: Int, by k: Int) {
        func moved(_ i: Int) -> Int { i >= from ? i + k : i }
        children = Dictionary(uniqueKeysWithValues: children.map { (moved($0.key), $0.value) })
        lru = lru.map(moved)
        deferred = Set(deferred.map(moved))
        if current >= from {
            current += k
            offset += Double(k) * width
        }
    }

    /// The pages `preloadNeighbours` would make now: within `offscreenLimit` of the current page, in
    /// range, without a child, nearest first (the next page before the previous one).
    public var neighboursToPreload: [Int] {
        guard offscreenLimit > 0, phase == .idle else { return [] }
        var out: [Int] = []
        for d in 1...offscreenLimit {
            for i in [current + d, current - d] where i >= 0 && i < count && children[i] == nil { out.append(i) }
        }
        return out
    }

    /// At rest: makes and loads the pages within `offscreenLimit` of the current one (`loadView`,
    /// `viewDidLoad`, layout at the page size), offscreen and never appeared, nearest first. A page whose
    /// child fails to load leaves the session (the failure goes to the host). Nothing while tracking.
    public func preloadNeighbours() -> PageOperation {
        let indices = neighboursToPreload
        guard !indices.isEmpty else { return PageOperation(self) }
        var op = PageOperation(self)
        op.preload(indices)
        return op
    }

    public func destroy() -> PageOperation {
        PageOperation(self, .completeAnimation, .destroyRest)
    }

    /// Drops a child whose hook failed (the host tears it down): it is no longer attached anywhere.
    public func forget(_ c: ContainerRecord) {
        for (i, child) in children where child === c {
            children[i] = nil
            lru.removeAll { $0 == i }
            deferred.remove(i)
        }
    }

    // MARK: Children and cache (the operations' bookkeeping)

    /// A child the host made for `index` is attached (and counted as most recently used). It may push
    /// the cache past its limit; `index` and `alsoRelated` count as interaction-related for that
    /// eviction. Returns the pages to release now.
    func attach(_ c: ContainerRecord, at index: Int, alsoRelated: Int?) -> [Int] {
        children[index] = c
        touch(index)
        deferred.remove(index)
        return evictions(protecting: index, alsoRelated: alsoRelated)
    }

    /// The child attached for `index`, if any (counted as most recently used). Never makes one: a page
    /// whose child failed has nothing to end.
    func attached(_ index: Int) -> ContainerRecord? {
        guard let c = children[index] else { return nil }
        touch(index)
        return c
    }

    func touch(_ index: Int) {
        lru.removeAll { $0 == index }
        lru.append(index)
    }

    /// Takes `index`'s child out of the session (to be released or recycled).
    func detach(_ index: Int) -> ContainerRecord? {
        guard let c = children.removeValue(forKey: index) else { return nil }
        lru.removeAll { $0 == index }
        deferred.remove(index)
        return c
    }

    /// Pages the current motion involves: never released mid-transition.
    func interactionRelated() -> Set<Int> {
        var s: Set<Int> = [current]
        if let a = animation { s.insert(a.transition.to); s.insert(a.transition.from) }
        if let g = guess {
            s.insert(g)
            if phase == .dragging || phase == .decelerating { s.formUnion([g - 1, g + 1]) }
        }
        return s
    }

    /// LRU past the limit: an interaction-related page is deferred to rest; any other is to be released
    /// at once (returned, in order), whatever the deferral set holds (GYPageViewController held them back:
    /// its bug).
    func evictions(protecting attaching: Int? = nil, alsoRelated: Int? = nil) -> [Int] {
        guard case .limit(let limit) = cacheMode else { return [] }
        var attached = lru.filter { !deferred.contains($0) }
        guard attached.count > limit else { return [] }
        var related = interactionRelated()
        if let attaching { related.insert(attaching) }
        if let alsoRelated { related.insert(alsoRelated) }
        var release: [Int] = []
        var i = 0
        while attached.count > limit, i < attached.count {
            let victim = attached[i]
            // Neither the current page nor the one being attached is ever evicted.
            if victim == current || victim == attaching { i += 1; continue }
            attached.remove(at: i)
            if related.contains(victim) { deferred.insert(victim) } else { release.append(victim) }
        }
        return release
    }

    /// The session's own rules make an appearance call on `c`: a forwarded transition on it is theirs now.
    func takeOver(_ c: ContainerRecord) {
        if forwarded?.container === c { forwarded = nil }
    }

    func offsetError(_ x: Double) -> PageError? {
        let lo = -width, hi = Double(count) * width
        return x >= lo && x <= hi ? nil : .offsetOutOfRange(offset: x, min: lo, max: hi)
    }
}
