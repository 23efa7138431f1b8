"""Failing hooks (a plugin's hook that returns an error): only that container is torn down, each early hook
of a show is -32003 (pluginFailed), a failed top leaves the revealed container disappeared, a failing end
hook of a push is not reported, failed warm-ups.

Every expected sequence is worked out by hand from rpc-schema/openrpc.json and docs/ (lifecycle.md, pools.md,
tasks.md, pages.md) and the articles they name (GYPageViewController's lifecycle tables and cache rules,
MJianshu's reuse queue, the prerendering article's pools), not from what the host prints. Each test starts its
own `greenroom serve --clock virtual` (time moves only by `clock.advance`, idle tasks run only on
`tasks.drain`) unless it says otherwise, so every run is identical; every read is bounded. The page tests
feed each lifecycle event through docs/lifecycle.md's four-state table and require zero
`unbalancedAppearanceTransition`.

Events are written as compact tags, in the order they arrive (grhost.tag):

    "c-2:viewDidLoad~"     lifecycle event `viewDidLoad` of c-2, offscreen (~), "!" when the hook failed
    "pool:warmed:c-2"      pool event of kind `warmed` about c-2 ("pool:purged" has no container)
    "willAppear 0"         (page sessions) an appearance hook of the child on page 0, as the GYPageViewController
                           article writes them
"""

from __future__ import annotations

import pytest
from lifecyclemodel import session


EARLY_HOOKS = ["init", "willMoveToParent", "loadView", "viewDidLoad", "viewWillLayoutSubviews",
               "viewDidLayoutSubviews", "viewWillAppear"]


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
    container, which deinits; the container below is never touched."""
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
