"""The hooks UIKit sends when a controller's insets change, `viewSafeAreaInsetsDidChange` and
`viewLayoutMarginsDidChange` (docs/lifecycle.md, "Insets"): only to classes that ask for them (a scripted class
lists them in `hooks`, a plugin class in `optional_hooks`), at the start of the layout pass after the container
joins a stack — the green room included, and again on the user's stack after a hand-over, as the prerendering
article observes — and after its stack is resized."""

from __future__ import annotations

import pytest
from lifecyclemodel import session
from test_plugins import lib

INSETS = ("viewSafeAreaInsetsDidChange", "viewLayoutMarginsDidChange")


def define(s, name: str, *hooks: str, **extra) -> None:
    s("classes.define", {"name": name, "hooks": {h: extra.get(h, {}) for h in hooks}})


def test_a_class_that_asks_hears_them_between_will_appear_and_the_layout(vhost):
    s = session(vhost)
    define(s, "Insetted", *INSETS)
    st = s("stack.create", {"width": 375, "height": 667})["stack"]
    c = s("container.create", {"class": "Insetted"})["container"]
    s.skip()
    s("stack.push", {"stack": st, "container": c})
    assert s.tags() == [f"{c}:{h}" for h in (
        "willMoveToParent", "loadView", "viewDidLoad", "viewWillAppear", "viewIsAppearing",
        "viewSafeAreaInsetsDidChange", "viewLayoutMarginsDidChange", "viewWillLayoutSubviews", "viewDidLayoutSubviews", "viewDidAppear",
        "didMoveToParent")]
    s.assert_balanced()


def test_a_class_that_does_not_ask_hears_nothing_new(vhost):
    s = session(vhost)
    s("classes.define", {"name": "Plain"})
    st = s("stack.create", {"width": 375, "height": 667})["stack"]
    c = s("container.create", {"class": "Plain"})["container"]
    s("stack.push", {"stack": st, "container": c})
    s("stack.resize", {"stack": st, "width": 320, "height": 568})
    assert not [t for t in s.tags() if any(h in t for h in INSETS)]


def test_only_the_hook_a_class_lists(vhost):
    s = session(vhost)
    define(s, "Margins", "viewLayoutMarginsDidChange")
    st = s("stack.create", {"width": 375, "height": 667})["stack"]
    c = s("container.create", {"class": "Margins"})["container"]
    s("stack.push", {"stack": st, "container": c})
    assert [t for t in s.tags() if any(h in t for h in INSETS)] == [f"{c}:viewLayoutMarginsDidChange"]


def test_a_prerendered_container_hears_them_in_the_green_room_and_again_on_the_users_stack(vhost):
    """The prerendering article: adding the warm controller to the navigation stack fires
    viewLayoutMarginsDidChange, although its view was laid out at that size already."""
    s = session(vhost)
    define(s, "Insetted", *INSETS)
    s("pool.warm", {"class": "Insetted"})
    s("tasks.drain")
    warmed = [t for t in s.tags() if any(h in t for h in INSETS)]
    [c] = {t.split(":")[0] for t in warmed}
    assert warmed == [f"{c}:viewSafeAreaInsetsDidChange~", f"{c}:viewLayoutMarginsDidChange~"]
    st = s("stack.create", {"width": 375, "height": 667})["stack"]
    assert s("showRendered", {"class": "Insetted", "stack": st})["warm"] is True
    on_stack = [t for t in s.tags() if not t.endswith("~") and t.startswith(f"{c}:")]
    assert on_stack == [f"{c}:{h}" for h in ("willMoveToParent", "viewWillAppear", "viewIsAppearing", "viewSafeAreaInsetsDidChange",
                                              "viewLayoutMarginsDidChange", "viewDidAppear", "didMoveToParent")]
    s.assert_balanced()


def test_a_resize_gives_them_to_the_top_now_and_to_the_others_when_they_appear(vhost):
    s = session(vhost)
    define(s, "Insetted", *INSETS)
    st = s("stack.create", {"width": 375, "height": 667})["stack"]
    a, b = (s("container.create", {"class": "Insetted"})["container"] for _ in range(2))
    s("stack.push", {"stack": st, "container": a})
    s("stack.push", {"stack": st, "container": b})
    s.skip()
    s("stack.resize", {"stack": st, "width": 375, "height": 667})
    assert s.tags() == [], "the same size: nothing changed"
    s("stack.resize", {"stack": st, "width": 667, "height": 375})
    assert s.tags() == [f"{b}:viewSafeAreaInsetsDidChange", f"{b}:viewLayoutMarginsDidChange",
                        f"{b}:viewWillLayoutSubviews", f"{b}:viewDidLayoutSubviews"]
    s("stack.pop", {"stack": st})
    revealed = [t for t in s.tags() if t.startswith(f"{a}:")]
    assert revealed == [f"{a}:{h}" for h in ("viewWillAppear", "viewIsAppearing", "viewSafeAreaInsetsDidChange",
                                              "viewLayoutMarginsDidChange", "viewWillLayoutSubviews", "viewDidLayoutSubviews", "viewDidAppear")]


def test_a_failing_inset_hook_fails_its_container_and_says_which_hook(vhost):
    s = session(vhost)
    define(s, "Fragile", *INSETS, viewLayoutMarginsDidChange={"fail": True})
    st = s("stack.create", {"width": 375, "height": 667})["stack"]
    c = s("container.create", {"class": "Fragile"})["container"]
    err = s.error("stack.push", {"stack": st, "container": c})
    assert err["code"] == -32004 and err["data"]["hook"] == "viewLayoutMarginsDidChange", err
    assert s("stack.info", {"stack": st})["containers"] == []
    s.assert_balanced()


@pytest.mark.parametrize("isolation", ["process", "none"])
def test_a_plugin_class_asks_in_its_table(start_host, isolation):
    """The Article plugin lists viewLayoutMarginsDidChange in `optional_hooks`; in a worker process the
    worker's ready message carries the list."""
    host = start_host("--clock", "virtual", "--plugin", lib("ArticlePlugin"), "--plugin-isolation", isolation)
    s = session(host)
    st = s("stack.create", {"width": 375, "height": 667})["stack"]
    c = s("container.create", {"class": "Article"})["container"]
    s("stack.push", {"stack": st, "container": c})
    s("stack.resize", {"stack": st, "width": 320, "height": 568})
    assert [t for t in s.tags() if any(h in t for h in INSETS)] == [f"{c}:viewLayoutMarginsDidChange"] * 2
