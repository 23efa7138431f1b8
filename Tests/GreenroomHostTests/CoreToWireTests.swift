import Testing
import GreenroomCore
import GreenroomJSON
import GreenroomRPC
@testable import GreenroomHost

/// Core's errors and names carry no wire vocabulary; CoreToWire.swift words them. Every case is pinned
/// here exactly as a reply shows it (clients match on these).
@Suite struct CoreToWireTests {
    func invalidParams(_ e: RPCError) -> (path: String?, message: String) {
        #expect(e.code == .invalidParams)
        #expect(e.data["kind"] == "invalidParams")
        return (e.data["path"]?.stringValue, e.message)
    }

    @Test func rangeErrorsNameTheParamAndSayWhy() {
        #expect(invalidParams(RPCError(RangeError.notFinite(.velocity))) == ("velocity", "Invalid params: velocity: must be a finite number"))
        #expect(invalidParams(RPCError(RangeError.outsideContent(.offset, value: 9000, min: -600, max: 4000)))
                == ("offset", "Invalid params: offset: 9000.0 is outside -600.0...4000.0"))
        #expect(invalidParams(RPCError(RangeError.outsideContent(.targetOffset, value: -700, min: -600, max: 4000))).path == "targetOffset")
        #expect(invalidParams(RPCError(RangeError.notBatchInFlight(context: "b-9", inFlight: nil)))
                == ("context", "Invalid params: context: b-9 is not the batch in flight (none)"))
        #expect(invalidParams(RPCError(RangeError.notBatchInFlight(context: "b-9", inFlight: "b-2"))).message
                == "Invalid params: context: b-9 is not the batch in flight (b-2)")
        #expect(invalidParams(RPCError(RangeError.noSuchSection(3))) == ("at[0]", "Invalid params: at[0]: section 3 does not exist"))
        #expect(invalidParams(RPCError(RangeError.rowOutsideSection(row: 7, rows: 5))) == ("at[1]", "Invalid params: at[1]: row 7 is outside 0...5"))
        #expect(invalidParams(RPCError(RangeError.tooManyItems(limit: 5, count: 3)))
                == ("lengths", "Invalid params: lengths: a session holds at most 5 items in all (it has 3)"))
        #expect(invalidParams(RPCError(RangeError.lengthsNotFinite))
                == ("lengths", "Invalid params: lengths: lengths must be finite, >= 0, and add up to a finite content length"))
    }

    @Test func callsOutOfOrderAreInvalidStateNamingTheMethodAndPhase() async {
        let range = RPCError(RangeError.outOfOrder(.willEndDragging, phase: .decelerating))
        #expect(range.code == .invalidState)
        #expect(range.message == "range.willEndDragging does not fit the scroll stream here (the session is decelerating)")
        #expect(range.data == ["kind": "invalidState", "call": "range.willEndDragging", "phase": "decelerating"])
        #expect(RPCError(RangeError.outOfOrder(.didEndDecelerating, phase: .idle)).data["call"] == "range.didEndDecelerating")

        let noChild: (ContainerFailure) -> RPCError = { _ in
            Issue.record("not a child failure")
            return RPCError(.internalError, "")
        }
        let page = await RPCError.from(PageError.outOfOrder(.show, phase: .dragging), child: noChild)
        #expect(page.message == "page.show does not fit the scroll stream here (the session is dragging)")
        #expect(page.data == ["kind": "invalidState", "call": "page.show", "phase": "dragging"])
        let offscreen = await RPCError.from(PageError.offscreen(.willBeginDragging), child: noChild)
        #expect(offscreen.data == ["kind": "invalidState", "call": "page.willBeginDragging", "phase": "offscreen"])
        let index = await RPCError.from(PageError.indexOutOfRange(index: 5, count: 5), child: noChild)
        #expect(invalidParams(index) == ("index", "Invalid params: index: 5 is out of range (0..<5)"))
        let offset = await RPCError.from(PageError.offsetOutOfRange(offset: -150, min: -100, max: 500), child: noChild)
        #expect(invalidParams(offset) == ("offset", "Invalid params: offset: -150.0 is outside -100.0...500.0"))
    }

    @Test func aFailedPageChildIsTheCallersToMap() async {
        let failure = ContainerFailure(container: "c-4", hook: .viewDidAppear)
        let e = await RPCError.from(PageError.child(failure)) { f in RPCError(.pluginFailed, "torn down \(f.container)") }
        #expect(e.code == .pluginFailed && e.message == "torn down c-4")
    }

    @Test func namesOnTheWire() {
        #expect([RangePhase.idle, .dragging, .decelerating].map(\.wireName) == ["idle", "dragging", "decelerating"])
        #expect([PageSession.Phase.idle, .dragging, .decelerating, .animating].map(\.wireName) == ["idle", "dragging", "decelerating", "animating"])
        #expect([ScrollDirection.up, .down, .left, .right].map(\.wireName) == ["up", "down", "left", "right"])
        #expect([PageTransitionEvent.willTransition, .didTransition].map(\.wireName) == ["willTransition", "didTransition"])
        #expect([AppearanceCall.beginAppearing, .beginDisappearing, .end].map(\.wireName)
                == ["beginAppearance(true)", "beginAppearance(false)", "endAppearance"])
    }

    @Test func mappingErrorsPassesResultsThroughAndMapsTheTypedError() throws {
        let value = try mappingErrors(RPCError.init) { () throws(RangeError) in 42 }
        #expect(value == 42)
        #expect(throws: RPCError(RangeError.lengthsNotFinite)) {
            try mappingErrors(RPCError.init) { () throws(RangeError) in throw .lengthsNotFinite }
        }
    }
}
