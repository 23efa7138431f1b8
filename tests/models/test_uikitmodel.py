"""Tests of tests/integration/uikitmodel.py itself (no host): the model against the published logs it was written
from (each test names its source), and a seeded random walk showing the model never makes an unbalanced call on a
valid sequence. /work/drafts/uikit-orders.md has the quotes."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))

from uikitmodel import (  # noqa: E402
    APPEARANCE,
    STYLES,
    Model,
    ModelError,
    assert_balanced,
    check_balance,
    ev,
    keys,
)

FOUR = ("viewWillAppear", "viewDidAppear", "viewWillDisappear", "viewDidDisappear")
LOAD4 = ("viewDidLoad", *FOUR)


def world(gen: int = 17, *ids: str, size=(390, 844)) -> Model:
    """A model with containers `ids` and window w whose root is the first one, on screen."""
    m = Model(uikit_generation=gen)
    for cid in ids:
        m.create(cid)
    if ids:
        m.window("w", *size, ids[0])
    return m


# -- presentations ----------------------------------------------------------------------------------------------


def test_full_screen_present_and_dismiss_match_the_published_log():
    # juejin.cn/post/7171098718656020510, table row fullScreen: present "B viewDidLoad A viewWillDisappear
    # B viewWillAppear B viewDidAppear A viewDidDisappear"; dismiss "B viewWillDisappear A viewWillAppear
    # A viewDidAppear B viewDidDisappear".
    m = world(16, "A", "B")
    out = m.present("A", "B", "fullScreen", animated=True) + m.advance(300)
    assert keys(out, LOAD4) == ["B viewDidLoad", "A viewWillDisappear", "B viewWillAppear", "B viewDidAppear",
                                "A viewDidDisappear"]
    out = m.dismiss("B", animated=True) + m.advance(300)
    assert keys(out, LOAD4) == ["B viewWillDisappear", "A viewWillAppear", "A viewDidAppear",
                                "B viewDidDisappear"]


def test_full_screen_present_with_layout_matches_the_storyboard_log():
    # remkoh.dev "iOS: UIViewController lifecycle in a StoryBoard", scenario 2: vc2 loadView, vc2 viewDidLoad,
    # vc1 viewWillDisappear, vc2 viewWillAppear, vc2 viewWillLayoutSubviews, vc2 viewDidLayoutSubviews, ...,
    # vc2 viewDidAppear, vc1 viewDidDisappear (vc1's second layout pass is left out: one layout per size change).
    m = world(16, "vc1", "vc2")
    now = m.present("vc1", "vc2", "fullScreen")
    assert keys(now) == ["vc2 loadView", "vc2 viewDidLoad", "vc1 viewWillDisappear", "vc2 viewWillAppear",
                         "vc2 viewWillLayoutSubviews", "vc2 viewDidLayoutSubviews"]
    later = m.advance(300)
    assert keys(later) == ["vc2 viewDidAppear", "vc1 viewDidDisappear"]
    assert all(e.t == 300 for e in later) and all(e.get("animated") for e in later)


def test_the_did_calls_wait_for_the_duration_only_when_animated():
    m = world(16, "A", "B", "C")
    assert keys(m.present("A", "B", "fullScreen", animated=False), FOUR) == [
        "A viewWillDisappear", "B viewWillAppear", "B viewDidAppear", "A viewDidDisappear"]
    m.present("B", "C", "fullScreen", duration=120)
    assert m.advance(119) == []
    assert keys(m.advance(1), FOUR) == ["C viewDidAppear", "B viewDidDisappear"]


@pytest.mark.parametrize("style", ["pageSheet", "formSheet", "overFullScreen", "overCurrentContext"])
def test_styles_that_keep_the_presenter_views_give_the_presenter_nothing(style):
    # juejin table rows pageSheet/formSheet: "B viewDidLoad B viewWillAppear B viewDidAppear" and
    # "B viewWillDisappear B viewDidDisappear"; Apple overFullScreen / overCurrentContext: "The views beneath the
    # presented content are not removed from the view hierarchy"; regularberry.github.io table: NO, NO.
    m = world(16, "A", "B")
    out = m.present("A", "B", style) + m.advance(300)
    assert keys(out, LOAD4) == ["B viewDidLoad", "B viewWillAppear", "B viewDidAppear"]
    out = m.dismiss("B") + m.advance(300)
    assert keys(out, LOAD4) == ["B viewWillDisappear", "B viewDidDisappear"]
    assert m.appearance("A") == "appeared"


@pytest.mark.parametrize("style,removes,presenter_calls", [
    ("fullScreen", None, True),  # Apple: "views belonging to the presenting view controller are removed"
    ("currentContext", None, True),  # Apple: same sentence for currentContext
    ("custom", None, False),  # Apple: shouldRemovePresentersView "default implementation ... returns false"
    ("custom", False, False),  # mo4tech.com: custom -> viewWillDisappear/viewDidDisappear "won't be called"
    ("custom", True, True),  # Apple CustomTransitions sample: shouldRemovePresentersView YES relocates the view
])
def test_which_styles_remove_the_presenter(style, removes, presenter_calls):
    m = world(16, "A", "B")
    out = m.present("A", "B", style, removes_presenter_views=removes) + m.advance(300)
    assert ("A viewWillDisappear" in keys(out)) is presenter_calls
    out = m.dismiss("B") + m.advance(300)
    assert ("A viewWillAppear" in keys(out)) is presenter_calls
    assert m.appearance("A") == "appeared"


def test_dismissing_the_middle_of_a_chain_dismisses_everything_above_only_the_top_animated():
    # Apple dismiss(animated:completion:): "calling this method on a view controller lower in the stack dismisses
    # its immediate child view controller and all view controllers above that child on the stack. When this
    # happens, only the top-most view is dismissed in an animated fashion; any intermediate view controllers are
    # simply removed from the stack."
    m = world(17, "A", "B", "C", "D")
    m.present("A", "B", "fullScreen")
    m.advance(300)
    m.present("B", "C", "overFullScreen")  # B stays on screen under C
    m.advance(300)
    m.present("C", "D", "pageSheet")
    m.advance(300)
    now = m.dismiss("B", animated=True)
    assert keys(now) == ["D viewWillDisappear", "C viewWillDisappear", "B viewWillDisappear",
                         "A viewWillAppear", "A viewIsAppearing"]
    assert [e.get("animated") for e in now] == [True, False, False, True, True]
    later = m.advance(300)
    assert keys(later) == ["A viewDidAppear", "D viewDidDisappear", "C viewDidDisappear", "B viewDidDisappear"]
    assert m.presented_by("A") is None and m.presented_by("B") is None


def test_a_container_hidden_by_a_full_screen_presentation_above_gets_nothing_when_the_chain_goes():
    m = world(16, "A", "B", "C")
    m.present("A", "B", "pageSheet")
    m.advance(300)
    m.present("B", "C", "fullScreen")  # B's views are removed: B disappears
    m.advance(300)
    assert m.appearance("B") == "disappeared"
    out = m.dismiss("B") + m.advance(300)
    assert keys(out, FOUR) == ["C viewWillDisappear", "C viewDidDisappear"]  # A never left (pageSheet)


def test_presenting_while_already_presenting_does_nothing_and_warns():
    # github.com/airbrake/airbrake-ios/issues/91: "Warning: Attempt to present <UIAlertController> on
    # <SignInViewController> which is already presenting <SignInPageViewController>" - the alert is not shown.
    m = world(17, "A", "B", "C")
    m.present("A", "B", "pageSheet")
    m.advance(300)
    assert m.present("A", "C", "pageSheet") == []
    assert "which is already presenting B" in m.warnings[-1]
    assert m.appearance("C") == "disappeared" and m.presented_by("A") == "B"


def test_presenting_while_a_presentation_runs_or_off_screen_does_nothing_and_warns():
    # github.com/ericberman/MyFlightbookiOS/issues/370: "Attempt to present ... while a presentation is in
    # progress"; github.com/fouquet/RFAboutView/issues/8: "... whose view is not in the window hierarchy!"
    m = world(17, "A", "B", "C", "D")
    m.present("A", "B", "fullScreen")
    assert m.present("B", "C", "pageSheet") == []  # B is still animating in
    assert "in progress" in m.warnings[-1]
    assert m.present("D", "C", "pageSheet") == []  # D is on no window
    assert "not in the window hierarchy" in m.warnings[-1]


def test_presenting_a_controller_that_is_already_presented_is_an_error():
    m = world(17, "A", "B")
    m.present("A", "B", "pageSheet")
    with pytest.raises(ModelError) as e:
        m.present("B", "B", "pageSheet")
    assert e.value.code == -32003


def test_a_child_presents_through_its_root_for_full_screen_and_itself_for_current_context():
    # Apple present(_:animated:completion:): "If the current view controller is unable to fulfill a request, it
    # forwards the request up the view controller hierarchy"; currentContext: "displayed over the view controller
    # whose definesPresentationContext property is true" (here: the presenter itself).
    m = world(17, "P", "K", "X", "Y")
    m.add_child("P", "K")
    m.did_move_to_parent("K")
    out = m.present("K", "X", "fullScreen", animated=False)
    assert keys(out, FOUR) == ["P viewWillDisappear", "K viewWillDisappear", "X viewWillAppear",
                               "X viewDidAppear", "P viewDidDisappear", "K viewDidDisappear"]
    m.dismiss("X", animated=False)
    out = m.present("K", "Y", "currentContext", animated=False)
    assert keys(out, FOUR) == ["K viewWillDisappear", "Y viewWillAppear", "Y viewDidAppear",
                               "K viewDidDisappear"]
    assert m.appearance("P") == "appeared"


# -- interactive sheet dismissal ----------------------------------------------------------------------------------


def sheet() -> Model:
    m = world(17, "A", "S")
    m.present("A", "S", "pageSheet")
    m.advance(300)
    return m


def test_swipe_down_finished_calls_should_will_did_dismiss_in_order():
    # medium.com/better-programming, "iOS Lifecycle When Dismissing a Modal View With .pageSheet in iOS 13" (WWDC19
    # slide): "ShouldDismiss -> WillDismiss -> DidDismiss"; Apple: didDismiss "Notifies the delegate after a
    # presentation is dismissed".
    m = sheet()
    now = m.begin_interactive_dismiss("S")
    assert [(e.kind, e.hook) for e in now] == [("presentation", "shouldDismiss"), ("presentation", "willDismiss"),
                                               ("lifecycle", "viewWillDisappear")]
    m.update_interactive_dismiss("S", 0.25)
    out, remaining = m.finish_interactive_dismiss("S", duration=400)
    assert out == [] and remaining == 300
    later = m.advance(300)
    assert [(e.container, e.hook) for e in later] == [("S", "viewDidDisappear"), ("S", "didDismiss")]
    assert m.presented_by("A") is None and m.appearance("A") == "appeared"


def test_swipe_down_cancelled_is_a_will_without_its_did_then_the_sheet_appears_again():
    # blog.fenrir-inc.com/jp/2016/11/view-might-appear.html: a cancelled interactive transition calls only
    # viewWillAppear / viewWillDisappear, not the matching did; wangling.me cancelled pop: the current controller
    # then gets viewWillAppear, viewDidAppear.
    m = sheet()
    m.begin_interactive_dismiss("S")
    m.update_interactive_dismiss("S", 0.5)
    out, remaining = m.cancel_interactive_dismiss("S")
    assert out == [] and remaining == 150
    later = m.advance(150)
    assert keys(later) == ["S viewWillAppear", "S viewIsAppearing", "S viewDidAppear"]
    assert m.presented_by("A") == "S"


def test_modal_in_presentation_refuses_the_swipe_with_did_attempt_only():
    # Apple isModalInPresentation: "prevents the interactive dismissal"; presentationControllerDidAttemptToDismiss:
    # "a user-initiated attempt to dismiss a view was prevented"; WWDC19 slide: "If isModalPresentation is true,
    # DidAttemptToDismiss is called".
    m = world(17, "A", "S")
    m.present("A", "S", "formSheet", modal_in_presentation=True)
    m.advance(300)
    now = m.begin_interactive_dismiss("S")
    assert [(e.kind, e.hook) for e in now] == [("presentation", "didAttemptToDismiss")]
    assert m.finish_interactive_dismiss("S") == ([], 0.0)
    assert m.appearance("S") == "appeared" and m.advance(1000) == []


def test_a_delegate_that_refuses_gets_did_attempt_after_should():
    # Apple presentationControllerDidAttemptToDismiss: refused "when ... presentationControllerShouldDismiss(_:)
    # returns false".
    m = sheet()
    now = m.begin_interactive_dismiss("S", should_dismiss=False)
    assert [e.hook for e in now] == ["shouldDismiss", "didAttemptToDismiss"]


def test_only_a_sheet_at_the_top_can_be_swiped_and_programmatic_dismissal_has_no_delegate_events():
    # Apple willDismiss / didDismiss: "This method is not called if the presentation is dismissed programmatically."
    m = world(17, "A", "F", "S")
    m.present("A", "F", "fullScreen")
    m.advance(300)
    with pytest.raises(ModelError):
        m.begin_interactive_dismiss("F")
    m.present("F", "S", "pageSheet")
    m.advance(300)
    out = m.dismiss("F") + m.advance(300)
    assert all(e.kind == "lifecycle" for e in out)


# -- viewIsAppearing ------------------------------------------------------------------------------------------------


def test_view_is_appearing_comes_after_will_appear_and_before_own_layout_and_did_appear():
    # Apple viewIsAppearing(_:): "after the viewWillAppear(_:) call ... after it adds the view controller's view to
    # the view hierarchy, and the superview lays out the view controller's view"; Apple's appearance sequence as
    # summarised at bokch-jm.tistory.com/119: viewIsAppearing, then viewWillLayoutSubviews, viewDidLayoutSubviews,
    # then viewDidAppear.
    m = Model(uikit_generation=17)
    m.create("A")
    assert keys(m.window("w", 390, 844, "A")) == [
        "A loadView", "A viewDidLoad", "A viewWillAppear", "A viewIsAppearing", "A viewWillLayoutSubviews",
        "A viewDidLayoutSubviews", "A viewDidAppear"]
    m16 = Model(uikit_generation=16)
    m16.create("A")
    assert "A viewIsAppearing" not in keys(m16.window("w", 390, 844, "A"))


def test_view_is_appearing_once_per_appearance_in_every_kind_of_transition():
    m = world(17, "A", "B")
    out = m.present("A", "B", "fullScreen") + m.advance(300) + m.dismiss("B") + m.advance(300)
    assert keys(out, ("viewIsAppearing",)) == ["B viewIsAppearing", "A viewIsAppearing"]
    assert_balanced(out, initial={"A": "appeared"})


# -- tab bars ---------------------------------------------------------------------------------------------------


def test_tabs_load_only_the_selected_child_at_first():
    # itcast log (laitimes.com/zh/article/nxgk_oehf): "当程序启动时它只会加载第一个添加的控制器的view".
    m = Model(uikit_generation=16)
    for c in ("msg", "contact", "setting"):
        m.create(c)
    out = m.tabs_create("t", 390, 844, ["msg", "contact", "setting"], selected=0)
    assert keys(out, ("loadView", *FOUR)) == ["msg loadView", "msg viewWillAppear", "msg viewDidAppear"]
    assert keys(out, ("willMoveToParent", "didMoveToParent"))[:2] == ["msg willMoveToParent",
                                                                      "msg didMoveToParent"]
    assert_balanced(out)


def test_tab_switch_matches_the_published_log():
    # pgzxc.github.io/posts/efa3afd7.html: "-[ContactViewController viewDidLoad] -[ContactViewController
    # viewWillAppear:] -[MessageViewController viewWillDisappear:] -[MessageViewController viewDidDisappear:]
    # -[ContactViewController viewDidAppear:]".
    m = Model(uikit_generation=16)
    for c in ("Message", "Contact"):
        m.create(c)
    m.tabs_create("t", 390, 844, ["Message", "Contact"])
    out = m.tabs_select("t", 1)
    assert keys(out, LOAD4) == ["Contact viewDidLoad", "Contact viewWillAppear", "Message viewWillDisappear",
                                "Message viewDidDisappear", "Contact viewDidAppear"]
    assert keys(m.tabs_select("t", 0), LOAD4) == ["Message viewWillAppear", "Contact viewWillDisappear",
                                                  "Contact viewDidDisappear", "Message viewDidAppear"]


def test_reselecting_the_selected_tab_does_nothing():
    # iphonedev.wiki UITabBarController, -_setSelectedViewController:: "if (_selectedViewController == controller)
    # return;"
    m = Model()
    m.create("a")
    m.tabs_create("t", 390, 844, ["a"])
    assert m.tabs_select("t", 0) == []


def test_set_containers_reselects_the_previous_selection_or_the_same_index_or_zero():
    # Apple setViewControllers(_:animated:): "remembers the view controller object that was previously selected and
    # attempts to reselect it. If the selected view controller is no longer present, it attempts to select the view
    # controller at the same index ... If that index is invalid, it selects the view controller at index 0."
    m = Model(uikit_generation=16)
    for c in "abcde":
        m.create(c)
    m.tabs_create("t", 390, 844, ["a", "b", "c"], selected=1)
    out = m.tabs_set_containers("t", ["c", "b"])  # b still there: reselected, no appearance change
    assert m.selected("t") == "b" and keys(out, FOUR) == []
    assert keys(out) == ["a willMoveToParent", "a didMoveToParent"]
    out = m.tabs_set_containers("t", ["d", "e"])  # b gone: same index 1 -> e
    assert m.selected("t") == "e"
    assert keys(out, ("willMoveToParent", "didMoveToParent", *FOUR)) == [
        "c willMoveToParent", "b willMoveToParent", "d willMoveToParent", "e willMoveToParent",
        "e viewWillAppear", "b viewWillDisappear", "b viewDidDisappear", "e viewDidAppear",
        "c didMoveToParent", "b didMoveToParent", "d didMoveToParent", "e didMoveToParent"]
    m.tabs_set_containers("t", ["a"])  # index 1 invalid -> 0
    assert m.selected("t") == "a"
    assert_balanced(m.drain())


def test_a_tab_switch_under_a_full_screen_presentation_shows_the_new_tab_on_dismissal():
    m = Model(uikit_generation=16)
    for c in ("a", "b", "X"):
        m.create(c)
    m.tabs_create("t", 390, 844, ["a", "b"])
    m.present("t", "X", "fullScreen", animated=False)
    assert keys(m.tabs_select("t", 1), FOUR) == []
    out = m.dismiss("X", animated=False)
    assert keys(out, FOUR) == ["X viewWillDisappear", "b viewWillAppear", "b viewDidAppear", "X viewDidDisappear"]


# -- page curl ------------------------------------------------------------------------------------------------------


def pages(style: str) -> Model:
    m = Model(uikit_generation=16)
    for c in ("p0", "p1", "p2"):
        m.create(c)
    m.pages_create("pg", 390, 844, ["p0", "p1", "p2"], initial=0, style=style)
    return m


def test_page_curl_completed_and_cancelled_match_wangling():
    # wangling.me/2014/02/the-inconsistent-order-of-view-transition-events.html, Page Curling: Normal "New
    # viewWillAppear, Current viewWillDisappear, Current viewDidDisappear, New viewDidAppear"; Canceled "New
    # viewWillAppear, Current viewWillDisappear, New viewWillDisappear, Current viewWillAppear, New viewDidDisappear,
    # Current viewDidAppear".
    m = pages("pageCurl")
    out = m.page_begin("pg", 1)
    m.page_update("pg", 0.5)
    out += m.page_finish("pg")[0] + m.advance(150)
    assert keys(out, FOUR) == ["p1 viewWillAppear", "p0 viewWillDisappear", "p0 viewDidDisappear",
                               "p1 viewDidAppear"]
    out = m.page_begin("pg", 2)
    m.page_update("pg", 0.3)
    out += m.page_cancel("pg")[0] + m.advance(90)
    assert keys(out, FOUR) == ["p2 viewWillAppear", "p1 viewWillDisappear", "p2 viewWillDisappear",
                               "p1 viewWillAppear", "p2 viewDidDisappear", "p1 viewDidAppear"]
    assert m.current("pg") == "p1"


def test_page_scroll_differs_from_curl_as_wangling_logged():
    # wangling.me, Page Scrolling: Normal "New viewWillAppear, Current viewWillDisappear, New viewDidAppear, Current
    # viewDidDisappear"; Canceled "New viewWillAppear, Current viewWillDisappear, Current viewWillAppear, Current
    # viewDidAppear, New viewWillDisappear, New viewDidDisappear".
    m = pages("scroll")
    out = m.page_show("pg", 1) + m.advance(300)
    assert keys(out, FOUR) == ["p1 viewWillAppear", "p0 viewWillDisappear", "p1 viewDidAppear",
                               "p0 viewDidDisappear"]
    out = m.page_begin("pg", 2) + m.page_cancel("pg")[0] + m.advance(0)
    assert keys(out, FOUR) == ["p2 viewWillAppear", "p1 viewWillDisappear", "p1 viewWillAppear",
                               "p1 viewDidAppear", "p2 viewWillDisappear", "p2 viewDidDisappear"]


def test_pages_lay_out_before_will_appear_by_the_page_session_rule():
    # docs/lifecycle.md: "a page is laid out at the page size before its viewWillAppear".
    m = pages("pageCurl")
    out = m.page_show("pg", 1, animated=False)
    assert keys(out)[:5] == ["p1 loadView", "p1 viewDidLoad", "p1 viewWillLayoutSubviews",
                             "p1 viewDidLayoutSubviews", "p1 viewWillAppear"]


# -- child containment ----------------------------------------------------------------------------------------------


def test_forwarded_appearance_is_parent_first_for_will_and_did():
    # github.com/phchan9/til ios/note-about-viewController-containment.md, with addChildViewController:
    # "[VCParentViewController viewWillAppear:] [VCChildViewController viewWillAppear:] [VCParentViewController
    # viewDidAppear:] [VCChildViewController viewDidAppear:]".
    m = Model(uikit_generation=16)
    m.create("Parent")
    m.create("Child")
    m.add_child("Parent", "Child")  # parent not on screen yet: willMoveToParent only
    m.did_move_to_parent("Child")
    out = m.window("w", 390, 844, "Parent")
    assert keys(out, FOUR) == ["Parent viewWillAppear", "Child viewWillAppear", "Parent viewDidAppear",
                               "Child viewDidAppear"]


def test_add_child_calls_will_move_and_remove_calls_did_move_nil():
    # Apple willMove(toParent:): "When your custom container calls the addChild(_:) method, it automatically calls
    # the willMove(toParent:) method"; didMove(toParent:): "The removeFromParent() method automatically calls the
    # didMove(toParent:) method"; jianshu (39.103.169.235/p/ad86ca978747): addSubview of the child's view "会自动触发
    # 调用childVC的viewDidLoad、viewWillAppear、viewDidAppear", removeFromSuperview "viewWillDisappear、viewDidDisappear".
    m = world(16, "P", "C")
    out = m.add_child("P", "C")
    assert keys(out, ("willMoveToParent", "viewDidLoad", *FOUR)) == [
        "C willMoveToParent", "C viewDidLoad", "C viewWillAppear", "C viewDidAppear"]
    assert out[0].get("parent") == "P"
    assert keys(m.did_move_to_parent("C")) == ["C didMoveToParent"]
    with pytest.raises(ModelError):
        m.remove_from_parent("C")  # willMoveToParent(nil) first
    m.will_move_to_parent("C")
    out = m.remove_from_parent("C")
    assert keys(out) == ["C viewWillDisappear", "C viewDidDisappear", "C didMoveToParent"]
    assert out[-1].get("parent") is None


def test_transition_between_children_follows_the_tab_switch_order():
    # Apple transition(from:to:...): "adds the second view controller's view ... After the animation completes, it
    # removes the first view controller's view"; iphonedev.wiki: UITabBarController switches with
    # transitionFromViewController (order as in the tab log).
    m = world(16, "P", "A", "B")
    m.add_child("P", "A")
    m.did_move_to_parent("A")
    m.add_child("P", "B", in_view=False)
    now = m.transition("P", "A", "B", animated=True)
    assert keys(now, LOAD4) == ["B viewDidLoad", "B viewWillAppear", "A viewWillDisappear"]
    assert keys(m.advance(300), FOUR) == ["A viewDidDisappear", "B viewDidAppear"]


def test_transition_refuses_a_parent_that_forwards_by_hand():
    # UIViewController.h (quoted at itdecent.cn/p/0801af352df6): "This method will fail with an
    # NSInvalidArgumentException if ... the receiver explicitly forwards its appearance and rotation callbacks".
    m = world(16, "P", "A", "B")
    m.add_child("P", "A")
    m.add_child("P", "B", in_view=False)
    m.set_forwards_appearance("P", False)
    with pytest.raises(ModelError):
        m.transition("P", "A", "B")


def test_forwarding_off_leaves_children_to_the_client_and_counts_unbalanced_calls():
    # Apple beginAppearanceTransition / endAppearanceTransition, shouldAutomaticallyForwardAppearanceMethods;
    # docs/lifecycle.md's table for the cells that are refused.
    m = world(16, "P", "C")
    m.set_forwards_appearance("P", False)
    assert keys(m.add_child("P", "C")) == ["C willMoveToParent"]  # no automatic appearance
    out = m.begin_appearance("C", True) + m.end_appearance("C")
    assert keys(out, ("loadView", *FOUR)) == ["C loadView", "C viewWillAppear", "C viewDidAppear"]
    bad = m.end_appearance("C")
    assert [(e.hook, e.get("call"), e.get("state")) for e in bad] == [
        ("unbalancedAppearanceTransition", "endAppearance", "appeared")]
    assert m.unbalanced == 1
    assert check_balance(bad) != []
    # a child of a forwarding parent cannot be driven by hand
    m.create("D")
    m.set_forwards_appearance("P", True)
    m.add_child("P", "D")
    with pytest.raises(ModelError):
        m.begin_appearance("D", False)


# -- size transitions -----------------------------------------------------------------------------------------------


def test_will_transition_to_size_comes_first_parent_before_children_then_layout():
    # Apple viewWillTransition(to:with:): "UIKit calls this method before changing the size"; "View controllers
    # forward the size change message to their views and child view controllers. Presentation controllers forward
    # the size change to their presented view controller."
    m = world(17, "P", "C", "S")
    m.add_child("P", "C")
    m.did_move_to_parent("C")
    m.present("P", "S", "overFullScreen", animated=False)
    out = m.resize("w", 844, 390)
    assert keys(out) == ["P viewWillTransitionToSize", "C viewWillTransitionToSize", "S viewWillTransitionToSize",
                         "P viewWillLayoutSubviews", "P viewDidLayoutSubviews", "C viewWillLayoutSubviews",
                         "C viewDidLayoutSubviews", "S viewWillLayoutSubviews", "S viewDidLayoutSubviews"]
    assert all(e.get("size") == (844.0, 390.0) for e in out)


def test_a_hidden_presenter_is_told_but_lays_out_when_it_reappears():
    # github.com/onmyway133/notes/issues/210: "A (portrait) - present -> B ... When B turns to landscape, A
    # viewWillTransitionToSize is called".
    m = world(16, "A", "B")
    m.present("A", "B", "fullScreen", animated=False)
    out = m.resize("w", 844, 390)
    assert keys(out) == ["A viewWillTransitionToSize", "B viewWillTransitionToSize", "B viewWillLayoutSubviews",
                         "B viewDidLayoutSubviews"]
    out = m.dismiss("B", animated=False)
    assert keys(out) == ["B viewWillDisappear", "A viewWillAppear", "A viewWillLayoutSubviews",
                         "A viewDidLayoutSubviews", "A viewDidAppear", "B viewDidDisappear"]


def test_only_the_selected_tab_hears_a_resize():
    # openradar 24277475 (github.com/lionheart/openradar-mirror/issues/7463): viewWillTransitionToSize "is not
    # called on viewcontrollers in a navigationcontroller except the top most one" - the same for a tab's hidden
    # children (proposed).
    m = Model()
    for c in "ab":
        m.create(c)
    m.tabs_create("t", 390, 844, ["a", "b"])
    m.tabs_select("t", 1)
    m.tabs_select("t", 0)
    assert keys(m.resize("t", 844, 390), ("viewWillTransitionToSize",)) == ["a viewWillTransitionToSize"]
    assert "b viewWillLayoutSubviews" in keys(m.tabs_select("t", 1))


# -- the checker ------------------------------------------------------------------------------------------------


def test_the_checker_names_unbalanced_calls_and_open_moves():
    bad = [ev("a", "viewWillAppear"), ev("a", "viewWillAppear"), ev("b", "willMoveToParent", parent="p"),
           ev("c", "viewIsAppearing")]
    problems = check_balance(bad)
    assert any("viewWillAppear from appearing" in p for p in problems)
    assert any("never closed" in p for p in problems)
    assert any("viewIsAppearing" in p for p in problems)
    assert any("left appearing" in p for p in problems)
    assert check_balance([ev("a", "viewWillAppear"), ev("a", "viewDidAppear")]) == []


# -- random walks ---------------------------------------------------------------------------------------------------


def random_walk(seed: int, steps: int = 60) -> tuple[Model, list]:
    rnd = random.Random(seed)
    m = Model(uikit_generation=rnd.choice([16, 17]))
    out = []
    ids = [f"c{i}" for i in range(14)]
    for cid in ids:
        out += m.create(cid)
    out += m.window("w", 390, 844, "c0")
    out += m.tabs_create("t", 390, 844, ["c1", "c2", "c3"], selected=rnd.randrange(3))
    out += m.pages_create("pg", 390, 844, ["c4", "c5", "c6"], style=rnd.choice(["pageCurl", "scroll"]))
    roots = ["w", "t", "pg"]

    def free():
        return [c for c in ids if m.nodes[c].parent is None and m.nodes[c].window is None
                and m.nodes[c].pres is None and m.nodes[c].presented is None
                and m.nodes[c].appearance == "disappeared"]

    def anyc():
        return rnd.choice(ids)

    for _ in range(steps):
        op = rnd.randrange(19)
        try:
            if op == 0 and free():
                out += m.present(rnd.choice(roots + ids), rnd.choice(free()), rnd.choice(STYLES),
                                 animated=rnd.random() < 0.7, modal_in_presentation=rnd.random() < 0.2,
                                 removes_presenter_views=rnd.choice([None, True, False]) if rnd.random() < 0.3
                                 else None)
            elif op == 1:
                out += m.dismiss(anyc(), animated=rnd.random() < 0.7)
            elif op == 2:
                out += m.begin_interactive_dismiss(anyc(), should_dismiss=rnd.random() < 0.8)
            elif op == 3 and m.sheet_gestures:
                cid = rnd.choice(sorted(m.sheet_gestures))
                out += m.update_interactive_dismiss(cid, rnd.random())
                out += (m.finish_interactive_dismiss if rnd.random() < 0.5 else m.cancel_interactive_dismiss)(cid)[0]
            elif op == 4:
                out += m.tabs_select("t", rnd.randrange(len(m.nodes["t"].children) or 1))
            elif op == 5:
                pool = list(m.nodes["t"].children) + free()
                rnd.shuffle(pool)
                out += m.tabs_set_containers("t", pool[:rnd.randrange(1, 4)])
            elif op == 6:
                out += m.page_show("pg", rnd.randrange(3), animated=rnd.random() < 0.6)
            elif op == 7:
                out += m.page_begin("pg", rnd.randrange(3))
            elif op == 8 and m.nodes["pg"].gesture is not None:
                out += m.page_update("pg", rnd.random())
                out += (m.page_finish if rnd.random() < 0.5 else m.page_cancel)("pg")[0]
            elif op == 9 and free():
                out += m.add_child(anyc(), rnd.choice(free()), in_view=rnd.random() < 0.8)
            elif op == 10:
                out += m.did_move_to_parent(anyc())
            elif op == 11:
                out += m.will_move_to_parent(anyc())
            elif op == 12:
                out += m.remove_from_parent(anyc())
            elif op == 13:
                p = m.nodes[anyc()]
                ins = [c for c in p.children if m.nodes[c].in_view]
                outs = [c for c in p.children if not m.nodes[c].in_view]
                if ins and outs:
                    out += m.transition(p.id, rnd.choice(ins), rnd.choice(outs), animated=rnd.random() < 0.5)
            elif op == 14:
                cid = anyc()
                if not m.nodes[cid].children:  # toggling with children on screen is the client's own business
                    out += m.set_forwards_appearance(cid, rnd.random() < 0.5)
            elif op == 15:  # by hand, only the calls the table accepts
                cid = anyc()
                st = m.appearance(cid)
                if rnd.random() < 0.5 and st in ("disappeared", "disappearing", "appearing", "appeared"):
                    appearing = st in ("disappeared", "disappearing")
                    out += m.begin_appearance(cid, appearing)
                elif st in ("appearing", "disappearing"):
                    out += m.end_appearance(cid)
            elif op == 16:
                out += m.resize(rnd.choice(roots), rnd.choice([390, 844, 600]), rnd.choice([390, 844]))
            elif op == 17 and free():
                out += m.release(rnd.choice(free()))
            else:
                out += m.advance(rnd.choice([0, 50, 150, 300, 400]))
        except ModelError:
            pass
    # close everything that is open, then let every transition end
    for cid in sorted(m.sheet_gestures):
        out += m.cancel_interactive_dismiss(cid)[0]
    if m.nodes["pg"].gesture is not None:
        out += m.page_cancel("pg")[0]
    out += m.drain()
    for cid in ids:  # calls started by hand end by hand, on the container they were made on
        if m.nodes[cid].appearance in ("appearing", "disappearing"):
            try:
                out += m.end_appearance(cid)
            except ModelError:
                pass  # a child: its parent's call ends it
    for cid in ids:
        c = m.nodes[cid]
        if c.moving == "add":
            out += m.did_move_to_parent(cid)
        elif c.moving == "remove":
            out += m.remove_from_parent(cid)
    out += m.drain()
    return m, out


@pytest.mark.parametrize("seed", range(120))
def test_random_valid_sequences_never_make_an_unbalanced_call(seed):
    m, out = random_walk(seed)
    assert m.unbalanced == 0
    assert_balanced(out)
    times = [e.t for e in out]
    assert times == sorted(times), "events come in clock order"
    assert all(e.hook in ("init", "loadView", "viewDidLoad", *APPEARANCE, "viewWillLayoutSubviews",
                          "viewDidLayoutSubviews", "willMoveToParent", "didMoveToParent",
                          "viewWillTransitionToSize", "deinit", "shouldDismiss", "willDismiss", "didDismiss",
                          "didAttemptToDismiss") for e in out)
