"""showRendered (the prerendering article): a miss, the warm-up run by tasks.drain, then a hit with exact
lifecycles; a hit's event order and reply; hits into a stack of another size or a hidden stack; which pool a
hit prefers; every hit leaves the green room from on screen.

How the expected sequences are worked out, and the tags the tests compare: lifecyclemodel.py.
"""

from __future__ import annotations

from grhost import tag
from lifecyclemodel import APPEARANCE, lifecycle, page_peer, peer, session


def find(events: list[dict], container: str, event: str) -> dict:
    hits = [e["params"] for e in events if e["method"] == "lifecycle"
            and e["params"]["container"] == container and e["params"]["event"] == event]
    assert len(hits) == 1, f"{container}:{event} occurs {len(hits)} times"
    return hits[0]


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
        "c-1:init", "pool:miss:c-1", "c-1:willMoveToParent", "c-1:loadView", "c-1:viewDidLoad",
        "c-1:viewWillAppear", "c-1:viewIsAppearing", "c-1:viewWillLayoutSubviews", "c-1:viewDidLayoutSubviews", "c-1:viewDidAppear",
        "c-1:didMoveToParent", "c-1:configure",
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
        "c-2:init~", "c-2:willMoveToParent~", "c-2:loadView~", "c-2:viewDidLoad~", "c-2:viewWillAppear~", "c-2:viewIsAppearing~",
        "c-2:viewWillLayoutSubviews~", "c-2:viewDidLayoutSubviews~", "c-2:viewDidAppear~", "c-2:didMoveToParent~",
        "pool:warmed:c-2",
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
        "c-2:willMoveToParent", "c-1:viewWillDisappear", "c-2:viewWillAppear", "c-2:viewIsAppearing", "c-1:viewDidDisappear",
        "c-2:viewDidAppear", "c-2:didMoveToParent", "c-2:configure",
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


def test_show_rendered_hit_animated_event_order_and_reply(vhost):
    """docs/pools.md: hit: the warm container leaves the green room (willDisappear/didDisappear offscreen), is pushed to
    `stack` (willAppear/didAppear, didAppear exactly 300 ms later when animated), then `data` is configured;
    reply {container, class, warm: true} (+ output with data). No loadView on a hit."""
    p = peer(vhost)
    p("classes.define", {"name": "Web", "hooks": {"configure": {"output": "ok"}}})
    stack = p("stack.create", {"width": 375, "height": 667})["stack"]
    below = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": stack, "container": below})
    p("pool.warm", {"class": "Web"})
    p("tasks.drain")
    warm = [e["params"]["container"] for e in p.events() if e["method"] == "pool" and e["params"]["kind"] == "warmed"]
    assert len(warm) == 1
    w = warm[0]
    reply = p("showRendered", {"class": "Web", "stack": stack, "animated": True})
    note = reply.pop("note")  # the virtual clock's hint: the replacement's warm-up and the animation's end wait
    assert "tasks.drain" in note and 'clock.advance {"ms": 300}' in note, note
    assert reply == {"container": w, "class": "Web", "warm": True}, reply
    events = p.events()
    assert [tag(e) for e in events] == [f"{w}:willMoveToParent~", f"{w}:viewWillDisappear~", f"{w}:viewDidDisappear~",
                                        f"{w}:didMoveToParent~", f"pool:hit:{w}", f"{w}:willMoveToParent",
                                        f"{below}:viewWillDisappear", f"{w}:viewWillAppear", f"{w}:viewIsAppearing"]
    assert [e["animated"] for e in lifecycle(events) if e["event"] in APPEARANCE] == [False, False, True, True]
    p("clock.advance", {"ms": 299})
    assert p.tags() == []
    p("clock.advance", {"ms": 1})
    assert p.tags() == [f"{below}:viewDidDisappear", f"{w}:viewDidAppear", f"{w}:didMoveToParent"]
    reply = p("showRendered", {"class": "Web", "stack": stack, "data": {"url": "u"}})
    assert reply["warm"] is False and reply["output"] == "ok" and set(reply) == {"container", "class", "warm", "output"}
    assert p.tags()[-1] == f"{reply['container']}:configure"
    p.assert_balanced()


def test_hit_into_a_stack_of_another_size_lays_out_there_without_loading(vhost):
    """docs/pools.md: a hit is pushed to `stack` "with a layout event if the size differs": a warm container of the
    class
    serves a stack of another size (the prerendering article: the prerendered view takes its real size in the stack it
    joins),
    laid out at the stack's size and never loaded again; the pool it came from warms its replacement."""
    p = peer(vhost)
    p("classes.define", {"name": "Card"})
    p("pool.warm", {"class": "Card", "width": 320, "height": 480})
    p("tasks.drain")
    stack = p("stack.create", {"width": 768, "height": 1024})["stack"]
    p.skip()
    reply = p("showRendered", {"class": "Card", "stack": stack})
    assert reply["warm"] is True, reply
    c = reply["container"]
    events = p.events()
    assert [tag(e) for e in events] == [f"{c}:willMoveToParent~", f"{c}:viewWillDisappear~", f"{c}:viewDidDisappear~",
                                        f"{c}:didMoveToParent~", f"pool:hit:{c}", f"{c}:willMoveToParent",
                                        f"{c}:viewWillAppear", f"{c}:viewIsAppearing", f"{c}:viewWillLayoutSubviews",
                                        f"{c}:viewDidLayoutSubviews", f"{c}:viewDidAppear", f"{c}:didMoveToParent"]
    assert lifecycle(events, c, "viewDidLayoutSubviews")[0]["size"] == {"width": 768, "height": 1024}
    hit = [e["params"] for e in events if e["method"] == "pool"][0]
    assert (hit["width"], hit["height"]) == (320, 480), hit
    pools = {(q["width"], q["height"]): q for q in p("pool.status", {"class": "Card"})["pools"]}
    assert set(pools) == {(320, 480)} and pools[(320, 480)]["hits"] == 1 and pools[(320, 480)]["warming"] == 1, pools
    p.assert_balanced()


def test_hit_prefers_the_pool_at_the_stacks_size_and_any_warm_one_to_a_miss(vhost):
    """docs/pools.md: with warm containers at the stack's size and at another, the stack's size serves; with none
    anywhere
    it is a miss at the stack's size; without `stack`, a pool holding a warm container serves before an empty
    one."""
    p = peer(vhost)
    p("classes.define", {"name": "Tile"})
    p("pool.warm", {"class": "Tile", "width": 320, "height": 480})
    p("pool.warm", {"class": "Tile", "width": 400, "height": 400})
    p("tasks.drain")
    stack = p("stack.create", {"width": 400, "height": 400})["stack"]
    p.skip()
    assert p("showRendered", {"class": "Tile", "stack": stack})["warm"] is True
    hits = [e["params"] for e in p.events() if e["method"] == "pool" and e["params"]["kind"] == "hit"]
    assert [(h["width"], h["height"]) for h in hits] == [(400, 400)], hits
    # Both pools emptied (their replacements still queued): a miss, counted at the stack's size.
    assert p("showRendered", {"class": "Tile"})["warm"] is True  # the first pool (320x480) still had one
    miss = p("showRendered", {"class": "Tile", "stack": stack})
    assert miss["warm"] is False, miss
    pools = {(q["width"], q["height"]): q for q in p("pool.status", {"class": "Tile"})["pools"]}
    assert (pools[(400, 400)]["hits"], pools[(400, 400)]["misses"]) == (1, 1), pools
    assert (pools[(320, 480)]["hits"], pools[(320, 480)]["misses"]) == (1, 0), pools
    # Without `stack`: a pool that holds a warm container serves before the class's first pool, empty.
    p("classes.define", {"name": "Chip"})
    p("pool.configure", {"class": "Chip", "width": 320, "height": 480})
    p("pool.warm", {"class": "Chip", "width": 400, "height": 400})
    p("tasks.drain")
    p.skip()
    assert p("showRendered", {"class": "Chip"})["warm"] is True
    hits = [e["params"] for e in p.events() if e["method"] == "pool" and e["params"]["kind"] == "hit"]
    assert [(h["width"], h["height"]) for h in hits] == [(400, 400)], hits
    p.assert_balanced()


def test_hit_without_stack_is_loaded_and_lays_out_when_pushed_at_another_size(vhost):
    """docs/pools.md: a hit without `stack` hands over a loaded container; pushed later to a stack of another size it
    lays out there (layout event because the size differs) without loading again."""
    p = peer(vhost)
    p("classes.define", {"name": "Card"})
    p("pool.warm", {"class": "Card", "width": 320, "height": 480})
    p("tasks.drain")
    c = p("showRendered", {"class": "Card"})["container"]
    stack = p("stack.create", {"width": 768, "height": 1024})["stack"]
    p.skip()
    p("stack.push", {"stack": stack, "container": c})
    events = p.events()
    assert [tag(e) for e in events] == [f"{c}:willMoveToParent", f"{c}:viewWillAppear", f"{c}:viewIsAppearing", f"{c}:viewWillLayoutSubviews",
                                        f"{c}:viewDidLayoutSubviews", f"{c}:viewDidAppear", f"{c}:didMoveToParent"]
    assert lifecycle(events, c, "viewDidLayoutSubviews")[0]["size"] == {"width": 768, "height": 1024}
    p.assert_balanced()


def test_show_rendered_hit_onto_a_hidden_stack_shows_nothing_until_unhidden(vhost):
    """docs/pools.md + docs/lifecycle.md: a hit leaves the green room (offscreen) and is pushed onto `stack`; a hidden
    stack loads and shows
    nothing, so only the containment hooks run there (even when animated: no animation). Unhidden, it appears
    without loading again (already loaded, same size: no layout); resized, it lays out with the new size."""
    p = page_peer(vhost)
    p("classes.define", {"name": "Card"})
    p("pool.warm", {"class": "Card", "width": 320, "height": 480})
    p("tasks.drain")
    stack = p("stack.create", {"width": 320, "height": 480, "hidden": True})["stack"]
    p.skip()
    reply = p("showRendered", {"class": "Card", "stack": stack, "animated": True})
    c = reply["container"]
    assert reply["warm"] is True
    assert p.tags() == [f"{c}:willMoveToParent~", f"{c}:viewWillDisappear~", f"{c}:viewDidDisappear~",
                        f"{c}:didMoveToParent~", f"pool:hit:{c}", f"{c}:willMoveToParent", f"{c}:didMoveToParent"]
    assert p("stack.info", {"stack": stack})["animating"] is False
    p("stack.setHidden", {"stack": stack, "hidden": False})
    assert p.tags() == [f"{c}:viewWillAppear", f"{c}:viewIsAppearing", f"{c}:viewDidAppear"]
    p("stack.resize", {"stack": stack, "width": 300, "height": 480})
    events = p.events()
    assert [tag(e) for e in events] == [f"{c}:viewWillLayoutSubviews", f"{c}:viewDidLayoutSubviews"]
    assert all(e["params"]["size"] == {"width": 300, "height": 480} for e in events)
    p.assert_balanced()


def test_every_hit_leaves_the_green_room_from_on_screen(vhost):
    """docs/pools.md: "showRendered hit: the warm container leaves the green room (willDisappear/didDisappear,
    offscreen)"; the
    green room is a shown window with a stack (docs/lifecycle.md: the one below appears when the top leaves). With two
    idle
    containers, the second warm-up covers the first; the first hit takes the top and uncovers the first, which
    appears again offscreen, so the second hit leaves with the same documented sequence as the first."""
    p = peer(vhost)
    p("classes.define", {"name": "Card"})
    p("pool.warm", {"class": "Card", "count": 2})
    p("tasks.drain")
    taken = []
    for _ in range(2):
        p.skip()
        c = p("showRendered", {"class": "Card"})["container"]
        taken.append(c)
        tags = p.tags()
        assert [t for t in tags if t.startswith(f"{c}:") or t.startswith("pool:")] == [
            f"{c}:willMoveToParent~", f"{c}:viewWillDisappear~", f"{c}:viewDidDisappear~",
            f"{c}:didMoveToParent~", f"pool:hit:{c}"], tags
        others = [t for t in tags if not (t.startswith(f"{c}:") or t.startswith("pool:"))]
        if len(taken) == 1:
            below = others[0].split(":")[0]
            assert others == [f"{below}:viewWillAppear~", f"{below}:viewIsAppearing~", f"{below}:viewDidAppear~"], tags
        else:
            assert others == [] and c == below, tags
    assert p("host.stats")["unbalancedTransitions"] == 0
