import Testing
@testable import GreenroomCore

/// Core's viewability machine (docs/ranges.md, "Viewability"): thresholds met at observations, held for
/// `minMs` on an injected clock, ended with a reason; inserts and deletes move what it tracks.
@Suite struct RangeViewabilityTests {
    typealias T = ViewabilityTransition

    func viewable(_ t: Int, _ f: Int, _ p: Double) -> T { T(threshold: t, flat: f, percent: p, kind: .viewable) }
    func ended(_ t: Int, _ f: Int, _ p: Double, _ r: ViewabilityEnd) -> T { T(threshold: t, flat: f, percent: p, kind: .ended(r)) }

    @Test func zeroMinMsCountsAtOnceAndEndsWhenBelowTheThreshold() {
        var v = Viewability(thresholds: [ViewabilityThreshold(name: "half")])
        var step = v.observe(now: 0, visible: [(0, 100), (1, 50), (2, 49.9)], isVisible: true)
        #expect(step.transitions == [viewable(0, 0, 100), viewable(0, 1, 50)])
        #expect(step.deadline == nil)
        #expect(v.viewableItems(0) == [0, 1])
        // Still met: nothing new. Item 1 drops below 50: it ends, scrolled out, at its percent now.
        step = v.observe(now: 5, visible: [(0, 80), (1, 10)], isVisible: true)
        #expect(step.transitions == [ended(0, 1, 10, .scrolledOut)])
        step = v.observe(now: 6, visible: [], isVisible: true)
        #expect(step.transitions == [ended(0, 0, 0, .scrolledOut)])
        #expect(v.viewableItems(0).isEmpty)
    }

    @Test func minMsHeldUntilItsDeadlineThenATickAnnouncesIt() {
        var v = Viewability(thresholds: [ViewabilityThreshold(name: "seen", minPercent: 50, minMs: 1000)])
        var step = v.observe(now: 100, visible: [(3, 60)], isVisible: true)
        #expect(step.transitions.isEmpty)
        #expect(step.deadline == 1100)
        // Observed again before the deadline: still pending, the deadline stays (since is kept).
        step = v.observe(now: 600, visible: [(3, 75)], isVisible: true)
        #expect(step.transitions.isEmpty && step.deadline == 1100)
        #expect(v.tick(now: 1099.5).transitions.isEmpty)
        step = v.tick(now: 1100)
        #expect(step.transitions == [viewable(0, 3, 75)], "the percent of its last observation")
        #expect(step.deadline == nil)
        #expect(v.viewableItems(0) == [3])
    }

    @Test func anObservationPastTheDeadlineCountsWithoutATick() {
        var v = Viewability(thresholds: [ViewabilityThreshold(name: "seen", minMs: 200)])
        _ = v.observe(now: 0, visible: [(0, 100)], isVisible: true)
        let step = v.observe(now: 250, visible: [(0, 90)], isVisible: true)
        #expect(step.transitions == [viewable(0, 0, 90)])
        #expect(step.deadline == nil)
    }

    @Test func droppingBelowBeforeMinMsForgetsTheItemSilently() {
        var v = Viewability(thresholds: [ViewabilityThreshold(name: "seen", minMs: 500)])
        _ = v.observe(now: 0, visible: [(5, 100)], isVisible: true)
        var step = v.observe(now: 499, visible: [(5, 20)], isVisible: true)
        #expect(step.transitions.isEmpty && step.deadline == nil, "pending items end without an event")
        // Met again: its time starts over.
        step = v.observe(now: 600, visible: [(5, 100)], isVisible: true)
        #expect(step.deadline == 1100)
        #expect(v.tick(now: 1000).transitions.isEmpty)
    }

    @Test func aFlingPastAnItemNeverCountsIt() {
        // Samples at 0 (items 0..1), then 10 (items 10..11) at the same time: items 2...9 were never observed,
        // and items 0 and 1, pending for 100 ms, are gone before their deadline.
        var v = Viewability(thresholds: [ViewabilityThreshold(name: "now", minPercent: 50), ViewabilityThreshold(name: "dwell", minMs: 100)])
        var step = v.observe(now: 0, visible: [(0, 100), (1, 100)], isVisible: true)
        #expect(step.transitions == [viewable(0, 0, 100), viewable(0, 1, 100)])
        step = v.observe(now: 16, visible: [(10, 100), (11, 100)], isVisible: true)
        #expect(step.transitions == [ended(0, 0, 0, .scrolledOut), ended(0, 1, 0, .scrolledOut),
                                     viewable(0, 10, 100), viewable(0, 11, 100)])
        #expect(step.deadline == 116)
        #expect(v.viewableItems(1).isEmpty)
    }

    @Test func thresholdsAreIndependent() {
        var v = Viewability(thresholds: [ViewabilityThreshold(name: "any", minPercent: 1),
                                         ViewabilityThreshold(name: "full", minPercent: 100, minMs: 50)])
        var step = v.observe(now: 0, visible: [(0, 30), (1, 100)], isVisible: true)
        #expect(step.transitions == [viewable(0, 0, 30), viewable(0, 1, 100)])
        #expect(step.deadline == 50)
        step = v.observe(now: 10, visible: [(0, 100), (1, 90)], isVisible: true)
        #expect(step.transitions.isEmpty)
        #expect(step.deadline == 60, "item 1 left `full` (forgotten); item 0 is pending from 10")
        step = v.tick(now: 60)
        #expect(step.transitions == [viewable(1, 0, 100)])
        #expect(v.viewableItems(0) == [0, 1] && v.viewableItems(1) == [0])
    }

    @Test func anInvisibleListHasNothingViewable() {
        var v = Viewability(thresholds: [ViewabilityThreshold(name: "a"), ViewabilityThreshold(name: "b", minMs: 10)])
        _ = v.observe(now: 0, visible: [(0, 100), (1, 100)], isVisible: true)
        _ = v.tick(now: 10)
        _ = v.observe(now: 11, visible: [(0, 100), (1, 100), (2, 100)], isVisible: true)  // 2 pending for b
        var step = v.observe(now: 12, visible: [(0, 100), (1, 100), (2, 100)], isVisible: false)
        #expect(step.transitions == [ended(0, 0, 0, .hidden), ended(0, 1, 0, .hidden), ended(0, 2, 0, .hidden),
                                     ended(1, 0, 0, .hidden), ended(1, 1, 0, .hidden)])
        #expect(step.deadline == nil, "the pending item is forgotten")
        step = v.observe(now: 13, visible: [(0, 100)], isVisible: false)
        #expect(step.transitions.isEmpty)
        step = v.observe(now: 14, visible: [(0, 100)], isVisible: true)
        #expect(step.transitions == [viewable(0, 0, 100)] && step.deadline == 24)
    }

    @Test func insertsMoveTrackedItemsAndADeleteEndsAViewableOne() {
        var v = Viewability(thresholds: [ViewabilityThreshold(name: "a"), ViewabilityThreshold(name: "b", minMs: 100)])
        _ = v.observe(now: 0, visible: [(2, 100), (3, 100), (4, 100)], isVisible: true)
        // Two items before 3: 2 stays, 3 and 4 move to 5 and 6, in both the viewable and pending sets.
        #expect(v.shift(insertingAt: 3, count: 2).isEmpty)
        #expect(v.viewableItems(0) == [2, 5, 6])
        #expect(Set(v.pending[1].keys) == [2, 5, 6])
        // Deleting 5: it ends for `a` (viewable), is forgotten for `b` (pending); 6 moves back to 5.
        #expect(v.shift(insertingAt: 5, count: -1) == [ended(0, 5, 0, .removed)])
        #expect(v.viewableItems(0) == [2, 5])
        #expect(Set(v.pending[1].keys) == [2, 5])
        // Observed where they now are: nothing changes, and the pending ones fall due at 100.
        let step = v.observe(now: 50, visible: [(2, 100), (3, 100), (4, 100), (5, 100)], isVisible: true)
        #expect(step.transitions == [viewable(0, 3, 100), viewable(0, 4, 100)], "the new items meet `a` at once")
        #expect(v.tick(now: 100).transitions == [viewable(1, 2, 100), viewable(1, 5, 100)])
        #expect(v.tick(now: 150).transitions == [viewable(1, 3, 100), viewable(1, 4, 100)])
    }

    @Test func aDeleteOfAnUntrackedItemMovesTheOthersOnly() {
        var v = Viewability(thresholds: [ViewabilityThreshold(name: "a")])
        _ = v.observe(now: 0, visible: [(7, 100), (8, 100)], isVisible: true)
        #expect(v.shift(insertingAt: 0, count: -1).isEmpty)
        #expect(v.viewableItems(0) == [6, 7])
        #expect(v.shift(insertingAt: 9, count: 3).isEmpty)
        #expect(v.viewableItems(0) == [6, 7])
    }
}
