"""Which children a page session keeps (docs/pages.md): the cache limit releases the least recently used
child, eviction related to an interaction is deferred to rest, reuse mode parks and reconfigures containers
(first in, first out), memory warnings release what is unrelated, and prerendered children come from the pool.

How the expected sequences are worked out, and the tags the tests compare: lifecyclemodel.py.
"""

from __future__ import annotations

from grhost import tag
from lifecyclemodel import (SEED001, SHORT, W, assert_at_rest, assert_settled, drag, lifecycle, page_peer,
                            page_session, peer, release, sessions, swipe)
from openrpcdoc import Conn


def test_cache_limit_releases_the_least_recently_used_child(vhost):
    """docs/pages.md: cache {limit} is an LRU of attached children: past it, the least recently used one (not
    interaction
    related) is released at once: willMoveToParent(null), didMoveToParent(null), deinit."""
    p = peer(vhost)
    s, info = sessions(p, initialIndex=0, count=6, cache={"limit": 3})
    assert info["cache"] == {"limit": 3}
    for i in (1, 2, 0):  # 0 becomes the most recently used
        p("page.show", {"session": s, "index": i, "animated": False})
    one = [c["container"] for c in p.page(s)["children"] if c["index"] == 1][0]
    p.skip()
    p("page.show", {"session": s, "index": 3, "animated": False})
    events = p.events()
    released = [e for e in lifecycle(events, one)]
    assert [e["event"] for e in released] == ["willMoveToParent", "didMoveToParent", "deinit"], released
    assert [e["parent"] for e in released[:2]] == [None, None]
    assert all(e["page"] == {"session": s, "index": 1} for e in released)
    assert [c["index"] for c in p.page(s)["children"]] == [0, 2, 3]
    assert p.stats()["containers"]["total"] == 3
    p.assert_balanced()


def test_interaction_related_eviction_is_deferred_to_rest(vhost):
    """docs/pages.md: an evicted child that is interaction-related (interactive: the guess and its neighbours) is
    deferred
    and released when the session comes to rest; the GYPageViewController article's table is unchanged."""
    p = peer(vhost)
    s, _ = sessions(p, cache={"limit": 2})
    S = {"session": s}
    p.skip()
    p("page.willBeginDragging", {**S, "offset": 100})
    p("page.didScroll", {**S, "offset": 120})   # toward 2
    p("page.didScroll", {**S, "offset": 90})    # back toward 0: 2 is evicted while related
    info = p.page(s)
    assert info["deferred"] == [2] and 2 in [c["index"] for c in info["children"]], info
    two = [c["container"] for c in info["children"] if c["index"] == 2][0]
    assert not lifecycle(p.conn.events, two, "deinit")
    p("page.didEndDragging", {**S, "offset": 20, "willDecelerate": False})
    events = p.events()
    hooks = [f"{SHORT[e['event']]} {e['page']['index']}" for e in lifecycle(events) if e["event"] in SHORT]
    assert hooks == SEED001["1 toward 2 then back to 0"][2]
    assert [e["event"] for e in lifecycle(events, two)][-3:] == ["willMoveToParent", "didMoveToParent", "deinit"]
    info = assert_at_rest(p, s, 0)
    assert info["deferred"] == [] and [c["index"] for c in info["children"]] == [0, 1], info
    p.assert_balanced()


def test_a_cached_neighbour_of_the_new_guess_is_deferred_to_rest(vhost):
    """docs/pages.md (the GYPageViewController article, Step 7): an evicted child that is interaction-related —
    interactively, the guess and its
    neighbours — is deferred and released when the session comes to rest. Limit 2, cache [3, 1] on page 1: a drag
    toward 2 attaches page 2 and evicts page 3, a neighbour of the new guess: it stays until rest, then goes
    (willMoveToParent(null), didMoveToParent(null), deinit)."""
    p = page_peer(vhost)
    s = page_session(p, cache={"limit": 2})
    p("page.show", {"session": s, "index": 3, "animated": False})
    p("page.show", {"session": s, "index": 1, "animated": False})
    three = p.kids(s)[3]
    p.skip()
    drag(p, s, [100, 120])
    tags = p.tags()
    assert not [t for t in tags if t.startswith(three + ":")], tags
    info = p.page(s)
    assert info["deferred"] == [3] and sorted(p.kids(s)) == [1, 2, 3], info
    release(p, s, 200, decelerate=False)
    events = p.events()
    released = [e["params"] for e in events if e["method"] == "lifecycle" and e["params"]["container"] == three]
    assert [e["event"] for e in released] == ["willMoveToParent", "didMoveToParent", "deinit"], released
    assert [e["parent"] for e in released[:2]] == [None, None]
    order = [tag(e) for e in events]
    assert order.index(f"{three}:deinit") > order.index("page:didTransition:1->2:True"), order
    info = p.page(s)
    assert info["deferred"] == [] and sorted(p.kids(s)) == [1, 2], info
    assert_settled(p, s, 2)
    p.assert_balanced()


def test_an_evicted_child_unrelated_to_the_new_guess_goes_at_once(vhost):
    """docs/pages.md: "others are released at once". Limit 2, cache [4, 1] on page 1: a drag toward 2 evicts page 4,
    which
    is neither current, nor the guess (2), nor one of its neighbours (1, 3): released in the didScroll reply."""
    p = page_peer(vhost)
    s = page_session(p, count=6, cache={"limit": 2})
    p("page.show", {"session": s, "index": 4, "animated": False})
    p("page.show", {"session": s, "index": 1, "animated": False})
    four = p.kids(s)[4]
    p.skip()
    drag(p, s, [100, 120])
    tags = [t for t in p.tags() if t.startswith(four + ":")]
    assert tags == [f"{four}:willMoveToParent", f"{four}:didMoveToParent", f"{four}:deinit"], tags
    assert p.page(s)["deferred"] == [] and sorted(p.kids(s)) == [1, 2]
    release(p, s, 200)
    assert_settled(p, s, 2)
    p.assert_balanced()


def test_a_deferred_page_that_becomes_the_final_page_is_kept(vhost):
    """docs/pages.md: deferred children are released at rest "except the final page": 1 -> 2 -> 0 -> 2 with limit 1 ends
    on
    page 2's original container, appeared, nothing deferred, the others released."""
    p = peer(vhost)
    s, _ = sessions(p, cache={"limit": 1})
    p.skip()
    swipe(p, s, [100, 120, 80, 130, 170], 200)
    events = p.events()
    two = {e["container"] for e in lifecycle(events) if e.get("page", {}).get("index") == 2}
    assert len(two) == 1, two
    info = assert_at_rest(p, s, 2)
    assert info["children"] == [{"index": 2, "container": two.pop(), "state": "appeared"}], info
    assert info["deferred"] == []
    assert p.stats()["containers"]["total"] == 1
    p.assert_balanced()


def test_reuse_mode_keeps_current_neighbours_and_reconfigures_parked_containers(vhost):
    """docs/pages.md (MJianshu): reuse mode: at rest only current +- 1 are attached; a page leaving goes to a per-class
    reuse
    queue (page index -1) and is re-configured when it takes an entering page; instances stay bounded."""
    p = peer(vhost)
    s, info = sessions(p, initialIndex=0, count=8, cache={"mode": "reuse"}, data=[f"d{i}" for i in range(8)])
    assert info["cache"] == {"mode": "reuse"}
    S = {"session": s}
    p("page.show", {**S, "index": 1, "animated": False})
    p("page.show", {**S, "index": 2, "animated": False})
    info = p.page(s)
    assert [c["index"] for c in info["children"]] == [1, 2] and info["reuseQueue"] == {"Container": 1}, info
    parked = "c-1"
    assert p.info(parked)["parent"] == {"kind": "page", "id": s, "index": -1}
    p.skip()
    p("page.show", {**S, "index": 3, "animated": False})
    events = p.events()
    assert [e["event"] for e in lifecycle(events, parked)][:3] == ["willMoveToParent", "didMoveToParent", "configure"]
    assert lifecycle(events, parked, "configure")[0]["page"] == {"session": s, "index": 3}
    assert not lifecycle(events, event="init"), "a parked container should be reused, not a new one created"
    for i in (4, 5, 6, 7, 3):
        p("page.show", {**S, "index": i, "animated": False})
        info = p.page(s)
        assert all(abs(c["index"] - i) <= 1 for c in info["children"]), info
    assert p.stats()["containers"]["total"] <= 4
    p.assert_balanced()


def test_reuse_mode_swipes_park_what_leaves_the_window_at_rest(vhost):
    """docs/pages.md (MJianshu): in reuse mode, after each swipe comes to rest only current +- 1 stay attached; the
    guess
    page is taken from the reuse queue (re-configured with its data) rather than created."""
    p = peer(vhost)
    s, _ = sessions(p, initialIndex=0, count=10, cache={"mode": "reuse"}, data=list(range(10)))
    for i in range(6):
        swipe(p, s, [i * W, i * W + 40, i * W + 70], (i + 1) * W)
        info = assert_at_rest(p, s, i + 1)
        assert all(abs(c["index"] - (i + 1)) <= 1 for c in info["children"]), info
    inits = lifecycle(p.conn.events, event="init")
    assert [e["page"]["index"] for e in inits] == [0, 1, 2], "pages 3.. should reuse parked containers"
    assert [e["page"]["index"] for e in lifecycle(p.conn.events, event="configure")] == [3, 4, 5, 6]
    p.assert_balanced()


def test_reuse_queue_is_first_in_first_out(vhost):
    """docs/pages.md reuse mode (MJianshu: reusableViewControllers.removeFirst()): a page leaving current +- 1 goes to
    its
    class's reuse queue, and an entering page of that class takes the one parked longest, re-configured with the
    entering page's data. Pages [X, X, Y, Y, Y, X]: page 0's container parks (rest on 2), then page 1's (rest
    on 3); page 5 (X) takes page 0's, page 4 (Y) then takes page 2's."""
    p = page_peer(vhost)
    for name in ("X", "Y"):
        p("classes.define", {"name": name, "hooks": {"configure": {"output": name}}})
    pages = [{"class": c, "data": {"page": i}} for i, c in enumerate("XXYYYX")]
    s = p("page.create", {"pages": pages, "width": W, "height": 200, "cache": {"mode": "reuse"}})["session"]
    seen = {}
    for i in (1, 2, 3):
        p("page.show", {"session": s, "index": i, "animated": False})
        seen.update(p.kids(s))
    info = p.page(s)
    assert info["reuseQueue"] == {"X": 2} and sorted(p.kids(s)) == [2, 3], info
    p.skip()
    p("page.show", {"session": s, "index": 5, "animated": False})
    assert p.kids(s)[5] == seen[0], (p.kids(s), seen)
    configured = [e["params"] for e in p.events() if e["method"] == "lifecycle" and e["params"]["event"] == "configure"]
    assert [(c["container"], c["page"]["index"]) for c in configured] == [(seen[0], 5)], configured
    assert p.page(s)["reuseQueue"] == {"X": 1, "Y": 2}
    p("page.show", {"session": s, "index": 4, "animated": False})
    assert p.kids(s)[4] == seen[2], (p.kids(s), seen)
    assert_settled(p, s, 4)
    p.assert_balanced()


def test_memory_warning_mid_drag_releases_unrelated_children_and_notifies_live_ones(vhost):
    """docs/pages.md: host.memoryWarning releases every cached child that is neither current nor interaction-related
    (the
    guess and its neighbours) and live ones get didReceiveMemoryWarning; the drag goes on balanced."""
    p = peer(vhost)
    s, _ = sessions(p, initialIndex=0, count=6, cache={"limit": 4})
    S = {"session": s}
    for i in (1, 2, 3):
        p("page.show", {**S, "index": i, "animated": False})
    p("page.willBeginDragging", {**S, "offset": 300})
    p("page.didScroll", {**S, "offset": 330})                  # toward 4: related 3, 4, 5
    kids = {c["index"]: c["container"] for c in p.page(s)["children"]}
    assert sorted(kids) == [1, 2, 3, 4], kids
    p.skip()
    reply = p("host.memoryWarning")
    assert reply["purged"]["pageChildrenReleased"] == 2 and reply["purged"]["pageChildrenNotified"] == 2, reply
    events = p.events()
    for i in (1, 2):
        assert [e["event"] for e in lifecycle(events, kids[i])] == ["willMoveToParent", "didMoveToParent", "deinit"]
    for i in (3, 4):
        assert [e["event"] for e in lifecycle(events, kids[i])] == ["didReceiveMemoryWarning"]
    p("page.didEndDragging", {**S, "offset": 400, "willDecelerate": False})
    assert p.hooks(s) == ["didAppear 4", "didDisappear 3"]
    assert_at_rest(p, s, 4)
    p.assert_balanced()


def test_memory_warning_mid_animation_keeps_origin_and_destination(vhost):
    """docs/pages.md: during a page.show animation the interaction-related pages are the origin and the destination: a
    memory warning releases the other cached children only; the animation then ends balanced."""
    p = peer(vhost)
    s, _ = sessions(p, initialIndex=0, count=6, cache={"limit": 4})
    for i in (1, 2, 3):
        p("page.show", {"session": s, "index": i, "animated": False})
    p("page.show", {"session": s, "index": 1})
    kids = {c["index"]: c["container"] for c in p.page(s)["children"]}
    p.skip()
    reply = p("host.memoryWarning")
    assert reply["purged"]["pageChildrenReleased"] == 2, reply
    events = p.events()
    assert {e["container"] for e in lifecycle(events, event="deinit")} == {kids[0], kids[2]}
    assert {e["container"] for e in lifecycle(events, event="didReceiveMemoryWarning")} == {kids[1], kids[3]}
    p("clock.advance", {"ms": 300})
    assert p.hooks(s) == ["didAppear 1", "didDisappear 3"]
    assert_at_rest(p, s, 1)
    p.assert_balanced()


def test_memory_warning_in_reuse_mode_releases_parked_and_idle_children(vhost):
    """docs/pages.md: host.memoryWarning: every cached child that is neither current nor interaction-related is released
    (page 1 at rest on 2), the reuse queue too (page 0's container, parked: index -1); the live current page gets
    didReceiveMemoryWarning. The reply counts them."""
    p = page_peer(vhost)
    s = page_session(p, count=6, initialIndex=0, cache={"mode": "reuse"}, data=list(range(6)))
    p("page.show", {"session": s, "index": 1, "animated": False})
    first = p.kids(s)
    p("page.show", {"session": s, "index": 2, "animated": False})
    kids = p.kids(s)
    assert p.page(s)["reuseQueue"] == {"Container": 1}
    p.skip()
    purged = p("host.memoryWarning")["purged"]
    assert (purged["pageChildrenReleased"], purged["pageChildrenNotified"]) == (2, 1), purged
    events = [e["params"] for e in p.events() if e["method"] == "lifecycle"]
    for c, index in ((first[0], -1), (kids[1], 1)):
        mine = [e for e in events if e["container"] == c]
        assert [e["event"] for e in mine] == ["willMoveToParent", "didMoveToParent", "deinit"], mine
        assert all(e["page"] == {"session": s, "index": index} for e in mine), mine
    assert [e["event"] for e in events if e["container"] == kids[2]] == ["didReceiveMemoryWarning"]
    info = p.page(s)
    assert info["reuseQueue"] == {} and sorted(p.kids(s)) == [2], info
    assert p.stats()["containers"]["total"] == 1
    assert_settled(p, s, 2)
    p.assert_balanced()


def test_prerendered_children_come_from_the_pool_and_refill_after_the_animation(vhost):
    """docs/pages.md + rpc-schema page.create: with prerender: true children come from their class's pool at the page
    size
    (pool hit/miss with session and index); a hit is configured with the page's data and does not load again;
    the refill is an idle task, paused while the session animates."""
    p = peer(vhost)
    p("classes.define", {"name": "Card"})
    p("pool.warm", {"class": "Card", "width": W, "height": 200})
    p("tasks.drain")
    warm = [e["params"]["container"] for e in p.events() if e["method"] == "pool"][0]
    s, info = sessions(p, **{"class": "Card"}, initialIndex=0, prerender=True, data=["a", "b"])
    events = p.events()
    assert info["children"][0]["container"] == warm
    hit = [e["params"] for e in events if e["method"] == "pool"]
    assert [(h["kind"], h.get("container"), h.get("session"), h.get("index")) for h in hit] == [("hit", warm, s, 0)]
    assert [e["event"] for e in lifecycle(events, warm) if "page" in e] == \
        ["willMoveToParent", "didMoveToParent", "configure", "viewWillAppear", "viewIsAppearing", "viewDidAppear"]
    p("page.show", {"session": s, "index": 1})
    miss = [e["params"] for e in p.events() if e["method"] == "pool"]
    assert [(m["kind"], m.get("session"), m.get("index"), "container" in m) for m in miss] == [("miss", s, 1, False)]
    assert p("tasks.drain") == {"ran": 0, "pending": 1}
    p("clock.advance", {"ms": 300})
    assert p("tasks.drain") == {"ran": 1, "pending": 0}
    p.assert_balanced()


def test_memory_warning_releases_parked_pages_with_containment_hooks(conn: Conn) -> None:
    """docs/pages.md: a released child gets willMoveToParent(nil), didMoveToParent(nil), deinit. A container parked
    in a reuse queue is still the session's (it got willMoveToParent / didMoveToParent with the session id and
    never nil; page.destroy releases parked ones with both nil hooks), but host.memoryWarning releases it with a
    bare `deinit`."""
    conn.call("events.subscribe", {"topics": ["lifecycle"]})
    created = conn.call("page.create", {"class": "Container", "count": 4, "width": 100, "height": 200,
                                        "cache": {"mode": "reuse"}})
    s, first = created["session"], created["children"][0]["container"]
    for i in (1, 2):
        conn.call("page.show", {"session": s, "index": i, "animated": False})
    assert conn.call("page.info", {"session": s})["reuseQueue"] == {"Container": 1}
    mark = len(conn.notifications)
    conn.call("host.memoryWarning", {})
    hooks = [n["params"]["event"] for n in conn.notifications[mark:] if n["params"]["container"] == first]
    assert hooks == ["willMoveToParent", "didMoveToParent", "deinit"], \
        f"the parked container {first} (page 0) was released with {hooks}"
