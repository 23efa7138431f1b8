import Testing
@testable import GreenroomCore

/// The pure rules of presentations and tab bars (docs/lifecycle.md): which styles take the presenter's views
/// out of the window, and UITabBarController's reselection after `setViewControllers`.
@Suite struct PresentationAndTabsTests {
    @Test func onlyFullScreenCurrentContextAndARemovingCustomStyleRemoveThePresentersViews() {
        let removing = PresentationStyle.allCases.filter { $0.removesPresenterViews(custom: nil) }
        #expect(removing == [.fullScreen, .currentContext])
        #expect(PresentationStyle.custom.removesPresenterViews(custom: true))
        #expect(!PresentationStyle.custom.removesPresenterViews(custom: false))
        #expect(PresentationStyle.allCases.filter(\.isSheet) == [.pageSheet, .formSheet])
        #expect(PresentationStyle.allCases.filter(\.isContext) == [.currentContext, .overCurrentContext])
    }

    @Test func aChainListsItsPresentationsBottomFirst() {
        let s = StackRecord(id: "s", size: Size(width: 1, height: 1), owner: nil)
        let a = ContainerRecord(id: "a", className: "K", owner: nil), b = ContainerRecord(id: "b", className: "K", owner: nil)
        let ra = PresentationRecord(presented: a, presenter: .stack(s), style: .fullScreen, removesPresenterViews: true,
                                    modalInPresentation: false, size: s.size)
        let rb = PresentationRecord(presented: b, presenter: .container(a), style: .pageSheet, removesPresenterViews: false,
                                    modalInPresentation: false, size: s.size)
        ra.presenting = rb
        #expect(ra.chain.map(\.presented.id) == ["a", "b"] && rb.chain.map(\.presented.id) == ["b"])
        #expect(rb.presenter.id == "a" && ra.presenter.id == "s")
    }

    @Test func setContainersReselectsTheSameChildThenTheSameIndexThenZero() {
        let t = TabsRecord(id: "t", size: Size(width: 1, height: 1), hidden: false, owner: "o")
        let cs = (0..<4).map { ContainerRecord(id: "c\($0)", className: "K", owner: nil) }
        t.children = Array(cs[0..<3])
        t.selectedIndex = 1
        #expect(t.reselection(in: [cs[3], cs[0], cs[1]]) == 2, "the selected child, where it now is")
        #expect(t.reselection(in: [cs[0], cs[2], cs[3]]) == 1, "gone: the same index")
        #expect(t.reselection(in: [cs[3]]) == 0, "that index is invalid: 0")
        #expect(t.selected === cs[1] && t.isShown)
        t.isCovered = true
        #expect(!t.isShown)
    }
}
