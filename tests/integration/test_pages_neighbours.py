"""Neighbour preloading (docs/pages.md, `page.create {offscreenLimit}`): after each rest an idle `default` task
makes and loads the pages within the limit of the current one, nearest first, never appeared (ViewPager2's
`offscreenPageLimit`); reuse mode with `offscreenLimit: 1` is MJianshu's current +- 1 kept loaded."""

from __future__ import annotations

import pytest
from lifecyclemodel import W, drag, page_peer, page_session, release


def kids(p, s) -> dict[int, tuple[str, bool, str]]:
    """page -> (container, its view loaded, its appearance state)."""
    return {c["index"]: (c["container"], p("container.info", {"container": c["container"]})["viewLoaded"], c["state"])
            for c in p.page(s)["children"]}


def test_neighbours_load_after_the_reply_as_an_idle_task_and_never_appear(vhost):
    p = page_peer(vhost)
    s = page_session(p, count=6, initialIndex=2, offscreenLimit=2, cache={"limit": 5})
    made = p.tags()
    assert [t.split(":")[1] for t in made if "~" not in t and ":" in t].count("viewDidAppear") == 1
    # Nothing else before the reply: the neighbours wait for the idle task.
    assert sorted(kids(p, s)) == [2]
    tasks = p("tasks.status")["tasks"]
    assert [(t["key"], t["mode"]) for t in tasks] == [(f"preload:{s}", "default")], tasks
    p("tasks.drain")
    order = [e["params"]["page"]["index"] for e in p.events()
             if e["method"] == "lifecycle" and e["params"]["event"] == "init"]
    assert order == [3, 1, 4, 0], "nearest first, the next page before the previous one"
    k = kids(p, s)
    assert sorted(k) == [0, 1, 2, 3, 4]
    assert all(loaded and state == "disappeared" for i, (_, loaded, state) in k.items() if i != 2), k
    # Loaded at the page size, never an appearance call.
    hooks = {e["params"]["event"] for e in p.conn.events if e["method"] == "lifecycle"
             and e["params"].get("page", {}).get("index") != 2}
    assert hooks == {"init", "willMoveToParent", "didMoveToParent", "loadView", "viewDidLoad",
                     "viewWillLayoutSubviews", "viewDidLayoutSubviews"}, hooks
    assert p("tasks.status")["pending"] == 0, "once all are loaded nothing more is queued"
    p.assert_balanced()


def test_a_swipe_to_a_preloaded_page_makes_nothing_and_the_next_rest_preloads_again(vhost):
    p = page_peer(vhost)
    s = page_session(p, count=6, initialIndex=1, offscreenLimit=1)
    p("tasks.drain")
    before = kids(p, s)
    p.skip()
    drag(p, s, [W, W + 30, W + 60])
    paused = p("tasks.status")
    assert paused["paused"] is True
    release(p, s, 2 * W)
    events = p.events()
    assert not [e for e in events if e["method"] == "lifecycle" and e["params"]["event"] in ("init", "loadView")], \
        "page 2 was made and loaded ahead"
    assert kids(p, s)[2][0] == before[2][0]
    p("tasks.drain")
    k = kids(p, s)
    assert 3 in k and k[3][1] is True, k
    # The cache limit (3) kept current +- 1: page 0 went when 3 came.
    assert sorted(k) == [1, 2, 3], k
    p.assert_balanced()


def test_default_mode_preloading_waits_while_the_user_drags(vhost):
    p = page_peer(vhost)
    s = page_session(p, count=5, initialIndex=2, offscreenLimit=1)
    drag(p, s, [2 * W, 2 * W - 1])  # toward page 1: the swipe makes it, page 3 is the preload's
    assert p("tasks.drain")["ran"] == 0, "paused while the finger is down"
    assert sorted(kids(p, s)) == [1, 2]
    release(p, s, 2 * W)
    assert p("tasks.drain")["ran"] == 1
    assert sorted(kids(p, s)) == [1, 2, 3] and kids(p, s)[3][1] is True


def test_reuse_mode_with_a_limit_keeps_its_neighbours_and_reuses_the_rest(vhost):
    p = page_peer(vhost)
    s = page_session(p, count=8, initialIndex=3, offscreenLimit=1, cache={"mode": "reuse"},
                     data=[{"n": i} for i in range(8)])
    p("tasks.drain")
    assert sorted(kids(p, s)) == [2, 3, 4]
    p("page.show", {"session": s, "index": 6, "animated": False})
    p("tasks.drain")
    info = p.page(s)
    assert sorted(c["index"] for c in info["children"]) == [5, 6, 7], info
    p.assert_balanced()


@pytest.mark.parametrize("hook", ["init", "willMoveToParent", "viewDidLoad", "viewDidLayoutSubviews"])
def test_a_neighbour_that_fails_to_load_leaves_and_is_not_retried_until_the_next_rest(vhost, hook):
    p = page_peer(vhost)
    p("classes.define", {"name": "Flaky", "hooks": {hook: {"fail": True}}})
    s = p("page.create", {"pages": [{"class": "Container"}, {"class": "Flaky"}, {"class": "Container"}],
                          "width": W, "height": 200, "initialIndex": 0, "offscreenLimit": 1})["session"]
    drained = p("tasks.drain")
    assert drained["ran"] == 1 and drained["failed"][0]["hook"] == hook, drained
    assert sorted(kids(p, s)) == [0]
    assert p.stats()["containers"]["total"] == 1, "the failed neighbour is gone"
    assert p("tasks.status")["pending"] == 0, "no retry loop"
    p.assert_balanced()


def test_offscreen_limit_is_checked_against_the_cache(vhost):
    p = page_peer(vhost)
    for params, says in [({"offscreenLimit": 2}, "cache.limit >= 5"), ({"offscreenLimit": 17}, "16"),
                         ({"offscreenLimit": -1}, "")]:
        err = p.error("page.create", {"class": "Container", "count": 5, "width": W, "height": 200, **params})
        assert err["code"] == -32602 and err["data"]["path"] == "offscreenLimit" and says in err["message"], err
    assert p.stats()["sessions"]["page"] == 0


def test_destroying_the_session_drops_its_queued_preload(vhost):
    p = page_peer(vhost)
    s = page_session(p, count=5, offscreenLimit=1)
    assert p("tasks.status")["pending"] == 1
    p("page.destroy", {"session": s})
    assert p("tasks.status")["pending"] == 0
    assert p.stats()["containers"]["total"] == 0
