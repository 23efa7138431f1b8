import Testing
@testable import GreenroomCore

@Suite struct RangeSessionTests {
    /// 100 rows of 100 points, a 1000-point viewport: one screen = 10 rows.
    func session(count: Int = 100, visible: Bool = true, strategy: BatchStrategy = .ranges,
                 prepend: Bool = false, lazy: Bool = false) -> RangeSession {
        RangeSession(id: "r", sections: [Array(repeating: 100, count: count)], viewportLength: 1000, viewportCross: 375,
                     horizontal: false, prepend: prepend, strategy: strategy, lazy: lazy, visible: visible)
    }

    @Test func minimumModeUntilTheFirstDragThenFullWithTexturesBuffers() throws {
        let s = session()
        _ = s.update()
        #expect(s.mode == .minimum)
        #expect(s.visible == IndexInterval(0, 10))
        // minimum: display 0.25 / 0.25, preload 0.5 / 0.25 (leading / trailing), moving down.
        #expect(s.display == IndexInterval(0, 13))
        #expect(s.preload == IndexInterval(0, 15))
        s.willBeginDragging()
        try s.didScroll(to: 3000)
        _ = s.update()
        #expect(s.mode == .full)
        #expect(s.visible == IndexInterval(30, 40))
        // full: display 1.0 / 0.5, preload 2.5 / 1.5 screens.
        #expect(s.display == IndexInterval(25, 50))
        #expect(s.preload == IndexInterval(15, 65))
        // Reversing flips leading and trailing.
        try s.didScroll(to: 2900)
        _ = s.update()
        #expect(s.direction == .up)
        #expect(s.display == IndexInterval(19, 44))
        #expect(s.preload == IndexInterval(4, 54))
    }

    @Test func invisibleSessionsNeverMarkItemsVisible() {
        let s = session(visible: false)
        let u = s.update()
        #expect(s.mode == .minimum, "hiding is not a memory warning: the mode stays")
        #expect(u.enterVisible.isEmpty && s.visible.isEmpty)
        // Texture: the viewport's items preload and display, the display range's (minimum, 0.25
        // screens down: rows 10..12) preload only, the preload range's alone nothing.
        #expect(s.display == IndexInterval(0, 10) && s.preload == IndexInterval(0, 13))
        s.willBeginDragging()
        #expect(s.mode == .full, "willBeginDragging sets full, visible or not (Texture)")
        // A memory warning puts an invisible session in lowMemory: the viewport's items preload only.
        s.memoryWarning()
        _ = s.update()
        #expect(s.mode == .lowMemory)
        #expect(s.display.isEmpty)
        #expect(s.preload == IndexInterval(0, 10))
    }

    @Test func memoryWarningPutsVisibleSessionsInVisibleOnlyUntilTheNextDrag() throws {
        let s = session()
        s.willBeginDragging()
        _ = s.update()
        s.memoryWarning()
        let u = s.update()
        #expect(s.mode == .visibleOnly)
        #expect(s.preload == s.visible && s.display == s.visible)
        #expect(!u.exitPreload.isEmpty && u.cancelPrefetch == u.exitPreload)
        s.willBeginDragging()
        #expect(s.mode == .full)
    }

    @Test func eventsListOnlyChangesNearestFirst() throws {
        let s = session()
        let first = s.update()
        #expect(first.enterVisible == Array(0..<10))
        #expect(first.enterPreload == Array(0..<15))
        #expect(first.prefetch == Array(10..<15))
        try s.didScroll(to: 100)
        let u = s.update()
        #expect(u.enterVisible == [10] && u.exitVisible == [0])
        #expect(u.enterPreload == [15])
        #expect(u.exitPreload.isEmpty, "trailing 0.25 screens still holds row 0")
        #expect(s.update().isEmpty, "no change, no event")
    }

    @Test func cancelPrefetchingOnlyForItemsNeverVisible() throws {
        let s = session()
        _ = s.update()
        s.willBeginDragging()
        try s.didScroll(to: 2000)
        _ = s.update()
        let before = Set(s.preload.indices)
        try s.didScroll(to: 0)
        let u = s.update()
        for i in u.exitPreload { #expect(before.contains(i)) }
        // Rows 20..<30 were visible at 2000: leaving preload they are not cancelled.
        #expect(!u.cancelPrefetch.contains { (20..<30).contains($0) })
        #expect(u.cancelPrefetch.allSatisfy { $0 >= 30 })
    }

    // MARK: Batch fetching: Texture's conditions

    @Test func batchConditions() throws {
        // Content shorter than the viewport: fetch, even when not visible.
        #expect(session(count: 5, visible: false).shouldBeginBatch())
        // Not visible with enough content: no.
        #expect(!session(visible: false).shouldBeginBatch())
        let s = session()
        #expect(!s.shouldBeginBatch(), "at the top: 9000 points remain > 2 screens")
        try s.didScroll(to: 7000)
        #expect(s.shouldBeginBatch(), "remaining 2000 <= 2 screens")
        s.willBeginDragging()
        try s.didScroll(to: 6999)
        #expect(!s.shouldBeginBatch(), "dragging toward the head: no")
        s.beginBatch(context: "b-1")
        try s.didScroll(to: 8000)
        #expect(!s.shouldBeginBatch(), "one batch in flight at a time")
        let at = try s.finishBatch(context: "b-1", lengths: [100, 100])
        #expect(at == 100 && s.count == 102)
        #expect(throws: RangeError.self) { try s.finishBatch(context: "b-9", lengths: []) }
        s.leadingScreens = 0
        #expect(!s.shouldBeginBatch(), "leadingScreens <= 0: never")
    }

    @Test func prependFetchesTowardTheHead() throws {
        let s = session(prepend: true)
        try s.didScroll(to: 3000)
        s.willBeginDragging()
        try s.didScroll(to: 1500)
        #expect(s.batchDecision() == true, "dragging up within 2 screens of the head: a batch for the head")
        s.beginBatch(context: "b-1", prepends: true)
        _ = s.update()
        let visibleBefore = s.visible
        _ = try s.finishBatch(context: "b-1", lengths: [100, 100, 100])
        _ = s.update()
        #expect(s.offset == 1800, "content added above keeps what is on screen")
        #expect(s.visible == IndexInterval(visibleBefore.lo + 3, visibleBefore.hi + 3))
    }

    @Test func thresholdStrategies() throws {
        let t = session(strategy: .threshold(0.7))
        try t.didScroll(to: 5900)
        #expect(!t.shouldBeginBatch())
        try t.didScroll(to: 6000)
        #expect(t.shouldBeginBatch(), "(6000 + 1000) / 10000 >= 0.7")
        let d = session(strategy: .dynamicThreshold(0.7))
        try d.didScroll(to: 6000)
        #expect(d.shouldBeginBatch(), "first page: same as the static threshold")
        d.beginBatch(context: "b-1")
        _ = try d.finishBatch(context: "b-1", lengths: Array(repeating: 100, count: 100))
        try d.didScroll(to: 13000)
        // Page 2: needs 0.7 * 100 + 100 = 170 of 200 rows read; 140 read.
        #expect(!d.shouldBeginBatch())
        try d.didScroll(to: 16000)
        #expect(d.shouldBeginBatch())
    }

    @Test func willEndDraggingPredictsTheTarget() throws {
        let s = session()
        s.willBeginDragging()
        try s.didScroll(to: 1000)
        let target = try s.willEndDragging(velocity: 4, target: nil)
        #expect(target == min(1000 + 4 * 499, 9000))
        #expect(throws: RangeError.outOfOrder(.willEndDragging, phase: .decelerating)) {
            try s.willEndDragging(velocity: 1, target: nil)
        }
    }

    @Test func lazyMarksOnlyTheTargetRegionDuringAFling() throws {
        let s = session(count: 1000, lazy: true)
        s.willBeginDragging()
        _ = s.update()
        _ = try s.willEndDragging(velocity: 100, target: 50_000)
        let u = s.update()
        #expect(s.preload.contains(500) && !s.preload.contains(100))
        #expect(!u.enterPreload.contains(100))
        #expect(s.visible == IndexInterval(0, 10), "visible still follows the real offset")
        for i in 0..<10 { #expect(s.display.contains(i) && s.preload.contains(i), "a visible item has all three states") }
        #expect(s.preload.parts.count == 2, "on screen and the target region, nothing in between")
    }

    @Test func emptyItemsOnTheViewportsEdgesAreNotVisible() {
        // [0,0) [0,100) [100,100) [100,200) ... with a 100-point viewport at 0.
        let lengths: [Double] = (0..<40).map { $0 % 2 == 0 ? 0 : 100 }
        let s = RangeSession(id: "r", sections: [lengths], viewportLength: 100, viewportCross: 375, horizontal: false)
        _ = s.update()
        #expect(s.visible == IndexInterval(1, 2), "only [0,100) intersects [0,100)")
        // Scrolled to 50: [0,100) and [100,200) intersect, and the empty item between them is inside.
        try? s.didScroll(to: 50)
        _ = s.update()
        #expect(s.visible == IndexInterval(1, 4))
    }

    @Test func fingersFollowInsertsAndDeletes() throws {
        // The same scroll steps with and without cached lookups must give the same ranges, also
        // across inserts and deletes that change offsets under the cached items.
        var rng = SystemRandomNumberGenerator()
        let lengths = (0..<500).map { _ in Double(Int.random(in: 0...3, using: &rng) * 40) }
        let s = RangeSession(id: "r", sections: [lengths], viewportLength: 400, viewportCross: 375, horizontal: false)
        s.willBeginDragging()
        for step in 0..<400 {
            if step % 37 == 0 { try s.insert(section: 0, row: Int.random(in: 0...s.count, using: &rng), lengths: [50, 0, 70]) }
            if step % 53 == 0 { _ = s.remove(flat: Int.random(in: 0..<s.count, using: &rng)) }
            let x = Double.random(in: 0...max(0, s.contentLength - 400), using: &rng) * (step % 2 == 0 ? 1 : 0.001) + Double(step)
            try s.didScroll(to: min(x, s.contentLength))
            _ = s.update()
            let fresh = RangeSession(id: "f", sections: [(0..<s.count).map { s.tree.length(at: $0) }], viewportLength: 400,
                                     viewportCross: 375, horizontal: false)
            fresh.willBeginDragging()
            try fresh.didScroll(to: s.offset)
            #expect(fresh.items(s.offset, s.offset + 400) == s.items(s.offset, s.offset + 400), "step \(step)")
            #expect(s.visible == s.items(s.offset, s.offset + 400))
        }
    }

    @Test func insertsAndDeletesKeepStatesConsistent() throws {
        let s = session()
        _ = s.update()
        try s.insert(section: 0, row: 2, lengths: [100, 100])
        #expect(s.visible == IndexInterval(0, 12), "shifted, not yet recomputed")
        try s.insert(section: 0, row: 102, lengths: [100])
        #expect(s.preload == IndexInterval(0, 17), "an item appended after the end is not inside")
        let u = s.update()
        #expect(u.exitVisible == [10, 11], "nearest the viewport first")
        #expect(s.visible == IndexInterval(0, 10))
        #expect(s.remove(flat: 0))
        _ = s.update()
        #expect(s.count == 102)
        #expect(s.visible == IndexInterval(0, 10))
    }

    /// Replaying every event's enter/exit lists gives exactly the recomputed states, whatever happens.
    @Test(arguments: [11, 12, 13, 14] as [UInt64])
    func eventDiffsEqualRecomputedStates(seed: UInt64) throws {
        var rng = SplitMix(seed: seed)
        let s = RangeSession(id: "r", sections: [Array(repeating: 50, count: 40), Array(repeating: 80, count: 30), []],
                             viewportLength: 600, viewportCross: 300, horizontal: false)
        var model: [[Bool]] = Array(repeating: [false, false, false], count: s.count)
        func replay(_ u: RangeUpdate) {
            for i in u.enterPreload { model[i][0] = true }
            for i in u.exitPreload { model[i][0] = false }
            for i in u.enterDisplay { model[i][1] = true }
            for i in u.exitDisplay { model[i][1] = false }
            for i in u.enterVisible { model[i][2] = true }
            for i in u.exitVisible { model[i][2] = false }
        }
        replay(s.update())
        for _ in 0..<400 {
            switch rng.next() % 6 {
            case 0: s.willBeginDragging()
            case 1:
                let x = Double(rng.next() % UInt64(max(1, Int(s.contentLength))))
                try s.didScroll(to: min(x, max(0, s.contentLength - 600)))
            case 2:
                let at = Int(rng.next() % UInt64(s.count + 1))
                let (sec, row) = at == s.count ? (s.sectionCount - 1, s.sectionStarts[s.sectionCount] - s.sectionStarts[s.sectionCount - 1]) : s.path(at)
                let k = Int(rng.next() % 3 + 1)
                let flat = try s.insert(section: sec, row: row, lengths: Array(repeating: Double(rng.next() % 90 + 10), count: k))
                model.insert(contentsOf: Array(repeating: [false, false, false], count: k), at: flat)
                // New rows are unmarked until the update marks them; rows around keep their bits.
                for i in 0..<s.count {
                    let st = s.state(i)
                    #expect(model[i] == [st.preload, st.display, st.visible], "after inserting at \(flat): item \(i)")
                }
            case 3 where s.count > 1:
                let at = Int(rng.next() % UInt64(s.count))
                _ = s.remove(flat: at)
                model.remove(at: at)
                for i in 0..<s.count {
                    let st = s.state(i)
                    #expect(model[i] == [st.preload, st.display, st.visible], "after removing \(at): item \(i)")
                }
            case 4: s.setVisible(rng.next() % 4 != 0)
            default: s.memoryWarning()
            }
            replay(s.update())
            for i in 0..<s.count {
                let st = s.state(i)
                #expect(model[i] == [st.preload, st.display, st.visible], "item \(i)")
                if st.visible { #expect(st.display && st.preload, "a visible item has all three bits") }
            }
        }
    }

    /// The scroll-step diff (pieces inline, no sort) lists exactly what the general diff (the one
    /// inserts use) lists, in the same order: steady drags, flings (lazy: two-part spans), jumps
    /// both ways, hiding, memory warnings and viewport changes, over rows of mixed lengths.
    @Test(arguments: [21, 22, 23, 24, 25] as [UInt64])
    func fastDiffEqualsGeneralDiff(seed: UInt64) throws {
        var rng = SplitMix(seed: seed)
        let lengths = (0..<300).map { _ in Double(rng.next() % 120) }  // some rows empty
        func make() -> RangeSession {
            RangeSession(id: "r", sections: [Array(lengths[0..<120]), [], Array(lengths[120...])], viewportLength: 500,
                         viewportCross: 300, horizontal: false, lazy: seed % 2 == 1, visible: seed != 25)
        }
        let fast = make(), general = make()
        general.alwaysGeneralDiff = true
        var compared = 0, nonEmpty = 0
        func step(_ what: String, _ act: (RangeSession) throws -> Void) throws {
            try act(fast)
            try act(general)
            let a = fast.update(), b = general.update()
            #expect(a == b, "\(what): fast \(a.enterPreload)/\(a.exitPreload)/\(a.enterDisplay)/\(a.exitDisplay)/\(a.enterVisible)/\(a.exitVisible) general \(b.enterPreload)/\(b.exitPreload)/\(b.enterDisplay)/\(b.exitDisplay)/\(b.enterVisible)/\(b.exitVisible)")
            compared += 1
            if !a.isEmpty { nonEmpty += 1 }
        }
        try step("first") { _ in }
        let end = max(0, fast.contentLength - 500)
        for _ in 0..<600 {
            let x = fast.offset
            switch rng.next() % 10 {
            case 0: try step("drag") { $0.willBeginDragging() }
            case 1, 2, 3:
                let d = Double(rng.next() % 60) - 25
                try step("scroll by \(d)") { try $0.didScroll(to: min(max(0, x + d), end)) }
            case 4:
                let y = Double(rng.next() % UInt64(max(1, Int(end))))
                try step("jump to \(y)") { try $0.didScroll(to: y) }
            case 5 where fast.dragging:
                let v = Double(rng.next() % 8) - 4
                try step("fling \(v)") { _ = try $0.willEndDragging(velocity: v, target: nil) }
            case 6 where fast.isTracking:
                try step("end") { try $0.didEndDecelerating() }
            case 7: let v = rng.next() % 3 != 0; try step("visible \(v)") { $0.setVisible(v) }
            case 8: try step("memory warning") { $0.memoryWarning() }
            default:
                let l = Double(rng.next() % 400 + 200)
                try step("viewport \(l)") { $0.setViewport(length: l, cross: 300) }
            }
        }
        #expect(compared > 600 && nonEmpty > 100, "the walk changed ranges often (\(nonEmpty) of \(compared))")
    }

    /// The schema's RangeItemCount: a session holds at most 10,000,000 items in all. Inserts and batches
    /// that would pass the cap are refused (`lengths`) and change nothing; a batch stays in flight.
    @Test func insertsAndBatchesStopAtTheItemCap() throws {
        #expect(RangeSession.maxItems == 10_000_000)
        let s = RangeSession(id: "r", sections: [[100, 100], [100]], viewportLength: 1000, viewportCross: 375,
                             horizontal: false, itemLimit: 5)
        _ = s.update()
        #expect(throws: RangeError.tooManyItems(limit: 5, count: 3)) {
            try s.insert(section: 1, row: 0, lengths: [1, 1, 1])
        }
        #expect(s.count == 3 && s.contentLength == 300 && s.sectionStarts == [0, 2, 3])
        try s.insert(section: 0, row: 0, lengths: [1, 1])
        #expect(s.count == 5)
        _ = s.update()
        s.beginBatch(context: "b-1")
        #expect(throws: RangeError.self) { _ = try s.finishBatch(context: "b-1", lengths: [1]) }
        #expect(s.batchInFlight == "b-1" && s.count == 5)
        #expect(try s.finishBatch(context: "b-1", lengths: []) == 5)
        #expect(s.batchInFlight == nil)
    }

    /// A prepending batch that completes during a lazy fling moves the target with the content, as it
    /// moves the offset: the marked region stays on the rows the fling is heading for.
    @Test func aPrependDuringALazyFlingMovesTheTargetWithTheContent() throws {
        let s = session(prepend: true, lazy: true)
        _ = s.update()
        s.willBeginDragging()
        try s.didScroll(to: 5000)
        _ = s.update()
        #expect(try s.willEndDragging(velocity: -10, target: nil) == 10)
        _ = s.update()
        #expect(s.batchDecision(at: 10) == true, "decelerating toward the head")
        s.beginBatch(context: "b-1", prepends: true)
        #expect(s.batchPrepends)
        _ = try s.finishBatch(context: "b-1", lengths: Array(repeating: 100, count: 20))
        _ = s.update()
        #expect(s.offset == 7000 && s.target == 2010)
        // full, up at 2010: display [1010, 3510) rows 10..35, preload [-490, 4510) rows 0..45; plus the
        // rows on screen (70..79).
        #expect(s.display == RangeSpan(IndexInterval(10, 36), IndexInterval(70, 80)))
        #expect(s.preload == RangeSpan(IndexInterval(0, 46), IndexInterval(70, 80)))
    }
}
