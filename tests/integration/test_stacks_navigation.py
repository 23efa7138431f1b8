"""Stacks as UINavigationController: every lifecycle event of push, pop, popToRoot, setContainers, the
interactive pop (edge swipe), showRendered and hidden stacks, compared with navmodel.py's model, exactly: the
sequence of (container, event, parent) with each event's `t`, `animated`, `offscreen` and layout `size`.

The expectations come from navmodel.Nav (see its docstring for where each rule comes from), never from what the
host prints. Each test starts its own `greenroom serve --clock virtual` (the `vhost` fixture): time moves only
by `clock.advance`, pool warm-ups run only on `tasks.drain`, so every run is identical; every read is bounded
(grhost.LineConn). Every test ends with host.stats.unbalancedTransitions == 0, every lifecycle event fed through
docs/lifecycle.md's four-state table, and each container's `appearance` (container.info) equal to the model's.
"""

from __future__ import annotations

import json
import random

import pytest

from grhost import EventCursor, read_events_until
from lifecyclemodel import Model as AppearanceTable
from navmodel import Ev, Nav, NavError, cancel_remaining, finish_remaining, from_wire

W, H = 375, 667  # the default pool size, and most stacks'


def _fmt(evs) -> list[str]:
    return [str(e) for e in evs]


class Harness:
    """One connection (subscribed to lifecycle and pool events) and the model beside it. Each method makes one
    call on the host and the same on the model, and compares the lifecycle events the call caused, and the
    reply's stack info, with the model's."""

    def __init__(self, host, scope=None):
        self.host = host
        self.c = EventCursor(host.connect()).subscribe(["lifecycle", "pool"], scope)
        self.m = Nav()
        self.m.now = float(self.c("clock.now")["ms"])
        self.all: list[dict] = []  # every lifecycle event seen, for the appearance table
        self.mine: set[str] = set()  # containers this connection owns

    # -- plumbing ----------------------------------------------------------------------------------

    def _events(self) -> tuple[list[dict], list[dict]]:
        evs = self.c.events()
        life = [e["params"] for e in evs if e["method"] == "lifecycle"]
        self.all += [e for e in evs if e["method"] == "lifecycle"]
        pool = [e["params"] for e in evs if e["method"] == "pool"]
        return life, pool

    def ok(self, method: str, params=None):
        """The call's result (asserting success) and the lifecycle and pool events it caused."""
        reply = self.c.conn.call(method, params)
        life, pool = self._events()
        assert "result" in reply, f"{method} {json.dumps(params)} failed: {reply}"
        return reply["result"], life, pool

    def refused(self, method: str, params, code: int) -> dict:
        reply = self.c.conn.call(method, params)
        life, _ = self._events()
        assert "error" in reply, f"{method} {json.dumps(params)} should be {code}: {reply}"
        assert reply["error"]["code"] == code, f"{method} {json.dumps(params)}: {reply}"
        assert life == [], f"a refused {method} changed nothing, yet: {_fmt(map(from_wire, life))}"
        return reply["error"]

    @staticmethod
    def same(got: list[dict], want: list[Ev], what: str) -> None:
        g, w = _fmt(map(from_wire, got)), _fmt(want)
        assert g == w, f"{what}\n  host:\n    " + "\n    ".join(g) + "\n  model:\n    " + "\n    ".join(w)

    def same_info(self, info: dict, sid: str, what: str, animating: bool | None = True) -> None:
        want = self.m.info(sid)
        assert (info.get("stack"), info.get("containers"), info.get("top")) == (sid, want["containers"], want["top"]), \
            f"{what}: stack info {info}, model {want}"
        assert "interactivePop" in info and info["interactivePop"] == want["interactivePop"], \
            f"{what}: interactivePop in {info}, model {want['interactivePop']}"
        if animating:
            assert info.get("animating") == self.m.animating(sid), f"{what}: animating in {info}"

    # -- objects -----------------------------------------------------------------------------------

    def stack(self, width=W, height=H, hidden=False) -> str:
        params = {"width": width, "height": height}
        if hidden:
            params["hidden"] = True
        info, life, _ = self.ok("stack.create", params)
        assert life == []
        self.m.stack(info["stack"], width, height, hidden)
        return info["stack"]

    def new(self, cls="Container") -> str:
        res, life, _ = self.ok("container.create", {"class": cls})
        cid = res["container"]
        self.same(life, self.m.create(cid), "container.create")
        self.mine.add(cid)
        return cid

    # -- stack calls -------------------------------------------------------------------------------

    @staticmethod
    def _p(base: dict, animated, duration) -> dict:
        if animated is not None:
            base["animated"] = animated
        if duration is not None:
            base["duration"] = duration
        return base

    def push(self, sid, cid, animated=None, duration=None) -> dict:
        params = self._p({"stack": sid, "container": cid}, animated, duration)
        try:
            want = self.m.push(sid, cid, bool(animated), duration)
        except NavError as e:
            return self.refused("stack.push", params, e.code)
        info, life, _ = self.ok("stack.push", params)
        self.same(life, want, f"stack.push {params}")
        self.same_info(info, sid, "stack.push")
        return info

    def pop(self, sid, animated=None, duration=None) -> dict:
        params = self._p({"stack": sid}, animated, duration)
        try:
            popped, want = self.m.pop(sid, bool(animated), duration)
        except NavError as e:
            return self.refused("stack.pop", params, e.code)
        res, life, _ = self.ok("stack.pop", params)
        self.same(life, want, f"stack.pop {params}")
        assert res["container"] == popped, res
        self.same_info(res["stack"], sid, "stack.pop")
        return res

    def pop_to_root(self, sid, animated=False, duration=None) -> dict:
        params = self._p({"stack": sid}, animated, duration)
        try:
            popped, want = self.m.pop_to_root(sid, bool(animated), duration)
        except NavError as e:
            return self.refused("stack.popToRoot", params, e.code)
        res, life, _ = self.ok("stack.popToRoot", params)
        self.same(life, want, f"stack.popToRoot {params}")
        assert res.get("containers") == popped, f"popped, bottom first: {res} (model {popped})"
        self.same_info(res["stack"], sid, "stack.popToRoot")
        return res

    def set_containers(self, sid, containers, animated=False, duration=None) -> dict:
        params = self._p({"stack": sid, "containers": list(containers)}, animated, duration)
        try:
            removed, want = self.m.set_containers(sid, list(containers), bool(animated), duration)
        except NavError as e:
            return self.refused("stack.setContainers", params, e.code)
        res, life, _ = self.ok("stack.setContainers", params)
        self.same(life, want, f"stack.setContainers {params}")
        assert sorted(res.get("removed", ["<missing>"])) == sorted(removed), f"removed: {res} (model {removed})"
        self.same_info(res["stack"], sid, "stack.setContainers")
        return res

    def set_hidden(self, sid, hidden: bool) -> dict:
        want = self.m.set_hidden(sid, hidden)
        info, life, _ = self.ok("stack.setHidden", {"stack": sid, "hidden": hidden})
        self.same(life, want, f"stack.setHidden {hidden}")
        self.same_info(info, sid, "stack.setHidden")
        return info

    def begin(self, sid) -> dict:
        params = {"stack": sid}
        try:
            want = self.m.begin_interactive_pop(sid)
        except NavError as e:
            return self.refused("stack.beginInteractivePop", params, e.code)
        res, life, _ = self.ok("stack.beginInteractivePop", params)
        self.same(life, want, "stack.beginInteractivePop")
        self.same_info(res["stack"], sid, "stack.beginInteractivePop", animating=None)
        return res

    def update(self, sid, progress) -> dict:
        want = self.m.update_interactive_pop(sid, progress)
        res, life, _ = self.ok("stack.updateInteractivePop", {"stack": sid, "progress": progress})
        self.same(life, want, f"stack.updateInteractivePop {progress}")
        self.same_info(res["stack"], sid, "stack.updateInteractivePop", animating=None)
        return res

    def finish(self, sid, duration=None) -> float:
        params = self._p({"stack": sid}, None, duration)
        popped, want, remaining = self.m.finish_interactive_pop(sid, duration)
        res, life, _ = self.ok("stack.finishInteractivePop", params)
        self.same(life, want, f"stack.finishInteractivePop {params} (remaining {remaining} ms)")
        assert res["container"] == popped, res
        self.same_info(res["stack"], sid, "stack.finishInteractivePop", animating=None)
        return remaining

    def cancel(self, sid, duration=None) -> float:
        params = self._p({"stack": sid}, None, duration)
        want, remaining = self.m.cancel_interactive_pop(sid, duration)
        res, life, _ = self.ok("stack.cancelInteractivePop", params)
        self.same(life, want, f"stack.cancelInteractivePop {params} (remaining {remaining} ms)")
        self.same_info(res["stack"], sid, "stack.cancelInteractivePop", animating=None)
        return remaining

    def advance(self, ms) -> list[Ev]:
        want = self.m.advance(ms)
        _, life, _ = self.ok("clock.advance", {"ms": ms})
        self.same(life, want, f"clock.advance {ms} (to t={self.m.now:g})")
        return want

    # -- pools ---------------------------------------------------------------------------------------

    def warm(self, cls, count=1, width=None, height=None) -> list[str]:
        """pool.warm, then tasks.drain: each warm-up is a non-animated push into the green room."""
        params = {"class": cls, "count": count}
        if width is not None:
            params.update(width=width, height=height)
        _, life, _ = self.ok("pool.warm", params)
        assert life == [], "a warm-up waits for tasks.drain under the virtual clock"
        _, life, pool = self.ok("tasks.drain")
        warmed = [e["container"] for e in pool if e["kind"] == "warmed"]
        assert len(warmed) >= count, pool  # and any replacement a hit queued earlier
        want = []
        for cid in warmed:
            moves = [e for e in life if e["event"] == "willMoveToParent" and e["container"] == cid]
            assert moves, _fmt(map(from_wire, life))
            gid = moves[0]["parent"]
            if gid not in self.m.stacks:
                size = next(((e["width"], e["height"]) for e in pool
                             if e.get("container") == cid and "width" in e), (width or W, height or H))
                self.m.green_room(gid, *size)
            want += self.m.warm(gid, cid)
        self.same(life, want, f"pool.warm {params} + tasks.drain")
        return warmed

    def show_rendered(self, cls, sid=None, animated=None, duration=None) -> dict:
        params = self._p({"class": cls}, animated, duration)
        if sid is not None:
            params["stack"] = sid
        res, life, pool = self.ok("showRendered", params)
        cid = res["container"]
        if res["warm"]:
            gid = self.m.containers[cid].stack
            assert gid is not None and self.m.stacks[gid].offscreen, f"{cid} was not in a green room"
            taken, want = self.m.show_rendered_hit(gid, sid, bool(animated), duration)
            assert taken == cid, f"a hit takes the green room's top ({taken}), got {cid}"
        else:
            want = self.m.show_rendered_miss(cid, sid, bool(animated), duration)
        self.same(life, want, f"showRendered {params} ({'hit' if res['warm'] else 'miss'})")
        self.mine.add(cid)
        return res

    # -- the end of every test ---------------------------------------------------------------------

    def check_states(self) -> None:
        """container.info's appearance of each of this connection's containers is the model's."""
        for cid in sorted(self.mine):
            info = self.c("container.info", {"container": cid})
            assert info["appearance"] == self.m.appearance(cid), f"{cid}: {info}, model {self.m.appearance(cid)}"

    def balanced(self) -> None:
        table = AppearanceTable()
        for e in self.all:
            table.feed(e)
        assert not table.errors, table.errors
        assert not table.unbalanced, table.unbalanced
        assert self.c("host.stats")["unbalancedTransitions"] == 0
        self.check_states()


@pytest.fixture
def h(vhost) -> Harness:
    return Harness(vhost)


# ---------------------------------------------------------------------------------------------------
# Push and pop


@pytest.mark.parametrize("animated", [False, True], ids=["still", "animated"])
def test_push_onto_an_empty_stack_and_over_one(h, animated):
    """Onto an empty stack: willMoveToParent, loadView, viewDidLoad, viewWillAppear, layout, viewDidAppear,
    didMoveToParent. Over one: the incoming loads before the old top's viewWillDisappear; layout after the
    incoming viewWillAppear; outgoing viewDidDisappear before incoming viewDidAppear. Animated: the did-calls
    300 ms later (nothing at 299)."""
    s = h.stack()
    a, b = h.new(), h.new()
    h.push(s, a, animated)
    if animated:
        h.advance(299)
        h.advance(1)
    h.advance(1000)
    h.push(s, b, animated)
    if animated:
        h.advance(299)
        assert h.m.animating(s)
        ends = h.advance(1)
        assert [e.t for e in ends] == [1600.0] * 3
    h.balanced()


def test_push_over_many_and_pop_them_all(h):
    """Five pushes of fresh containers, alternately animated (each completing the previous one's running
    transition first, at the current time), then five pops, alternately animated."""
    s = h.stack()
    cs = [h.new() for _ in range(5)]
    for i, c in enumerate(cs):
        h.push(s, c, animated=bool(i % 2))
        h.advance(100)
    h.advance(300)
    for i in range(5):
        h.pop(s, animated=bool(i % 2 == 0))
        h.advance(120 if i % 2 else 0)
    h.advance(300)
    h.pop(s)  # empty: -32003, nothing happens
    h.balanced()


@pytest.mark.parametrize("animated", [False, True], ids=["still", "animated"])
def test_pop(h, animated):
    """Pop: the top's willMoveToParent(null), its viewWillDisappear, the one below's viewWillAppear; then the top's
    viewDidDisappear, the one below's viewDidAppear and the top's didMoveToParent(null)."""
    s = h.stack()
    a, b, c = h.new(), h.new(), h.new()
    for x in (a, b, c):
        h.push(s, x)
    h.pop(s, animated)
    h.advance(150)
    h.pop(s, animated)  # completes the running pop first
    h.advance(300)
    h.pop(s, animated)  # to an empty stack
    h.advance(300)
    assert h.m.info(s)["containers"] == []
    h.push(s, c)  # a popped container can be pushed again: loaded, laid out, no second load
    h.balanced()


def test_a_transition_still_running_completes_first(h):
    """docs/lifecycle.md: the running transition's end calls are delivered (at the current time) before the next
    call on that stack does anything."""
    s = h.stack()
    a, b, c = h.new(), h.new(), h.new()
    h.push(s, a)
    h.push(s, b, animated=True)
    h.advance(100)
    h.push(s, c, animated=True)  # b's push ends at t=100, then c's begins
    h.advance(50)
    h.pop(s)  # c's push ends at t=150
    h.advance(10)
    h.pop(s, animated=True)
    h.advance(300)
    h.balanced()


def test_pushing_a_container_twice_is_refused_and_one_from_another_stack_moves(h):
    """Pushing a container already in the stack is -32003 (UIKit crashes); one from another stack leaves there
    first, at once, like a non-animated pop there, then appears here at this stack's size (layout after
    viewWillAppear)."""
    s1 = h.stack()
    s2 = h.stack(768, 1024)
    a, b = h.new(), h.new()
    h.push(s1, a)
    h.push(s1, b)
    h.push(s1, a)  # -32003
    h.push(s1, b)  # -32003
    h.push(s2, b, animated=True)
    h.advance(300)
    h.balanced()


def test_pop_back_to_a_container_that_came_from_the_pool(h):
    """A warm container (loaded and laid out at the pool's size in the green room) shown on a stack by a hit,
    covered by a push and uncovered by a pop: it appears again without loading or laying out."""
    s = h.stack()
    h.c("classes.define", {"name": "Card"})
    h.warm("Card")
    shown = h.show_rendered("Card", s)["container"]
    other = h.new()
    h.push(s, other, animated=True)
    h.advance(300)
    h.pop(s, animated=True)
    h.advance(300)
    assert h.m.info(s)["top"] == shown
    h.balanced()


# ---------------------------------------------------------------------------------------------------
# The interactive pop


def _three(h, size=(W, H)):
    s = h.stack(*size)
    cs = [h.new() for _ in range(3)]
    for c in cs:
        h.push(s, c)
    return s, cs


@pytest.mark.parametrize("duration", [None, 500], ids=["default", "500ms"])
@pytest.mark.parametrize("progress", [0.0, 0.3, 0.5, 1.0])
def test_interactive_pop_completed(h, progress, duration):
    """begin: the top's willMoveToParent(null) and viewWillDisappear, the one below's viewWillAppear (animated);
    update changes no lifecycle (stack.info reports the progress); finish: after duration * (1 - progress)
    the top's viewDidDisappear, the new top's viewDidAppear, the top's didMoveToParent(null); at once when
    that is 0."""
    s, (a, b, c) = _three(h)
    h.advance(40)
    res = h.begin(s)
    assert res["stack"]["interactivePop"] == {"container": c, "revealed": b, "progress": 0}, res
    for p in (0.1, 0.9, progress):
        h.update(s, p)
    remaining = h.finish(s, duration)
    assert remaining == finish_remaining(duration or 300, progress)
    if remaining:
        h.advance(remaining - 0.5)
        assert h.m.animating(s)
        ends = h.advance(0.5)
        assert ends and ends[0].t == 40 + remaining
    h.advance(100)
    assert h.c("stack.info", {"stack": s})["containers"] == [a, b]
    h.pop(s)  # the stack works as before
    h.balanced()


@pytest.mark.parametrize("duration", [None, 500], ids=["default", "500ms"])
@pytest.mark.parametrize("progress", [0.0, 0.3, 0.5, 1.0])
def test_interactive_pop_cancelled(h, progress, duration):
    """cancel, UIKit's cancelled order: the one below viewWillDisappear, viewDidDisappear; then the top
    viewWillAppear, viewDidAppear; then the top's didMoveToParent(stack). After navmodel.cancel_remaining (the
    animation runs back: duration * progress); at once when that is 0. The stack is unchanged."""
    s, (a, b, c) = _three(h)
    h.advance(40)
    h.begin(s)
    h.update(s, progress)
    remaining = h.cancel(s, duration)
    assert remaining == cancel_remaining(duration or 300, progress)
    if remaining:
        h.advance(remaining - 0.5)
        assert h.m.animating(s)
        h.advance(0.5)
    h.advance(100)
    assert h.c("stack.info", {"stack": s})["containers"] == [a, b, c]
    h.begin(s)  # a new gesture on the same stack, finished this time
    h.finish(s)
    h.advance(300)
    h.balanced()


def test_interactive_pop_loads_and_lays_out_the_one_below_if_needed(h):
    """setContainers puts two fresh containers in a stack: only the top loads. An interactive pop loads the one
    below before the top's viewWillDisappear; it lays out after its viewWillAppear."""
    s = h.stack(320, 480)
    a, b = h.new(), h.new()
    h.set_containers(s, [a, b])
    h.begin(s)
    h.update(s, 0.5)
    h.finish(s, 200)
    h.advance(100)
    h.balanced()


def test_interactive_pop_needs_something_below(h):
    """beginInteractivePop on a stack of one container, or an empty one, is -32003 and changes nothing; so are
    update, finish and cancel without a live gesture."""
    s = h.stack()
    h.begin(s)
    a = h.new()
    h.push(s, a)
    h.begin(s)
    for method, extra in (("stack.updateInteractivePop", {"progress": 0.5}), ("stack.finishInteractivePop", {}),
                          ("stack.cancelInteractivePop", {})):
        h.refused(method, {"stack": s, **extra}, -32003)
    info = h.c("stack.info", {"stack": s})
    h.same_info(info, s, "after the refusals")
    h.balanced()


def test_calls_during_a_live_gesture_are_refused_saying_why(h):
    """While the gesture is live, every other navigation call on that stack is -32003 with a message that says
    so (push, pop, begin again, popToRoot, setContainers, showRendered onto it); nothing changes, the
    connection and the stack stay usable, and other stacks work meanwhile."""
    s, (a, b, c) = _three(h)
    other = h.stack()
    d = h.new()
    h.begin(s)
    h.update(s, 0.4)
    for method, params in (("stack.push", {"stack": s, "container": d}),
                           ("stack.push", {"stack": s, "container": d, "animated": True}),
                           ("stack.pop", {"stack": s}),
                           ("stack.pop", {"stack": s, "animated": True}),
                           ("stack.beginInteractivePop", {"stack": s}),
                           ("stack.popToRoot", {"stack": s, "animated": False}),
                           ("stack.setContainers", {"stack": s, "containers": [a], "animated": False}),
                           ("showRendered", {"class": "Container", "stack": s})):
        err = h.refused(method, params, -32003)
        said = json.dumps(err).lower()
        assert "interactive" in said or "gesture" in said, f"{method}: the error should say why: {err}"
    h.c.conn.ping()
    res = h.update(s, 0.6)
    assert res["stack"]["interactivePop"] == {"container": c, "revealed": b, "progress": 0.6}
    h.push(other, d, animated=True)  # another stack is not held up
    h.finish(s)
    h.advance(300)
    h.push(s, d)
    h.pop_to_root(s)
    h.balanced()


@pytest.mark.parametrize("when", ["live", "finishing", "cancelling"])
def test_closing_the_connection_mid_gesture_leaves_everything_balanced(vhost, when):
    """A connection that closes while its gesture is live (or while the finish / cancel animation runs) has its
    objects torn down balanced: an observer (scope "all") sees every container deinit, no lifecycle event
    outside docs/lifecycle.md's table, and host.stats.unbalancedTransitions stays 0."""
    watcher = EventCursor(vhost.connect()).subscribe(["lifecycle"], scope="all")
    h = Harness(vhost)
    s, cs = _three(h)
    h.begin(s)
    h.update(s, 0.5)
    if when == "finishing":
        h.finish(s)
    elif when == "cancelling":
        h.cancel(s)
    h.c.conn.close()
    deinits = lambda evs: {e["params"]["container"] for e in evs  # noqa: E731
                           if e["method"] == "lifecycle" and e["params"]["event"] == "deinit"} >= set(cs)
    read_events_until(watcher.conn, deinits, timeout=10)
    table = AppearanceTable()
    for e in watcher.conn.events:
        table.feed(e)
    assert not table.errors and not table.unbalanced, (table.errors, table.unbalanced)
    stats = watcher("host.stats")
    assert stats["unbalancedTransitions"] == 0, stats
    # Nothing is left to fire for the closed connection.
    watcher.skip()
    watcher("clock.advance", {"ms": 1000})
    assert watcher.events() == []


# ---------------------------------------------------------------------------------------------------
# popToRoot and setContainers


@pytest.mark.parametrize("animated", [False, True], ids=["still", "animated"])
@pytest.mark.parametrize("depth", [2, 5])
def test_pop_to_root(h, depth, animated):
    """Leaving ones: willMoveToParent(null) top first; then a pop's appearance calls between the old top and the
    root only (the ones passed over get none); then didMoveToParent(null) top first. Reply: the popped ids,
    bottom first."""
    s = h.stack()
    cs = [h.new() for _ in range(depth)]
    for c in cs:
        h.push(s, c)
    res = h.pop_to_root(s, animated)
    assert res["containers"] == cs[1:]
    if animated:
        h.advance(299)
        h.advance(1)
    h.pop_to_root(s)  # already at the root: nothing
    h.push(s, cs[-1])
    h.balanced()


def test_set_containers_keeping_the_top(h):
    """The top stays: no appearance call at all; the ones that join below get willMoveToParent /
    didMoveToParent(stack), the ones that leave willMoveToParent / didMoveToParent(null); nobody loads."""
    s = h.stack()
    a, b, c, d, e = (h.new() for _ in range(5))
    for x in (a, b, c):
        h.push(s, x)
    h.set_containers(s, [d, e, c])
    h.set_containers(s, [d, e, c])  # the same list: nothing at all
    h.set_containers(s, [e, d, c])  # reordered below the top: nothing at all
    h.pop(s)  # e appears: it loads now
    h.balanced()


@pytest.mark.parametrize("animated", [False, True], ids=["still", "animated"])
def test_set_containers_replacing_everything(h, animated):
    """All new: the old top disappears, the new top loads and appears; the others only move."""
    s = h.stack()
    a, b, c, d, e = (h.new() for _ in range(5))
    for x in (a, b):
        h.push(s, x)
    h.set_containers(s, [c, d, e], animated)
    h.advance(300)
    h.pop(s)
    h.balanced()


@pytest.mark.parametrize("animated", [False, True], ids=["still", "animated"])
def test_set_containers_reordering(h, animated):
    """The old top moved below and a lower one brought to the top: the two swap appearance calls; no
    containment call for either (both stay in the stack)."""
    s = h.stack()
    a, b, c = h.new(), h.new(), h.new()
    for x in (a, b, c):
        h.push(s, x)
    h.set_containers(s, [c, a, b], animated)
    h.advance(300)
    h.set_containers(s, [b, c, a], animated, duration=120)
    h.advance(120)
    h.pop(s)
    h.balanced()


@pytest.mark.parametrize("animated", [False, True], ids=["still", "animated"])
def test_set_containers_emptying_and_filling_the_stack(h, animated):
    s = h.stack()
    a, b, c = h.new(), h.new(), h.new()
    for x in (a, b, c):
        h.push(s, x)
    res = h.set_containers(s, [], animated)
    assert sorted(res["removed"]) == sorted([a, b, c])
    h.advance(300)
    h.set_containers(s, [c, b], animated)
    h.advance(300)
    h.balanced()


def test_set_containers_bringing_one_from_another_stack(h):
    """A container that sits in another stack (as its top) leaves there first, at once (the one below it
    appears there), then joins; as the new top of a stack of another size it lays out after its
    viewWillAppear."""
    s1 = h.stack()
    s2 = h.stack(414, 896)
    a, b, c, d = (h.new() for _ in range(4))
    h.push(s1, a)
    h.push(s1, b)
    h.push(s2, c)
    h.set_containers(s2, [c, b], animated=True)
    h.advance(300)
    h.set_containers(s1, [a, c])  # c: the bottom of s2, not its top: it only moves
    h.push(s1, d)
    h.balanced()


# ---------------------------------------------------------------------------------------------------
# Durations


@pytest.mark.parametrize("method", ["push", "pop", "popToRoot", "setContainers", "showRendered"])
def test_a_per_call_duration(h, method):
    """`duration` (ms) on an animated call: the did-calls come exactly that long after the call (none a half ms
    before); the default stays 300; not animated, the duration is ignored (all at once)."""
    s = h.stack()
    cs = [h.new() for _ in range(3)]
    for c in cs:
        h.push(s, c)
    extra = h.new()
    h.advance(10)

    def go(animated, duration):
        if method == "push":
            h.push(s, extra, animated, duration)
        elif method == "pop":
            h.pop(s, animated, duration)
        elif method == "popToRoot":
            h.pop_to_root(s, animated, duration)
        elif method == "setContainers":
            h.set_containers(s, [cs[0], extra], animated, duration)
        else:
            h.show_rendered("Container", s, animated, duration)

    def undo():
        if method == "push":
            h.pop(s)
        elif method in ("pop", "popToRoot", "setContainers"):
            h.set_containers(s, cs)
        else:
            h.pop(s)

    for animated, duration in ((True, 120), (True, 450), (True, None), (False, 450)):
        start = h.m.now
        go(animated, duration)
        if animated:
            d = duration or 300
            h.advance(d - 0.5)
            assert h.m.animating(s)
            ends = h.advance(0.5)
            assert ends and all(e.t == start + d for e in ends), _fmt(ends)
        else:
            assert not h.m.animating(s)
        h.advance(5)
        undo()
    h.balanced()


def test_page_show_takes_a_duration(h):
    """`duration` on page.show too: the animated switch ends (didTransition) exactly that long after."""
    session = h.c("page.create", {"class": "Container", "count": 3, "width": W, "height": H,
                                  "initialIndex": 0})["session"]
    h.c.skip()
    h.c("page.show", {"session": session, "index": 1, "duration": 80})
    h.c.skip()
    h.c("clock.advance", {"ms": 79.5})
    assert [e for e in h.c.events() if e["method"] == "lifecycle"] == []
    h.c("clock.advance", {"ms": 0.5})
    assert h.c("page.info", {"session": session})["index"] == 1
    ends = [e["params"] for e in h.c.events() if e["method"] == "lifecycle"]
    assert ends and all(e["t"] == 80.0 for e in ends), ends


# ---------------------------------------------------------------------------------------------------
# The green room and showRendered


def test_warm_ups_are_pushes_into_the_green_room(h):
    """Two warm-ups: each a non-animated push into the green room, offscreen; the second covers the first
    (the first's viewWillDisappear after the second's load, before its viewWillAppear)."""
    h.c("classes.define", {"name": "Card"})
    h.warm("Card", count=2)
    h.balanced()


@pytest.mark.parametrize("animated", [False, True], ids=["still", "animated"])
def test_show_rendered_hit_leaves_the_green_room_then_is_pushed(h, animated):
    """A hit: the green room's top leaves like a non-animated pop of the green room (offscreen; the warm one
    below it appears again offscreen), then it is pushed onto the stack with the push order, without loading;
    then the next hit leaves from on screen too, onto a stack of another size (layout after
    viewWillAppear)."""
    h.c("classes.define", {"name": "Card"})
    s = h.stack()
    big = h.stack(768, 1024)
    below = h.new()
    h.push(s, below)
    h.warm("Card", count=2)
    res = h.show_rendered("Card", s, animated)
    assert res["warm"] is True
    h.advance(300)
    res = h.show_rendered("Card", big, animated)
    assert res["warm"] is True
    h.advance(300)
    h.balanced()


@pytest.mark.parametrize("animated", [False, True], ids=["still", "animated"])
def test_show_rendered_miss_onto_a_stack(h, animated):
    """A miss: a fresh container (init), pushed: willMoveToParent, load before the old top's viewWillDisappear,
    viewWillAppear, layout, then the did-calls."""
    h.c("classes.define", {"name": "Card"})
    s = h.stack()
    a = h.new()
    h.push(s, a)
    res = h.show_rendered("Card", s, animated)
    assert res["warm"] is False
    h.advance(300)
    h.balanced()


def test_show_rendered_hit_without_a_stack_then_pushed(h):
    """A hit without `stack` only leaves the green room; pushed later onto a stack of another size, it lays out
    there after its viewWillAppear, without loading."""
    h.c("classes.define", {"name": "Card"})
    h.warm("Card", width=320, height=480)
    c = h.show_rendered("Card")["container"]
    s = h.stack()
    h.push(s, c, animated=True)
    h.advance(300)
    h.balanced()


# ---------------------------------------------------------------------------------------------------
# Hidden stacks


def test_hidden_stack_shows_nothing_until_shown(h):
    """A hidden stack runs only containment calls (even animated: no animation); shown, its top loads,
    viewWillAppear, lays out, viewDidAppear; hidden again it disappears; shown again it appears without
    loading or layout."""
    h.c("classes.define", {"name": "Card"})
    s = h.stack(320, 480, hidden=True)
    a, b = h.new(), h.new()
    h.push(s, a, animated=True)
    assert not h.m.animating(s)
    h.push(s, b)
    h.warm("Card")
    h.show_rendered("Card", s, animated=True)  # a hit onto a hidden stack: it leaves the green room, moves in
    h.pop(s)
    h.set_hidden(s, False)  # b appears: load, viewWillAppear, layout, viewDidAppear
    h.set_hidden(s, True)
    h.set_hidden(s, False)
    h.pop(s, animated=True)  # a loads on the way in
    h.advance(300)
    h.balanced()


# ---------------------------------------------------------------------------------------------------
# Random sequences


DURATIONS = [None, None, 120, 200, 450]
PROGRESSES = [0.0, 0.25, 0.3, 0.5, 0.75, 1.0]


def _random_walk(h: Harness, rng: random.Random, steps: int) -> None:
    stacks = [h.stack(), h.stack(320, 480)]
    pool = [h.new() for _ in range(4)]

    def where(c):
        return h.m.containers[c].stack

    for step in range(steps):
        sid = rng.choice(stacks)
        other = stacks[1 - stacks.index(sid)]
        items = h.m.info(sid)["containers"]
        animated = rng.random() < 0.5
        duration = rng.choice(DURATIONS) if animated else None
        settled = not h.m.animating(sid) and not h.m.animating(other)
        # A container whose removal is still animating elsewhere may join only a stack with nothing running
        # (which of two running transitions completes first is not specified).
        free = [c for c in pool if where(c) is None and (h.m.busy(c) in (None, sid) or not h.m.animating(sid))]
        movable = [c for c in h.m.info(other)["containers"]] if settled else []
        op = rng.choice(["push", "push", "pop", "popToRoot", "setContainers", "interactive", "interactive",
                         "advance", "advance", "new"])
        if op == "new" and len(pool) < 9:
            pool.append(h.new())
        elif op == "push" and (free or movable):
            c = rng.choice(free + movable[-1:])
            h.push(sid, c, animated, duration)
        elif op == "pop" and items:
            h.pop(sid, animated, duration)
        elif op == "popToRoot" and len(items) >= 2:
            h.pop_to_root(sid, animated, duration)
        elif op == "setContainers":
            new = [c for c in items if rng.random() < 0.6]
            if rng.random() < 0.5:
                rng.shuffle(new)
            new += rng.sample(free, k=min(len(free), rng.randint(0, 2)))
            if movable and rng.random() < 0.3:
                new.insert(rng.randint(0, len(new)), rng.choice(movable))
            if (new[-1] if new else None) == (items[-1] if items else None):
                animated, duration = False, None  # the top stays: no transition to animate
            h.set_containers(sid, new, animated, duration)
        elif op == "interactive" and len(items) >= 2:
            h.begin(sid)
            progress = rng.choice(PROGRESSES)
            if progress or rng.random() < 0.5:
                h.update(sid, progress)
            if rng.random() < 0.3:
                h.advance(rng.choice([0, 50, 500]))
            d = rng.choice(DURATIONS)
            if rng.random() < 0.6:
                h.finish(sid, d)
            else:
                h.cancel(sid, d)
        elif op == "advance":
            h.advance(rng.choice([0, 50, 120, 300, 500]))
    h.advance(1000)


@pytest.mark.parametrize("seed", [7, 2024, 31337])
def test_random_navigation_against_the_model(h, seed):
    """Seeded random sequences of push, pop, popToRoot, setContainers (keeping, replacing, reordering, emptying,
    taking from the other stack), interactive pops finished or cancelled at random progresses, animated or
    not, with and without durations, and clock advances: every event exactly the model's; balanced at the
    end."""
    _random_walk(h, random.Random(seed), 120)
    h.balanced()
