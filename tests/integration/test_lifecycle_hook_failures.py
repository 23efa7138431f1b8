"""Failing hooks (a plugin's hook that returns an error): only that container is torn down, each early hook
of a show is -32003 (pluginFailed), a failed top leaves the revealed container disappeared, a failing end
hook of a push is not reported, failed warm-ups.

How the expected sequences are worked out, and the tags the tests compare: lifecyclemodel.py.
"""

from __future__ import annotations

import pytest
from grhost import assert_error_reply, lifecycle_pairs
from lifecyclemodel import session
from openrpcdoc import Conn, check_error


def _pages_with_a_bad_second_page(c, hook):
    c.result("events.subscribe", {"topics": ["lifecycle", "page"]})
    c.result("classes.define", {"name": "Bad", "hooks": {hook: {"fail": True}}})
    p = c.result("page.create", {"pages": [{"class": "Container"}, {"class": "Bad"}, {"class": "Container"}],
                                 "width": 100, "height": 100})["session"]
    first = c.result("page.info", {"session": p})["children"][0]["container"]
    c.events.clear()
    return p, first


def _assert_rest_on(c, p, index, container):
    info = c.result("page.info", {"session": p})
    assert info["index"] == index and info["phase"] == "idle", info
    states = {ch["container"]: ch["state"] for ch in info["children"]}
    assert states.get(container) == "appeared", info
    assert all(st == "disappeared" for k, st in states.items() if k != container), info
    for ch in info["children"]:
        assert "result" in c.call("container.info", {"container": ch["container"]}), f"page.info lists a dead container: {info}"
    assert c.result("host.stats")["unbalancedTransitions"] == 0


EARLY_HOOKS = ["init", "willMoveToParent", "loadView", "viewDidLoad", "viewWillLayoutSubviews",
               "viewDidLayoutSubviews", "viewWillAppear"]


# The incoming container's hooks that run after the outgoing top's viewWillDisappear (docs/lifecycle.md: a
# navigation controller tells the outgoing first, then the incoming appears and lays out).
AFTER_THE_OUTGOING_BEGAN = {"viewWillAppear", "viewWillLayoutSubviews", "viewDidLayoutSubviews"}


LATE_HOOKS = ["viewDidAppear", "didMoveToParent", "configure"]


def test_a_failing_hook_tears_down_only_that_container(vhost):
    s = session(vhost)
    s("classes.define", {"name": "Broken", "hooks": {"viewDidLoad": {"fail": True}}})
    s("classes.define", {"name": "BadBind", "hooks": {"configure": {"fail": True}}})
    s("classes.define", {"name": "Fine"})
    stack = s("stack.create", {"width": 375, "height": 667})["stack"]
    s("pool.warm", {"class": "Fine"})
    s("tasks.drain")
    keep = s("showRendered", {"class": "Fine", "stack": stack})["container"]
    s.skip()

    err = s.error("showRendered", {"class": "Broken", "stack": stack})
    assert err["code"] == -32004 and err["data"]["kind"] == "pluginFailed", err
    assert err["data"]["hook"] == "viewDidLoad" and err["data"]["class"] == "Broken", err
    bad = err["data"]["container"]
    assert s.tags() == [f"{bad}:init", f"pool:miss:{bad}", f"{bad}:willMoveToParent", f"{bad}:loadView",
                        f"{bad}:viewDidLoad!", f"{bad}:deinit"]
    assert s.error("container.info", {"container": bad})["code"] == -32002
    assert s("stack.info", {"stack": stack})["containers"] == [keep]
    assert s("container.info", {"container": keep})["state"] == "appeared"

    other = s("container.create", {"class": "BadBind"})["container"]
    s.skip()
    err = s.error("container.configure", {"container": other, "data": {"x": 1}})
    assert err["code"] == -32004 and err["data"]["hook"] == "configure" and err["data"]["container"] == other, err
    assert s.tags() == [f"{other}:configure!", f"{other}:deinit"]
    assert s.error("container.info", {"container": other})["code"] == -32002

    # A warm-up that fails: a warmFailed event with the error; the pool stays usable, others are untouched.
    s("pool.warm", {"class": "Broken"})
    s("tasks.drain")
    failed = [e["params"] for e in s.events() if e["method"] == "pool" and e["params"]["class"] == "Broken"]
    assert [f["kind"] for f in failed] == ["warmFailed"], failed
    assert failed[0]["error"]["code"] == -32004 and failed[0]["error"]["data"]["hook"] == "viewDidLoad", failed
    assert s.pool("Broken")["idle"] == 0
    assert s("container.info", {"container": keep})["state"] == "appeared"
    s.conn.ping()
    s.assert_balanced()


@pytest.mark.parametrize("hook", EARLY_HOOKS)
def test_each_failing_hook_of_a_show_is_plugin_failed(vhost, hook):
    """showRendered onto a shown stack with a class whose `hook` fails: -32004 naming the hook and the
    container, which deinits. The container below is never touched when the failure comes before it was told
    to disappear; after that, it appears again (balanced) once the failed one is gone."""
    s = session(vhost)
    s("classes.define", {"name": "Flaky", "hooks": {hook: {"fail": True}}})
    stack = s("stack.create", {"width": 375, "height": 667})["stack"]
    below = s("container.create", {"class": "Container"})["container"]
    s("stack.push", {"stack": stack, "container": below})
    s.skip()
    err = s.error("showRendered", {"class": "Flaky", "stack": stack, "data": {"n": 1}})
    assert err["code"] == -32004 and err["data"]["hook"] == hook and err["data"]["class"] == "Flaky", err
    bad = err["data"]["container"]
    tags = s.tags()
    if hook in AFTER_THE_OUTGOING_BEGAN:
        assert tags[-5:] == [f"{bad}:{hook}!", f"{bad}:deinit", f"{below}:viewWillAppear", f"{below}:viewIsAppearing", f"{below}:viewDidAppear"], tags
        assert [t for t in tags if t.startswith(below + ":")] == [
            f"{below}:viewWillDisappear", f"{below}:viewWillAppear", f"{below}:viewIsAppearing", f"{below}:viewDidAppear"], tags
    else:
        assert tags[-2:] == [f"{bad}:{hook}!", f"{bad}:deinit"], tags
        assert not [t for t in tags if t.startswith(below + ":")], tags
    assert s("stack.info", {"stack": stack})["containers"] == [below]
    assert s("container.info", {"container": below})["appearance"] == "appeared"
    s.conn.ping()
    s.assert_balanced()


@pytest.mark.parametrize("hook", LATE_HOOKS)
def test_failed_top_leaves_the_revealed_container_disappeared(vhost, hook):
    """docs/plugins.md/docs/lifecycle.md: a failing hook fails that container and nothing else. When the container that
    fails is the
    new top of a shown stack (its viewDidAppear, didMoveToParent or configure fails, after the container
    below got viewWillDisappear), it is torn down but the container it covered, now the top of a shown
    window, is left `disappeared` — it never gets viewWillAppear/viewDidAppear again."""
    s = session(vhost)
    s("classes.define", {"name": "Flaky", "hooks": {hook: {"fail": True}}})
    stack = s("stack.create", {"width": 375, "height": 667})["stack"]
    under = s("container.create", {"class": "Container"})["container"]
    s("stack.push", {"stack": stack, "container": under})
    s.conn.call("showRendered", {"class": "Flaky", "stack": stack, "data": {"url": "x"}})
    info = s("stack.info", {"stack": stack})
    assert info["top"] == under and not info["hidden"]
    assert s("container.info", {"container": under})["appearance"] == "appeared", \
        "the shown stack's top should appear again once the failed container is gone"


@pytest.mark.parametrize("method", ["showRendered", "stack.push"])
@pytest.mark.parametrize("hook", ["viewDidAppear", "didMoveToParent"])
def test_failing_end_hook_of_a_push_is_not_reported(vhost, method, hook):
    """docs/plugins.md (and -32004's contract): a failing hook fails the request with pluginFailed, naming the hook.
    When
    the hook that fails runs at the end of a non-animated push (viewDidAppear, didMoveToParent), the failure
    goes to the deferred path meant for animation ends: the container is torn down, yet stack.push and
    showRendered reply with success (naming a container that no longer exists), or, with `data`,
    showRendered answers -32002 unknownObject from configuring the dead container."""
    s = session(vhost)
    s("classes.define", {"name": "Flaky", "hooks": {hook: {"fail": True}}})
    stack = s("stack.create", {"width": 375, "height": 667})["stack"]
    if method == "stack.push":
        c = s("container.create", {"class": "Flaky"})["container"]
        reply = s.conn.call("stack.push", {"stack": stack, "container": c})
    else:
        reply = s.conn.call("showRendered", {"class": "Flaky", "stack": stack})
    tags = s.tags()
    assert tags[-1].endswith(":deinit") and f":{hook}!" in tags[-2], tags  # it was torn down
    assert "error" in reply and reply["error"]["code"] == -32004, f"the caller is not told: {reply}"
    assert reply["error"]["data"]["hook"] == hook, reply


def test_failed_warm_up_reports_its_deinit_onscreen(vhost):
    """docs/pools.md: warming happens in the green room with `offscreen: true` so that exposure analytics can ignore
    it. A container whose warm-up fails never leaves the green room, yet its `deinit` says offscreen: false,
    as if it had been on stage."""
    s = session(vhost)
    s("classes.define", {"name": "Broken", "hooks": {"viewWillAppear": {"fail": True}}})
    s("pool.warm", {"class": "Broken"})
    s("tasks.drain")
    tags = s.tags()
    assert tags[-1] == "pool:warmFailed:c-1", tags
    assert "c-1:viewWillAppear~!" in tags
    assert "c-1:deinit~" in tags, f"the failed warm-up's deinit is reported on screen: {tags}"


def test_warm_up_failing_at_its_end_is_reported_as_warmed(vhost):
    """docs/pools.md/docs/plugins.md: a warm-up whose hook fails is a `warmFailed`. When the failing hook is the last of
    the push
    into the green room (viewDidAppear), the container is torn down, yet the pool reports `warmed` for it
    (and counts it in `warmed`), and no `warmFailed` is sent."""
    s = session(vhost)
    s("classes.define", {"name": "Flaky", "hooks": {"viewDidAppear": {"fail": True}}})
    s("pool.warm", {"class": "Flaky"})
    s("tasks.drain")
    tags = s.tags()
    assert "c-1:viewDidAppear~!" in tags and any(t.startswith("c-1:deinit") for t in tags), tags
    assert tags[-1] == "pool:warmFailed:c-1", tags
    assert s.pool("Flaky")["warmed"] == 0


@pytest.mark.parametrize("hook", ["viewDidAppear", "didMoveToParent"])
def test_a_container_failing_at_the_end_of_an_animated_push_leaves_the_covered_one_balanced(vhost, hook):
    """The pushed container fails when the animation ends: it is torn down, the container it was covering
    is the top again and appears, with no unbalanced call (docs/lifecycle.md: flows the host drives produce none)."""
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["lifecycle"]})
    c.result("classes.define", {"name": "Bad", "hooks": {hook: {"fail": True}}})
    s = c.result("stack.create", {"width": 100, "height": 100})["stack"]
    under = c.result("container.create", {"class": "Container"})["container"]
    c.result("stack.push", {"stack": s, "container": under})
    bad = c.result("container.create", {"class": "Bad"})["container"]
    c.result("stack.push", {"stack": s, "container": bad, "animated": True})
    c.events.clear()
    c.result("clock.advance", {"ms": 300})
    assert "unbalancedAppearanceTransition" not in [ev for _, ev in lifecycle_pairs(c.events)], c.events
    assert [ev for _, ev in lifecycle_pairs(c.events, bad)][-1] == "deinit", c.events
    assert [ev for _, ev in lifecycle_pairs(c.events, under)] == ["viewDidDisappear", "viewWillAppear",
                                                                 "viewIsAppearing", "viewDidAppear"], c.events
    assert_error_reply(c.call("container.info", {"container": bad}), -32002)
    info = c.result("stack.info", {"stack": s})
    assert info["containers"] == [under] and info["animating"] is False, info
    assert c.result("container.info", {"container": under})["appearance"] == "appeared"
    assert c.result("host.stats")["unbalancedTransitions"] == 0


def test_a_page_failing_in_viewDidAppear_on_page_show_is_32004_and_torn_down(vhost):
    c = vhost.connect()
    p, first = _pages_with_a_bad_second_page(c, "viewDidAppear")
    err = assert_error_reply(c.call("page.show", {"session": p, "index": 1, "animated": False}), -32004, kind="pluginFailed")
    bad = err["data"]["container"]
    assert err["data"]["hook"] == "viewDidAppear", err
    assert_error_reply(c.call("container.info", {"container": bad}), -32002)
    assert [ev for _, ev in lifecycle_pairs(c.events, bad)][-1] == "deinit", c.events
    # The page it was leaving comes back, balanced.
    assert [ev for _, ev in lifecycle_pairs(c.events, first)] == ["viewWillDisappear", "viewDidDisappear",
                                                             "viewWillAppear", "viewIsAppearing", "viewDidAppear"], c.events
    _assert_rest_on(c, p, 0, first)
    c.result("page.show", {"session": p, "index": 2, "animated": False})
    assert c.result("host.stats")["unbalancedTransitions"] == 0


def test_a_page_failing_at_the_end_of_an_animated_page_show_is_torn_down(vhost):
    c = vhost.connect()
    p, first = _pages_with_a_bad_second_page(c, "viewDidAppear")
    c.result("page.show", {"session": p, "index": 1, "animated": True})
    c.result("clock.advance", {"ms": 300})
    deinit = [cid for cid, ev in lifecycle_pairs(c.events) if ev == "deinit"]
    assert len(deinit) == 1, c.events
    assert_error_reply(c.call("container.info", {"container": deinit[0]}), -32002)
    _assert_rest_on(c, p, 0, first)
    done = [e["params"] for e in c.events if e["method"] == "page" and e["params"]["kind"] == "didTransition"]
    assert done and done[-1]["completed"] is False, done


def test_a_page_failing_when_a_swipe_comes_to_rest_leaves_the_other_page_balanced(vhost):
    c = vhost.connect()
    p, first = _pages_with_a_bad_second_page(c, "viewDidAppear")
    c.result("page.willBeginDragging", {"session": p, "offset": 0})
    c.result("page.didScroll", {"session": p, "offset": 60})
    c.result("page.willEndDragging", {"session": p, "offset": 60, "velocity": 1})
    c.result("page.didEndDragging", {"session": p, "offset": 60, "willDecelerate": True})
    err = assert_error_reply(c.call("page.didEndDecelerating", {"session": p, "offset": 100}), -32004, kind="pluginFailed")
    assert_error_reply(c.call("container.info", {"container": err["data"]["container"]}), -32002)
    _assert_rest_on(c, p, 0, first)
    assert c.result("host.stats")["sessions"]["pageTracking"] == 0


def test_a_page_child_failing_on_a_memory_warning_leaves_its_session(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["lifecycle"]})
    c.result("classes.define", {"name": "Fragile", "hooks": {"didReceiveMemoryWarning": {"fail": True}}})
    p = c.result("page.create", {"pages": [{"class": "Container"}, {"class": "Fragile"}], "width": 100,
                                 "height": 100, "initialIndex": 1})["session"]
    fragile = c.result("page.info", {"session": p})["children"][0]["container"]
    c.result("host.memoryWarning")
    assert_error_reply(c.call("container.info", {"container": fragile}), -32002)
    info = c.result("page.info", {"session": p})
    assert fragile not in [ch["container"] for ch in info["children"]], info
    c.result("page.show", {"session": p, "index": 0, "animated": False})
    assert c.result("host.stats")["unbalancedTransitions"] == 0


def test_failed_page_child_leaves_the_session(conn: Conn) -> None:
    """docs/plugins.md (and docs/pages.md's children): a failing hook fails that container (-32004, torn down) and
    nothing else.
    When the page `page.show` brings in fails in viewDidLoad, the host tears its container down (deinit) but keeps
    it as the page's child: page.info lists the dead container, and showing the page again fails with a `loadView`
    error about that dead container instead of trying a new one (and emits another unmatched willTransition)."""
    cls = "SchemaViolationFailingPage"
    conn.call("classes.define", {"name": cls, "hooks": {"viewDidLoad": {"fail": True}}})
    s = conn.call("page.create", {"pages": [{"class": "Container"}, {"class": cls}], "width": 100,
                                  "height": 200})["session"]
    first = check_error(conn.request("page.show", {"session": s, "index": 1, "animated": False}), "page.show",
                        -32004, "a failing page")
    dead = first["data"]["container"]
    info = conn.call("page.info", {"session": s})
    assert (info["index"], info["phase"]) == (0, "idle"), info
    assert dead not in [ch["container"] for ch in info["children"]], \
        f"the torn-down container {dead} is still listed as a child: {info['children']}"
    second = check_error(conn.request("page.show", {"session": s, "index": 1, "animated": False}), "page.show",
                         -32004, "the failing page again")
    assert second["data"]["container"] != dead and second["data"].get("hook") == "viewDidLoad", \
        f"showing the page again reuses the dead container: {second}"
