import Testing
@testable import GreenroomCore

/// The page machine's steps, read directly: what each input asks the host for, in order; the host's
/// answers (a made child or its failure, a hook's failure, a timer token) go back in as inputs.
@Suite struct PageOperationStepTests {
    let size = Size(width: 100, height: 200)

    /// What a step asks for, in words: "make 2", "perform p2:viewWillAppear,p2:viewIsAppearing", "release 0", "recycle 3",
    /// "willTransition 1->2", "didTransition 1->2 done", "tracking", "report p2:viewDidAppear",
    /// "timer 300", "cancel 7", "done", "done failing p2:viewDidAppear", "done <error>".
    func describe(_ step: PageOperation.Step, _ op: PageOperation) -> String {
        switch step {
        case .perform:
            return "perform " + op.actions.words
        case .makeChild(let i): return "make \(i)"
        case .release(_, let i): return "release \(i)"
        case .recycle(_, let i): return "recycle \(i)"
        case .event(let kind, let from, let to, let completed):
            return "\(kind) \(from)->\(to)" + (completed.map { $0 ? " done" : " cancelled" } ?? "")
        case .trackingChanged: return "tracking"
        case .report(let f): return "report \(f.container):\(f.hook.rawValue)"
        case .startTimer(let ms): return "timer \(Int(ms))"
        case .cancelTimer(let token): return "cancel \(token)"
        case .done(nil): return "done"
        case .done(.child(let f)?): return "done failing \(f.container):\(f.hook.rawValue)"
        case .done(let e?): return "done \(e)"
        }
    }

    /// Runs `op` to its end: children are made as "p<index>" (except those in `notMade`, whose init
    /// fails), every hook succeeds except those in `failing`, every timer gets `token`. Returns the
    /// steps in words; only appearance hooks are listed in a perform (containment is the host's).
    func steps(_ op: consuming PageOperation, failing: Set<String> = [], notMade: Set<Int> = [], token: Int = 7) -> [String] {
        var op = op
        var out: [String] = []
        var input = PageOperation.Input.start
        while true {
            let step = op.next(input)
            out.append(describe(step, op))
            switch step {
            case .perform:
                input = .performed(op.actions.failure(failing: failing))
            case .makeChild(let i):
                input = notMade.contains(i) ? .notMade(ContainerFailure(container: "p[\(i)]", hook: .initialize))
                                            : .made(ContainerRecord(id: "p\(i)", className: "K", owner: nil))
            case .startTimer: input = .timerStarted(token)
            case .done: return out
            default: input = .resumed
            }
        }
    }

    /// A session of 5 pages on page 1, on screen.
    func session(cache: PageSession.CacheMode = .limit(3)) -> PageSession {
        let s = PageSession(id: "p", count: 5, pageSize: size, initialIndex: 1, cacheMode: cache)
        _ = steps(s.setVisible(true))
        return s
    }

    @Test func appearingAsksForTheCurrentPageThenItsCalls() {
        let s = PageSession(id: "p", count: 5, pageSize: size, initialIndex: 1, cacheMode: .limit(3))
        #expect(steps(s.setVisible(true)) == [
            "make 1",
            "perform p1:loadView,p1:viewDidLoad,p1:viewWillLayoutSubviews,p1:viewDidLayoutSubviews,p1:viewWillAppear,p1:viewIsAppearing,p1:viewDidAppear",
            "done",
        ])
        #expect(steps(s.setVisible(true)) == ["done"], "already visible: nothing")
    }

    @Test func aSwipeCrossingIntoAPageMakesItAnnouncesThenBegins() {
        let s = session()
        #expect(steps(s.willBeginDragging(offset: 100)) == ["tracking", "done"])
        #expect(steps(s.didScroll(offset: 110)) == [
            "make 2",
            "willTransition 1->2",
            "perform p2:loadView,p2:viewDidLoad,p2:viewWillLayoutSubviews,p2:viewDidLayoutSubviews,p2:viewWillAppear,p2:viewIsAppearing",
            "perform p1:viewWillDisappear",
            "done",
        ])
        #expect(steps(s.didScroll(offset: 150)) == ["done"], "the same guess again asks for nothing")
        #expect(s.guess == 2)
    }

    @Test func aPageThatCannotBeMadeFailsTheScrollAndTheGuessGoesBack() {
        let s = session()
        _ = steps(s.willBeginDragging(offset: 100))
        #expect(steps(s.didScroll(offset: 110), notMade: [2]) == ["make 2", "done failing p[2]:init"])
        #expect(s.guess == nil && s.children[2] == nil)
        #expect(s.children[1]?.state == .appeared, "nothing moved")
    }

    @Test func checksThatFailFirstAreAnOperationDoneAtOnce() {
        let s = session()
        #expect(steps(s.didEndDecelerating(offset: 100)) == ["done \(PageError.outOfOrder(.didEndDecelerating, phase: .idle))"])
        #expect(steps(s.show(9, animated: false)) == ["done \(PageError.indexOutOfRange(index: 9, count: 5))"])
        #expect(steps(s.didScroll(offset: -1000)).count == 1)
        #expect(s.offset == 100, "a refused offset is not recorded")
    }

    @Test func anAnimatedShowAsksForATimerAndItsEndIsAnOperationOfItsOwn() throws {
        let s = session()
        #expect(steps(s.show(2, animated: true), token: 42) == [
            "make 2",
            "willTransition 1->2",
            "perform p2:loadView,p2:viewDidLoad,p2:viewWillLayoutSubviews,p2:viewDidLayoutSubviews,p2:viewWillAppear,p2:viewIsAppearing",
            "perform p1:viewWillDisappear",
            "timer 300",
            "tracking",
            "done",
        ])
        let a = try #require(s.animation)
        #expect(a.timer == 42 && a.transition.from == 1 && a.transition.to == 2)
        #expect(s.phase == .animating && s.current == 1)
        #expect(steps(s.animationEnded()) == [
            "perform p2:viewDidAppear",
            "perform p1:viewDidDisappear",
            "didTransition 1->2 done",
            "tracking",
            "done",
        ])
        #expect(s.animation == nil && s.phase == .idle && s.current == 2)
        #expect(steps(s.animationEnded()) == ["done"], "an ended animation ends once")
    }

    @Test func aShowDuringAnAnimationCancelsItsTimerAndDeliversItsEndFirst() {
        let s = session()
        _ = steps(s.show(2, animated: true), token: 42)
        let all = steps(s.show(3, animated: false))
        #expect(all.prefix(4) == ["cancel 42", "perform p2:viewDidAppear", "perform p1:viewDidDisappear", "didTransition 1->2 done"])
        #expect(all.contains("willTransition 2->3") && all.last == "done")
        #expect(s.current == 3)
    }

    @Test func aFailedDestinationAtRestIsTheCallersAndTheOthersComeToRestFirst() {
        let s = session()
        _ = steps(s.willBeginDragging(offset: 100))
        _ = steps(s.didScroll(offset: 160))
        _ = steps(s.didEndDragging(offset: 200, willDecelerate: true))
        #expect(steps(s.didEndDecelerating(offset: 200), failing: ["p2:viewDidAppear"]) == [
            "perform p2:viewDidAppear",
            // The rest after the failure: p1 comes back (it was disappearing), and the transition did not complete.
            "perform p1:viewWillAppear,p1:viewIsAppearing,p1:viewDidAppear",
            "didTransition 1->2 cancelled",
            "tracking",
            "done failing p2:viewDidAppear",
        ])
        #expect(s.current == 1 && s.children[2] == nil && s.phase == .idle)
    }

    @Test func hidingMidSwipeSettlesItAndReportsAFailureInsteadOfThrowingIt() {
        let s = session()
        _ = steps(s.willBeginDragging(offset: 100))
        _ = steps(s.didScroll(offset: 160))
        let all = steps(s.setVisible(false), failing: ["p2:viewDidAppear"])
        #expect(all.contains("report p2:viewDidAppear"))
        #expect(all.last == "done", "the hide itself succeeds")
        #expect(!s.isVisible && s.children[1]?.state == .disappeared)
    }

    @Test func aFailureAtAnAnimationsEndGoesToTheHost() {
        let s = session()
        _ = steps(s.show(2, animated: true))
        let all = steps(s.animationEnded(), failing: ["p2:viewDidAppear"])
        #expect(all.contains("report p2:viewDidAppear") && all.last == "done")
        #expect(all.contains("perform p1:viewWillAppear,p1:viewIsAppearing,p1:viewDidAppear"), "the page it was leaving comes back")
        #expect(s.current == 1)
    }

    @Test func aCacheOverItsLimitReleasesWhatTheMotionDoesNotInvolve() {
        let s = session(cache: .limit(1))
        var all: [String] = []
        for i in [2, 3] { all += steps(s.show(i, animated: false)) }
        #expect(all.filter { $0.hasPrefix("release") } == ["release 1", "release 2"])
        // Each release brings the page to rest first.
        #expect(s.children.keys.sorted() == [3])
    }

    @Test func reuseModeRecyclesWhatLeftCurrentPlusMinusOne() {
        let s = session(cache: .reuse)
        let all = steps(s.show(4, animated: false))
        #expect(all.filter { $0.hasPrefix("recycle") } == ["recycle 1"])
    }
}
