"""Prerender pools (docs/pools.md): pooled containers belong to the host until handed over, pools never mix
classes or sizes, lazy misses schedule one warm-up, eager pools keep their depth, pool.status / pool.purge /
pool.configure / pool.warm, memory warnings purge and start a cool-down, the budget evicts the least recently
warmed, and pool events go to their cause and to observers.

How the expected sequences are worked out, and the tags the tests compare: lifecyclemodel.py.
"""

from __future__ import annotations

import jsonschema
from grhost import tag
from lifecyclemodel import (DOC_URI, REGISTRY, Session, W, assert_settled, drag, page_peer,
                            page_session, peer, release, session)


MiB = 1 << 20


def rss(s: Session) -> int:
    return s.stats()["rssBytes"]


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


def test_lazy_miss_schedules_exactly_one_warm_up_run_by_drain_after_the_reply(vhost):
    """docs/pools.md/docs/tasks.md: a lazy miss replies with a fresh container (warm: false) and schedules one warm-up,
    an idle task in
    `default` mode; with a virtual clock it runs only on tasks.drain, never before the reply; next time: a hit."""
    p = peer(vhost)
    p("classes.define", {"name": "Web"})
    miss = p("showRendered", {"class": "Web"})
    assert "tasks.drain" in miss.pop("note"), miss  # the virtual clock's hint
    assert miss == {"container": miss["container"], "class": "Web", "warm": False}
    assert p.tags() == [f"{miss['container']}:init", f"pool:miss:{miss['container']}"]
    status = p("tasks.status")
    assert (status["pending"], status["runnable"], status["automatic"]) == (1, 1, False), status
    assert status["tasks"][0]["mode"] == "default"
    p("clock.advance", {"ms": 10_000})
    p.conn.assert_quiet(0.1)
    assert p("tasks.status")["pending"] == 1
    assert p("tasks.drain") == {"ran": 1, "pending": 0}
    tags = p.tags()
    assert tags[-1].startswith("pool:warmed:") and all(t.endswith("~") for t in tags[:-1]), tags
    warm = tags[-1].split(":")[2]
    hit = p("showRendered", {"class": "Web"})
    assert "tasks.drain" in hit.pop("note"), hit  # the virtual clock's hint: the replacement waits for a drain
    assert hit == {"container": warm, "class": "Web", "warm": True}
    # The prerendering article ("use the cache this time, reserve the next"): a lazy hit schedules one replacement,
    # after the reply.
    assert p("tasks.status")["pending"] == 1
    pool = p.pool("Web")
    assert (pool["hits"], pool["misses"], pool["idle"], pool["warming"]) == (1, 1, 0, 1), pool
    assert p("tasks.drain") == {"ran": 1, "pending": 0}
    again = p("showRendered", {"class": "Web"})
    assert again["warm"] is True and again["container"] not in (warm, miss["container"]), again
    p.assert_balanced()


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


def test_depth0_lazy_pool_misses_agree_between_show_rendered_and_pages(vhost):
    """docs/pools.md/docs/pages.md: a lazy pool's miss schedules one warm-up for next time, whoever misses (showRendered
    or a
    `prerender: true` page child). The contract is silent on depth 0, but the two paths agree: on a lazy pool
    of depth 0 a showRendered miss and a page child's miss on the very same pool queue the same number of
    warm-ups (so the pool never ends with more idle containers than its depth, which pool.configure never
    allows)."""
    p = peer(vhost)
    p("classes.define", {"name": "Card"})
    p("pool.configure", {"class": "Card", "depth": 0, "width": W, "height": 200})
    stack = p("stack.create", {"width": W, "height": 200})["stack"]
    assert p("showRendered", {"class": "Card", "stack": stack})["warm"] is False
    after_show = p("tasks.status")["pending"]
    p("page.create", {"class": "Card", "count": 2, "width": W, "height": 200, "prerender": True})
    after_page = p("tasks.status")["pending"] - after_show
    assert after_show == after_page, f"showRendered miss queued {after_show} warm-up(s), a page miss {after_page}"


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


def test_eager_pool_does_not_over_queue_and_keeps_depth(vhost):
    """docs/pools.md: eager keeps `depth` warm: a miss while the warm-ups are still queued queues nothing more."""
    p = peer(vhost)
    p("classes.define", {"name": "Feed"})
    p("pool.configure", {"class": "Feed", "depth": 2, "policy": "eager"})
    assert p("tasks.status")["pending"] == 2
    assert p("showRendered", {"class": "Feed"})["warm"] is False
    assert p("tasks.status")["pending"] == 2
    p("tasks.drain")
    pool = p.pool("Feed")
    assert (pool["idle"], pool["warming"], pool["misses"]) == (2, 0, 1), pool
    assert p("showRendered", {"class": "Feed"})["warm"] is True
    assert p("tasks.status")["pending"] == 1
    p("tasks.drain")
    assert p.pool("Feed")["idle"] == 2
    p.assert_balanced()


def test_pool_status_shape_and_counts_per_class_and_size(vhost):
    """rpc-schema/openrpc.json/docs/pools.md: pool.status {class?} -> {pools: [{class, depth, idle, warming, hits,
    misses, ...}]}, one pool per
    class and size, in creation order, counting its own hits and misses."""
    p = peer(vhost)
    for n in ("A", "B"):
        p("classes.define", {"name": n})
    small = p("stack.create", {"width": 320, "height": 480})["stack"]
    p("showRendered", {"class": "A"})                       # A@375x667 miss
    p("showRendered", {"class": "A", "stack": small})       # A@320x480 miss
    p("tasks.drain")
    p("showRendered", {"class": "A", "stack": small})       # A@320x480 hit
    p("showRendered", {"class": "B"})                       # B miss
    pools = p("pool.status")["pools"]
    got = [(q["class"], q["width"], q["height"], q["hits"], q["misses"], q["idle"]) for q in pools]
    assert got == [("A", 375, 667, 0, 1, 1), ("A", 320, 480, 1, 1, 0), ("B", 375, 667, 0, 1, 0)], got
    required = {"class", "depth", "idle", "warming", "hits", "misses"}
    assert all(required <= set(q) for q in pools), pools
    status = jsonschema.Draft7Validator({"$ref": DOC_URI + "#/components/schemas/PoolStatus"}, registry=REGISTRY)
    for q in pools:
        status.validate(q)
    assert [q["class"] for q in p("pool.status", {"class": "B"})["pools"]] == ["B"]
    err = p.error("pool.status", {"class": "Nope"})
    assert err["code"] == -32001 and err["data"]["kind"] == "unknownClass"
    p.assert_balanced()


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


def test_pool_purge_of_one_class_releases_only_its_idle_containers(vhost):
    """docs/pools.md: pool.purge {class} releases every idle container of that class's pools (the green room's top
    disappears, all deinit, offscreen); other classes are untouched; no cool-down follows."""
    p = peer(vhost)
    for n in ("A", "B"):
        p("classes.define", {"name": n, "memoryBytes": 4096})
    p("pool.warm", {"class": "A", "count": 2})
    p("pool.warm", {"class": "A", "count": 1, "width": 320, "height": 480})
    p("pool.warm", {"class": "B", "count": 1})
    p("tasks.drain")
    warmed = {e["params"]["container"]: e["params"]["class"] for e in p.events()
              if e["method"] == "pool" and e["params"]["kind"] == "warmed"}
    assert p("pool.purge", {"class": "A"}) == {"purged": 3, "bytes": 3 * 4096}
    tags = p.tags()
    gone = sorted(t.split(":")[0] for t in tags if t.endswith(":deinit~"))
    assert gone == sorted(c for c, k in warmed.items() if k == "A"), tags
    assert all(t.endswith("~") for t in tags if not t.startswith("pool:")), tags
    assert tags.count("pool:purged") == 2 and tags[-1] == "pool:purged", tags
    assert [q["idle"] for q in p("pool.status", {"class": "A"})["pools"]] == [0, 0]
    assert p.pool("B")["idle"] == 1
    assert not any(q["coolingDown"] for q in p("pool.status")["pools"])
    assert p.stats()["containers"]["pooled"] == 1
    p.assert_balanced()


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


def test_memory_warning_purge_events_go_to_the_caller_and_eager_take_does_not_refill_while_cooling(vhost):
    """docs/pools.md: a critical host.memoryWarning releases every idle pooled container; its events go to the connection that
    ordered it (and observers), not the one that warmed them. After it, an eager pool refills only after the
    5 s cool-down (rpc-schema PoolPolicy: refilling after every take except during the cool-down)."""
    a, b = peer(vhost), peer(vhost)
    observer = peer(vhost, scope="all")
    a("classes.define", {"name": "Feed"})
    a("pool.configure", {"class": "Feed", "depth": 2, "policy": "eager"})
    a("tasks.drain")
    a.skip()
    b("host.memoryWarning", {"level": "critical"})
    tags = b.tags()
    assert sorted(t for t in tags if t.endswith("deinit~")) == ["c-1:deinit~", "c-2:deinit~"], tags
    assert tags[-1] == "pool:purged"
    a("host.ping")
    assert a.tags() == []
    observer("host.ping")
    assert [t for t in observer.tags() if t.endswith("deinit~")] == [t for t in tags if t.endswith("deinit~")]
    assert a("showRendered", {"class": "Feed"})["warm"] is False
    assert a("tasks.status")["pending"] == 0
    a("clock.advance", {"ms": 4999})
    assert a("tasks.status")["pending"] == 0
    a("clock.advance", {"ms": 1})
    assert a("tasks.status")["pending"] == 2
    a.assert_balanced()


def test_pool_warm_is_demand_during_the_cool_down(vhost):
    s = session(vhost)
    s("classes.define", {"name": "Card"})
    s("pool.configure", {"class": "Card", "depth": 2, "policy": "eager"})
    s("tasks.drain")
    s("host.memoryWarning", {"level": "critical"})
    assert s.pool("Card")["coolingDown"] is True
    assert s("pool.warm", {"class": "Card", "count": 1})["queued"] == 1
    s("tasks.drain")
    assert s.pool("Card")["idle"] == 1
    # A lazy pool's miss is demand too: it schedules its one warm-up even while cooling down.
    s("classes.define", {"name": "Lazy"})
    s("host.memoryWarning", {"level": "critical"})
    assert s("showRendered", {"class": "Lazy"})["warm"] is False
    assert s("tasks.status")["pending"] == 1
    s.assert_balanced()


def test_a_pool_made_eager_during_the_cool_down_refills_when_it_ends(vhost):
    """docs/pools.md: after a critical memory warning pools refill only on demand or after the cool-down (5 s of host clock). A
    pool
    configured eager (depth 2) during the cool-down queues nothing then, and refills to its depth when the
    cool-down ends; the warm-ups' events go to the connection that ordered the purge."""
    p = page_peer(vhost)
    p("classes.define", {"name": "Card"})
    assert p("showRendered", {"class": "Card"})["warm"] is False
    p("tasks.drain")
    p("host.memoryWarning", {"level": "critical"})
    status = p("pool.configure", {"class": "Card", "depth": 2, "policy": "eager"})
    assert (status["idle"], status["warming"], status["coolingDown"]) == (0, 0, True), status
    assert p("tasks.status")["pending"] == 0
    p("clock.advance", {"ms": 4999})
    assert p("tasks.status")["pending"] == 0
    p.skip()
    p("clock.advance", {"ms": 1})
    assert p("tasks.status")["pending"] == 2
    assert p("tasks.drain")["ran"] == 2
    pool = p.pool("Card")
    assert (pool["idle"], pool["coolingDown"]) == (2, False), pool
    tags = p.tags()
    made = [t.split(":")[0] for t in tags if t.endswith(":init~")]
    assert len(made) == 2 and [t for t in tags if t.startswith("pool:")] == [f"pool:warmed:{c}" for c in made], tags
    assert len([t for t in tags if t.endswith(":viewDidAppear~")]) == 2, tags
    p.assert_balanced()


def test_a_page_hit_does_not_refill_a_lazy_pool_during_the_cool_down(vhost):
    """docs/pools.md: during the cool-down pools refill only on demand. A prerendered page session's first page is a hit
    (pool event with session and index); the warm-up a hit schedules for the next page is a refill, so it waits;
    the next page's miss is demand and queues one warm-up."""
    p = page_peer(vhost)
    p("classes.define", {"name": "Card"})
    p("pool.warm", {"class": "Card", "width": W, "height": 200})
    p("tasks.drain")
    p("host.memoryWarning", {"level": "critical"})
    p("pool.warm", {"class": "Card", "width": W, "height": 200})  # explicit demand: works while cooling
    p("tasks.drain")
    p.skip()
    s = page_session(p, **{"class": "Card"}, initialIndex=0, prerender=True)
    hits = [e["params"] for e in p.events() if e["method"] == "pool"]
    assert [(h["kind"], h["session"], h["index"]) for h in hits] == [("hit", s, 0)], hits
    assert p.pool("Card")["coolingDown"] is True
    assert p("tasks.status")["pending"] == 0
    drag(p, s, [0, 30])
    misses = [e["params"] for e in p.events() if e["method"] == "pool"]
    assert [(m["kind"], m["index"]) for m in misses] == [("miss", 1)], misses
    assert p("tasks.status")["pending"] == 1
    release(p, s, 100)
    assert_settled(p, s, 1)
    p.assert_balanced()


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
                               "c-2:loadView~", "c-2:viewDidLoad~", "c-2:viewWillAppear~", "c-2:viewIsAppearing~",
                               "c-2:viewWillLayoutSubviews~", "c-2:viewDidLayoutSubviews~", "c-2:viewDidAppear~",
                               "c-2:didMoveToParent~", "pool:warmed:c-2",
                               "c-2:viewWillDisappear~", "c-2:viewDidDisappear~", "c-2:deinit~", "pool:purged"]
    a.assert_balanced()


def test_warm_up_events_go_to_the_cause_and_a_hit_belongs_to_the_taker(vhost):
    """docs/pools.md: events about pooled containers go to the connection that caused them; once handed over, the
    container
    (and its leaving events) belong to the connection that asked for it; observers see everything."""
    a, b = peer(vhost), peer(vhost)
    observer = peer(vhost, scope="all")
    a("classes.define", {"name": "Card"})
    a("pool.warm", {"class": "Card"})
    b("tasks.drain")                     # b runs it, a caused it
    a("host.ping")
    assert a.tags()[-1] == "pool:warmed:c-1"
    assert b.tags() == []
    hit = b("showRendered", {"class": "Card"})
    assert hit["container"] == "c-1" and hit["warm"] is True
    assert b.tags() == ["c-1:willMoveToParent~", "c-1:viewWillDisappear~", "c-1:viewDidDisappear~",
                        "c-1:didMoveToParent~", "pool:hit:c-1"]
    a("host.ping")
    assert a.tags() == []
    assert a.error("container.info", {"container": "c-1"})["code"] == -32002
    assert b.info("c-1")["parent"] is None
    observer("host.ping")
    assert "pool:hit:c-1" in observer.tags()
    b.assert_balanced()
