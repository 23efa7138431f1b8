"""A page session inside a stack (its own container pushed like any other): it forwards its appearance to
the current page only, shows nothing on a hidden stack, settles a page.show or a swipe while it is being
covered or revealed, tears down balanced on a disconnect, leaves no zombie when its container goes, and stays
balanced under a storm of stack and page calls.

How the expected sequences are worked out, and the tags the tests compare: lifecyclemodel.py.
"""

from __future__ import annotations

import random
import time

import pytest
from grhost import tag
from lifecyclemodel import (APPEARANCE, W, assert_at_rest, assert_settled, drag, hooks_of, lifecycle, page_peer,
                            peer, pump, release, sessions, swipe)


def test_session_in_a_stack_forwards_its_appearance_to_the_current_page_only(vhost):
    """docs/pages.md: with `stack` the session is a container pushed onto it; its appearance (animated) is forwarded to
    the
    current page only; covered, it is not visible."""
    p = peer(vhost)
    stack = p("stack.create", {"width": W, "height": 200})["stack"]
    s, info = sessions(p, stack=stack)
    own = info["container"]
    assert own and p("stack.info", {"stack": stack})["top"] == own
    cur = info["children"][0]["container"]
    p("page.show", {"session": s, "index": 2, "animated": False})
    p("page.show", {"session": s, "index": 1, "animated": False})
    other = [c["container"] for c in p.page(s)["children"] if c["index"] == 2][0]
    top = p("container.create", {"class": "Container"})["container"]
    p.skip()
    p("stack.push", {"stack": stack, "container": top, "animated": True})
    events = p.events()
    assert [tag(e) for e in events if e["params"]["container"] != top] == [f"{own}:viewWillDisappear",
                                                                          f"{cur}:viewWillDisappear"]
    assert lifecycle(events, cur, "viewWillDisappear")[0]["animated"] is True
    assert p.page(s)["visible"] is False
    p("clock.advance", {"ms": 300})
    tags = p.tags()
    assert f"{cur}:viewDidDisappear" in tags and not [t for t in tags if t.startswith(other + ":")], tags
    p("stack.pop", {"stack": stack})
    tags = p.tags()
    assert f"{cur}:viewWillAppear" in tags and f"{cur}:viewDidAppear" in tags, tags
    assert not [t for t in tags if t.startswith(other + ":")], tags
    assert_at_rest(p, s, 1)
    p.assert_balanced()


def test_session_on_a_hidden_stack_shows_nothing_until_the_stack_is_shown(vhost):
    """docs/pages.md/docs/lifecycle.md: a session pushed onto a hidden stack is not on screen: no child loads or
    appears, drags are
    -32003 (phase offscreen), page.show changes the page with no appearance calls; shown, the current page
    loads and appears."""
    p = peer(vhost)
    stack = p("stack.create", {"width": W, "height": 200, "hidden": True})["stack"]
    s, info = sessions(p, stack=stack)
    assert info["visible"] is False and info["children"] == []
    assert not [t for t in p.tags() if ":loadView" in t]
    err = p.error("page.willBeginDragging", {"session": s, "offset": 100})
    assert err["code"] == -32003 and err["data"]["phase"] == "offscreen", err
    p("page.show", {"session": s, "index": 3})
    tags = p.tags()
    assert not [t for t in tags if t.split(":")[1] in APPEARANCE + ("loadView",)], tags
    assert p.page(s)["index"] == 3 and p.page(s)["phase"] == "idle"
    p("stack.setHidden", {"stack": stack, "hidden": False})
    assert p.hooks(s) == ["willAppear 3", "didAppear 3"]
    assert_at_rest(p, s, 3)
    p.assert_balanced()


def test_page_show_while_the_session_is_being_covered_settles_the_old_page(vhost):
    """docs/lifecycle.md "Every flow the host drives itself must produce zero [unbalanced calls]" and docs/pages.md's
    rest invariant
    (every child but the current one `disappeared`). A session in a stack is covered by an animated push (its
    container and current page get viewWillDisappear), and during those 300 ms the client calls page.show.
    When the push animation ends, no unbalanced call is made (no `unbalancedAppearanceTransition`) and the old
    page finishes disappearing: both the old page and the new current page end `disappeared`."""
    p = peer(vhost)
    stack = p("stack.create", {"width": W, "height": 200})["stack"]
    s, _ = sessions(p, stack=stack, initialIndex=0)
    top = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": stack, "container": top, "animated": True})
    p("page.show", {"session": s, "index": 2})
    p("clock.advance", {"ms": 300})
    p._feed()
    states = {c["index"]: c["state"] for c in p.page(s)["children"]}
    assert p.model.unbalanced == [], p.model.unbalanced
    assert states == {0: "disappeared", 2: "disappeared"}, states


def test_page_show_while_the_session_is_being_revealed_is_balanced(vhost):
    """docs/lifecycle.md: the host's own flows must make no unbalanced call. A session in a stack is revealed by an
    animated
    pop (its current page gets viewWillAppear, forwarded); during those 300 ms page.show {animated: false} moves
    to another page (the old page: willDisappear/didDisappear, the new one willAppear/didAppear). When the pop
    ends, no unbalanced call is made (unbalancedTransitions stays 0) and the session is at rest on the new
    page."""
    p = peer(vhost)
    stack = p("stack.create", {"width": W, "height": 200})["stack"]
    s, _ = sessions(p, stack=stack)
    top = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": stack, "container": top})
    p("stack.pop", {"stack": stack, "animated": True})
    p("page.show", {"session": s, "index": 3, "animated": False})
    p("clock.advance", {"ms": 300})
    p._feed()
    assert p.model.unbalanced == [], p.model.unbalanced
    assert p.stats()["unbalancedTransitions"] == 0
    assert_at_rest(p, s, 3)


def test_a_swipe_while_the_session_is_being_revealed_is_balanced(vhost):
    """docs/lifecycle.md/docs/pages.md: same as above with a drag: a swipe from page 1 to 2 during the 300 ms of the pop
    that reveals the
    session settles (didAppear 2); when the pop ends, no unbalanced call is made (unbalancedTransitions stays 0)
    and the session is at rest on page 2."""
    p = peer(vhost)
    stack = p("stack.create", {"width": W, "height": 200})["stack"]
    s, _ = sessions(p, stack=stack)
    top = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": stack, "container": top})
    p("stack.pop", {"stack": stack, "animated": True})
    swipe(p, s, [100, 150], 200, decelerate=False)
    p("clock.advance", {"ms": 300})
    p._feed()
    assert p.model.unbalanced == [], p.model.unbalanced
    assert p.stats()["unbalancedTransitions"] == 0
    assert_at_rest(p, s, 2)


def test_a_page_swiped_back_onto_while_a_pop_reveals_the_session_appears_only_at_rest(vhost):
    """docs/lifecycle.md (zero unbalanced calls in the host's own flows) and docs/pages.md (didAppear only for the page
    the interaction
    rests on, at rest). A session in a stack is revealed by an animated pop (page 1: willAppear, forwarded);
    during the 300 ms a swipe goes to page 2 and comes to rest, and a second drag heads back to page 1 (page 1
    appearing again). When the pop ends, page 1's drag transition is not ended for it: only the session's own
    container gets didAppear; page 1's didAppear comes when the drag rests on it."""
    p = page_peer(vhost)
    stack = p("stack.create", {"width": W, "height": 200})["stack"]
    info = p("page.create", {"class": "Container", "count": 5, "width": W, "height": 200, "initialIndex": 1,
                             "stack": stack})
    s, own = info["session"], info["container"]
    assert p.hooks(s) == ["willAppear 1", "didAppear 1"]
    cover = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": stack, "container": cover})
    assert p.hooks(s) == ["willDisappear 1", "didDisappear 1"]
    p("stack.pop", {"stack": stack, "animated": True})
    assert p.hooks(s) == ["willAppear 1"]
    drag(p, s, [100, 130])
    release(p, s, 200, decelerate=False)
    assert p.hooks(s) == ["willAppear 2", "willDisappear 1", "didAppear 2", "didDisappear 1"]
    drag(p, s, [200, 170])
    assert p.hooks(s) == ["willAppear 1", "willDisappear 2"]
    p("clock.advance", {"ms": 300})
    events = p.events()
    assert [tag(e) for e in events if e["params"].get("container") == own] == [f"{own}:viewDidAppear"]
    assert hooks_of(events, s) == [], "the pop's end must not end page 1's drag transition"
    assert {c["index"]: c["state"] for c in p.page(s)["children"]} == {1: "appearing", 2: "disappearing"}
    release(p, s, 100, decelerate=False)
    assert p.hooks(s) == ["didAppear 1", "didDisappear 2"]
    assert_settled(p, s, 1)
    p.assert_balanced()


def test_disconnect_tears_a_session_in_a_stack_down_balanced(vhost):
    """docs/protocol.md: when the owner disconnects its objects are torn down with correct lifecycle (disappear, then
    deinit),
    a page session in a stack mid-drag included; observers see it; nothing is left."""
    observer = peer(vhost, scope="all")
    owner = peer(vhost)
    stack = owner("stack.create", {"width": W, "height": 200})["stack"]
    s, _ = sessions(owner, stack=stack)
    owner("page.willBeginDragging", {"session": s, "offset": 100})
    owner("page.didScroll", {"session": s, "offset": 130})
    observer("host.ping")
    alive = {e["params"]["container"] for e in observer.events() if e["method"] == "lifecycle"}
    assert len(alive) == 3  # the session's container, pages 1 and 2
    owner.conn.close()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        pump(observer, 0.1)
        if {p_["container"] for p_ in lifecycle(observer.conn.events, event="deinit")} >= alive:
            break
    observer._feed()
    assert {p_["container"] for p_ in lifecycle(observer.conn.events, event="deinit")} >= alive
    assert not observer.model.errors and not observer.model.unbalanced, (observer.model.errors, observer.model.unbalanced)
    stats = observer.stats()
    assert stats["containers"]["total"] == 0 and stats["sessions"]["page"] == 0, stats
    assert stats["unbalancedTransitions"] == 0 and observer("tasks.status")["paused"] is False


@pytest.mark.parametrize("how", ["container.release", "stack.destroy"])
def test_releasing_a_sessions_own_container_leaves_no_zombie_session(vhost, how):
    """Contract silent; what a UIKit user would expect. rpc-schema container.release refuses a page session's
    child (-32003, "destroy the session instead"). For the session's own container (class PageViewController),
    container.release either refuses likewise (-32003, the session and its container untouched) or destroys the
    session with its container; stack.destroy destroys the session with it. A session never outlives its
    container: page.info never names a dead container, and no session or container (children included) is left
    behind."""
    p = peer(vhost)
    stack = p("stack.create", {"width": W, "height": 200})["stack"]
    s, info = sessions(p, stack=stack)
    own = info["container"]
    if how == "container.release":
        reply = p.conn.call("container.release", {"container": own})
        if "error" in reply:
            assert reply["error"]["code"] == -32003
            assert p.page(s)["container"] == own and p.info(own)["parent"] == {"kind": "stack", "id": stack}
            return
    else:
        p("stack.destroy", {"stack": stack})
    reply = p.conn.call("page.info", {"session": s})
    if "result" in reply:
        named = reply["result"]["container"]
        assert named is None or "result" in p.conn.call("container.info", {"container": named}), \
            f"session {s} still names its released container {named}: {reply['result']}"
    stats = p.stats()
    assert stats["sessions"]["page"] == 0 and stats["containers"]["total"] == 0, stats


@pytest.mark.parametrize("seed", range(4))
def test_sessions_in_stacks_stay_balanced_under_a_storm(vhost, seed):
    """docs/lifecycle.md: zero unbalanced calls in every flow the host drives; docs/pages.md's rest invariant. Two page
    sessions (various
    caches, prerendered or not) sit in two stacks, one hidden at first; random steps push, pop (animated or not),
    move the sessions' containers between the stacks, hide, resize, drag (some left open), show, advance the
    clock, drain, purge and warn. After each step: no unbalanced event, and every session at rest whose own
    container is settled has exactly its current page appeared when on screen, every other child (or all of
    them when off screen) disappeared."""
    p = page_peer(vhost)
    rng = random.Random(1000 + seed)
    for name in ("A", "B"):
        p("classes.define", {"name": name})
    stacks = [p("stack.create", {"width": W, "height": 200})["stack"],
              p("stack.create", {"width": W, "height": 200, "hidden": True})["stack"]]
    sessions = {}
    for _ in range(2):
        count = rng.randint(3, 6)
        info = p("page.create", {"pages": [{"class": rng.choice("AB")} for _ in range(count)], "width": W,
                                 "height": 200, "stack": rng.choice(stacks), "initialIndex": rng.randrange(count),
                                 "cache": rng.choice([{"limit": 1}, {"limit": 2}, {"mode": "reuse"}]),
                                 "prerender": rng.random() < 0.5})
        sessions[info["session"]] = (count, info["container"])
    loose: list[str] = []
    for step in range(120):
        sid = rng.choice(list(sessions))
        count, own = sessions[sid]
        S = {"session": sid}
        stack = rng.choice(stacks)
        animated = rng.random() < 0.5
        op = rng.choice(["drag", "drag", "drag", "show", "push", "pop", "move", "hide", "resize", "advance",
                         "drain", "warn", "purge"])
        if op == "drag":
            calls = [("page.willBeginDragging", {**S, "offset": rng.uniform(-W, count * W)})]
            calls += [("page.didScroll", {**S, "offset": rng.uniform(-W, count * W)}) for _ in range(rng.randint(0, 4))]
            end = rng.uniform(-W, count * W)
            r = rng.random()
            if r < 0.4:
                calls.append(("page.didEndDragging", {**S, "offset": end, "willDecelerate": False}))
            elif r < 0.8:
                calls += [("page.didEndDragging", {**S, "offset": end, "willDecelerate": True}),
                          ("page.didEndDecelerating", {**S, "offset": end})]
            for method, params in calls:  # some are refused (offscreen, out of order): that is fine
                reply = p.conn.call(method, params)
                assert "result" in reply or reply["error"]["code"] == -32003, reply
        elif op == "show":
            reply = p.conn.call("page.show", {**S, "index": rng.randrange(count), "animated": animated})
            assert "result" in reply or reply["error"]["code"] == -32003, reply
        elif op == "push":
            if rng.random() < 0.5 or not loose:
                loose.append(p("container.create", {"class": rng.choice("AB")})["container"])
            reply = p.conn.call("stack.push", {"stack": stack, "container": rng.choice(loose), "animated": animated})
            assert "result" in reply or reply["error"]["code"] == -32003, reply
        elif op == "pop":
            reply = p.conn.call("stack.pop", {"stack": stack, "animated": animated})
            assert "result" in reply or reply["error"]["code"] == -32003, reply
        elif op == "move":
            reply = p.conn.call("stack.push", {"stack": stack, "container": own, "animated": animated})
            assert "result" in reply or reply["error"]["code"] == -32003, reply
        elif op == "hide":
            p("stack.setHidden", {"stack": stack, "hidden": rng.random() < 0.4})
        elif op == "resize":
            p("stack.resize", {"stack": stack, "width": rng.choice([W, 120]), "height": 200})
        elif op == "advance":
            p("clock.advance", {"ms": rng.choice([50, 150, 300, 1000])})
        elif op == "drain":
            p("tasks.drain")
        elif op == "warn":
            p("host.memoryWarning")
        elif op == "purge":
            p("pool.purge")
        p.received()
        assert not p.errors, f"step {step} ({op}): {p.errors}"
        for s2, (_, own2) in sessions.items():
            info = p.page(s2)
            own_state = p("container.info", {"container": own2})["appearance"]
            if info["phase"] != "idle" or own_state in ("appearing", "disappearing"):
                continue
            on_screen = own_state == "appeared"
            assert info["visible"] is on_screen, (step, op, info, own_state)
            for child in info["children"]:
                expected = "appeared" if on_screen and child["index"] == info["index"] else "disappeared"
                assert child["state"] == expected, (step, op, s2, child, info)
    assert p.stats()["unbalancedTransitions"] == 0
