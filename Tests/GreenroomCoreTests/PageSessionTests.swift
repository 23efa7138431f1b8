import Testing
@testable import GreenroomCore

/// Children are "p0", "p1", ...; the log keeps appearance hooks as "willAppear 0" etc., as the
/// GYPageViewController article writes them. Runs the session's operations as the host does
/// (`PageDriver.swift`), over a `RecordingDelegate`.
final class PageHarness {
    let d = RecordingDelegate()
    let core: PageSession
    var released: [Int] = []
    var recycled: [Int] = []
    var events: [String] = []
    var made = 0
    var failed: [String] = []

    /// The session, with each input run to its end (its error thrown).
    var session: DrivenPageSession { DrivenPageSession(h: self) }

    init(count: Int = 5, initial: Int = 1, cache: PageSession.CacheMode = .limit(3)) {
        core = PageSession(id: "p", count: count, pageSize: Size(width: 100, height: 200), initialIndex: initial, cacheMode: cache)
        try! session.setVisible(true)
        _ = d.take()
    }

    /// Runs `operation` to its end: children are made as "p<index>", released ones torn down, events and
    /// failures recorded, and the animation timer kept on the fake clock.
    func run(_ operation: consuming PageOperation) throws(PageError) {
        var op = operation
        var input = PageOperation.Input.start
        while true {
            switch op.next(input) {
            case .perform:
                do throws(ContainerFailure) { try d.perform(op.actions); input = .performed(nil) } catch { input = .performed(error) }
            case .makeChild(let index):
                made += 1
                input = .made(ContainerRecord(id: "p\(index)", className: "K", owner: "conn"))
            case .release(let child, let index):
                released.append(index)
                try? d.perform(Lifecycle().teardown(child))
                input = .resumed
            case .recycle(_, let index):
                recycled.append(index)
                input = .resumed
            case .event(let kind, let from, let to, let completed):
                events.append("\(kind) \(from)->\(to)\(completed.map { $0 ? " done" : " cancelled" } ?? "")")
                input = .resumed
            case .trackingChanged:
                input = .resumed
            case .report(let failure):
                failed.append(failure.container)
                input = .resumed
            case .startTimer(let ms):
                input = .timerStarted(d.schedule(afterMs: ms) { [weak self] in
                    guard let self else { return }
                    try? run(core.animationEnded())
                })
            case .cancelTimer(let token):
                d.cancel(token)
                input = .resumed
            case .done(let error):
                if let error { throw error }
                return
            }
        }
    }

    /// Appearance hooks in the GYPageViewController article's words.
    func log() -> [String] {
        d.take().compactMap { entry in
            let parts = entry.split(separator: ":")
            let index = parts[0].dropFirst()
            switch parts[1] {
            case "viewWillAppear": return "willAppear \(index)"
            case "viewDidAppear": return "didAppear \(index)"
            case "viewWillDisappear": return "willDisappear \(index)"
            case "viewDidDisappear": return "didDisappear \(index)"
            default: return nil
            }
        }
    }

    func drag(_ offsets: [Double], release: Double, decelerate: Bool = true) throws {
        try session.willBeginDragging(offset: offsets.first!)
        for o in offsets.dropFirst() { try session.didScroll(offset: o) }
        try session.willEndDragging(offset: offsets.last!)
        try session.didEndDragging(offset: offsets.last!, willDecelerate: decelerate)
        if decelerate { try session.didEndDecelerating(offset: release) }
    }

    /// docs/pages.md's invariants at rest.
    func checkRest() {
        #expect(d.unbalancedCalls.isEmpty, "unbalanced: \(d.unbalancedCalls)")
        for (i, c) in session.children {
            #expect(c.state == (i == session.current ? .appeared : .disappeared), "page \(i) is \(c.state) at rest")
        }
    }
}

@Suite struct PageSessionTests {
    @Test func nonInteractiveOneToZero() throws {
        let h = PageHarness()
        try h.session.show(0, animated: true)
        #expect(h.log() == ["willAppear 0", "willDisappear 1"])
        h.d.advance(299)
        #expect(h.log().isEmpty)
        h.d.advance(1)
        #expect(h.log() == ["didAppear 0", "didDisappear 1"])
        #expect(h.events == ["willTransition 1->0", "didTransition 1->0 done"])
        h.checkRest()
    }

    @Test func interactiveOneToZero() throws {
        let h = PageHarness()
        try h.session.willBeginDragging(offset: 100)
        try h.session.didScroll(offset: 90)
        #expect(h.log() == ["willAppear 0", "willDisappear 1"])
        try h.session.didScroll(offset: 40)
        try h.session.didEndDragging(offset: 40, willDecelerate: true)
        #expect(h.log().isEmpty)
        try h.session.didEndDecelerating(offset: 0)
        #expect(h.log() == ["didAppear 0", "didDisappear 1"])
        #expect(h.session.current == 0)
        h.checkRest()
    }

    @Test func towardTwoThenBackToZero() throws {
        let h = PageHarness()
        try h.drag([100, 120, 150, 99, 60], release: 0)
        #expect(h.log() == ["willAppear 2", "willDisappear 1", "willAppear 0", "willDisappear 2", "didDisappear 2",
                            "didAppear 0", "didDisappear 1"])
        h.checkRest()
    }

    @Test func oneTwoZeroTwoCancelledTwice() throws {
        let h = PageHarness()
        try h.drag([100, 130, 80, 130], release: 200)
        #expect(h.log() == ["willAppear 2", "willDisappear 1", "willAppear 0", "willDisappear 2", "didDisappear 2",
                            "willAppear 2", "willDisappear 0", "didDisappear 0", "didAppear 2", "didDisappear 1"])
        #expect(h.session.current == 2)
        h.checkRest()
    }

    @Test func cancelledSwipeReturnsToTheOldPage() throws {
        let h = PageHarness()
        try h.drag([100, 140], release: 100)
        #expect(h.log() == ["willAppear 2", "willDisappear 1", "willAppear 1", "didAppear 1", "willDisappear 2", "didDisappear 2"])
        #expect(h.events.last == "didTransition 1->2 cancelled", "a cancelled swipe names the page it gave up on")
        h.checkRest()
    }

    @Test func releaseExactlyOnAPageBoundarySettlesWithoutDeceleration() throws {
        let h = PageHarness()
        try h.drag([100, 150, 200], release: 200, decelerate: false)
        #expect(h.log() == ["willAppear 2", "willDisappear 1", "didAppear 2", "didDisappear 1"])
        #expect(h.session.phase == .idle)
        h.checkRest()
    }

    @Test func aTinyDragThatCrossesNothingCallsNothing() throws {
        let h = PageHarness()
        try h.drag([100, 100], release: 100)
        #expect(h.log().isEmpty)
        h.checkRest()
    }

    @Test func dragBeginningWhileDeceleratingContinuesTheInteraction() throws {
        let h = PageHarness()
        try h.session.willBeginDragging(offset: 100)
        try h.session.didScroll(offset: 150)
        try h.session.didEndDragging(offset: 170, willDecelerate: true)
        // Still decelerating toward 2; the finger comes back and drags on toward 3.
        try h.session.willBeginDragging(offset: 180)
        try h.session.didScroll(offset: 210)
        try h.session.didEndDragging(offset: 260, willDecelerate: true)
        try h.session.didEndDecelerating(offset: 300)
        let log = h.log()
        #expect(log == ["willAppear 2", "willDisappear 1", "willAppear 3", "willDisappear 2", "didDisappear 2",
                        "didAppear 3", "didDisappear 1"])
        #expect(log.filter { $0.hasPrefix("didAppear") }.count == 1, "one interaction, one didAppear")
        #expect(h.session.current == 3)
        h.checkRest()
    }

    @Test func settlingOnAPageOtherThanTheLastGuess() throws {
        let h = PageHarness()
        try h.session.willBeginDragging(offset: 100)
        try h.session.didScroll(offset: 130)
        try h.session.didEndDragging(offset: 130, willDecelerate: true)
        try h.session.didEndDecelerating(offset: 300)
        #expect(h.log() == ["willAppear 2", "willDisappear 1", "willDisappear 2", "didDisappear 2",
                            "willAppear 3", "didAppear 3", "didDisappear 1"])
        h.checkRest()
    }

    @Test func showDuringAnAnimationCompletesTheRunningOneFirst() throws {
        let h = PageHarness()
        try h.session.show(2, animated: true)
        try h.session.show(4, animated: true)
        #expect(h.log() == ["willAppear 2", "willDisappear 1", "didAppear 2", "didDisappear 1", "willAppear 4", "willDisappear 2"])
        h.d.advance(300)
        #expect(h.log() == ["didAppear 4", "didDisappear 2"])
        h.checkRest()
    }

    @Test func dragDuringAnAnimationCompletesItFirst() throws {
        let h = PageHarness()
        try h.session.show(2, animated: true)
        try h.session.willBeginDragging(offset: 200)
        #expect(h.log() == ["willAppear 2", "willDisappear 1", "didAppear 2", "didDisappear 1"])
        try h.session.didScroll(offset: 250)
        try h.session.didEndDragging(offset: 300, willDecelerate: false)
        #expect(h.log() == ["willAppear 3", "willDisappear 2", "didAppear 3", "didDisappear 2"])
        h.checkRest()
    }

    @Test func outOfOrderCallsAreErrorsAndChangeNothing() throws {
        let h = PageHarness()
        #expect(throws: PageError.outOfOrder(.didEndDecelerating, phase: .idle)) { try h.session.didEndDecelerating(offset: 100) }
        #expect(throws: PageError.outOfOrder(.didEndDragging, phase: .idle)) { try h.session.didEndDragging(offset: 100, willDecelerate: false) }
        try h.session.didScroll(offset: 150)  // not dragging: recorded, no lifecycle
        #expect(h.log().isEmpty)
        #expect(throws: PageError.indexOutOfRange(index: 5, count: 5)) { try h.session.show(5, animated: false) }
        #expect(throws: PageError.self) { try h.session.willBeginDragging(offset: -150) }
        try h.drag([100, 150], release: 200)
        #expect(throws: PageError.outOfOrder(.didEndDecelerating, phase: .idle)) { try h.session.didEndDecelerating(offset: 200) }
        h.checkRest()
    }

    @Test func cacheLimitReleasesLeastRecentlyUsedAndDefersInteractionRelated() throws {
        let h = PageHarness(count: 10, initial: 0, cache: .limit(3))
        for i in 1...5 { try h.session.show(i, animated: false) }
        #expect(h.session.children.count == 3)
        #expect(Set(h.session.children.keys) == [3, 4, 5])
        #expect(h.released == [0, 1, 2])
        // During an animation both ends are related: an eviction of one of them waits for rest.
        h.released = []
        try h.session.show(9, animated: true)
        #expect(h.session.children[5] != nil && h.session.children[9] != nil)
        h.d.advance(300)
        #expect(h.session.children.count <= 3)
        #expect(h.session.children[9] != nil, "the final page is never released")
        h.checkRest()
    }

    @Test func unrelatedEvictionsAreNotHeldBackByDeferredOnes() throws {
        // Limit 1, on page 6: toward 7, then back toward 5. When 5 is attached, 7 (the previous guess)
        // is still interaction-related: it is deferred, and the GYPageViewController article's order holds.
        let h = PageHarness(count: 10, initial: 5, cache: .limit(1))
        try h.session.show(6, animated: false)
        #expect(h.released == [5])
        _ = h.log()
        try h.session.willBeginDragging(offset: 600)
        try h.session.didScroll(offset: 650)
        try h.session.didScroll(offset: 580)
        #expect(h.session.deferred.contains(7))
        #expect(h.log() == ["willAppear 7", "willDisappear 6", "willAppear 5", "willDisappear 7", "didDisappear 7"])
        // A page that is not related is released at once, deferred pages notwithstanding.
        let h2 = PageHarness(count: 10, initial: 5, cache: .limit(2))
        try h2.session.show(6, animated: false)
        try h2.session.show(7, animated: true)  // 6 and 7 related while animating
        #expect(h2.session.children.keys.sorted() == [6, 7])
        h2.d.advance(300)
        try h2.session.willBeginDragging(offset: 700)
        try h2.session.didScroll(offset: 750)  // attaching 8: 6 is unrelated now and goes at once
        #expect(h2.released.contains(6))
        try h2.session.didEndDragging(offset: 800, willDecelerate: false)
        h2.checkRest()
        // At rest the deferred page goes; the final page stays.
        try h.session.didEndDragging(offset: 500, willDecelerate: false)
        h.checkRest()
        #expect(h.session.children.keys.sorted() == [5])
        #expect(h.released.contains(7) && h.released.contains(6))
    }

    @Test func reuseModeKeepsOnlyCurrentPlusMinusOne() throws {
        let h = PageHarness(count: 10, initial: 0, cache: .reuse)
        for i in 1...6 { try h.session.show(i, animated: false) }
        #expect(Set(h.session.children.keys).isSubset(of: [5, 6, 7]))
        #expect(!h.recycled.isEmpty)
        h.checkRest()
    }

    @Test func memoryWarningReleasesAllButCurrentAndRelated() throws {
        let h = PageHarness(count: 10, initial: 0, cache: .limit(5))
        for i in 1...4 { try h.session.show(i, animated: false) }
        let purged = h.session.purgeForMemoryWarning()
        #expect(purged == [0, 1, 2, 3])
        #expect(Array(h.session.children.keys) == [4])
    }

    /// Seeded random gesture storms: the invariants hold after every rest.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func gestureStormsKeepTheInvariants(seed: UInt64) throws {
        var rng = SplitMix(seed: seed)
        let h = PageHarness(count: 6, initial: 2, cache: seed % 2 == 0 ? .limit(3) : .reuse)
        for _ in 0..<60 {
            var didAppearBefore = 0
            switch rng.next() % 4 {
            case 0:
                try h.session.show(Int(rng.next() % 6), animated: rng.next() % 2 == 0)
                if rng.next() % 2 == 0 { h.d.advance(300) }
            default:
                if h.session.phase == .animating && rng.next() % 2 == 0 { h.d.advance(300) }
                var x = Double(h.session.current) * 100
                try h.session.willBeginDragging(offset: x)
                // Beginning a drag completes a running animation: its didAppear is not this interaction's.
                didAppearBefore = h.d.log.filter { $0.hasSuffix("viewDidAppear") }.count
                for _ in 0..<Int(rng.next() % 6) {
                    x = min(max(x + Double(Int(rng.next() % 161) - 80), 0), 500)
                    try h.session.didScroll(offset: x)
                }
                let decelerate = rng.next() % 3 != 0
                try h.session.didEndDragging(offset: x, willDecelerate: decelerate)
                if decelerate {
                    if rng.next() % 3 == 0 {
                        // A fast repeated swipe: drag again while decelerating.
                        try h.session.willBeginDragging(offset: x)
                        x = min(max(x + Double(Int(rng.next() % 161) - 80), 0), 500)
                        try h.session.didScroll(offset: x)
                        try h.session.didEndDragging(offset: x, willDecelerate: true)
                    }
                    try h.session.didEndDecelerating(offset: (x / 100).rounded() * 100)
                }
                let didAppears = h.d.log.filter { $0.hasSuffix("viewDidAppear") }.count - didAppearBefore
                #expect(didAppears <= 1, "at most one didAppear per interaction")
            }
            if h.session.phase == .idle { h.checkRest() }
        }
        h.d.advance(1000)
        h.checkRest()
    }

    // docs/plugins.md: a failing hook fails that container and nothing else.

    @Test func aDestinationFailingInViewDidAppearLeavesAndTheOldPageComesBack() throws {
        let h = PageHarness()
        h.d.failOn = ["p2:viewDidAppear"]
        #expect(throws: PageError.child(ContainerFailure(container: "p2", hook: .viewDidAppear))) {
            try h.session.show(2, animated: false)
        }
        #expect(h.log() == ["willAppear 2", "willDisappear 1", "didAppear 2", "didDisappear 1", "willAppear 1", "didAppear 1"])
        #expect(h.session.current == 1 && h.session.children[2] == nil)
        #expect(h.events.last == "didTransition 1->2 cancelled")
        h.checkRest()
        try h.session.show(0, animated: false)
        h.checkRest()
    }

    @Test func aFailureAtTheEndOfAnAnimatedShowGoesToTheHost() throws {
        let h = PageHarness()
        h.d.failOn = ["p2:viewDidAppear"]
        try h.session.show(2, animated: true)
        h.d.advance(300)
        #expect(h.failed == ["p2"])
        #expect(h.session.current == 1 && !h.session.isTracking)
        h.checkRest()
    }

    @Test func aPageFailingWhenASwipeComesToRestLeavesTheOthersBalanced() throws {
        let h = PageHarness()
        h.d.failOn = ["p2:viewDidAppear"]
        #expect(throws: PageError.child(ContainerFailure(container: "p2", hook: .viewDidAppear))) {
            try h.drag([100, 160], release: 200)
        }
        #expect(h.session.current == 1 && h.session.children[2] == nil && !h.session.isTracking)
        h.checkRest()
    }
}

/// A page session whose inputs run to their end through a `PageHarness` (their error thrown), and whose
/// state reads as the session's.
@dynamicMemberLookup
struct DrivenPageSession {
    let h: PageHarness
    subscript<T>(dynamicMember path: KeyPath<PageSession, T>) -> T { h.core[keyPath: path] }

    func setVisible(_ visible: Bool, animated: Bool = false) throws(PageError) { try h.run(h.core.setVisible(visible, animated: animated)) }
    func show(_ index: Int, animated: Bool) throws(PageError) { try h.run(h.core.show(index, animated: animated)) }
    func willBeginDragging(offset: Double) throws(PageError) { try h.run(h.core.willBeginDragging(offset: offset)) }
    func didScroll(offset: Double) throws(PageError) { try h.run(h.core.didScroll(offset: offset)) }
    func willEndDragging(offset: Double) throws(PageError) { try h.run(h.core.willEndDragging(offset: offset)) }
    func didEndDragging(offset: Double, willDecelerate: Bool) throws(PageError) {
        try h.run(h.core.didEndDragging(offset: offset, willDecelerate: willDecelerate))
    }
    func didEndDecelerating(offset: Double) throws(PageError) { try h.run(h.core.didEndDecelerating(offset: offset)) }
    func purgeForMemoryWarning() -> [Int] {
        let op = h.core.purgeForMemoryWarning()
        let purged = op.purged
        try? h.run(op)
        return purged
    }
}
