"""Containers, stacks and prerender pools over the real socket (rpc-schema/openrpc.json
classes/containers/stacks/prerender,
docs/lifecycle.md lifecycle, docs/pools.md pools, docs/tasks.md idle tasks), with a virtual-clock host unless said
otherwise.

Events are written as compact tags, in the order they arrive:

    "c-2:viewDidLoad~"   lifecycle event `viewDidLoad` of c-2, offscreen (~), "!" when the hook failed
    "pool:warmed:c-2"    pool event of kind `warmed` about c-2 ("pool:purged" has no container)

Tests named test_violation_* show host behaviour that looks wrong against docs/: they fail until the
host is fixed.
"""

from __future__ import annotations

import random
import time

import pytest
from grhost import EventCursor, tag

MiB = 1 << 20
APPEARANCE = ("viewWillAppear", "viewDidAppear", "viewWillDisappear", "viewDidDisappear")


# ---------------------------------------------------------------------------------------------------
# helpers


class Session(EventCursor):
    """A connection with a cursor over the events it received: `tags()` returns the events since the last
    call (as tags), `events()` the same as dicts."""

    tag = staticmethod(tag)

    def pump(self, until, timeout: float = 5.0) -> None:
        """Reads notifications (bounded) until until(all events received so far) holds."""
        deadline = time.monotonic() + timeout
        while not until(self.conn.events):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"condition not met within {timeout} s; events: "
                                     f"{[tag(e) for e in self.conn.events[self.mark:]]}")
            try:
                msg = self.conn.read_json(left)
            except TimeoutError:
                continue
            assert isinstance(msg, dict) and "method" in msg and "id" not in msg, f"unexpected message {msg}"
            self.conn.events.append(msg)

    def assert_balanced(self) -> None:
        stats = self.stats()
        assert stats["unbalancedTransitions"] == 0, stats
        assert not [e for e in self.conn.events if e["method"] == "lifecycle"
                    and e["params"]["event"] == "unbalancedAppearanceTransition"]


def session(host, topics=("lifecycle", "pool"), scope=None) -> Session:
    return Session(host.connect()).subscribe(topics, scope)


def find(events: list[dict], container: str, event: str) -> dict:
    hits = [e["params"] for e in events if e["method"] == "lifecycle"
            and e["params"]["container"] == container and e["params"]["event"] == event]
    assert len(hits) == 1, f"{container}:{event} occurs {len(hits)} times"
    return hits[0]


def load_and_appear(c: str, offscreen: bool = False) -> list[str]:
    o = "~" if offscreen else ""
    return [f"{c}:{h}{o}" for h in ("loadView", "viewDidLoad", "viewWillLayoutSubviews", "viewDidLayoutSubviews")]


# ---------------------------------------------------------------------------------------------------
# the prerendering article: showRendered miss, warm-up, hit


def test_seed000_miss_then_drain_then_hit_with_exact_lifecycles(vhost):
    s = session(vhost)
    s("classes.define", {"name": "Web", "hooks": {"viewDidLoad": {"costMs": 2},
                                                  "configure": {"output": {"navigationStart": True}}}})
    stack = s("stack.create", {"width": 375, "height": 667})["stack"]

    # Miss (the prerendering article's first call): a fresh container, loaded on the way in, then configured.
    miss = s("showRendered", {"class": "Web", "stack": stack, "data": {"url": "http://m.you.163.com"}})
    assert "tasks.drain" in miss.pop("note"), miss  # the virtual clock's hint: the warm-up waits for tasks.drain
    assert miss == {"container": "c-1", "class": "Web", "warm": False, "output": {"navigationStart": True}}, miss
    events = s.events()
    assert [tag(e) for e in events] == [
        "c-1:init", "pool:miss:c-1", "c-1:willMoveToParent", *load_and_appear("c-1"),
        "c-1:viewWillAppear", "c-1:viewDidAppear", "c-1:didMoveToParent", "c-1:configure",
    ]
    assert find(events, "c-1", "willMoveToParent")["parent"] == stack
    assert find(events, "c-1", "viewDidLayoutSubviews")["size"] == {"width": 375, "height": 667}
    assert find(events, "c-1", "viewWillAppear")["animated"] is False

    # One warm-up is scheduled for next time, as an idle task in `default` mode, after the reply; with a
    # virtual clock it waits for tasks.drain (nothing arrives by itself).
    status = s("tasks.status")
    assert status["automatic"] is False and status["pending"] == 1, status
    assert status["tasks"][0]["mode"] == "default" and status["tasks"][0]["key"].startswith("warm:"), status
    s.conn.assert_quiet(0.15)

    # The warm-up: create + push into the green room, everything offscreen.
    assert s("tasks.drain") == {"ran": 1, "pending": 0}
    events = s.events()
    assert [tag(e) for e in events] == [
        "c-2:init~", "c-2:willMoveToParent~", *load_and_appear("c-2", offscreen=True),
        "c-2:viewWillAppear~", "c-2:viewDidAppear~", "c-2:didMoveToParent~", "pool:warmed:c-2",
    ]
    green_room = find(events, "c-2", "willMoveToParent")["parent"]
    assert green_room.startswith("g-") and green_room != stack
    assert find(events, "c-2", "viewDidLayoutSubviews")["size"] == {"width": 375, "height": 667}
    assert events[-1]["params"]["idle"] == 1
    assert s.stats()["containers"]["pooled"] == 1

    # Hit: the warm container leaves the green room (offscreen), is pushed without loading, then configured.
    hit = s("showRendered", {"class": "Web", "stack": stack, "data": {"url": "http://m.you.163.com"}})
    assert "tasks.drain" in hit.pop("note"), hit  # the replacement waits for tasks.drain (virtual clock)
    assert hit == {"container": "c-2", "class": "Web", "warm": True, "output": {"navigationStart": True}}, hit
    events = s.events()
    assert [tag(e) for e in events] == [
        "c-2:willMoveToParent~", "c-2:viewWillDisappear~", "c-2:viewDidDisappear~", "c-2:didMoveToParent~",
        "pool:hit:c-2",
        "c-2:willMoveToParent", "c-2:viewWillAppear", "c-1:viewWillDisappear", "c-2:viewDidAppear",
        "c-2:didMoveToParent", "c-1:viewDidDisappear", "c-2:configure",
    ]
    leaving = [e["params"] for e in events[:4]]
    assert leaving[0]["parent"] is None and leaving[3]["parent"] is None

    # The lazy pool warms a replacement after the hit (the prerendering article), as an idle task; the container is now
    # this connection's.
    assert s("tasks.status")["pending"] == 1
    pool = s.pool("Web")
    assert (pool["hits"], pool["misses"], pool["warmed"], pool["idle"], pool["warming"], pool["policy"]) == \
        (1, 1, 1, 0, 1, "lazy"), pool
    info = s("container.info", {"container": "c-2"})
    assert info["state"] == "appeared" and info["parent"] == {"kind": "stack", "id": stack}, info
    assert info["offscreen"] is False
    assert s("stack.info", {"stack": stack})["containers"] == ["c-1", "c-2"]
    assert s.stats()["containers"]["pooled"] == 0
    s.assert_balanced()


def test_pooled_containers_belong_to_the_host_until_handed_over(vhost):
    s = session(vhost)
    s("classes.define", {"name": "Card"})
    s("pool.warm", {"class": "Card"})
    s("tasks.drain")
    [warm] = [e["params"]["container"] for e in s.events() if e["method"] == "pool"]
    err = s.error("container.info", {"container": warm})
    assert err["code"] == -32002 and err["data"]["path"] == "container", err
    # Without a stack the warm container leaves the green room and waits, loaded and in no stack, for the caller.
    hit = s("showRendered", {"class": "Card"})
    assert "tasks.drain" in hit.pop("note"), hit  # the replacement waits for tasks.drain (virtual clock)
    assert hit == {"container": warm, "class": "Card", "warm": True}, hit
    info = s("container.info", {"container": warm})
    assert (info["state"], info["viewLoaded"], info["parent"], info["offscreen"]) == ("disappeared", True, None, False)
    assert s("container.release", {"container": warm}) == {"container": warm, "released": True}
    assert s.tags()[-1] == f"{warm}:deinit"
    s.assert_balanced()


def test_pools_never_mix_classes_or_sizes(vhost):
    s = session(vhost)
    for name in ("A", "B"):
        s("classes.define", {"name": name})
    s("pool.warm", {"class": "A", "width": 375, "height": 667})
    s("tasks.drain")
    small = s("stack.create", {"width": 320, "height": 568})["stack"]
    assert s("showRendered", {"class": "B"})["warm"] is False           # another class: never
    # Another size: the class's warm container, laid out again at the stack's size (docs/pools.md).
    assert s("showRendered", {"class": "A", "stack": small})["warm"] is True
    assert s("showRendered", {"class": "A"})["warm"] is False           # its replacement is still queued
    sizes = sorted((p["class"], p["width"], p["height"]) for p in s("pool.status")["pools"])
    assert sizes == [("A", 375, 667), ("B", 375, 667)], sizes
    s.assert_balanced()


def test_replacement_warming_runs_after_the_reply_on_a_real_clock(start_host):
    host = start_host()  # real clock: idle tasks run by themselves, before the loop waits for I/O
    s = session(host)
    s("classes.define", {"name": "Slow", "hooks": {"viewDidLoad": {"costMs": 30}}})
    assert s("tasks.status")["automatic"] is True
    rid = s.conn.request("showRendered", {"class": "Slow"})
    before = []
    while True:
        msg = s.conn.read_json(5.0)
        if msg.get("id") == rid:
            break
        before.append(msg)
    assert msg["result"]["warm"] is False, msg
    fresh = msg["result"]["container"]
    assert [tag(e) for e in before] == [f"{fresh}:init", f"pool:miss:{fresh}"], \
        "nothing of the replacement warm-up may come before the reply"
    s.conn.events.extend(before)
    s.skip()
    s.pump(lambda evs: any(e["method"] == "pool" and e["params"]["kind"] == "warmed" for e in evs))
    tags = s.tags()
    assert all(t.endswith("~") for t in tags if not t.startswith("pool:")), tags
    assert tags[-1].startswith("pool:warmed:")
    assert s("showRendered", {"class": "Slow"})["warm"] is True
    s.assert_balanced()


# ---------------------------------------------------------------------------------------------------
# eager pools, purges, memory warnings, budget


def test_eager_pool_keeps_depth_warm(vhost):
    s = session(vhost)
    s("classes.define", {"name": "Feed"})
    stack = s("stack.create", {"width": 375, "height": 667})["stack"]
    configured = s("pool.configure", {"class": "Feed", "depth": 3, "policy": "eager"})
    assert (configured["depth"], configured["policy"], configured["warming"], configured["idle"]) == (3, "eager", 3, 0)
    assert s("tasks.drain")["ran"] == 3
    assert s.pool("Feed")["idle"] == 3
    assert s.stats()["containers"]["pooled"] == 3 and s.stats()["pools"]["idle"] == 3
    for i in range(4):
        assert s("showRendered", {"class": "Feed", "stack": stack})["warm"] is True
        status = s("tasks.status")
        assert status["pending"] == 1, f"an eager pool refills after every take: {status}"
        assert s.pool("Feed")["idle"] == 2
        s("tasks.drain")
        assert s.pool("Feed")["idle"] == 3
    pool = s.pool("Feed")
    assert (pool["hits"], pool["misses"], pool["warmed"]) == (4, 0, 7), pool
    s.assert_balanced()


def rss(s: Session) -> int:
    return s.stats()["rssBytes"]


def test_pool_purge_deinits_every_idle_container_and_returns_the_memory(vhost):
    s = session(vhost)
    s("classes.define", {"name": "Heavy", "memoryBytes": MiB})
    s("pool.configure", {"class": "Heavy", "depth": 40, "policy": "eager"})
    s("tasks.drain")
    stats = s.stats()
    assert stats["containers"]["pooled"] == 40 and stats["pools"]["pooledBytes"] == 40 * MiB, stats
    before = stats["rssBytes"]
    warmed = [e["params"]["container"] for e in s.events() if e["method"] == "pool" and e["params"]["kind"] == "warmed"]
    assert len(warmed) == 40

    assert s("pool.purge", {"class": "Heavy"}) == {"purged": 40, "bytes": 40 * MiB}
    tags = s.tags()
    # Everything is offscreen; the green room's top disappears first, then every idle container deinits.
    assert all(t.endswith("~") for t in tags if not t.startswith("pool:")), tags
    assert sorted(t[: -len(":deinit~")] for t in tags if t.endswith(":deinit~")) == sorted(warmed)
    assert [t for t in tags if "Disappear" in t] == [f"{warmed[-1]}:viewWillDisappear~", f"{warmed[-1]}:viewDidDisappear~"]
    assert tags[-1] == "pool:purged"
    stats = s.stats()
    assert stats["containers"]["pooled"] == 0 and stats["containers"]["total"] == 0, stats
    assert stats["pools"]["pooledBytes"] == 0
    assert s.pool("Heavy")["purged"] == 40
    # Really freed: RSS falls by at least half of the pooled bytes.
    assert stats["rssBytes"] <= before - 20 * MiB, (before, stats["rssBytes"])
    s.assert_balanced()


def test_memory_warning_purges_pools_then_cools_down(vhost):
    s = session(vhost, topics=("lifecycle", "pool", "host"))
    s("classes.define", {"name": "Heavy", "memoryBytes": MiB})
    stack = s("stack.create", {"width": 375, "height": 667})["stack"]
    s("pool.configure", {"class": "Heavy", "depth": 40, "policy": "eager"})
    s("tasks.drain")
    shown = s("showRendered", {"class": "Heavy", "stack": stack})["container"]
    s("tasks.drain")  # refilled to 40
    before = rss(s)
    s.skip()

    reply = s("host.memoryWarning", {"level": "critical"})
    assert reply["level"] == "critical"
    assert reply["purged"]["pooledContainers"] == 40 and reply["purged"]["pooledBytes"] == 40 * MiB, reply
    assert reply["purged"]["notifiedContainers"] == 1, reply
    tags = s.tags()
    assert len([t for t in tags if t.endswith(":deinit~")]) == 40
    assert tags[-3:] == ["pool:purged", f"{shown}:didReceiveMemoryWarning", "host:memoryWarning"], tags
    stats = s.stats()
    assert stats["containers"]["pooled"] == 0 and stats["memoryWarnings"] == 1, stats
    assert stats["rssBytes"] <= before - 20 * MiB, (before, stats["rssBytes"])
    assert s("container.info", {"container": shown})["state"] == "appeared"  # on screen: kept

    # Cool-down: no refill for 5 s of host clock.
    pool = s.pool("Heavy")
    assert pool["coolingDown"] is True and pool["idle"] == 0 and pool["warming"] == 0, pool
    assert s("tasks.status")["pending"] == 0
    assert s("tasks.drain")["ran"] == 0
    s("clock.advance", {"ms": 4999})
    assert s("tasks.status")["pending"] == 0
    assert s.pool("Heavy")["coolingDown"] is True
    s("clock.advance", {"ms": 1})
    assert s.pool("Heavy")["coolingDown"] is False
    assert s("tasks.status")["pending"] == 40
    s("tasks.drain")
    assert s.pool("Heavy")["idle"] == 40
    s.assert_balanced()


def test_memory_warning_reaches_every_live_container_loaded_or_not(vhost):
    """UIKit sends didReceiveMemoryWarning to every view controller, whether or not its view was ever loaded:
    a fresh container and one in a hidden stack (which loads nothing) get it too; idle pooled ones are purged
    instead, and a released one gets nothing."""
    s = session(vhost)
    fresh = s("container.create", {"class": "Container"})["container"]
    gone = s("container.create", {"class": "Container"})["container"]
    s("container.release", {"container": gone})
    hidden = s("stack.create", {"width": 375, "height": 667, "hidden": True})["stack"]
    waiting = s("container.create", {"class": "Container"})["container"]
    s("stack.push", {"stack": hidden, "container": waiting})
    assert s("container.info", {"container": waiting})["viewLoaded"] is False
    s.skip()
    reply = s("host.memoryWarning")
    assert reply["purged"]["notifiedContainers"] == 2, reply
    assert s.tags() == [f"{fresh}:didReceiveMemoryWarning", f"{waiting}:didReceiveMemoryWarning"]
    assert s("container.info", {"container": waiting})["viewLoaded"] is False  # the warning loads nothing
    s.assert_balanced()


def test_pool_warm_is_demand_during_the_cool_down(vhost):
    s = session(vhost)
    s("classes.define", {"name": "Card"})
    s("pool.configure", {"class": "Card", "depth": 2, "policy": "eager"})
    s("tasks.drain")
    s("host.memoryWarning")
    assert s.pool("Card")["coolingDown"] is True
    assert s("pool.warm", {"class": "Card", "count": 1})["queued"] == 1
    s("tasks.drain")
    assert s.pool("Card")["idle"] == 1
    # A lazy pool's miss is demand too: it schedules its one warm-up even while cooling down.
    s("classes.define", {"name": "Lazy"})
    s("host.memoryWarning")
    assert s("showRendered", {"class": "Lazy"})["warm"] is False
    assert s("tasks.status")["pending"] == 1
    s.assert_balanced()


def test_pool_budget_evicts_the_least_recently_warmed(vhost):
    s = session(vhost)
    s("classes.define", {"name": "Huge", "memoryBytes": 100 * MiB})
    s("pool.configure", {"class": "Huge", "depth": 3, "policy": "eager"})
    s("tasks.drain")
    events = s.events()
    tags = [tag(e) for e in events]
    warmed = [e["params"]["container"] for e in events if e["method"] == "pool" and e["params"]["kind"] == "warmed"]
    assert len(warmed) == 3
    evicted = [e["params"] for e in events if e["method"] == "pool" and e["params"]["kind"] == "evicted"]
    assert len(evicted) == 1 and evicted[0]["container"] == warmed[0] and evicted[0]["reason"] == "budget", evicted
    assert tags.index(f"{warmed[0]}:deinit~") > tags.index(f"pool:evicted:{warmed[0]}")
    stats = s.stats()
    assert stats["pools"]["pooledBytes"] <= stats["pools"]["budgetBytes"], stats
    pool = s.pool("Huge")
    assert (pool["idle"], pool["evicted"]) == (2, 1), pool
    s("pool.purge")
    s.assert_balanced()


def test_pool_events_go_to_the_cause_and_to_observers(vhost):
    a, b = session(vhost), session(vhost)
    observer = session(vhost, scope="all")
    a("classes.define", {"name": "Card"})
    a("showRendered", {"class": "Card"})      # a's miss schedules the warm-up: a caused it
    b("tasks.drain")                           # whoever drains, the events go to a
    a("host.ping")
    assert "pool:warmed:c-2" in a.tags()
    assert b.tags() == []
    b("pool.purge")                            # b orders the purge: its events go to b
    assert b.tags() == ["c-2:viewWillDisappear~", "c-2:viewDidDisappear~", "c-2:deinit~", "pool:purged"]
    a("host.ping")
    assert a.tags() == []
    observer("host.ping")
    assert observer.tags() == ["c-1:init", "pool:miss:c-1", "c-2:init~", "c-2:willMoveToParent~",
                               *load_and_appear("c-2", True), "c-2:viewWillAppear~", "c-2:viewDidAppear~",
                               "c-2:didMoveToParent~", "pool:warmed:c-2",
                               "c-2:viewWillDisappear~", "c-2:viewDidDisappear~", "c-2:deinit~", "pool:purged"]
    a.assert_balanced()


# ---------------------------------------------------------------------------------------------------
# stacks


def test_pushing_a_container_twice_onto_the_same_stack_is_invalid_state(vhost):
    s = session(vhost)
    stack = s("stack.create", {"width": 375, "height": 667})["stack"]
    c = s("container.create", {"class": "Container"})["container"]
    s("stack.push", {"stack": stack, "container": c})
    s.skip()
    err = s.error("stack.push", {"stack": stack, "container": c})
    assert err["code"] == -32003 and err["data"]["kind"] == "invalidState", err
    assert err["data"]["container"] == c and err["data"]["stack"] == stack, err
    assert s.tags() == []
    assert s("stack.info", {"stack": stack})["containers"] == [c]
    assert s("container.info", {"container": c})["state"] == "appeared"
    s.conn.ping()
    s.assert_balanced()


def test_pushing_a_container_from_another_stack_moves_it(vhost):
    s = session(vhost)
    s1 = s("stack.create", {"width": 375, "height": 667})["stack"]
    s2 = s("stack.create", {"width": 768, "height": 1024})["stack"]
    under = s("container.create", {"class": "Container"})["container"]
    moved = s("container.create", {"class": "Container"})["container"]
    s("stack.push", {"stack": s1, "container": under})
    s("stack.push", {"stack": s1, "container": moved})
    s.skip()
    info = s("stack.push", {"stack": s2, "container": moved})
    assert info["containers"] == [moved] and info["top"] == moved
    events = s.events()
    # It disappears in s1 first (s1's next container appears), then appears in s2 at s2's size.
    assert [tag(e) for e in events] == [
        f"{moved}:willMoveToParent", f"{under}:viewWillAppear", f"{moved}:viewWillDisappear",
        f"{under}:viewDidAppear", f"{moved}:viewDidDisappear", f"{moved}:didMoveToParent",
        f"{moved}:willMoveToParent", f"{moved}:viewWillLayoutSubviews", f"{moved}:viewDidLayoutSubviews",
        f"{moved}:viewWillAppear", f"{moved}:viewDidAppear", f"{moved}:didMoveToParent",
    ]
    assert [e["params"]["parent"] for e in events if "MoveToParent" in e["params"]["event"]] == [None, None, s2, s2]
    assert events[7]["params"]["size"] == {"width": 768, "height": 1024}
    assert s("stack.info", {"stack": s1})["containers"] == [under]
    s.assert_balanced()


def test_a_hidden_stack_loads_nothing_until_shown(vhost):
    s = session(vhost)
    s("classes.define", {"name": "Web"})
    stack = s("stack.create", {"width": 375, "height": 667, "hidden": True})["stack"]
    first = s("container.create", {"class": "Web"})["container"]
    s.skip()
    s("stack.push", {"stack": stack, "container": first})
    assert s.tags() == [f"{first}:willMoveToParent", f"{first}:didMoveToParent"]
    shown = s("showRendered", {"class": "Web", "stack": stack, "data": {"n": 1}})["container"]
    assert s.tags() == [f"{shown}:init", f"pool:miss:{shown}", f"{shown}:willMoveToParent",
                        f"{shown}:didMoveToParent", f"{shown}:configure"]
    for c in (first, shown):
        info = s("container.info", {"container": c})
        assert (info["state"], info["viewLoaded"], info["size"]) == ("fresh", False, None), info

    s("stack.setHidden", {"stack": stack, "hidden": False})
    assert s.tags() == [*load_and_appear(shown), f"{shown}:viewWillAppear", f"{shown}:viewDidAppear"]
    assert s("container.info", {"container": first})["viewLoaded"] is False  # only the top is shown
    s("stack.setHidden", {"stack": stack, "hidden": True})
    assert s.tags() == [f"{shown}:viewWillDisappear", f"{shown}:viewDidDisappear"]
    s("stack.setHidden", {"stack": stack, "hidden": False})
    assert s.tags() == [f"{shown}:viewWillAppear", f"{shown}:viewDidAppear"]  # loaded once
    s.assert_balanced()


def test_resize_lays_the_top_out_again(vhost):
    s = session(vhost)
    stack = s("stack.create", {"width": 375, "height": 667})["stack"]
    c = s("container.create", {"class": "Container"})["container"]
    s("stack.push", {"stack": stack, "container": c})
    s.skip()
    info = s("stack.resize", {"stack": stack, "width": 667, "height": 375})
    assert (info["width"], info["height"]) == (667, 375)
    events = s.events()
    assert [tag(e) for e in events] == [f"{c}:viewWillLayoutSubviews", f"{c}:viewDidLayoutSubviews"]
    assert events[1]["params"]["size"] == {"width": 667, "height": 375}
    s("stack.resize", {"stack": stack, "width": 667, "height": 375})
    assert s.tags() == []  # same size: no layout
    s.assert_balanced()


def test_animated_push_and_pop_finish_after_300ms(vhost):
    s = session(vhost)
    stack = s("stack.create", {"width": 375, "height": 667})["stack"]
    a = s("container.create", {"class": "Container"})["container"]
    b = s("container.create", {"class": "Container"})["container"]
    s("stack.push", {"stack": stack, "container": a})
    s.skip()

    assert s("stack.push", {"stack": stack, "container": b, "animated": True})["animating"] is True
    events = s.events()
    assert [tag(e) for e in events] == [f"{b}:willMoveToParent", *load_and_appear(b), f"{b}:viewWillAppear",
                                        f"{a}:viewWillDisappear"]
    assert all(e["params"]["animated"] is True for e in events if e["params"]["event"] in APPEARANCE)
    assert s("clock.advance", {"ms": 299}) == {"now": 299, "ms": 299, "fired": 0}
    assert s.tags() == []
    assert s("stack.info", {"stack": stack})["animating"] is True
    assert s("clock.advance", {"ms": 1})["fired"] == 1
    events = s.events()
    assert [tag(e) for e in events] == [f"{b}:viewDidAppear", f"{b}:didMoveToParent", f"{a}:viewDidDisappear"]
    assert all(e["params"]["t"] == 300 for e in events)
    assert all(e["params"]["animated"] is True for e in events if e["params"]["event"] in APPEARANCE)
    assert s("stack.info", {"stack": stack})["animating"] is False

    popped = s("stack.pop", {"stack": stack, "animated": True})
    assert popped["container"] == b and popped["stack"]["containers"] == [a] and popped["stack"]["animating"]
    assert s.tags() == [f"{b}:willMoveToParent", f"{a}:viewWillAppear", f"{b}:viewWillDisappear"]
    s("clock.advance", {"ms": 299})
    assert s.tags() == []
    s("clock.advance", {"ms": 1})
    assert s.tags() == [f"{a}:viewDidAppear", f"{b}:viewDidDisappear", f"{b}:didMoveToParent"]
    assert s("container.info", {"container": b})["parent"] is None

    # A transition started while another runs completes the running one first (its end calls are delivered).
    s("stack.push", {"stack": stack, "container": b, "animated": True})
    s.skip()
    c = s("container.create", {"class": "Container"})["container"]
    s("stack.push", {"stack": stack, "container": c, "animated": True})
    assert s.tags()[:4] == [f"{c}:init", f"{b}:viewDidAppear", f"{b}:didMoveToParent", f"{a}:viewDidDisappear"]
    s("clock.advance", {"ms": 300})
    assert s("stack.info", {"stack": stack})["containers"] == [a, b, c]
    s.assert_balanced()


def test_stack_pop_on_an_empty_stack_and_destroy(vhost):
    s = session(vhost)
    stack = s("stack.create", {"width": 375, "height": 667})["stack"]
    err = s.error("stack.pop", {"stack": stack})
    assert err["code"] == -32003 and err["data"]["stack"] == stack, err
    a = s("container.create", {"class": "Container"})["container"]
    b = s("container.create", {"class": "Container"})["container"]
    s("stack.push", {"stack": stack, "container": a})
    s("stack.push", {"stack": stack, "container": b})
    s.skip()
    assert s("stack.destroy", {"stack": stack}) == {"stack": stack, "destroyed": True, "released": [b, a]}
    assert s.tags() == [f"{b}:viewWillDisappear", f"{b}:viewDidDisappear", f"{b}:deinit", f"{a}:deinit"]
    assert s.error("stack.info", {"stack": stack})["code"] == -32002
    assert s.error("container.info", {"container": a})["code"] == -32002
    s.assert_balanced()


# ---------------------------------------------------------------------------------------------------
# failures


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


EARLY_HOOKS = ["init", "willMoveToParent", "loadView", "viewDidLoad", "viewWillLayoutSubviews",
               "viewDidLayoutSubviews", "viewWillAppear"]


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


# ---------------------------------------------------------------------------------------------------
# disconnect


def test_disconnect_tears_every_object_down_with_lifecycle(vhost):
    observer = session(vhost, scope="all")
    owner = session(vhost)
    owner("classes.define", {"name": "Card"})
    stack = owner("stack.create", {"width": 375, "height": 667})["stack"]
    bottom = owner("container.create", {"class": "Card"})["container"]
    owner("stack.push", {"stack": stack, "container": bottom})
    loose = owner("container.create", {"class": "Card"})["container"]  # fresh, in no stack
    popped = owner("container.create", {"class": "Card"})["container"]
    owner("stack.push", {"stack": stack, "container": popped})
    owner("stack.pop", {"stack": stack})                               # loaded, disappeared, parentless
    top = owner("container.create", {"class": "Card"})["container"]
    owner("stack.push", {"stack": stack, "container": top, "animated": True})  # still animating
    owner("pool.warm", {"class": "Card"})
    owner("tasks.drain")                                               # a pooled container: the host's
    observer("host.ping")
    observer.skip()

    owner.conn.close()
    mine = {bottom, loose, popped, top}
    observer.pump(lambda evs: {e["params"]["container"] for e in evs if e["method"] == "lifecycle"
                               and e["params"]["event"] == "deinit"} >= mine)
    observer("host.ping")
    tags = observer.tags()
    by = {c: [t.split(":", 1)[1] for t in tags if t.startswith(c + ":")] for c in mine}
    # The running animation is delivered first, then the top disappears before it deinits.
    assert by[top] == ["viewDidAppear", "didMoveToParent", "viewWillDisappear", "viewDidDisappear", "deinit"], by
    assert by[bottom] == ["viewDidDisappear", "deinit"], by
    assert by[loose] == ["deinit"] and by[popped] == ["deinit"], by
    assert not [t for t in tags if t.split(":")[0] not in mine], tags  # the pool is not affected
    stats = observer.stats()
    assert stats["stacks"] == 0 and stats["containers"]["total"] == 1 and stats["containers"]["pooled"] == 1, stats
    assert observer.pool("Card")["idle"] == 1
    observer.assert_balanced()


# ---------------------------------------------------------------------------------------------------
# bad params: -32602 / -32001 / -32002 with data.path, and the connection keeps working


BAD = [
    ("stack.create", {"width": -1, "height": 667}, -32602, "width"),
    ("stack.create", {"width": 375, "height": 0}, -32602, "height"),
    ("stack.create", {"width": 200000, "height": 667}, -32602, "width"),
    ("stack.create", {"width": "wide", "height": 667}, -32602, "width"),
    ("stack.create", {"width": 375}, -32602, "height"),
    ("stack.create", {"width": 375, "height": 667, "hidden": "no"}, -32602, "hidden"),
    ("stack.resize", {"stack": "$S", "width": -5, "height": 10}, -32602, "width"),
    ("stack.setHidden", {"stack": "$S"}, -32602, "hidden"),
    ("stack.setHidden", {"stack": "$S", "hidden": 0}, -32602, "hidden"),
    ("stack.push", {"stack": "$S"}, -32602, "container"),
    ("stack.push", {"stack": "$S", "container": "$C", "animated": "yes"}, -32602, "animated"),
    ("stack.push", {"stack": "s-999", "container": "$C"}, -32002, "stack"),
    ("stack.info", {"stack": "$S", "verbose": True}, -32602, "verbose"),
    ("stack.info", ["$S", 1], -32602, "params[1]"),
    ("classes.define", {"name": "X1", "hooks": {"viewDidExplode": {}}}, -32602, "hooks.viewDidExplode"),
    ("classes.define", {"name": "X2", "hooks": {"viewDidLoad": {"costMs": -1}}}, -32602, "hooks.viewDidLoad.costMs"),
    ("classes.define", {"name": "X3", "hooks": {"viewDidLoad": {"costMs": "slow"}}}, -32602, "hooks.viewDidLoad.costMs"),
    ("classes.define", {"name": "X4", "hooks": {"viewDidLoad": 5}}, -32602, "hooks.viewDidLoad"),
    ("classes.define", {"name": "X5", "hooks": [1]}, -32602, "hooks"),
    ("classes.define", {"name": "X6", "hooks": {"viewDidLoad": {"fail": "yes"}}}, -32602, "hooks.viewDidLoad.fail"),
    ("classes.define", {"name": "X7", "hooks": {"viewDidLoad": {"sleepMs": 1}}}, -32602, "hooks.viewDidLoad.sleepMs"),
    ("classes.define", {"name": "X8", "memoryBytes": -1}, -32602, "memoryBytes"),
    ("classes.define", {"name": "X9", "memoryBytes": 1.5}, -32602, "memoryBytes"),
    ("classes.define", {"name": ""}, -32602, "name"),
    ("classes.define", {"name": 5}, -32602, "name"),
    ("classes.define", {}, -32602, "name"),
    ("showRendered", {"class": "Nope"}, -32001, "class"),
    ("showRendered", {"class": 5}, -32602, "class"),
    ("showRendered", {"class": "Web", "stack": 5}, -32602, "stack"),
    ("showRendered", {"class": "Web", "animated": 1}, -32602, "animated"),
    ("showRendered", {"class": "Web", "stack": "s-999"}, -32002, "stack"),
    ("container.create", {"class": "Nope"}, -32001, "class"),
    ("container.create", {}, -32602, "class"),
    ("container.info", {"container": "c-999"}, -32002, "container"),
    ("container.info", {"container": 7}, -32602, "container"),
    ("container.configure", {"container": "$C"}, -32602, "data"),
    ("pool.configure", {"class": "Nope"}, -32001, "class"),
    ("pool.configure", {"class": "Web", "depth": -1}, -32602, "depth"),
    ("pool.configure", {"class": "Web", "depth": 100001}, -32602, "depth"),
    ("pool.configure", {"class": "Web", "depth": "3"}, -32602, "depth"),
    ("pool.configure", {"class": "Web", "policy": "always"}, -32602, "policy"),
    ("pool.configure", {"class": "Web", "width": 10}, -32602, "height"),
    ("pool.configure", {"class": "Web", "width": -10, "height": 10}, -32602, "width"),
    ("pool.warm", {"class": "Nope"}, -32001, "class"),
    ("pool.warm", {"class": "Web", "count": 1.5}, -32602, "count"),
    ("pool.status", {"class": "Nope"}, -32001, "class"),
    ("pool.status", {"class": 7}, -32602, "class"),
    ("pool.purge", {"class": "Nope"}, -32001, "class"),
]

KINDS = {-32602: "invalidParams", -32001: "unknownClass", -32002: "unknownObject"}


def test_bad_params_name_the_field_and_the_connection_keeps_working(vhost):
    s = session(vhost)
    s("classes.define", {"name": "Web"})
    stack = s("stack.create", {"width": 375, "height": 667})["stack"]
    c = s("container.create", {"class": "Web"})["container"]
    s("stack.push", {"stack": stack, "container": c})
    before = s("stack.info", {"stack": stack})

    def fill(v):
        if v == "$S":
            return stack
        if v == "$C":
            return c
        if isinstance(v, dict):
            return {k: fill(x) for k, x in v.items()}
        if isinstance(v, list):
            return [fill(x) for x in v]
        return v

    wrong = []
    for method, params, code, path in BAD:
        reply = s.conn.call(method, fill(params))
        err = reply.get("error")
        if not err or err["code"] != code or err["data"].get("kind") != KINDS[code] or err["data"].get("path") != path:
            wrong.append(f"{method} {params}: expected {code} at {path}, got {reply}")
        s.conn.ping()
    assert not wrong, "\n".join(wrong)
    assert s("stack.info", {"stack": stack}) == before
    rejected = {"X1", "X2", "X3", "X4", "X5", "X6", "X7", "X8", "X9", ""}
    assert not rejected & {cl["name"] for cl in s("classes.list")["classes"]}, "a rejected define registered a class"
    s.assert_balanced()


def test_objects_of_another_connection_are_unknown(vhost):
    a, b = session(vhost), session(vhost)
    stack = a("stack.create", {"width": 375, "height": 667})["stack"]
    c = a("container.create", {"class": "Container"})["container"]
    err = b.error("container.release", {"container": c})
    assert err["code"] == -32002 and err["data"]["path"] == "container" and err["data"]["id"] == c, err
    err = b.error("stack.push", {"stack": stack, "container": c})
    assert err["code"] == -32002 and err["data"]["path"] == "stack", err
    assert a("container.info", {"container": c})["state"] == "fresh"


# ---------------------------------------------------------------------------------------------------
# unbalanced transitions never happen in the host's own flows


def test_no_unbalanced_transition_across_a_random_workout(vhost):
    """300 seeded random operations (push, move, pop, animated or not, hide, resize, release, showRendered,
    warm-ups, clock, purges, memory warnings). After each: zero unbalanced transitions, and every stack at
    rest is consistent — shown: the top appeared, the rest disappeared; hidden: nothing appeared."""
    s = session(vhost)
    rng = random.Random(20240607)
    for name in ("A", "B"):
        s("classes.define", {"name": name, "memoryBytes": 4096})
    s("pool.configure", {"class": "A", "depth": 2, "policy": "eager", "width": 375, "height": 667})
    stacks = [s("stack.create", {"width": 375, "height": 667})["stack"],
              s("stack.create", {"width": 320, "height": 568})["stack"]]
    mine: list[str] = []
    for step in range(300):
        op = rng.choice(["push", "push", "pop", "create", "show", "show", "hide", "resize", "release",
                         "advance", "drain", "purge", "warning", "configure"])
        st = rng.choice(stacks)
        animated = rng.random() < 0.5
        if op == "push" and mine:
            reply = s.conn.call("stack.push", {"stack": st, "container": rng.choice(mine), "animated": animated})
            assert "result" in reply or reply["error"]["code"] == -32003, reply
        elif op == "pop":
            reply = s.conn.call("stack.pop", {"stack": st, "animated": animated})
            assert "result" in reply or reply["error"]["code"] == -32003, reply
        elif op == "create":
            mine.append(s("container.create", {"class": rng.choice(["A", "B"])})["container"])
        elif op == "show":
            params = {"class": rng.choice(["A", "B"]), "animated": animated, "data": {"step": step}}
            if rng.random() < 0.8:
                params["stack"] = st
            mine.append(s("showRendered", params)["container"])
        elif op == "hide":
            s("stack.setHidden", {"stack": st, "hidden": rng.random() < 0.4})
        elif op == "resize":
            s("stack.resize", {"stack": st, "width": rng.choice([320, 375, 414]), "height": 667})
        elif op == "release" and mine:
            s("container.release", {"container": mine.pop(rng.randrange(len(mine)))})
        elif op == "advance":
            s("clock.advance", {"ms": rng.choice([100, 300, 5000])})
        elif op == "drain":
            s("tasks.drain")
        elif op == "purge":
            s("pool.purge", {"class": rng.choice(["A", "B"])} if rng.random() < 0.5 else {})
        elif op == "warning":
            s("host.memoryWarning")
        elif op == "configure" and mine:
            s("container.configure", {"container": rng.choice(mine), "data": step})
        assert s.stats()["unbalancedTransitions"] == 0, f"step {step}: {op}"
        for sid in stacks:
            info = s("stack.info", {"stack": sid})
            if info["animating"]:
                continue
            for cid in info["containers"]:
                state = s("container.info", {"container": cid})["appearance"]
                expected = "appeared" if cid == info["top"] and not info["hidden"] else "disappeared"
                assert state == expected, f"step {step} ({op}): {cid} in {info} is {state}"
    s.assert_balanced()


# ---------------------------------------------------------------------------------------------------
# violations: behaviour that looks wrong against docs/ (these fail until the host is fixed)


LATE_HOOKS = ["viewDidAppear", "didMoveToParent", "configure"]


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


def test_pool_configure_shrink_leaves_more_idle_than_depth(vhost):
    """docs/pools.md: an eager pool keeps `depth` warm; pool.configure says shrinking drops the surplus at once.
    Warm-ups
    queued before the shrink still run, so the pool ends with more idle containers than its depth."""
    s = session(vhost)
    s("classes.define", {"name": "Card"})
    s("pool.configure", {"class": "Card", "depth": 3, "policy": "eager"})
    s("pool.configure", {"class": "Card", "depth": 1, "policy": "eager"})
    s("tasks.drain")
    pool = s.pool("Card")
    assert pool["idle"] <= pool["depth"], pool


def test_rejected_pool_warm_creates_a_pool(vhost):
    """A request rejected with -32602 should change nothing; pool.warm creates the pool (it then shows in
    pool.status and host.stats) before it validates `count`."""
    s = session(vhost)
    s("classes.define", {"name": "Card"})
    err = s.error("pool.warm", {"class": "Card", "count": -1})
    assert err["code"] == -32602 and err["data"]["path"] == "count"
    assert s("pool.status")["pools"] == [], "a rejected request created a pool"


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


def test_pools_at_fractional_sizes_collide(vhost):
    """docs/pools.md: one pool per class and size. Pools whose sizes differ only in fractions share their green room's
    id and their warm-up task keys (both built from Int(width) x Int(height)), so the second pool's warm-up
    is dropped as a duplicate and it never warms."""
    s = session(vhost)
    s("classes.define", {"name": "Card"})
    s1 = s("stack.create", {"width": 320.5, "height": 480})["stack"]
    s2 = s("stack.create", {"width": 320.25, "height": 480})["stack"]
    s("showRendered", {"class": "Card", "stack": s1})
    s("showRendered", {"class": "Card", "stack": s2})
    s("tasks.drain")
    idle = {(p["width"], p["height"]): p["idle"] for p in s("pool.status")["pools"]}
    assert idle == {(320.5, 480): 1, (320.25, 480): 1}, idle
