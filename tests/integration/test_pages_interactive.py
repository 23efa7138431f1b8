"""Interactive page transitions (docs/pages.md, the GYPageViewController article's tables): the children's
appearance hooks of every drag, in both directions and at the first and last pages, with and without
deceleration; page events announcing every guess; a drag caught while decelerating; edge bounces; a rest on a
page other than the guess.

How the expected sequences are worked out, and the tags the tests compare: lifecyclemodel.py.
"""

from __future__ import annotations

import pytest
from grhost import tag
from lifecyclemodel import (SEED001, W, assert_at_rest, assert_settled, drag, hooks_of, page_peer, page_session,
                            peer, release, sessions, swipe)
from openrpcdoc import Conn


TABLES = {
    # name: (initial page, drag offsets, rest offset, hooks, (from, to, completed) of didTransition)
    "1->2": (1, [100, 120, 170], 200, ["willAppear 2", "willDisappear 1", "didAppear 2", "didDisappear 1"], (1, 2, True)),
    "1 toward 0, then on to 2": (1, [100, 80, 40, 110, 160], 200,
                                 ["willAppear 0", "willDisappear 1", "willAppear 2", "willDisappear 0",
                                  "didDisappear 0", "didAppear 2", "didDisappear 1"], (1, 2, True)),
    "1->0->2->0": (1, [100, 80, 120, 70, 30], 0,
                   ["willAppear 0", "willDisappear 1", "willAppear 2", "willDisappear 0", "didDisappear 0",
                    "willAppear 0", "willDisappear 2", "didDisappear 2", "didAppear 0", "didDisappear 1"], (1, 0, True)),
    "first page 0->1": (0, [0, 20, 70], 100, ["willAppear 1", "willDisappear 0", "didAppear 1", "didDisappear 0"],
                        (0, 1, True)),
    "last page 4->3": (4, [400, 380, 330], 300, ["willAppear 3", "willDisappear 4", "didAppear 3", "didDisappear 4"],
                       (4, 3, True)),
    "last page toward 3, cancelled": (4, [400, 370, 390], 400,
                                      ["willAppear 3", "willDisappear 4", "willAppear 4", "didAppear 4",
                                       "willDisappear 3", "didDisappear 3"], (4, 3, False)),
    "bounce before page 0, then on to 1": (0, [0, -20, 20, 60], 100,
                                           ["willAppear 1", "willDisappear 0", "didAppear 1", "didDisappear 0"],
                                           (0, 1, True)),
}


@pytest.mark.parametrize("cache", [None, {"mode": "reuse"}], ids=["limit3", "reuse"])
@pytest.mark.parametrize("decelerate", [True, False], ids=["decelerating", "no-deceleration"])
@pytest.mark.parametrize("case", list(SEED001))
def test_seed001_interactive_table(vhost, case, decelerate, cache):
    """The GYPageViewController article's interactive tables, exactly (docs/pages.md: "These rules reproduce the
    GYPageViewController article's tables exactly"), whether
    the session comes to rest by didEndDecelerating or by didEndDragging {willDecelerate: false}, whatever the
    cache policy."""
    p = peer(vhost)
    s, _ = sessions(p, cache=cache)
    p.skip()
    offsets, rest, table = SEED001[case]
    swipe(p, s, offsets, rest, decelerate)
    assert p.hooks(s) == table
    assert_at_rest(p, s, round(rest / W))
    p.assert_balanced()


@pytest.mark.parametrize("decelerate", [True, False], ids=["decelerating", "no-deceleration"])
@pytest.mark.parametrize("case", list(TABLES))
def test_seed001_tables_mirrored_and_at_the_ends(vhost, case, decelerate):
    """docs/pages.md's interactive rules, mirrored (toward lower pages first) and at the first / last page: willAppear
    of each
    new guess, the current page's willDisappear once, a previous guess disappearing entirely, and at rest the new
    page's didAppear then the old page's didDisappear (cancelled: the old page comes back, the guess goes)."""
    init, offsets, rest, table, did = TABLES[case]
    p = page_peer(vhost)
    s = page_session(p, initialIndex=init)
    p.skip()
    drag(p, s, offsets)
    release(p, s, rest, decelerate)
    events = p.events()
    assert hooks_of(events, s) == table
    dids = [(e["params"]["from"], e["params"]["to"], e["params"]["completed"]) for e in events
            if e["method"] == "page" and e["params"]["kind"] == "didTransition"]
    assert dids == [did], dids
    assert_settled(p, s, round(rest / W))
    p.assert_balanced()


def test_page_events_of_an_interaction_announce_every_guess(vhost):
    """docs/pages.md + rpc-schema PageEvent: willTransition {from, to} for each new guess (from the previous guess, or
    the
    current page), didTransition {from, to, completed} at rest; shapes as documented."""
    p = peer(vhost)
    s, _ = sessions(p)
    p.skip()
    swipe(p, s, [100, 120, 90, 40], 0)
    events = [e["params"] for e in p.events() if e["method"] == "page"]
    assert [(e["kind"], e["from"], e["to"], e.get("completed")) for e in events] == [
        ("willTransition", 1, 2, None), ("willTransition", 2, 0, None), ("didTransition", 1, 0, True)]
    assert all(set(e) == {"seq", "t", "cause", "session", "kind", "from", "to"} for e in events[:2])
    assert set(events[2]) == {"seq", "t", "cause", "session", "kind", "from", "to", "completed"}
    assert all(e["session"] == s for e in events)
    swipe(p, s, [0, 30], 0)  # cancelled: back on 0
    events = [e["params"] for e in p.events() if e["method"] == "page"]
    assert [(e["kind"], e["from"], e["to"], e.get("completed")) for e in events] == [
        ("willTransition", 0, 1, None), ("didTransition", 0, 1, False)]


def test_page_events_of_a_mirrored_interaction(vhost):
    """docs/pages.md page events: willTransition {from, to} for each new guess (from the current page, then from the
    previous
    guess), one didTransition {from: the page before, to: where it rested, completed} at rest."""
    p = page_peer(vhost)
    s = page_session(p)
    p.skip()
    drag(p, s, [100, 80, 40, 110, 160])
    release(p, s, 200)
    pages = [tag(e) for e in p.events() if e["method"] == "page"]
    assert pages == ["page:willTransition:1->0", "page:willTransition:0->2", "page:didTransition:1->2:True"]


def test_a_drag_caught_while_decelerating_backwards_is_one_interaction(vhost):
    """docs/pages.md (the GYPageViewController article case 4 made regular): a drag that begins while decelerating
    continues the interaction, the
    origin re-anchored to the page boundary behind the motion; no unbalanced call, one didAppear, every
    willDisappear answered, at rest exactly the current page appeared."""
    p = peer(vhost)
    s, _ = sessions(p, initialIndex=3)
    S = {"session": s}
    p.skip()
    p("page.willBeginDragging", {**S, "offset": 300})
    p("page.didScroll", {**S, "offset": 260})                          # toward 2
    p("page.willEndDragging", {**S, "offset": 250, "velocity": -2})
    p("page.didEndDragging", {**S, "offset": 250, "willDecelerate": True})
    p("page.didScroll", {**S, "offset": 235})                          # decelerating: recorded only
    p("page.willBeginDragging", {**S, "offset": 230})                  # caught: origin back to 300
    assert p.page(s)["phase"] == "dragging"
    p("page.didScroll", {**S, "offset": 180})                          # on toward 1
    p("page.willEndDragging", {**S, "offset": 150, "velocity": -2})
    p("page.didEndDragging", {**S, "offset": 150, "willDecelerate": True})
    p("page.didEndDecelerating", {**S, "offset": 100})
    hooks = p.hooks(s)
    assert hooks == ["willAppear 2", "willDisappear 3", "willAppear 1", "willDisappear 2", "didDisappear 2",
                     "didAppear 1", "didDisappear 3"], hooks
    assert_at_rest(p, s, 1)
    p.assert_balanced()


def test_edge_bounces_call_nothing(vhost):
    """docs/pages.md: a guess out of range makes no call: bouncing before page 0 or past the last page changes
    nothing."""
    p = peer(vhost)
    s, _ = sessions(p, initialIndex=0, count=3)
    p.skip()
    swipe(p, s, [0, -40, -90], 0)
    p("page.show", {"session": s, "index": 2, "animated": False})
    p.skip()
    swipe(p, s, [200, 260, 300], 200, decelerate=False)
    assert p.hooks(s) == []
    assert_at_rest(p, s, 2)
    p.assert_balanced()


def test_a_guess_back_on_the_current_page_is_kept_balanced(vhost):
    """docs/pages.md/docs/lifecycle.md: a drag whose origin is mid-page crosses back onto the current page's side and
    out again: the
    GYPageViewController's code would begin the same transitions twice (unbalanced); the host must make no unbalanced
    call and
    settle cleanly, cancelled or not."""
    p = peer(vhost)
    s, _ = sessions(p)
    p.skip()
    swipe(p, s, [130, 150, 120, 160, 110], 100)
    assert p.hooks(s) == ["willAppear 2", "willDisappear 1", "willAppear 1", "didAppear 1", "willDisappear 2",
                          "didDisappear 2"]
    assert_at_rest(p, s, 1)
    swipe(p, s, [130, 150, 120, 160, 190], 200, decelerate=False)
    assert p.hooks(s) == ["willAppear 2", "willDisappear 1", "didAppear 2", "didDisappear 1"]
    assert_at_rest(p, s, 2)
    p.assert_balanced()


def test_rest_on_a_page_other_than_the_guess_is_announced(vhost):
    """docs/pages.md + rpc-schema PageEvent: willTransition {from, to} "when a page starts coming in"; didTransition
    {from,
    to, completed}: "`to` the page the transition headed for, `completed` whether the session ended on `to`".
    A drag from 1 toward 2 (willTransition 1->2) released so that it comes to rest on page 0 (round(offset / w) is
    neither the old page nor the guess): page 0 coming in is announced by a willTransition naming it, as when no
    guess was made, and every didTransition names a page some willTransition announced, with `completed` true
    only for the one to page 0."""
    p = peer(vhost)
    s, _ = sessions(p)
    S = {"session": s}
    p.skip()
    p("page.willBeginDragging", {**S, "offset": 100})
    p("page.didScroll", {**S, "offset": 160})
    p("page.willEndDragging", {**S, "offset": 40, "velocity": -3})
    p("page.didEndDragging", {**S, "offset": 40, "willDecelerate": False})
    events = [e["params"] for e in p.events() if e["method"] == "page"]
    announced = {e["to"] for e in events if e["kind"] == "willTransition"}
    assert p.page(s)["index"] == 0
    for d in (e for e in events if e["kind"] == "didTransition"):
        assert d["to"] in announced, f"didTransition to {d['to']} was never announced by a willTransition: {events}"
        assert d["completed"] == (d["to"] == 0), events
    assert 0 in announced, f"page 0 came in without a willTransition naming it: {events}"


def test_cancelled_swipe_did_transition_names_the_abandoned_page(conn: Conn) -> None:
    """docs/pages.md: `didTransition {from, to, completed}`, `completed` saying whether the session ended on `to`
    (UIPageViewController: transitionCompleted false for the pending page). A swipe 1 -> toward 2 that comes back
    to rest on 1 announces `willTransition {1, 2}`; its `didTransition` must be `{from: 1, to: 2, completed:
    false}`. The host sends `{from: 1, to: 1, completed: false}`: a transition to the page it never left, which
    names no pending page and contradicts `completed`."""
    conn.call("events.subscribe", {"topics": ["page"]})
    s = conn.call("page.create", {"class": "Container", "count": 3, "width": 100, "height": 200,
                                  "initialIndex": 1})["session"]
    conn.call("page.willBeginDragging", {"session": s, "offset": 100})
    conn.call("page.didScroll", {"session": s, "offset": 150})
    conn.call("page.didEndDragging", {"session": s, "offset": 110, "willDecelerate": False})
    events = [n["params"] for n in conn.notifications if n["method"] == "page" and n["params"]["session"] == s]
    assert [(e["kind"], e["from"], e["to"]) for e in events][:1] == [("willTransition", 1, 2)], events
    did = [e for e in events if e["kind"] == "didTransition"]
    assert len(did) == 1 and did[0]["completed"] is False, events
    assert (did[0]["from"], did[0]["to"]) == (1, 2), f"the cancelled didTransition should name page 2: {did[0]}"
