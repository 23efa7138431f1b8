import Testing
@testable import GreenroomCore

/// Range sessions against Texture's source (TextureGroup/Texture be0b74b4: ASRangeController.mm,
/// ASAbstractLayoutController.mm, ASBatchFetching.mm, ASTableView.mm / ASCollectionView.mm). Each
/// scenario names the Texture behaviour it follows.
///
/// The usual session: 100 rows of 100 points, a 1000-point viewport (one screen = 10 rows). Texture's
/// buffers (leading / trailing screens): full display 1.0 / 0.5, preload 2.5 / 1.5; minimum display
/// 0.25 / 0.25, preload 0.5 / 0.25.
@Suite struct RangeTextureTests {
    func session(count: Int = 100, visible: Bool = true, prepend: Bool = false,
                 tuning: RangeTuning = .texture) -> RangeSession {
        RangeSession(id: "r", sections: [Array(repeating: 100, count: count)], viewportLength: 1000, viewportCross: 375,
                     horizontal: false, tuning: tuning, prepend: prepend, visible: visible)
    }

    /// A session dragged to `x` and come to rest there (released without velocity).
    func rested(at x: Double) throws -> RangeSession {
        let s = session()
        _ = s.updateIfNeeded()
        s.willBeginDragging()
        try s.didScroll(to: x)
        _ = s.updateIfNeeded()
        _ = try s.willEndDragging(velocity: 0, target: nil)
        try s.didEndDecelerating()
        return s
    }

    // MARK: When ranges are recomputed

    /// setNeedsUpdate comes from willDisplayCell / didEndDisplayingCell (the items on screen), a mode
    /// change and didMoveToWindow, never from an offset alone.
    @Test func aJitterInsideTheSameItemsRecomputesNothing() throws {
        let s = session()
        _ = s.updateIfNeeded()
        s.willBeginDragging()
        #expect(s.needsUpdate, "minimum -> full is a mode change")
        _ = s.updateIfNeeded()
        try s.didScroll(to: 55)
        _ = s.updateIfNeeded()
        // A forced recompute at every offset would flip the direction at each step of a 5-point
        // jitter: full down at 55 preloads rows 0..35, full up at 50 rows 0..25 — 10 rows cancelled and
        // prefetched again per step. Texture recomputes nothing: rows 0..10 stay on screen.
        for x in [50.0, 55, 50, 55, 50] {
            try s.didScroll(to: x)
            #expect(!s.needsUpdate, "at \(x)")
            #expect(s.updateIfNeeded().isEmpty)
        }
        let churn = session()
        _ = churn.update()
        churn.willBeginDragging()
        try churn.didScroll(to: 55)
        _ = churn.update()
        try churn.didScroll(to: 50)
        #expect(churn.update().exitPreload == Array(26..<36), "what recomputing on every offset would cost")
        // A row leaving the screen is a change.
        try s.didScroll(to: 100)
        #expect(s.needsUpdate)
        #expect(s.updateIfNeeded().exitVisible == [0])
    }

    /// `visibleElements.count == 0`: Texture keeps every range and only takes the visible bit from
    /// the nodes that left the screen (`_setVisibleNodes:`); the mode stays too.
    @Test func overscrollKeepsTheRangesAndTakesOnlyTheVisibleBit() throws {
        let s = session(count: 20)
        _ = s.update()
        s.willBeginDragging()
        try s.didScroll(to: 1000)
        _ = s.updateIfNeeded()
        #expect(s.visible == IndexInterval(10, 20))
        let (d, p) = (s.display, s.preload)
        try s.didScroll(to: 2000)  // a screen past the tail: nothing on screen
        let u = s.updateIfNeeded()
        #expect(u.exitVisible.sorted() == Array(10..<20))
        #expect(u.exitDisplay.isEmpty && u.exitPreload.isEmpty && u.enterPreload.isEmpty && u.cancelPrefetch.isEmpty)
        #expect(s.display == d && s.preload == p && s.visible.isEmpty)
        try s.didScroll(to: 2000)  // still nothing on screen
        #expect(!s.needsUpdate)
        try s.didScroll(to: 1500)
        #expect(s.updateIfNeeded().enterVisible.sorted() == Array(15..<20))
        // Past the head the same: an invisible-to-the-eye session keeps what it had.
        try s.didScroll(to: -1000)
        let v = s.updateIfNeeded()
        #expect(v.exitVisible.sorted() == Array(15..<20) && v.exitPreload.isEmpty && v.enterPreload.isEmpty)
    }

    // MARK: Direction

    /// ASTableView's scrollDirection: the pan velocity while tracking, `_deceleratingVelocity`
    /// (offset - target) while decelerating, none otherwise; the range controller keeps the previous
    /// direction when there is none.
    @Test func directionFromTheMotionThenTowardTheTargetThenKept() throws {
        let s = session()
        _ = s.update()
        s.willBeginDragging()
        try s.didScroll(to: 3000)
        #expect(s.scrollSign == 1, "offsets only: the delta's sign")
        try s.didScroll(to: 2990)
        #expect(s.scrollSign == -1)
        try s.didScroll(to: 2980, velocity: 0.5)
        #expect(s.scrollSign == 1, "a velocity, when sent, wins over the delta")
        _ = s.updateIfNeeded()
        #expect(s.direction == .down)
        // A snap target above the offset while the finger moved down: toward the target.
        #expect(try s.willEndDragging(velocity: 0.5, target: 2500) == 2500)
        #expect(s.scrollSign == -1)
        try s.didScroll(to: 2800)
        _ = s.updateIfNeeded()
        #expect(s.direction == .up)
        // full, up at 2800: display [1800, 4300) rows 18..42, preload [300, 5300) rows 3..52.
        #expect(s.display == IndexInterval(18, 43) && s.preload == IndexInterval(3, 53))
        try s.didEndDecelerating()
        // A programmatic scroll down has no direction: the ranges keep pointing up.
        try s.didScroll(to: 5000)
        #expect(s.scrollSign == 0)
        _ = s.updateIfNeeded()
        #expect(s.direction == .up)
        #expect(s.display == IndexInterval(40, 65) && s.preload == IndexInterval(25, 75))
    }

    // MARK: Batch fetching

    /// ASDisplayShouldFetchBatchForContext with `_checkForBatchFetching`'s direction: outside a drag
    /// the scroll direction is none, so "toward the head" never refuses there. Content 10000, L 1000,
    /// leadingScreens 2: fetch when 9000 - offset <= 2000.
    @Test func outsideADragTheBatchCheckHasNoDirection() throws {
        let s = session()
        _ = s.update()
        s.willBeginDragging()
        try s.didScroll(to: 7300)
        try s.didScroll(to: 7100, velocity: -0.2)
        _ = s.updateIfNeeded()
        #expect(s.direction == .up)
        #expect(!s.shouldBeginBatch(), "dragging toward the head: no")
        _ = try s.willEndDragging(velocity: 0, target: nil)
        #expect(s.scrollSign == 0)
        #expect(s.shouldBeginBatch(at: 7100), "a zero-velocity release has no direction: fetch")
        try s.didEndDecelerating()
        #expect(s.direction == .up && s.shouldBeginBatch(), "at rest near the end, whatever the ranges keep")
    }

    @Test func theBatchBoundaryIsInclusive() throws {
        let s = session()
        _ = s.update()
        try s.didScroll(to: 6999)
        #expect(!s.shouldBeginBatch(), "2001 points left > 2 screens")
        try s.didScroll(to: 7000)
        #expect(s.shouldBeginBatch(), "2000 points left = 2 screens")
        let h = RangeSession(id: "h", sections: [Array(repeating: 50, count: 40)], viewportLength: 500, viewportCross: 300,
                             horizontal: true, leadingScreens: 1.5)
        _ = h.update()
        try h.didScroll(to: 749)
        #expect(!h.shouldBeginBatch(), "horizontal: 2000 - 500 - 749 = 751 > 750")
        try h.didScroll(to: 750)
        #expect(h.shouldBeginBatch())
    }

    /// At release the check uses the target and the direction toward it, not the velocity's.
    @Test func aSnapTargetAgainstTheMotionIsJudgedAtRelease() throws {
        let s = session()
        _ = s.update()
        s.willBeginDragging()
        try s.didScroll(to: 7900)
        try s.didScroll(to: 7800)  // moving up
        _ = try s.willEndDragging(velocity: -0.3, target: 8000)
        #expect(s.scrollSign == 1 && s.shouldBeginBatch(at: 8000), "snapping forward: down, 1000 left")
        let t = session()
        _ = t.update()
        t.willBeginDragging()
        try t.didScroll(to: 6900)
        try t.didScroll(to: 7100)  // moving down
        _ = try t.willEndDragging(velocity: 0.3, target: 7000)
        #expect(t.scrollSign == -1 && !t.shouldBeginBatch(at: 7000), "snapping back: toward the head, no")
    }

    // MARK: Invisible sessions, independent sets, lowMemory

    @Test func anInvisibleSessionPreloadsTheViewportAndTheDisplayRangeOnly() throws {
        let s = session(visible: false)
        _ = s.updateIfNeeded()
        #expect(s.visible.isEmpty && s.display == IndexInterval(0, 10) && s.preload == IndexInterval(0, 13))
        s.willBeginDragging()
        _ = s.updateIfNeeded()
        // full at 0 down: display [-500, 2000) rows 0..19 (preload only); preload range rows 20..34 nothing.
        #expect(s.mode == .full)
        #expect(s.display == IndexInterval(0, 10) && s.preload == IndexInterval(0, 20))
        #expect(!s.state(25).preload && !s.state(25).display)
        s.memoryWarning()
        _ = s.updateIfNeeded()
        #expect(s.mode == .lowMemory && s.display.isEmpty && s.preload == IndexInterval(0, 10))
        // Shown again: visible, scrolled and no mode held -> full at this update.
        #expect(s.setVisible(true))
        _ = s.updateIfNeeded()
        #expect(s.mode == .full && s.visible == IndexInterval(0, 10) && s.preload == IndexInterval(0, 35))
    }

    @Test func displayAndPreloadAreIndependentAndLowMemoryHasNoDisplayRange() throws {
        var t = RangeTuning.texture
        t.buffers[.minimum] = [.display: RangeBuffer(leading: 3, trailing: 0), .preload: RangeBuffer(leading: 1, trailing: 0)]
        t.buffers[.lowMemory] = [.display: RangeBuffer(leading: 2, trailing: 2), .preload: RangeBuffer(leading: 0, trailing: 0)]
        let s = session(tuning: t)
        _ = s.updateIfNeeded()
        #expect(s.display == IndexInterval(0, 40))
        #expect(s.preload == IndexInterval(0, 20), "display beyond preload does not widen preload")
        #expect(s.state(30).display && !s.state(30).preload && !s.state(30).visible)
        let h = session(visible: false, tuning: t)
        _ = h.updateIfNeeded()
        h.memoryWarning()
        _ = h.updateIfNeeded()
        #expect(h.mode == .lowMemory && h.display.isEmpty, "lowMemory's display is empty whatever its tuning")
        h.setVisible(true)
        _ = h.updateIfNeeded()
        #expect(h.mode == .lowMemory, "never scrolled: the mode is not managed yet")
        #expect(h.display == IndexInterval(0, 10) && h.preload == IndexInterval(0, 10), "only what is visible")
    }

    // MARK: Modes

    /// updateCurrentRangeWithMode: holds for one update (`_preserveCurrentRangeMode`); after it the
    /// mode is managed again only once the content has been scrolled and the session is visible.
    @Test func aMemoryWarningLastsOneUpdateAfterADragAndUntilTheDragBefore() throws {
        let s = try rested(at: 3000)
        s.memoryWarning()
        let u = s.updateIfNeeded()
        #expect(s.mode == .visibleOnly && s.preload == s.visible && s.display == s.visible)
        #expect(!u.exitPreload.isEmpty)
        try s.didScroll(to: 3050)  // row 40 comes on screen: the next update
        _ = s.updateIfNeeded()
        #expect(s.mode == .full, "one update only")
        // Before any drag the warning's mode stays until the drag.
        let f = session()
        _ = f.updateIfNeeded()
        f.memoryWarning()
        _ = f.updateIfNeeded()
        try f.didScroll(to: 2000)
        _ = f.updateIfNeeded()
        #expect(f.mode == .visibleOnly, "never scrolled: not managed")
        f.willBeginDragging()
        _ = f.updateIfNeeded()
        #expect(f.mode == .full)
        // A warning during overscroll is held until an update with items on screen.
        let o = session(count: 20)
        _ = o.updateIfNeeded()
        o.willBeginDragging()
        try o.didScroll(to: 2000)
        _ = o.updateIfNeeded()
        o.memoryWarning()
        _ = o.updateIfNeeded()
        try o.didScroll(to: 1000)
        _ = o.updateIfNeeded()
        #expect(o.mode == .visibleOnly && o.preload == IndexInterval(10, 20))
    }

    // MARK: Horizontal, sections, reversals

    @Test func horizontalSectionsReverseWithTheDrag() throws {
        // Sections: 10 x 100, none, 20 x 50 (flat 10..29 at 1000..2000); L = 500.
        let s = RangeSession(id: "h", sections: [Array(repeating: 100, count: 10), [], Array(repeating: 50, count: 20)],
                             viewportLength: 500, viewportCross: 300, horizontal: true)
        _ = s.updateIfNeeded()
        s.willBeginDragging()
        try s.didScroll(to: 900)
        _ = s.updateIfNeeded()
        #expect(s.direction == .right)
        // full right at 900: display [650, 1900) = rows 6..9 and 10..27; preload [150, 2150) = 1..29.
        #expect(s.display == IndexInterval(6, 28) && s.preload == IndexInterval(1, 30))
        #expect(s.path(10).section == 2 && s.path(10).row == 0)
        try s.didScroll(to: 850)
        _ = s.updateIfNeeded()
        #expect(s.direction == .left)
        // full left at 850: display [350, 1600) rows 3..21, preload [-400, 2100) rows 0..29.
        #expect(s.display == IndexInterval(3, 22) && s.preload == IndexInterval(0, 30))
    }
}
