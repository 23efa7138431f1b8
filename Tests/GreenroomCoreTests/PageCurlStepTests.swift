import Testing
@testable import GreenroomCore

/// A pageCurl session's steps (docs/pages.md "Page curl"): the gesture begins as `page.show` does, holds
/// its transition until finished or cancelled, ends in the curl's orders (wangling.me's logs), and a curl
/// nobody ends is cancelled when the session has to come to rest.
@Suite struct PageCurlStepTests {
    let steps = PageOperationStepTests()

    /// A curl session of 5 pages on page 1, on screen.
    func session() -> PageSession {
        let s = PageSession(id: "p", count: 5, pageSize: steps.size, initialIndex: 1, cacheMode: .limit(5), transitionStyle: .pageCurl)
        _ = steps.steps(s.setVisible(true))
        return s
    }

    @Test func theGestureBeginsAsAShowAndHoldsItsTransition() throws {
        let s = session()
        #expect(steps.steps(s.beginCurl(2)) == [
            "make 2",
            "willTransition 1->2",
            "perform p2:loadView,p2:viewDidLoad,p2:viewWillLayoutSubviews,p2:viewDidLayoutSubviews,p2:viewWillAppear,p2:viewIsAppearing",
            "perform p1:viewWillDisappear",
            "tracking",
            "done",
        ])
        let c = try #require(s.curl)
        #expect(c.transition.to == 2 && c.progress == 0 && s.phase == .dragging && s.animation == nil)
        s.updateCurl(progress: 1.5)
        #expect(s.curl?.progress == 1, "clamped")
    }

    @Test func aFinishedCurlEndsWithTheLeavingPageFirst() {
        let s = session()
        _ = steps.steps(s.beginCurl(2))
        s.updateCurl(progress: 0.25)
        #expect(steps.steps(s.finishCurl(durationMs: 400), token: 9) == ["timer 300", "done"])
        #expect(s.phase == .animating && s.curl == nil && s.animation?.timer == 9)
        #expect(steps.steps(s.animationEnded()) == [
            "perform p1:viewDidDisappear",
            "perform p2:viewDidAppear",
            "didTransition 1->2 done",
            "tracking",
            "done",
        ])
        #expect(s.current == 2 && s.phase == .idle)
    }

    @Test func aCancelledCurlRunsTheCancelledOrderAndStays() {
        let s = session()
        _ = steps.steps(s.beginCurl(0))
        #expect(steps.steps(s.cancelCurl(durationMs: 300)) == [
            "perform p0:viewWillDisappear",
            "perform p1:viewWillAppear,p1:viewIsAppearing",
            "perform p0:viewDidDisappear",
            "perform p1:viewDidAppear",
            "didTransition 1->0 cancelled",
            "tracking",
            "done",
        ], "progress 0: the way back takes no time")
        #expect(s.current == 1 && s.phase == .idle && s.children[1]?.state == .appeared && s.children[0]?.state == .disappeared)
    }

    @Test func aShowOnACurlSessionEndsInTheCurlOrder() {
        let s = session()
        let got = steps.steps(s.show(3, animated: false))
        #expect(got.suffix(4) == ["perform p1:viewDidDisappear", "perform p3:viewDidAppear", "didTransition 1->3 done", "tracking"]
                || got.contains("perform p1:viewDidDisappear"), "\(got)")
        let dd = got.firstIndex(of: "perform p1:viewDidDisappear"), da = got.firstIndex(of: "perform p3:viewDidAppear")
        #expect(dd != nil && da != nil && dd! < da!)
    }

    @Test func aCurlNobodyEndsIsCancelledWhenTheSessionHides() {
        let s = session()
        _ = steps.steps(s.beginCurl(2))
        let got = steps.steps(s.setVisible(false))
        #expect(got.contains("didTransition 1->2 cancelled"), "\(got)")
        #expect(s.curl == nil && s.children[2]?.state == .disappeared && s.children[1]?.state == .disappeared)
    }

    @Test func theScrollStyleIsTheDefault() {
        #expect(PageSession(id: "p", count: 2, pageSize: steps.size, initialIndex: 0, cacheMode: .limit(3)).transitionStyle == .scroll)
    }
}
