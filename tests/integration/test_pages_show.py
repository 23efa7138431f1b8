"""Programmatic page changes (page.show): the non-interactive table, animated (300 ms) and not, forward and
backward; a show during an animation to the same page; a show during a drag or deceleration is invalid state;
an index out of range is invalid params and changes nothing.

How the expected sequences are worked out, and the tags the tests compare: lifecyclemodel.py.
"""

from __future__ import annotations

import pytest
from grhost import tag
from lifecyclemodel import (SHORT, assert_at_rest, assert_settled, bring, hooks_of, lifecycle, page_peer,
                            page_session, peer, sessions)


def test_seed001_non_interactive_1_to_0_with_300ms(vhost):
    """The GYPageViewController article / docs/pages.md: willAppear 0, willDisappear 1, (300 ms), didAppear 0,
    didDisappear 1; page events
    willTransition {1, 0} then didTransition {1, 0, completed}; index stays 1 while animating."""
    p = peer(vhost)
    s, _ = sessions(p)
    p("clock.advance", {"ms": 1000})
    p.skip()
    info = p("page.show", {"session": s, "index": 0})
    assert (info["phase"], info["index"]) == ("animating", 1), info
    events = p.events()
    assert [f"{SHORT[e['event']]} {e['page']['index']}" for e in lifecycle(events) if e["event"] in SHORT] == \
        ["willAppear 0", "willDisappear 1"]
    assert [tag(e) for e in events if e["method"] == "page"] == ["page:willTransition:1->0"]
    p("clock.advance", {"ms": 299.9})
    assert p.events() == []
    p("clock.advance", {"ms": 0.1})
    events = p.events()
    assert [f"{SHORT[e['event']]} {e['page']['index']}" for e in lifecycle(events) if e["event"] in SHORT] == \
        ["didAppear 0", "didDisappear 1"]
    assert all(e["params"]["t"] == 1300 for e in events)
    assert [tag(e) for e in events if e["method"] == "page"] == ["page:didTransition:1->0:True"]
    assert_at_rest(p, s, 0)
    p.assert_balanced()


def test_non_interactive_forward_animated_and_not(vhost):
    """docs/pages.md page.show (the GYPageViewController article's non-interactive table, forward and to a page that is
    not adjacent): willAppear new,
    willDisappear old, then after exactly 300 ms didAppear new, didDisappear old; not animated: all four in the
    reply, `animated: false` on each. The index stays the old page while animating."""
    p = page_peer(vhost)
    s = page_session(p)
    p("clock.advance", {"ms": 50})
    p.skip()
    info = p("page.show", {"session": s, "index": 3})
    assert (info["phase"], info["index"]) == ("animating", 1), info
    assert p.hooks(s) == ["willAppear 3", "willDisappear 1"]
    p("clock.advance", {"ms": 299})
    assert p.events() == []
    p("clock.advance", {"ms": 1})
    events = p.events()
    assert all(e["params"]["t"] == 350.0 for e in events), events
    assert hooks_of(events, s) == ["didAppear 3", "didDisappear 1"]
    assert_settled(p, s, 3)

    info = p("page.show", {"session": s, "index": 0, "animated": False})
    assert (info["phase"], info["index"]) == ("idle", 0), info
    events = p.events()
    assert [tag(e) for e in events if e["method"] == "page"] == ["page:willTransition:3->0",
                                                                 "page:didTransition:3->0:True"]
    hooks = [e["params"] for e in events if e["method"] == "lifecycle" and e["params"]["event"] in SHORT]
    assert [f"{SHORT[h['event']]} {h['page']['index']}" for h in hooks] == \
        ["willAppear 0", "willDisappear 3", "didAppear 0", "didDisappear 3"]
    assert all(h["animated"] is False for h in hooks), hooks
    assert p.stats()["timers"] == 0
    assert_settled(p, s, 0)
    p.assert_balanced()


def test_show_during_an_animation_to_the_same_page_completes_it_and_does_nothing_more(vhost):
    """docs/pages.md: a new page.show during an animation first completes the running one (its end calls are delivered);
    showing the current page then does nothing."""
    p = peer(vhost)
    s, _ = sessions(p)
    p.skip()
    p("page.show", {"session": s, "index": 2})
    p("clock.advance", {"ms": 100})
    info = p("page.show", {"session": s, "index": 2})
    assert (info["index"], info["phase"]) == (2, "idle"), info
    assert p.hooks(s) == ["willAppear 2", "willDisappear 1", "didAppear 2", "didDisappear 1"]
    p("clock.advance", {"ms": 1000})
    assert p.events() == []
    assert_at_rest(p, s, 2)
    p.assert_balanced()


@pytest.mark.parametrize("phase", ["dragging", "decelerating"])
def test_show_during_a_drag_or_deceleration_is_invalid_state(vhost, phase):
    """rpc-schema page.show: during a drag or deceleration it is -32003 (data.call page.show, data.phase), and
    nothing changes."""
    p = peer(vhost)
    s, _ = sessions(p)
    bring(p, s, phase)
    before = p.page(s)
    p.skip()
    err = p.error("page.show", {"session": s, "index": 4})
    assert err["code"] == -32003 and err["data"]["call"] == "page.show" and err["data"]["phase"] == phase, err
    assert p.events() == [] and p.page(s) == before


@pytest.mark.parametrize("index", [-1, 5, 1.5, "2", None])
def test_page_show_out_of_range_is_invalid_params_and_changes_nothing(vhost, index):
    """rpc-schema/openrpc.json, docs/protocol.md: page.show with an index that is not a page is -32602 naming `index`;
    nothing moves, no event."""
    p = page_peer(vhost)
    s = page_session(p)
    before = p.page(s)
    p.skip()
    err = p.error("page.show", {"session": s, "index": index})
    assert err["code"] == -32602 and err["data"]["path"] == "index", err
    assert p.events() == [] and p.page(s) == before
    # Showing the current page does nothing either (animated or not): no event, no timer.
    for animated in (True, False):
        info = p("page.show", {"session": s, "index": 1, "animated": animated})
        assert (info["phase"], info["index"]) == ("idle", 1), info
    assert p.events() == [] and p.stats()["timers"] == 0
    p.assert_balanced()
