"""Contract audit, second pass: rules of rpc-schema/openrpc.json and docs/ (lifecycle, pools, tasks, pages) that
the other suites leave open, over the real socket.

Every expected sequence below is worked out by hand from docs/ and the articles it names (GYPageViewController's
lifecycle tables and cache rules, MJianshu's reuse queue, the prerendering article's pools), not from what the
host prints. Each test starts its own `greenroom serve --clock virtual` (time moves only by `clock.advance`, idle
tasks run only on `tasks.drain`), so every run is identical; every read is bounded.

Tags, in the order events arrive:

    "willAppear 2"            an appearance hook of a page session's child on page 2 (the article's notation)
    "c-3:deinit~"             lifecycle event of c-3, offscreen (~)
    "pool:warmed:c-4"         pool event

Every test also feeds each lifecycle event through docs/lifecycle.md's four-state table and requires zero
`unbalancedAppearanceTransition` (docs/lifecycle.md: every flow the host drives itself must produce none).
"""

from __future__ import annotations

import random
import time

import pytest
from grhost import EventCursor, LineConn, tag

W = 100.0  # page width: page i sits at offset i * W
APPEARANCE = ("viewWillAppear", "viewDidAppear", "viewWillDisappear", "viewDidDisappear")
SHORT = {"viewWillAppear": "willAppear", "viewDidAppear": "didAppear",
         "viewWillDisappear": "willDisappear", "viewDidDisappear": "didDisappear"}
# docs/lifecycle.md: hook -> (states it may run from, state after). Anything else is unbalanced.
TABLE = {
    "viewWillAppear": ({"disappeared", "disappearing"}, "appearing"),
    "viewWillDisappear": ({"appearing", "appeared"}, "disappearing"),
    "viewDidAppear": ({"appearing"}, "appeared"),
    "viewDidDisappear": ({"disappearing"}, "disappeared"),
}


class Peer(EventCursor):
    """A connection with a cursor over its events, checking every appearance hook against docs/lifecycle.md's table."""

    tag = staticmethod(tag)

    def __init__(self, conn: LineConn):
        super().__init__(conn)
        self.fed = 0
        self.state: dict[str, str] = {}
        self.errors: list[str] = []

    def received(self) -> None:
        for e in self.conn.events[self.fed:]:
            p = e["params"]
            if e["method"] != "lifecycle":
                continue
            c, hook = p["container"], p["event"]
            if hook == "init":
                self.state[c] = "disappeared"
            elif hook in TABLE:
                before = self.state.get(c)
                if before is not None and before not in TABLE[hook][0]:
                    self.errors.append(f"{c}:{hook} from {before}")
                self.state[c] = TABLE[hook][1]
            elif hook == "unbalancedAppearanceTransition":
                self.errors.append(f"unbalanced: {p}")
            elif hook == "deinit":
                self.state.pop(c, None)
        self.fed = len(self.conn.events)

    def hooks(self, session: str) -> list[str]:
        """Appearance hooks of `session`'s children since the last look, the GYPageViewController article's way."""
        return hooks_of(self.events(), session)

    def page(self, s: str) -> dict:
        return self("page.info", {"session": s})

    def kids(self, s: str) -> dict[int, str]:
        return {c["index"]: c["container"] for c in self.page(s)["children"]}

    def pump(self, timeout: float = 0.3) -> None:
        """Reads the notifications that arrive within `timeout` (bounded)."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                msg = self.conn.read_json(left)
            except TimeoutError:
                break
            assert "method" in msg and "id" not in msg, msg
            self.conn.events.append(msg)
        self.received()

    def assert_balanced(self) -> None:
        self.received()
        assert not self.errors, self.errors
        assert self.stats()["unbalancedTransitions"] == 0


def hooks_of(events: list[dict], session: str) -> list[str]:
    return [f"{SHORT[e['params']['event']]} {e['params']['page']['index']}" for e in events
            if e["method"] == "lifecycle" and e["params"]["event"] in SHORT
            and e["params"].get("page", {}).get("session") == session and "index" in e["params"]["page"]]


def peer(host, topics=("lifecycle", "pool", "page"), scope=None) -> Peer:
    return Peer(host.connect()).subscribe(topics, scope)


def session(p: Peer, **params) -> str:
    base = {"class": "Container", "count": 5, "width": W, "height": 200, "initialIndex": 1}
    base.update(params)
    return p("page.create", base)["session"]


def drag(p: Peer, s: str, offsets: list[float]) -> None:
    p("page.willBeginDragging", {"session": s, "offset": offsets[0]})
    for x in offsets[1:]:
        p("page.didScroll", {"session": s, "offset": x})


def release(p: Peer, s: str, rest: float, decelerate: bool = True) -> None:
    if decelerate:
        p("page.willEndDragging", {"session": s, "offset": rest, "velocity": 0.5})
        p("page.didEndDragging", {"session": s, "offset": rest, "willDecelerate": True})
        p("page.didEndDecelerating", {"session": s, "offset": rest})
    else:
        p("page.didEndDragging", {"session": s, "offset": rest, "willDecelerate": False})


def assert_at_rest(p: Peer, s: str, index: int) -> dict:
    """docs/pages.md at rest: exactly the current page is appeared, every other attached child disappeared."""
    info = p.page(s)
    assert (info["phase"], info["index"], info["guess"]) == ("idle", index, None), info
    states = {c["index"]: c["state"] for c in info["children"]}
    assert states.get(index) == "appeared", info
    assert all(st == "disappeared" for i, st in states.items() if i != index), info
    return info


# ---------------------------------------------------------------------------------------------------
# docs/pages.md / the GYPageViewController article: the tables in the other direction and at the first and last pages


TABLES = {
    # name: (initial page, drag offsets, rest offset, hooks, (from, to, completed) of didTransition)
    "1->2": (1, [100, 120, 170], 200, ["willAppear 2", "willDisappear 1", "didAppear 2", "didDisappear 1"], (1, 2, True)),
    "1 toward 0, then on to 2": (1, [100, 80, 40, 110, 160], 200,
                                 ["willAppear 0", "willDisappear 1", "willAppear 2", "willDisappear 0",
                                  "didDisappear 0", "didAppear 2", "didDisappear 1"], (1, 2, True)),
    "1->0->2->0": (1, [100, 80, 120, 70, 30], 0,
                   ["willAppear 0", "willDisappear 1", "willAppear 2", "willDisappear 0", "didDisappear 0",
                    "willAppear 0", "willDisappear 2", "didDisappear 2", "didAppear 0", "didDisappear 1"], (1, 0, True)),
    "first page 0->1": (0, [0, 20, 70], 100, ["willAppear 1", "willDisappear 0", "didAppear 1", "didDisappear 0"],
                        (0, 1, True)),
    "last page 4->3": (4, [400, 380, 330], 300, ["willAppear 3", "willDisappear 4", "didAppear 3", "didDisappear 4"],
                       (4, 3, True)),
    "last page toward 3, cancelled": (4, [400, 370, 390], 400,
                                      ["willAppear 3", "willDisappear 4", "willAppear 4", "didAppear 4",
                                       "willDisappear 3", "didDisappear 3"], (4, 3, False)),
    "bounce before page 0, then on to 1": (0, [0, -20, 20, 60], 100,
                                           ["willAppear 1", "willDisappear 0", "didAppear 1", "didDisappear 0"],
                                           (0, 1, True)),
}


@pytest.mark.parametrize("decelerate", [True, False], ids=["decelerating", "no-deceleration"])
@pytest.mark.parametrize("case", list(TABLES))
def test_seed001_tables_mirrored_and_at_the_ends(vhost, case, decelerate):
    """docs/pages.md's interactive rules, mirrored (toward lower pages first) and at the first / last page: willAppear
    of each
    new guess, the current page's willDisappear once, a previous guess disappearing entirely, and at rest the new
    page's didAppear then the old page's didDisappear (cancelled: the old page comes back, the guess goes)."""
    init, offsets, rest, table, did = TABLES[case]
    p = peer(vhost)
    s = session(p, initialIndex=init)
    p.skip()
    drag(p, s, offsets)
    release(p, s, rest, decelerate)
    events = p.events()
    assert hooks_of(events, s) == table
    dids = [(e["params"]["from"], e["params"]["to"], e["params"]["completed"]) for e in events
            if e["method"] == "page" and e["params"]["kind"] == "didTransition"]
    assert dids == [did], dids
    assert_at_rest(p, s, round(rest / W))
    p.assert_balanced()


def test_page_events_of_a_mirrored_interaction(vhost):
    """docs/pages.md page events: willTransition {from, to} for each new guess (from the current page, then from the
    previous
    guess), one didTransition {from: the page before, to: where it rested, completed} at rest."""
    p = peer(vhost)
    s = session(p)
    p.skip()
    drag(p, s, [100, 80, 40, 110, 160])
    release(p, s, 200)
    pages = [tag(e) for e in p.events() if e["method"] == "page"]
    assert pages == ["page:willTransition:1->0", "page:willTransition:0->2", "page:didTransition:1->2:True"]


def test_non_interactive_forward_animated_and_not(vhost):
    """docs/pages.md page.show (the GYPageViewController article's non-interactive table, forward and to a page that is
    not adjacent): willAppear new,
    willDisappear old, then after exactly 300 ms didAppear new, didDisappear old; not animated: all four in the
    reply, `animated: false` on each. The index stays the old page while animating."""
    p = peer(vhost)
    s = session(p)
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
    assert_at_rest(p, s, 3)

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
    assert_at_rest(p, s, 0)
    p.assert_balanced()


@pytest.mark.parametrize("index", [-1, 5, 1.5, "2", None])
def test_page_show_out_of_range_is_invalid_params_and_changes_nothing(vhost, index):
    """rpc-schema/openrpc.json, docs/protocol.md: page.show with an index that is not a page is -32602 naming `index`;
    nothing moves, no event."""
    p = peer(vhost)
    s = session(p)
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


# ---------------------------------------------------------------------------------------------------
# docs/pages.md cache and reuse


def test_a_cached_neighbour_of_the_new_guess_is_deferred_to_rest(vhost):
    """docs/pages.md (the GYPageViewController article, Step 7): an evicted child that is interaction-related —
    interactively, the guess and its
    neighbours — is deferred and released when the session comes to rest. Limit 2, cache [3, 1] on page 1: a drag
    toward 2 attaches page 2 and evicts page 3, a neighbour of the new guess: it stays until rest, then goes
    (willMoveToParent(null), didMoveToParent(null), deinit)."""
    p = peer(vhost)
    s = session(p, cache={"limit": 2})
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
    assert_at_rest(p, s, 2)
    p.assert_balanced()


def test_an_evicted_child_unrelated_to_the_new_guess_goes_at_once(vhost):
    """docs/pages.md: "others are released at once". Limit 2, cache [4, 1] on page 1: a drag toward 2 evicts page 4,
    which
    is neither current, nor the guess (2), nor one of its neighbours (1, 3): released in the didScroll reply."""
    p = peer(vhost)
    s = session(p, count=6, cache={"limit": 2})
    p("page.show", {"session": s, "index": 4, "animated": False})
    p("page.show", {"session": s, "index": 1, "animated": False})
    four = p.kids(s)[4]
    p.skip()
    drag(p, s, [100, 120])
    tags = [t for t in p.tags() if t.startswith(four + ":")]
    assert tags == [f"{four}:willMoveToParent", f"{four}:didMoveToParent", f"{four}:deinit"], tags
    assert p.page(s)["deferred"] == [] and sorted(p.kids(s)) == [1, 2]
    release(p, s, 200)
    assert_at_rest(p, s, 2)
    p.assert_balanced()


def test_reuse_queue_is_first_in_first_out(vhost):
    """docs/pages.md reuse mode (MJianshu: reusableViewControllers.removeFirst()): a page leaving current +- 1 goes to
    its
    class's reuse queue, and an entering page of that class takes the one parked longest, re-configured with the
    entering page's data. Pages [X, X, Y, Y, Y, X]: page 0's container parks (rest on 2), then page 1's (rest
    on 3); page 5 (X) takes page 0's, page 4 (Y) then takes page 2's."""
    p = peer(vhost)
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
    assert_at_rest(p, s, 4)
    p.assert_balanced()


def test_memory_warning_in_reuse_mode_releases_parked_and_idle_children(vhost):
    """docs/pages.md: host.memoryWarning: every cached child that is neither current nor interaction-related is released
    (page 1 at rest on 2), the reuse queue too (page 0's container, parked: index -1); the live current page gets
    didReceiveMemoryWarning. The reply counts them."""
    p = peer(vhost)
    s = session(p, count=6, initialIndex=0, cache={"mode": "reuse"}, data=list(range(6)))
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
    assert_at_rest(p, s, 2)
    p.assert_balanced()


# ---------------------------------------------------------------------------------------------------
# docs/lifecycle.md / docs/pages.md: a session in a stack


def test_a_page_swiped_back_onto_while_a_pop_reveals_the_session_appears_only_at_rest(vhost):
    """docs/lifecycle.md (zero unbalanced calls in the host's own flows) and docs/pages.md (didAppear only for the page
    the interaction
    rests on, at rest). A session in a stack is revealed by an animated pop (page 1: willAppear, forwarded);
    during the 300 ms a swipe goes to page 2 and comes to rest, and a second drag heads back to page 1 (page 1
    appearing again). When the pop ends, page 1's drag transition is not ended for it: only the session's own
    container gets didAppear; page 1's didAppear comes when the drag rests on it."""
    p = peer(vhost)
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
    assert_at_rest(p, s, 1)
    p.assert_balanced()


def test_a_refused_pop_keeps_the_running_pop_animation(vhost):
    """docs/lifecycle.md: an animated pop's end calls come after exactly 300 ms of host clock. A stack.pop refused
    because the
    stack is now empty (-32003) changes nothing: no event, the running pop still ends at 300 ms."""
    p = peer(vhost)
    stack = p("stack.create", {"width": 320, "height": 480})["stack"]
    c = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": stack, "container": c})
    p.skip()
    assert p("stack.pop", {"stack": stack, "animated": True})["container"] == c
    assert p.tags() == [f"{c}:willMoveToParent", f"{c}:viewWillDisappear"]
    err = p.error("stack.pop", {"stack": stack})
    assert err["code"] == -32003 and err["data"]["kind"] == "invalidState", err
    assert p.events() == []
    assert p("stack.info", {"stack": stack})["animating"] is True
    p("clock.advance", {"ms": 299})
    assert p.events() == []
    p("clock.advance", {"ms": 1})
    events = p.events()
    assert [tag(e) for e in events] == [f"{c}:viewDidDisappear", f"{c}:didMoveToParent"]
    assert all(e["params"]["t"] == 300.0 for e in events)
    p.assert_balanced()


def test_show_rendered_hit_onto_a_hidden_stack_shows_nothing_until_unhidden(vhost):
    """docs/pools.md + docs/lifecycle.md: a hit leaves the green room (offscreen) and is pushed onto `stack`; a hidden
    stack loads and shows
    nothing, so only the containment hooks run there (even when animated: no animation). Unhidden, it appears
    without loading again (already loaded, same size: no layout); resized, it lays out with the new size."""
    p = peer(vhost)
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
    assert p.tags() == [f"{c}:viewWillAppear", f"{c}:viewDidAppear"]
    p("stack.resize", {"stack": stack, "width": 300, "height": 480})
    events = p.events()
    assert [tag(e) for e in events] == [f"{c}:viewWillLayoutSubviews", f"{c}:viewDidLayoutSubviews"]
    assert all(e["params"]["size"] == {"width": 300, "height": 480} for e in events)
    p.assert_balanced()


# ---------------------------------------------------------------------------------------------------
# docs/pools.md cool-down


def test_a_pool_made_eager_during_the_cool_down_refills_when_it_ends(vhost):
    """docs/pools.md: after a memory warning pools refill only on demand or after the cool-down (5 s of host clock). A
    pool
    configured eager (depth 2) during the cool-down queues nothing then, and refills to its depth when the
    cool-down ends; the warm-ups' events go to the connection that ordered the purge."""
    p = peer(vhost)
    p("classes.define", {"name": "Card"})
    assert p("showRendered", {"class": "Card"})["warm"] is False
    p("tasks.drain")
    p("host.memoryWarning")
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
    p = peer(vhost)
    p("classes.define", {"name": "Card"})
    p("pool.warm", {"class": "Card", "width": W, "height": 200})
    p("tasks.drain")
    p("host.memoryWarning")
    p("pool.warm", {"class": "Card", "width": W, "height": 200})  # explicit demand: works while cooling
    p("tasks.drain")
    p.skip()
    s = session(p, **{"class": "Card"}, initialIndex=0, prerender=True)
    hits = [e["params"] for e in p.events() if e["method"] == "pool"]
    assert [(h["kind"], h["session"], h["index"]) for h in hits] == [("hit", s, 0)], hits
    assert p.pool("Card")["coolingDown"] is True
    assert p("tasks.status")["pending"] == 0
    drag(p, s, [0, 30])
    misses = [e["params"] for e in p.events() if e["method"] == "pool"]
    assert [(m["kind"], m["index"]) for m in misses] == [("miss", 1)], misses
    assert p("tasks.status")["pending"] == 1
    release(p, s, 100)
    assert_at_rest(p, s, 1)
    p.assert_balanced()


# ---------------------------------------------------------------------------------------------------
# docs/protocol.md: scopes and disconnects


def test_scope_own_sees_only_own_objects_and_all_sees_every_connection_once(vhost):
    """docs/protocol.md: a connection receives events of its topics for objects it owns; `scope: "all"` observes every
    connection's objects (its own once, not twice); `scope: "own"` goes back; unsubscribed topics stay quiet."""
    a = peer(vhost, topics=("lifecycle",))
    b = peer(vhost, topics=("lifecycle",), scope="all")
    x = a("container.create", {"class": "Container"})["container"]
    y = b("container.create", {"class": "Container"})["container"]
    a("host.ping")
    assert a.tags() == [f"{x}:init"]
    assert b.tags() == [f"{x}:init", f"{y}:init"]
    assert b("events.subscribe", {"topics": ["lifecycle"], "scope": "own"})["scope"] == "own"
    z = a("container.create", {"class": "Container"})["container"]
    w = b("container.create", {"class": "Container"})["container"]
    a("host.ping")
    assert a.tags() == [f"{z}:init"] and b.tags() == [f"{w}:init"]
    s = a("page.create", {"class": "Container", "count": 2, "width": W, "height": 200})["session"]
    a("page.show", {"session": s, "index": 1, "animated": False})
    assert not [e for e in a.events() if e["method"] != "lifecycle"]  # `page` not subscribed
    a.assert_balanced()
    b.assert_balanced()


def test_disconnect_mid_drag_tears_down_balanced_and_ends_the_pause(vhost):
    """docs/protocol.md: when a connection goes, its objects are torn down with correct lifecycle (disappear, then
    deinit) and
    nothing else is affected: an observer sees each child of the dragging session finish disappearing before its
    deinit; another connection's session keeps working, and its `default` idle task, paused while the drag
    tracked (docs/tasks.md), becomes runnable."""
    a = peer(vhost)
    b = peer(vhost)
    watcher = peer(vhost, scope="all")
    sa = session(a, count=3, initialIndex=0)
    sb = session(b, count=3, initialIndex=0)
    kids = a.kids(sa)
    drag(a, sa, [0, 40])  # page 1 appearing, page 0 disappearing
    kids.update(a.kids(sa))
    assert b("showRendered", {"class": "Container"})["warm"] is False  # one warm-up queued, paused
    assert b("tasks.status")["runnable"] == 0 and b("tasks.drain")["ran"] == 0
    watcher("host.ping")  # everything so far is read
    watcher.skip()
    a.conn.close()
    vhost.wait_stats(lambda st: st["connections"]["open"] == 2 and st["sessions"]["page"] == 1, conn=b.conn)
    watcher("host.ping")
    events = [e["params"] for e in watcher.events() if e["method"] == "lifecycle"]
    for index, expected in ((0, ["viewDidDisappear"]), (1, ["viewWillDisappear", "viewDidDisappear"])):
        mine = [e["event"] for e in events if e["container"] == kids[index]]
        assert mine == [*expected, "willMoveToParent", "didMoveToParent", "deinit"], (index, mine)
    assert b("tasks.status")["runnable"] == 1
    assert b("tasks.drain")["ran"] == 1
    b("page.show", {"session": sb, "index": 2, "animated": False})
    assert_at_rest(b, sb, 2)
    b.assert_balanced()
    watcher.assert_balanced()


# ---------------------------------------------------------------------------------------------------
# docs/lifecycle.md + docs/pages.md: sessions in stacks under a seeded storm of stack operations and gestures


@pytest.mark.parametrize("seed", range(4))
def test_sessions_in_stacks_stay_balanced_under_a_storm(vhost, seed):
    """docs/lifecycle.md: zero unbalanced calls in every flow the host drives; docs/pages.md's rest invariant. Two page
    sessions (various
    caches, prerendered or not) sit in two stacks, one hidden at first; random steps push, pop (animated or not),
    move the sessions' containers between the stacks, hide, resize, drag (some left open), show, advance the
    clock, drain, purge and warn. After each step: no unbalanced event, and every session at rest whose own
    container is settled has exactly its current page appeared when on screen, every other child (or all of
    them when off screen) disappeared."""
    p = peer(vhost)
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
