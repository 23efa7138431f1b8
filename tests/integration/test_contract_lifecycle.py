"""Contract audit: rpc-schema/openrpc.json (containers, stacks, prerender, pages), docs/lifecycle.md (lifecycle),
docs/pools.md (prerender pools),
docs/tasks.md (task dispatcher), docs/pages.md (page sessions) and the GYPageViewController article's lifecycle tables,
rule by rule, over the real socket.

Every test starts its own `greenroom serve --clock virtual`: time moves only by `clock.advance`, idle tasks run
only on `tasks.drain`, so every run is identical (no sleeps; every read is bounded).

Events are written as compact tags, in the order they arrive:

    "c-2:viewDidLoad~"     lifecycle event `viewDidLoad` of c-2, offscreen (~)
    "pool:warmed:c-2"      pool event of kind `warmed` about c-2
    "willAppear 0"         (page sessions) an appearance hook of the child on page 0, as the GYPageViewController
    article writes them

No JSON-RPC method lets a client drive begin/end appearance transitions directly (the methods are listed in
rpc-schema/openrpc.json; none takes an appearance call), so docs/lifecycle.md's table is checked through the host's own
flows: each balanced cell is reached by a flow and observed (state before, hook, state after), and every
appearance hook of every test is fed through a model of the table.

The tests at the end check interleaved flows and edge cases against the contract (or, where it is silent,
against what a UIKit user would expect).
"""

from __future__ import annotations

import json
import os
import time

import jsonschema
import pytest
from grhost import REPO, EventCursor, LineConn, tag
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7

APPEARANCE = ("viewWillAppear", "viewDidAppear", "viewWillDisappear", "viewDidDisappear")
SHORT = {"viewWillAppear": "willAppear", "viewDidAppear": "didAppear",
         "viewWillDisappear": "willDisappear", "viewDidDisappear": "didDisappear"}
LAYOUT = ("viewWillLayoutSubviews", "viewDidLayoutSubviews")
CONTAINMENT = ("willMoveToParent", "didMoveToParent")

# docs/lifecycle.md's table: (state, call) -> (next state, hook). Every other pair is unbalanced.
TABLE = {
    ("disappeared", "beginAppearance(true)"): ("appearing", "viewWillAppear"),
    ("disappearing", "beginAppearance(true)"): ("appearing", "viewWillAppear"),
    ("appearing", "beginAppearance(false)"): ("disappearing", "viewWillDisappear"),
    ("appeared", "beginAppearance(false)"): ("disappearing", "viewWillDisappear"),
    ("appearing", "endAppearance"): ("appeared", "viewDidAppear"),
    ("disappearing", "endAppearance"): ("disappeared", "viewDidDisappear"),
}
STATES = ("disappeared", "appearing", "appeared", "disappearing")
CALLS = ("beginAppearance(true)", "beginAppearance(false)", "endAppearance")
# hook -> the states it may run from
HOOK_FROM = {hook: {s for (s, _), (_, h) in TABLE.items() if h == hook} for hook in APPEARANCE}
HOOK_TO = {hook: nxt for (_, _), (nxt, hook) in TABLE.items()}

DOC = json.loads((REPO / "rpc-schema" / "openrpc.json").read_text())
DOC_URI = "urn:greenroom:openrpc"
REGISTRY = Registry().with_resource(DOC_URI, Resource(contents=DOC, specification=DRAFT7))
EVENT_SCHEMA = {n["name"]: jsonschema.Draft7Validator({"$ref": DOC_URI + n["params"]["$ref"]}, registry=REGISTRY)
                for n in DOC["x-notifications"]}

W = 100.0  # page width used by most page tests: page i sits at offset i * W


# ---------------------------------------------------------------------------------------------------
# helpers


class Model:
    """docs/lifecycle.md's appearance table, fed with every lifecycle event as it arrives."""

    def __init__(self):
        self.state: dict[str, str] = {}
        self.errors: list[str] = []
        self.unbalanced: list[dict] = []

    def feed(self, e: dict) -> None:
        if e["method"] != "lifecycle":
            return
        p = e["params"]
        c, hook = p["container"], p["event"]
        if hook == "init":
            self.state[c] = "disappeared"
        elif hook in APPEARANCE:
            before = self.state.get(c)  # None: a container whose earlier events went to another connection
            if before is not None and before not in HOOK_FROM[hook]:
                self.errors.append(f"{c}:{hook} from {before} is not in docs/lifecycle.md's table")
            self.state[c] = HOOK_TO[hook]
        elif hook == "unbalancedAppearanceTransition":
            self.unbalanced.append(p)
        elif hook == "deinit":
            self.state.pop(c, None)


class Peer(EventCursor):
    """A connection with a cursor over the events it received (`events()`/`tags()` return those since the
    last look) and a model of the appearance table fed with every lifecycle event."""

    tag = staticmethod(tag)

    def __init__(self, conn: LineConn):
        super().__init__(conn)
        self.fed = 0
        self.model = Model()

    def received(self) -> None:
        self._feed()

    def _feed(self) -> None:
        for e in self.conn.events[self.fed:]:
            self.model.feed(e)
        self.fed = len(self.conn.events)

    def hooks(self, session: str) -> list[str]:
        """The appearance hooks of `session`'s children since the last look, the GYPageViewController article's way
        ("willAppear 0")."""
        return [f"{SHORT[e['params']['event']]} {e['params']['page']['index']}" for e in self.events()
                if e["method"] == "lifecycle" and e["params"]["event"] in SHORT
                and e["params"].get("page", {}).get("session") == session and "index" in e["params"]["page"]]

    def info(self, c: str) -> dict:
        return self("container.info", {"container": c})

    def page(self, s: str) -> dict:
        return self("page.info", {"session": s})

    def assert_balanced(self) -> None:
        self._feed()
        assert not self.model.errors, self.model.errors
        assert not self.model.unbalanced, self.model.unbalanced
        assert self.stats()["unbalancedTransitions"] == 0


def peer(host, topics=("lifecycle", "pool", "page"), scope=None) -> Peer:
    return Peer(host.connect()).subscribe(topics, scope)


def pump(p: Peer, timeout: float = 0.3) -> None:
    """Reads whatever notifications arrive within `timeout` (bounded) into p's events."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return
        try:
            msg = p.conn.read_json(left)
        except TimeoutError:
            return
        assert isinstance(msg, dict) and "method" in msg and "id" not in msg, f"unexpected message {msg}"
        p.conn.events.append(msg)


def load(c: str, o: str = "") -> list[str]:
    return [f"{c}:loadView{o}", f"{c}:viewDidLoad{o}", f"{c}:viewWillLayoutSubviews{o}", f"{c}:viewDidLayoutSubviews{o}"]


def lifecycle(events: list[dict], container: str | None = None, event: str | None = None) -> list[dict]:
    return [e["params"] for e in events if e["method"] == "lifecycle"
            and (container is None or e["params"]["container"] == container)
            and (event is None or e["params"]["event"] == event)]


def sessions(p: Peer, **params) -> tuple[str, dict]:
    base = {"class": "Container", "count": 5, "width": W, "height": 200, "initialIndex": 1}
    base.update(params)
    base = {k: v for k, v in base.items() if v is not None}
    info = p("page.create", base)
    return info["session"], info


def swipe(p: Peer, s: str, offsets: list[float], rest: float, decelerate: bool = True) -> None:
    """willBeginDragging at offsets[0], didScroll through offsets[1:], release, rest at `rest`."""
    S = {"session": s}
    p("page.willBeginDragging", {**S, "offset": offsets[0]})
    for x in offsets[1:]:
        p("page.didScroll", {**S, "offset": x})
    p("page.willEndDragging", {**S, "offset": offsets[-1], "velocity": 1.0})
    if decelerate:
        p("page.didEndDragging", {**S, "offset": offsets[-1], "willDecelerate": True})
        p("page.didEndDecelerating", {**S, "offset": rest})
    else:
        p("page.didEndDragging", {**S, "offset": rest, "willDecelerate": False})


def assert_at_rest(p: Peer, s: str, index: int) -> dict:
    """docs/pages.md at rest: exactly the current page is `appeared`, every other attached child `disappeared`."""
    info = p.page(s)
    assert info["phase"] == "idle" and info["index"] == index and info["guess"] is None, info
    states = {c["index"]: c["state"] for c in info["children"]}
    assert states.get(index) == "appeared", info
    assert all(st == "disappeared" for i, st in states.items() if i != index), info
    return info


# ---------------------------------------------------------------------------------------------------
# docs/lifecycle.md lifecycle events


def test_lifecycle_events_have_the_documented_shape(vhost):
    """docs/lifecycle.md: each hook that runs is one `lifecycle` event {container, class, event, animated?, offscreen,
    page?}
    (+ seq, t; size on layout hooks, parent on containment hooks): checked against the schema and by hand over
    stacks, pools and pages; seq strictly increases from 1 and t is the host clock."""
    p = peer(vhost, topics=("lifecycle", "pool", "page", "host"))
    p("classes.define", {"name": "Card", "hooks": {"configure": {"output": 1}}})
    stack = p("stack.create", {"width": 320, "height": 480})["stack"]
    a = p("container.create", {"class": "Card"})["container"]
    p("stack.push", {"stack": stack, "container": a})
    p("clock.advance", {"ms": 50})
    p("showRendered", {"class": "Card", "stack": stack, "animated": True, "data": {}})
    p("clock.advance", {"ms": 300})
    p("tasks.drain")
    p("showRendered", {"class": "Card"})
    s, _ = sessions(p)
    p("page.show", {"session": s, "index": 2, "animated": False})
    p("host.memoryWarning")
    p("page.destroy", {"session": s})
    p("container.release", {"container": a})
    events = p.events()
    assert len(events) > 40
    seqs = [e["params"]["seq"] for e in events]
    assert seqs[0] == 1 and all(b == a_ + 1 for a_, b in zip(seqs, seqs[1:])), seqs
    bad = []
    for e in events:
        errors = sorted(EVENT_SCHEMA[e["method"]].iter_errors(e["params"]), key=str)
        if errors:
            bad.append(f"{e}: {errors[0].message}")
    assert not bad, "\n".join(bad[:5])
    for e in lifecycle(events):
        assert isinstance(e["t"], float), e
        keys = set(e) - {"seq", "t", "container", "class", "event", "offscreen"}
        allowed = {"page"} | ({"animated"} if e["event"] in APPEARANCE else set()) \
            | ({"size"} if e["event"] in LAYOUT else set()) | ({"parent"} if e["event"] in CONTAINMENT else set())
        assert keys <= allowed, e
        if e["event"] in APPEARANCE:
            assert isinstance(e["animated"], bool), e
        if "page" in e:
            assert e["offscreen"] is False and e["page"]["session"] == s, e
    # t is the host clock: the animated push ended at 50 + 300.
    did = [e for e in lifecycle(events, event="viewDidAppear") if e["animated"]]
    assert did and all(e["t"] == 350.0 for e in did), did
    p.assert_balanced()


def test_view_loads_lazily_just_before_the_first_will_appear(vhost):
    """docs/lifecycle.md: loadView then viewDidLoad run just before the first viewWillAppear (the layout at the window's
    size
    between them, rpc-schema stack.push); not on create, configure, a hidden push, or a second appearance."""
    p = peer(vhost)
    p("classes.define", {"name": "Web", "hooks": {"configure": {"output": "bound"}}})
    hidden = p("stack.create", {"width": 320, "height": 480, "hidden": True})["stack"]
    shown = p("stack.create", {"width": 375, "height": 667})["stack"]
    c = p("container.create", {"class": "Web", "data": {"id": 1}})["container"]
    assert p("container.configure", {"container": c, "data": {"url": "x"}}) == {"container": c, "output": "bound"}
    p("stack.push", {"stack": hidden, "container": c})
    assert p.tags() == [f"{c}:init", f"{c}:configure", f"{c}:willMoveToParent", f"{c}:didMoveToParent"]
    info = p.info(c)
    assert (info["state"], info["viewLoaded"], info["size"]) == ("fresh", False, None), info

    p("stack.push", {"stack": shown, "container": c})  # moved from the hidden stack: loads on the way in
    tags = p.tags()
    i = tags.index(f"{c}:loadView")
    assert tags[i:i + 5] == [*load(c), f"{c}:viewWillAppear"], tags
    assert tags.count(f"{c}:loadView") == 1 and tags.count(f"{c}:viewDidLoad") == 1
    assert p.info(c)["size"] == {"width": 375, "height": 667}

    other = p("container.create", {"class": "Web"})["container"]
    p("stack.push", {"stack": shown, "container": other})
    p("stack.pop", {"stack": shown})
    tags = p.tags()
    assert f"{c}:viewWillAppear" in tags and f"{c}:loadView" not in tags, tags  # loaded once
    p.assert_balanced()


# The six balanced cells of docs/lifecycle.md's table, each reached by one of the host's flows.
CELLS = ["disappeared-begin(true)", "appearing-end", "appeared-begin(false)", "disappearing-end",
         "appearing-begin(false)", "disappearing-begin(true)"]


@pytest.mark.parametrize("cell", CELLS)
def test_appearance_table_cell(vhost, cell):
    """docs/lifecycle.md: state, call -> new state and hook: observed through container.info / page.info before and
    after."""
    p = peer(vhost)
    if cell in CELLS[:4]:
        stack = p("stack.create", {"width": 375, "height": 667})["stack"]
        a = p("container.create", {"class": "Container"})["container"]
        b = p("container.create", {"class": "Container"})["container"]
        p("stack.push", {"stack": stack, "container": a})
        assert p.info(a)["appearance"] == "appeared"
        assert p.info(b)["appearance"] == "disappeared"
        p.skip()
        p("stack.push", {"stack": stack, "container": b, "animated": True})
        tags = p.tags()
        if cell == "disappeared-begin(true)":
            assert f"{b}:viewWillAppear" in tags and p.info(b)["appearance"] == "appearing"
        elif cell == "appeared-begin(false)":
            assert f"{a}:viewWillDisappear" in tags and p.info(a)["appearance"] == "disappearing"
        else:
            assert (p.info(a)["appearance"], p.info(b)["appearance"]) == ("disappearing", "appearing")
            p("clock.advance", {"ms": 300})
            tags = p.tags()
            if cell == "appearing-end":
                assert f"{b}:viewDidAppear" in tags and p.info(b)["appearance"] == "appeared"
            else:
                assert f"{a}:viewDidDisappear" in tags and p.info(a)["appearance"] == "disappeared"
    else:
        s, _ = sessions(p)
        S = {"session": s}
        p("page.willBeginDragging", {**S, "offset": 100})
        p("page.didScroll", {**S, "offset": 120})  # toward 2: page 2 appearing, page 1 disappearing
        states = {c["index"]: c["state"] for c in p.page(s)["children"]}
        assert (states[1], states[2]) == ("disappearing", "appearing"), states
        p.skip()
        if cell == "appearing-begin(false)":
            p("page.didScroll", {**S, "offset": 80})  # back toward 0: page 2 begins disappearing
            assert p.hooks(s)[:3] == ["willAppear 0", "willDisappear 2", "didDisappear 2"]
        else:
            p("page.didEndDragging", {**S, "offset": 100, "willDecelerate": False})  # cancelled: 1 comes back
            assert p.hooks(s)[:2] == ["willAppear 1", "didAppear 1"]
    p.assert_balanced()


def unbalanced_flow(p: Peer) -> None:
    """Two flows that interleave page changes with an animated stack transition (see the interleaved-flow tests
    at the end); the host's own flows must make no unbalanced call in them."""
    stack = p("stack.create", {"width": W, "height": 200})["stack"]
    s, _ = sessions(p, stack=stack)
    top = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": stack, "container": top, "animated": True})
    p("page.show", {"session": s, "index": 2})
    p("clock.advance", {"ms": 300})
    p("stack.pop", {"stack": stack, "animated": True})
    p("page.show", {"session": s, "index": 3, "animated": False})
    p("clock.advance", {"ms": 300})


def test_unbalanced_calls_are_refused_cells_run_no_hook_and_are_counted(vhost):
    """docs/lifecycle.md: an unbalanced call runs no hook; it emits `unbalancedAppearanceTransition` (with the refused
    call and
    the state that refused it: a cell docs/lifecycle.md's table calls unbalanced) and is counted in host.stats. No
    method lets
    a client make such a call, so this checks whatever the host's own flows produce (ideally nothing)."""
    p = peer(vhost)
    unbalanced_flow(p)
    p._feed()
    events = p.model.unbalanced
    assert p.stats()["unbalancedTransitions"] == len(events)
    for e in events:
        assert e["call"] in CALLS and e["state"] in STATES, e
        assert (e["state"], e["call"]) not in TABLE, f"a balanced call was reported unbalanced: {e}"
        # No hook ran: the container is still in the state that refused the call.
        info = p.info(e["container"])
        assert info["appearance"] == e["state"], (e, info)


# ---------------------------------------------------------------------------------------------------
# docs/lifecycle.md stacks


def test_push_order_new_top_will_appear_old_will_disappear_then_did(vhost):
    """docs/lifecycle.md: push: the new top gets willAppear, the old top willDisappear, then didAppear / didDisappear;
    not animated: all at once, with animated: false."""
    p = peer(vhost)
    stack = p("stack.create", {"width": 375, "height": 667})["stack"]
    a = p("container.create", {"class": "Container"})["container"]
    b = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": stack, "container": a})
    p.skip()
    info = p("stack.push", {"stack": stack, "container": b})
    assert (info["containers"], info["top"], info["animating"]) == ([a, b], b, False)
    events = p.events()
    assert [tag(e) for e in events] == [f"{b}:willMoveToParent", *load(b), f"{b}:viewWillAppear",
                                        f"{a}:viewWillDisappear", f"{b}:viewDidAppear", f"{b}:didMoveToParent",
                                        f"{a}:viewDidDisappear"]
    assert all(e["animated"] is False for e in lifecycle(events) if e["event"] in APPEARANCE)
    assert p.info(a)["appearance"] == "disappeared" and p.info(b)["appearance"] == "appeared"
    p.assert_balanced()


def test_animated_pop_ends_exactly_300ms_after_it_started(vhost):
    """docs/lifecycle.md: after 300 ms on the host clock when animated: not one ms before, exactly at (t of the
    events)."""
    p = peer(vhost)
    stack = p("stack.create", {"width": 375, "height": 667})["stack"]
    a = p("container.create", {"class": "Container"})["container"]
    b = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": stack, "container": a})
    p("stack.push", {"stack": stack, "container": b})
    p("clock.advance", {"ms": 1234.5})
    p.skip()
    popped = p("stack.pop", {"stack": stack, "animated": True})
    assert popped["container"] == b and popped["stack"]["animating"] is True
    assert p.tags() == [f"{b}:willMoveToParent", f"{a}:viewWillAppear", f"{b}:viewWillDisappear"]
    p("clock.advance", {"ms": 150})
    p("clock.advance", {"ms": 149.5})
    assert p.tags() == []
    assert p.info(a)["appearance"] == "appearing" and p.info(b)["appearance"] == "disappearing"
    p("clock.advance", {"ms": 0.5})
    events = p.events()
    assert [tag(e) for e in events] == [f"{a}:viewDidAppear", f"{b}:viewDidDisappear", f"{b}:didMoveToParent"]
    assert all(e["params"]["t"] == 1534.5 for e in events), events
    assert all(e["animated"] is True for e in lifecycle(events) if e["event"] in APPEARANCE)
    assert p("stack.info", {"stack": stack})["animating"] is False
    p.assert_balanced()


def test_clock_advance_ends_overlapping_animations_each_at_its_own_deadline(vhost):
    """rpc-schema/openrpc.json clock.advance runs due timers and animations in time order: a stack push (t=0) and a
    page.show (t=100),
    both animated, end at 300 and 400, in that order, within one clock.advance."""
    p = peer(vhost)
    stack = p("stack.create", {"width": 375, "height": 667})["stack"]
    c = p("container.create", {"class": "Container"})["container"]
    s, _ = sessions(p)
    p("stack.push", {"stack": stack, "container": c, "animated": True})
    p("clock.advance", {"ms": 100})
    p("page.show", {"session": s, "index": 2})
    p.skip()
    assert p("clock.advance", {"ms": 1000}) == {"now": 1100, "ms": 1100, "fired": 2}
    ends = [(e["params"]["t"], e["params"].get("event") or e["params"].get("kind")) for e in p.events()]
    assert ends == [(300, "viewDidAppear"), (300, "didMoveToParent"), (400, "viewDidAppear"),
                    (400, "viewDidDisappear"), (400, "didTransition")], ends
    p.assert_balanced()


def test_pushing_a_container_lower_in_the_same_stack_is_invalid_state(vhost):
    """docs/lifecycle.md: a container is in at most one stack; pushing one already in the same stack (not only its top)
    is
    invalidState, and nothing changes."""
    p = peer(vhost)
    stack = p("stack.create", {"width": 375, "height": 667})["stack"]
    a = p("container.create", {"class": "Container"})["container"]
    b = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": stack, "container": a})
    p("stack.push", {"stack": stack, "container": b, "animated": True})
    before = p("stack.info", {"stack": stack})
    p.skip()
    err = p.error("stack.push", {"stack": stack, "container": a})
    assert err["code"] == -32003 and err["data"]["kind"] == "invalidState", err
    assert err["data"].get("container") == a and err["data"].get("stack") == stack, err
    assert p.tags() == []
    assert p("stack.info", {"stack": stack}) == before
    p("clock.advance", {"ms": 300})
    p.assert_balanced()


def test_push_from_another_stack_mid_animation_completes_it_then_moves(vhost):
    """docs/lifecycle.md: pushing a container that sits in another stack moves it: it disappears there first. That
    stack's
    running animation is delivered before (rpc-schema: a running transition completes first)."""
    p = peer(vhost)
    s1 = p("stack.create", {"width": 375, "height": 667})["stack"]
    s2 = p("stack.create", {"width": 375, "height": 667})["stack"]
    under = p("container.create", {"class": "Container"})["container"]
    moved = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": s1, "container": under})
    p("stack.push", {"stack": s1, "container": moved, "animated": True})
    p.skip()
    p("stack.push", {"stack": s2, "container": moved})
    tags = p.tags()
    assert tags == [f"{moved}:viewDidAppear", f"{moved}:didMoveToParent", f"{under}:viewDidDisappear",
                    f"{moved}:willMoveToParent", f"{under}:viewWillAppear", f"{moved}:viewWillDisappear",
                    f"{under}:viewDidAppear", f"{moved}:viewDidDisappear", f"{moved}:didMoveToParent",
                    f"{moved}:willMoveToParent", f"{moved}:viewWillAppear", f"{moved}:viewDidAppear",
                    f"{moved}:didMoveToParent"], tags
    assert p("stack.info", {"stack": s1})["containers"] == [under]
    assert p("stack.info", {"stack": s2})["containers"] == [moved]
    assert p.info(moved)["parent"] == {"kind": "stack", "id": s2}
    p.assert_balanced()


def test_hidden_stack_is_unhidden_by_set_hidden_and_lays_out_at_its_current_size(vhost):
    """docs/lifecycle.md + rpc-schema stack.setHidden: a hidden stack loads and shows nothing (an animated push there
    has no
    animation); `stack.setHidden false` unhides it: the top loads, lays out at the stack's size (as resized while
    hidden) and appears."""
    p = peer(vhost)
    stack = p("stack.create", {"width": 375, "height": 667, "hidden": True})["stack"]
    c = p("container.create", {"class": "Container"})["container"]
    p.skip()
    info = p("stack.push", {"stack": stack, "container": c, "animated": True})
    assert info["hidden"] is True and info["animating"] is False, info
    p("stack.resize", {"stack": stack, "width": 500, "height": 300})
    assert p.tags() == [f"{c}:willMoveToParent", f"{c}:didMoveToParent"]
    assert p("host.stats")["timers"] == 0
    assert p.info(c)["viewLoaded"] is False
    p("stack.setHidden", {"stack": stack, "hidden": False})
    events = p.events()
    assert [tag(e) for e in events] == [*load(c), f"{c}:viewWillAppear", f"{c}:viewDidAppear"]
    assert lifecycle(events, c, "viewDidLayoutSubviews")[0]["size"] == {"width": 500, "height": 300}
    assert p.info(c)["appearance"] == "appeared"
    p.assert_balanced()


def test_pop_reveals_the_one_below_laid_out_at_the_new_size(vhost):
    """rpc-schema stack.resize: the others lay out when they next appear (before their viewWillAppear)."""
    p = peer(vhost)
    stack = p("stack.create", {"width": 375, "height": 667})["stack"]
    a = p("container.create", {"class": "Container"})["container"]
    b = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": stack, "container": a})
    p("stack.push", {"stack": stack, "container": b})
    p("stack.resize", {"stack": stack, "width": 667, "height": 375})
    p.skip()
    p("stack.pop", {"stack": stack})
    events = p.events()
    assert [tag(e) for e in events] == [f"{b}:willMoveToParent", f"{a}:viewWillLayoutSubviews",
                                        f"{a}:viewDidLayoutSubviews", f"{a}:viewWillAppear", f"{b}:viewWillDisappear",
                                        f"{a}:viewDidAppear", f"{b}:viewDidDisappear", f"{b}:didMoveToParent"]
    assert lifecycle(events, a, "viewWillLayoutSubviews")[0]["size"] == {"width": 667, "height": 375}
    p.assert_balanced()


def test_container_configure_returns_the_hook_output(vhost):
    """rpc-schema/openrpc.json: container.configure {container, data} -> {container, output} (null when the hook returns
    none),
    binding data after display; it neither loads nor shows the view."""
    p = peer(vhost)
    p("classes.define", {"name": "Bound", "hooks": {"configure": {"output": {"rendered": [1, 2]}}}})
    c = p("container.create", {"class": "Bound"})["container"]
    assert p("container.configure", {"container": c, "data": None}) == {"container": c, "output": {"rendered": [1, 2]}}
    plain = p("container.create", {"class": "Container"})["container"]
    assert p("container.configure", {"container": plain, "data": [1]}) == {"container": plain, "output": None}
    assert p.tags() == [f"{c}:init", f"{c}:configure", f"{plain}:init", f"{plain}:configure"]
    assert p.info(c)["state"] == "fresh"
    err = p.error("container.configure", {"container": "c-99", "data": 1})
    assert err["code"] == -32002 and err["data"]["kind"] == "unknownObject"


def test_container_release_disappears_then_deinits(vhost):
    """rpc-schema/openrpc.json, docs/protocol.md: container.release takes it out of its stack (the top disappears, the
    one below appears), then
    deinit; a container covered in the stack or fresh just deinits; a page child is invalidState."""
    p = peer(vhost)
    stack = p("stack.create", {"width": 375, "height": 667})["stack"]
    a = p("container.create", {"class": "Container"})["container"]
    b = p("container.create", {"class": "Container"})["container"]
    c = p("container.create", {"class": "Container"})["container"]
    fresh = p("container.create", {"class": "Container"})["container"]
    for x in (a, b, c):
        p("stack.push", {"stack": stack, "container": x})
    p.skip()
    assert p("container.release", {"container": c}) == {"container": c, "released": True}
    assert p.tags() == [f"{c}:willMoveToParent", f"{b}:viewWillAppear", f"{c}:viewWillDisappear",
                        f"{b}:viewDidAppear", f"{c}:viewDidDisappear", f"{c}:didMoveToParent", f"{c}:deinit"]
    p("container.release", {"container": a})  # covered: already disappeared
    assert p.tags() == [f"{a}:willMoveToParent", f"{a}:didMoveToParent", f"{a}:deinit"]
    p("container.release", {"container": fresh})
    assert p.tags() == [f"{fresh}:deinit"]
    assert p("stack.info", {"stack": stack})["containers"] == [b]
    assert p.error("container.info", {"container": c})["code"] == -32002
    s, info = sessions(p)
    child = info["children"][0]["container"]
    err = p.error("container.release", {"container": child})
    assert err["code"] == -32003, err
    assert p.page(s)["children"][0]["container"] == child
    p.assert_balanced()


# ---------------------------------------------------------------------------------------------------
# docs/pools.md prerender pools


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
                                        f"{w}:viewWillAppear", f"{below}:viewWillDisappear"]
    assert [e["animated"] for e in lifecycle(events) if e["event"] in APPEARANCE] == [False, False, True, True]
    p("clock.advance", {"ms": 299})
    assert p.tags() == []
    p("clock.advance", {"ms": 1})
    assert p.tags() == [f"{w}:viewDidAppear", f"{w}:didMoveToParent", f"{below}:viewDidDisappear"]
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
                                        f"{c}:viewWillLayoutSubviews", f"{c}:viewDidLayoutSubviews",
                                        f"{c}:viewWillAppear", f"{c}:viewDidAppear", f"{c}:didMoveToParent"]
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
    assert [tag(e) for e in events] == [f"{c}:willMoveToParent", f"{c}:viewWillLayoutSubviews",
                                        f"{c}:viewDidLayoutSubviews", f"{c}:viewWillAppear", f"{c}:viewDidAppear",
                                        f"{c}:didMoveToParent"]
    assert lifecycle(events, c, "viewDidLayoutSubviews")[0]["size"] == {"width": 768, "height": 1024}
    p.assert_balanced()


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


def test_memory_warning_purge_events_go_to_the_caller_and_eager_take_does_not_refill_while_cooling(vhost):
    """docs/pools.md: host.memoryWarning releases every idle pooled container; its events go to the connection that
    ordered it (and observers), not the one that warmed them. After it, an eager pool refills only after the
    5 s cool-down (rpc-schema PoolPolicy: refilling after every take except during the cool-down)."""
    a, b = peer(vhost), peer(vhost)
    observer = peer(vhost, scope="all")
    a("classes.define", {"name": "Feed"})
    a("pool.configure", {"class": "Feed", "depth": 2, "policy": "eager"})
    a("tasks.drain")
    a.skip()
    b("host.memoryWarning")
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


# ---------------------------------------------------------------------------------------------------
# docs/tasks.md task dispatcher


def bring(p: Peer, s: str, phase: str) -> None:
    S = {"session": s}
    if phase in ("dragging", "decelerating"):
        p("page.willBeginDragging", {**S, "offset": 100})
        p("page.didScroll", {**S, "offset": 130})
        if phase == "decelerating":
            p("page.willEndDragging", {**S, "offset": 140, "velocity": 1})
            p("page.didEndDragging", {**S, "offset": 140, "willDecelerate": True})
    else:
        p("page.show", {**S, "index": 3})
    assert p.page(s)["phase"] == phase


def end(p: Peer, s: str, phase: str) -> None:
    S = {"session": s}
    if phase == "dragging":
        p("page.didEndDragging", {**S, "offset": 200, "willDecelerate": False})
    elif phase == "decelerating":
        p("page.didEndDecelerating", {**S, "offset": 200})
    else:
        p("clock.advance", {"ms": 300})
    assert p.page(s)["phase"] == "idle"


@pytest.mark.parametrize("phase", ["dragging", "decelerating", "animating"])
def test_default_tasks_pause_while_any_page_session_tracks(vhost, phase):
    """docs/tasks.md: `default` tasks are paused while any page session (of any connection) is dragging, decelerating or
    animating; tasks.drain leaves them queued; they run once it is at rest."""
    p, other = peer(vhost), peer(vhost)
    s, _ = sessions(other)
    p("classes.define", {"name": "Web"})
    p("showRendered", {"class": "Web"})   # one warm-up queued, default mode
    bring(other, s, phase)
    status = p("tasks.status")
    assert (status["pending"], status["runnable"], status["paused"]) == (1, 0, True), status
    assert p.stats()["sessions"]["pageTracking"] == 1
    assert p("tasks.drain") == {"ran": 0, "pending": 1}
    end(other, s, phase)
    status = p("tasks.status")
    assert (status["runnable"], status["paused"]) == (1, False), status
    assert p("tasks.drain") == {"ran": 1, "pending": 0}
    p.assert_balanced()


def test_default_tasks_pause_while_a_range_session_tracks(vhost):
    """docs/tasks.md: a tracking range session (dragging, decelerating) pauses `default` tasks too."""
    p = peer(vhost)
    p("classes.define", {"name": "Web"})
    r = p("range.create", {"count": 100, "viewport": {"width": 320, "height": 480}})["session"]
    p("showRendered", {"class": "Web"})
    p("range.willBeginDragging", {"session": r})
    assert p("tasks.drain") == {"ran": 0, "pending": 1}
    p("range.willEndDragging", {"session": r, "velocity": 0.5})
    assert p("tasks.status")["paused"] is True
    assert p("tasks.drain")["ran"] == 0
    p("range.didEndDecelerating", {"session": r})
    assert p("tasks.drain") == {"ran": 1, "pending": 0}


def test_tasks_are_fifo_keyed_and_averaged(vhost):
    """docs/tasks.md: idle tasks are keyed (distinct keys), FIFO, in `default` mode for warming; a task kind's running
    average cost is null before it first ran, a number after."""
    p = peer(vhost)
    for n in ("A", "B"):
        p("classes.define", {"name": n})
    p("pool.warm", {"class": "A", "count": 2})
    p("pool.warm", {"class": "B", "count": 1})
    tasks = p("tasks.status")["tasks"]
    assert len(tasks) == 3 and len({t["key"] for t in tasks}) == 3, tasks
    assert all(t["mode"] == "default" and t["avgCostMs"] is None for t in tasks), tasks
    p("tasks.drain")
    order = [e["params"]["class"] for e in p.events() if e["method"] == "pool" and e["params"]["kind"] == "warmed"]
    assert order == ["A", "A", "B"]
    p("pool.warm", {"class": "A", "count": 1})
    [task] = p("tasks.status")["tasks"]
    assert isinstance(task["avgCostMs"], float) and task["avgCostMs"] >= 0, task


def test_template_preloading_is_keyed_a_duplicate_is_queued_once(vhost):
    """docs/tasks.md: idle work (warming, template preloading) is keyed: a duplicate is ignored. Two sections, and then
    a
    second session, asking for the same template class queue one warm-up in all; it waits for tasks.drain."""
    p = peer(vhost)
    p("classes.define", {"name": "Cell"})
    sections = [{"count": 10, "reuseIdentifier": "Cell"}, {"count": 5, "reuseIdentifier": "Cell"}]
    first = p("range.create", {"sections": sections, "viewport": {"width": 320, "height": 480}, "templates": True})
    second = p("range.create", {"sections": sections, "viewport": {"width": 320, "height": 480}, "templates": True})
    assert (first.get("templatesQueued"), second.get("templatesQueued")) == (1, 0), (first, second)
    status = p("tasks.status")
    assert status["pending"] == 1 and status["tasks"][0]["mode"] == "default", status
    assert p("tasks.drain") == {"ran": 1, "pending": 0}
    assert p.pool("Cell")["idle"] == 1


# ---------------------------------------------------------------------------------------------------
# docs/pages.md page sessions: creation


def test_page_create_without_stack_shows_the_initial_page_during_create(vhost):
    """docs/pages.md: a session created without `stack` is on screen at once: its initial page is created, attached,
    loads,
    lays out at the page size and appears (not animated) before the reply."""
    p = peer(vhost)
    s, info = sessions(p, initialIndex=2, width=320, height=480)
    events = p.events()
    c = info["children"][0]["container"]
    assert [tag(e) for e in events] == [f"{c}:init", f"{c}:willMoveToParent", f"{c}:didMoveToParent", *load(c),
                                        f"{c}:viewWillAppear", f"{c}:viewDidAppear"]
    assert all(e["page"] == {"session": s, "index": 2} for e in lifecycle(events))
    assert lifecycle(events, c, "willMoveToParent")[0]["parent"] == s
    assert lifecycle(events, c, "viewDidLayoutSubviews")[0]["size"] == {"width": 320, "height": 480}
    assert all(e["animated"] is False for e in lifecycle(events) if e["event"] in APPEARANCE)
    assert (info["index"], info["offset"], info["visible"], info["phase"]) == (2, 640, True, "idle"), info
    assert info["children"] == [{"index": 2, "container": c, "state": "appeared"}]
    assert p.info(c)["parent"] == {"kind": "page", "id": s, "index": 2}
    p.assert_balanced()


def test_page_create_with_pages_or_data_sizes_the_session(vhost):
    """rpc-schema/openrpc.json: page.create {pages: [{class, data?}]} gives each page its class; with `class`, count
    defaults to
    data's length."""
    p = peer(vhost)
    p("classes.define", {"name": "Cover"})
    s, info = sessions(p, **{"class": None, "count": None}, initialIndex=0, pages=[{"class": "Cover", "data": 1}, {"class": "Container"}])
    assert info["count"] == 2
    p("page.show", {"session": s, "index": 1, "animated": False})
    classes = {e["params"]["page"]["index"]: e["params"]["class"] for e in p.events()
               if e["method"] == "lifecycle" and e["params"]["event"] == "init"}
    assert classes == {0: "Cover", 1: "Container"}
    s2 = p("page.create", {"class": "Container", "data": [1, 2, 3, 4], "width": W, "height": 200})
    assert s2["count"] == 4 and s2["index"] == 0


def test_session_in_a_stack_forwards_its_appearance_to_the_current_page_only(vhost):
    """docs/pages.md: with `stack` the session is a container pushed onto it; its appearance (animated) is forwarded to
    the
    current page only; covered, it is not visible."""
    p = peer(vhost)
    stack = p("stack.create", {"width": W, "height": 200})["stack"]
    s, info = sessions(p, stack=stack)
    own = info["container"]
    assert own and p("stack.info", {"stack": stack})["top"] == own
    cur = info["children"][0]["container"]
    p("page.show", {"session": s, "index": 2, "animated": False})
    p("page.show", {"session": s, "index": 1, "animated": False})
    other = [c["container"] for c in p.page(s)["children"] if c["index"] == 2][0]
    top = p("container.create", {"class": "Container"})["container"]
    p.skip()
    p("stack.push", {"stack": stack, "container": top, "animated": True})
    events = p.events()
    assert [tag(e) for e in events if e["params"]["container"] != top] == [f"{own}:viewWillDisappear",
                                                                          f"{cur}:viewWillDisappear"]
    assert lifecycle(events, cur, "viewWillDisappear")[0]["animated"] is True
    assert p.page(s)["visible"] is False
    p("clock.advance", {"ms": 300})
    tags = p.tags()
    assert f"{cur}:viewDidDisappear" in tags and not [t for t in tags if t.startswith(other + ":")], tags
    p("stack.pop", {"stack": stack})
    tags = p.tags()
    assert f"{cur}:viewWillAppear" in tags and f"{cur}:viewDidAppear" in tags, tags
    assert not [t for t in tags if t.startswith(other + ":")], tags
    assert_at_rest(p, s, 1)
    p.assert_balanced()


def test_session_on_a_hidden_stack_shows_nothing_until_the_stack_is_shown(vhost):
    """docs/pages.md/docs/lifecycle.md: a session pushed onto a hidden stack is not on screen: no child loads or
    appears, drags are
    -32003 (phase offscreen), page.show changes the page with no appearance calls; shown, the current page
    loads and appears."""
    p = peer(vhost)
    stack = p("stack.create", {"width": W, "height": 200, "hidden": True})["stack"]
    s, info = sessions(p, stack=stack)
    assert info["visible"] is False and info["children"] == []
    assert not [t for t in p.tags() if ":loadView" in t]
    err = p.error("page.willBeginDragging", {"session": s, "offset": 100})
    assert err["code"] == -32003 and err["data"]["phase"] == "offscreen", err
    p("page.show", {"session": s, "index": 3})
    tags = p.tags()
    assert not [t for t in tags if t.split(":")[1] in APPEARANCE + ("loadView",)], tags
    assert p.page(s)["index"] == 3 and p.page(s)["phase"] == "idle"
    p("stack.setHidden", {"stack": stack, "hidden": False})
    assert p.hooks(s) == ["willAppear 3", "didAppear 3"]
    assert_at_rest(p, s, 3)
    p.assert_balanced()


# ---------------------------------------------------------------------------------------------------
# docs/pages.md: the GYPageViewController article's tables


def test_seed001_non_interactive_1_to_0_with_300ms(vhost):
    """The GYPageViewController article / docs/pages.md: willAppear 0, willDisappear 1, (300 ms), didAppear 0,
    didDisappear 1; page events
    willTransition {1, 0} then didTransition {1, 0, completed}; index stays 1 while animating."""
    p = peer(vhost)
    s, _ = sessions(p)
    p("clock.advance", {"ms": 1000})
    p.skip()
    info = p("page.show", {"session": s, "index": 0})
    assert (info["phase"], info["index"]) == ("animating", 1), info
    events = p.events()
    assert [f"{SHORT[e['event']]} {e['page']['index']}" for e in lifecycle(events) if e["event"] in SHORT] == \
        ["willAppear 0", "willDisappear 1"]
    assert [tag(e) for e in events if e["method"] == "page"] == ["page:willTransition:1->0"]
    p("clock.advance", {"ms": 299.9})
    assert p.events() == []
    p("clock.advance", {"ms": 0.1})
    events = p.events()
    assert [f"{SHORT[e['event']]} {e['page']['index']}" for e in lifecycle(events) if e["event"] in SHORT] == \
        ["didAppear 0", "didDisappear 1"]
    assert all(e["params"]["t"] == 1300 for e in events)
    assert [tag(e) for e in events if e["method"] == "page"] == ["page:didTransition:1->0:True"]
    assert_at_rest(p, s, 0)
    p.assert_balanced()


SEED001 = {
    "interactive 1->0": ([100, 80, 30], 0, ["willAppear 0", "willDisappear 1", "didAppear 0", "didDisappear 1"]),
    "1 toward 2 then back to 0": ([100, 120, 160, 90, 40], 0,
                                  ["willAppear 2", "willDisappear 1", "willAppear 0", "willDisappear 2",
                                   "didDisappear 2", "didAppear 0", "didDisappear 1"]),
    "1->2->0->2": ([100, 120, 80, 130, 170], 200,
                   ["willAppear 2", "willDisappear 1", "willAppear 0", "willDisappear 2", "didDisappear 2",
                    "willAppear 2", "willDisappear 0", "didDisappear 0", "didAppear 2", "didDisappear 1"]),
}


@pytest.mark.parametrize("cache", [None, {"mode": "reuse"}], ids=["limit3", "reuse"])
@pytest.mark.parametrize("decelerate", [True, False], ids=["decelerating", "no-deceleration"])
@pytest.mark.parametrize("case", list(SEED001))
def test_seed001_interactive_table(vhost, case, decelerate, cache):
    """The GYPageViewController article's interactive tables, exactly (docs/pages.md: "These rules reproduce the
    GYPageViewController article's tables exactly"), whether
    the session comes to rest by didEndDecelerating or by didEndDragging {willDecelerate: false}, whatever the
    cache policy."""
    p = peer(vhost)
    s, _ = sessions(p, cache=cache)
    p.skip()
    offsets, rest, table = SEED001[case]
    swipe(p, s, offsets, rest, decelerate)
    assert p.hooks(s) == table
    assert_at_rest(p, s, round(rest / W))
    p.assert_balanced()


def test_page_events_of_an_interaction_announce_every_guess(vhost):
    """docs/pages.md + rpc-schema PageEvent: willTransition {from, to} for each new guess (from the previous guess, or
    the
    current page), didTransition {from, to, completed} at rest; shapes as documented."""
    p = peer(vhost)
    s, _ = sessions(p)
    p.skip()
    swipe(p, s, [100, 120, 90, 40], 0)
    events = [e["params"] for e in p.events() if e["method"] == "page"]
    assert [(e["kind"], e["from"], e["to"], e.get("completed")) for e in events] == [
        ("willTransition", 1, 2, None), ("willTransition", 2, 0, None), ("didTransition", 1, 0, True)]
    assert all(set(e) == {"seq", "t", "session", "kind", "from", "to"} for e in events[:2])
    assert set(events[2]) == {"seq", "t", "session", "kind", "from", "to", "completed"}
    assert all(e["session"] == s for e in events)
    swipe(p, s, [0, 30], 0)  # cancelled: back on 0
    events = [e["params"] for e in p.events() if e["method"] == "page"]
    assert [(e["kind"], e["from"], e["to"], e.get("completed")) for e in events] == [
        ("willTransition", 0, 1, None), ("didTransition", 0, 1, False)]


def test_a_drag_caught_while_decelerating_backwards_is_one_interaction(vhost):
    """docs/pages.md (the GYPageViewController article case 4 made regular): a drag that begins while decelerating
    continues the interaction, the
    origin re-anchored to the page boundary behind the motion; no unbalanced call, one didAppear, every
    willDisappear answered, at rest exactly the current page appeared."""
    p = peer(vhost)
    s, _ = sessions(p, initialIndex=3)
    S = {"session": s}
    p.skip()
    p("page.willBeginDragging", {**S, "offset": 300})
    p("page.didScroll", {**S, "offset": 260})                          # toward 2
    p("page.willEndDragging", {**S, "offset": 250, "velocity": -2})
    p("page.didEndDragging", {**S, "offset": 250, "willDecelerate": True})
    p("page.didScroll", {**S, "offset": 235})                          # decelerating: recorded only
    p("page.willBeginDragging", {**S, "offset": 230})                  # caught: origin back to 300
    assert p.page(s)["phase"] == "dragging"
    p("page.didScroll", {**S, "offset": 180})                          # on toward 1
    p("page.willEndDragging", {**S, "offset": 150, "velocity": -2})
    p("page.didEndDragging", {**S, "offset": 150, "willDecelerate": True})
    p("page.didEndDecelerating", {**S, "offset": 100})
    hooks = p.hooks(s)
    assert hooks == ["willAppear 2", "willDisappear 3", "willAppear 1", "willDisappear 2", "didDisappear 2",
                     "didAppear 1", "didDisappear 3"], hooks
    assert_at_rest(p, s, 1)
    p.assert_balanced()


def test_edge_bounces_call_nothing(vhost):
    """docs/pages.md: a guess out of range makes no call: bouncing before page 0 or past the last page changes
    nothing."""
    p = peer(vhost)
    s, _ = sessions(p, initialIndex=0, count=3)
    p.skip()
    swipe(p, s, [0, -40, -90], 0)
    p("page.show", {"session": s, "index": 2, "animated": False})
    p.skip()
    swipe(p, s, [200, 260, 300], 200, decelerate=False)
    assert p.hooks(s) == []
    assert_at_rest(p, s, 2)
    p.assert_balanced()


def test_show_during_an_animation_to_the_same_page_completes_it_and_does_nothing_more(vhost):
    """docs/pages.md: a new page.show during an animation first completes the running one (its end calls are delivered);
    showing the current page then does nothing."""
    p = peer(vhost)
    s, _ = sessions(p)
    p.skip()
    p("page.show", {"session": s, "index": 2})
    p("clock.advance", {"ms": 100})
    info = p("page.show", {"session": s, "index": 2})
    assert (info["index"], info["phase"]) == (2, "idle"), info
    assert p.hooks(s) == ["willAppear 2", "willDisappear 1", "didAppear 2", "didDisappear 1"]
    p("clock.advance", {"ms": 1000})
    assert p.events() == []
    assert_at_rest(p, s, 2)
    p.assert_balanced()


@pytest.mark.parametrize("phase", ["dragging", "decelerating"])
def test_show_during_a_drag_or_deceleration_is_invalid_state(vhost, phase):
    """rpc-schema page.show: during a drag or deceleration it is -32003 (data.call page.show, data.phase), and
    nothing changes."""
    p = peer(vhost)
    s, _ = sessions(p)
    bring(p, s, phase)
    before = p.page(s)
    p.skip()
    err = p.error("page.show", {"session": s, "index": 4})
    assert err["code"] == -32003 and err["data"]["call"] == "page.show" and err["data"]["phase"] == phase, err
    assert p.events() == [] and p.page(s) == before


# ---------------------------------------------------------------------------------------------------
# docs/pages.md: cache, reuse, memory warnings


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
        ["willMoveToParent", "didMoveToParent", "configure", "viewWillAppear", "viewDidAppear"]
    p("page.show", {"session": s, "index": 1})
    miss = [e["params"] for e in p.events() if e["method"] == "pool"]
    assert [(m["kind"], m.get("session"), m.get("index"), "container" in m) for m in miss] == [("miss", s, 1, False)]
    assert p("tasks.drain") == {"ran": 0, "pending": 1}
    p("clock.advance", {"ms": 300})
    assert p("tasks.drain") == {"ran": 1, "pending": 0}
    p.assert_balanced()


# ---------------------------------------------------------------------------------------------------
# docs/pages.md: info, bad input, destroy


def test_page_info_shape(vhost):
    """rpc-schema/openrpc.json: page.info -> {index, count, children: [{index, container, state}], ...} (rpc-schema
    PageInfo)."""
    p = peer(vhost)
    s, _ = sessions(p)
    p("page.show", {"session": s, "index": 3})
    info = p.page(s)
    assert set(info) == {"session", "index", "count", "width", "height", "phase", "offset", "guess", "visible",
                         "cache", "container", "children", "deferred", "reuseQueue"}, info
    assert (info["index"], info["count"], info["phase"], info["cache"], info["container"]) == (1, 5, "animating",
                                                                                             {"limit": 3}, None)
    assert [(c["index"], c["state"]) for c in info["children"]] == [(1, "disappearing"), (3, "appearing")]
    assert all(set(c) == {"index", "container", "state"} for c in info["children"])
    jsonschema.Draft7Validator({"$ref": DOC_URI + "#/components/schemas/PageInfo"}, registry=REGISTRY).validate(info)


def test_bad_page_inputs_are_rejected_with_data_and_change_nothing(vhost):
    """docs/protocol.md/rpc-schema/openrpc.json: bad params -> -32602 naming the field (offset bounds are -w and count*w
    inclusive), an unknown or
    another connection's session -> -32002, NaN is not JSON (-32700); nothing is created or changed."""
    p, other = peer(vhost), peer(vhost)
    s, _ = sessions(p)
    S = {"session": s}
    before_stats = p.stats()
    before = p.page(s)
    p.skip()
    bad = [
        ("page.create", {"class": "Container", "count": 3, "width": 0, "height": 10}, -32602, "width"),
        ("page.create", {"class": "Container", "count": 3, "width": 10, "height": -1}, -32602, "height"),
        ("page.create", {"class": "Container", "count": 3, "width": 10, "height": 10, "initialIndex": 3}, -32602,
         "initialIndex"),
        ("page.create", {"class": "Container", "count": 3, "width": 10, "height": 10, "cache": {"limit": 0}},
         -32602, "cache.limit"),
        ("page.create", {"class": "Nope", "count": 3, "width": 10, "height": 10}, -32001, "class"),
        ("page.create", {"class": "Container", "count": 3, "width": 10, "height": 10, "stack": "s-404"}, -32002,
         "stack"),
        ("page.show", {**S, "index": 5}, -32602, "index"),
        ("page.show", {**S, "index": -1}, -32602, "index"),
        ("page.willBeginDragging", {**S, "offset": -100.5}, -32602, "offset"),
        ("page.willBeginDragging", {**S, "offset": 500.5}, -32602, "offset"),
        ("page.didScroll", {**S, "offset": -1e9}, -32602, "offset"),
        ("page.show", {"session": "p-404", "index": 0}, -32002, "session"),
        ("page.info", {"session": "p-404"}, -32002, "session"),
    ]
    wrong = []
    for method, params, code, path in bad:
        reply = p.conn.call(method, params)
        err = reply.get("error")
        if not err or err["code"] != code or err["data"].get("path") != path or "kind" not in err["data"]:
            wrong.append(f"{method} {params}: expected {code} at {path}, got {reply}")
    assert not wrong, "\n".join(wrong)
    err = other.error("page.show", {"session": s, "index": 0})
    assert err["code"] == -32002 and err["data"]["id"] == s, err
    p.conn.send_raw(b'{"jsonrpc":"2.0","id":9001,"method":"page.didScroll","params":{"session":"' + s.encode()
                    + b'","offset":NaN}}\n')
    reply = p.conn.read_reply(9001)
    assert reply.get("error", {}).get("code") == -32700, reply
    p("page.didScroll", {**S, "offset": -100})  # the bounds themselves are accepted (recorded at rest)
    p("page.didScroll", {**S, "offset": 500})
    p("page.didScroll", {**S, "offset": 100})
    assert p.events() == []
    assert p.page(s) == before
    after = p.stats()
    assert after["sessions"] == before_stats["sessions"] and after["containers"] == before_stats["containers"]


def test_page_destroy_mid_drag_tears_every_child_down_balanced(vhost):
    """rpc-schema page.destroy: every attached child disappears if on screen and is released
    (willMoveToParent(null), didMoveToParent(null), deinit); tracking ends; the id is unknown afterwards."""
    p = peer(vhost)
    s, _ = sessions(p)
    S = {"session": s}
    p("page.willBeginDragging", {**S, "offset": 100})
    p("page.didScroll", {**S, "offset": 130})
    kids = {c["index"]: c["container"] for c in p.page(s)["children"]}
    p.skip()
    assert p("page.destroy", S) == {"session": s, "destroyed": True}
    events = p.events()
    assert [e["event"] for e in lifecycle(events, kids[1])] == ["viewDidDisappear", "willMoveToParent",
                                                                "didMoveToParent", "deinit"]
    assert [e["event"] for e in lifecycle(events, kids[2])] == ["viewWillDisappear", "viewDidDisappear",
                                                                "willMoveToParent", "didMoveToParent", "deinit"]
    stats = p.stats()
    assert stats["sessions"]["page"] == 0 and stats["sessions"]["pageTracking"] == 0 and stats["containers"]["total"] == 0
    assert p("tasks.status")["paused"] is False
    assert p.error("page.info", S)["code"] == -32002
    p.assert_balanced()


def test_page_destroy_mid_animation_delivers_the_animation_first(vhost):
    """rpc-schema page.destroy: a running animation completes (its end calls are delivered), then every child
    disappears if on screen and is released."""
    p = peer(vhost)
    s, _ = sessions(p)
    p("page.show", {"session": s, "index": 2})
    kids = {c["index"]: c["container"] for c in p.page(s)["children"]}
    p.skip()
    p("page.destroy", {"session": s})
    tags = p.tags()
    one, two = kids[1], kids[2]
    assert tags[:3] == [f"{two}:viewDidAppear", f"{one}:viewDidDisappear", "page:didTransition:1->2:True"], tags
    assert [t for t in tags if t.startswith(two + ":")][1:] == [f"{two}:viewWillDisappear", f"{two}:viewDidDisappear",
                                                               f"{two}:willMoveToParent", f"{two}:didMoveToParent",
                                                               f"{two}:deinit"], tags
    assert p("host.stats")["timers"] == 0
    p("clock.advance", {"ms": 1000})
    assert p.tags() == []
    p.assert_balanced()


def test_disconnect_tears_a_session_in_a_stack_down_balanced(vhost):
    """docs/protocol.md: when the owner disconnects its objects are torn down with correct lifecycle (disappear, then
    deinit),
    a page session in a stack mid-drag included; observers see it; nothing is left."""
    observer = peer(vhost, scope="all")
    owner = peer(vhost)
    stack = owner("stack.create", {"width": W, "height": 200})["stack"]
    s, _ = sessions(owner, stack=stack)
    owner("page.willBeginDragging", {"session": s, "offset": 100})
    owner("page.didScroll", {"session": s, "offset": 130})
    observer("host.ping")
    alive = {e["params"]["container"] for e in observer.events() if e["method"] == "lifecycle"}
    assert len(alive) == 3  # the session's container, pages 1 and 2
    owner.conn.close()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        pump(observer, 0.1)
        if {p_["container"] for p_ in lifecycle(observer.conn.events, event="deinit")} >= alive:
            break
    observer._feed()
    assert {p_["container"] for p_ in lifecycle(observer.conn.events, event="deinit")} >= alive
    assert not observer.model.errors and not observer.model.unbalanced, (observer.model.errors, observer.model.unbalanced)
    stats = observer.stats()
    assert stats["containers"]["total"] == 0 and stats["sessions"]["page"] == 0, stats
    assert stats["unbalancedTransitions"] == 0 and observer("tasks.status")["paused"] is False


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


def test_a_guess_back_on_the_current_page_is_kept_balanced(vhost):
    """docs/pages.md/docs/lifecycle.md: a drag whose origin is mid-page crosses back onto the current page's side and
    out again: the
    GYPageViewController's code would begin the same transitions twice (unbalanced); the host must make no unbalanced
    call and
    settle cleanly, cancelled or not."""
    p = peer(vhost)
    s, _ = sessions(p)
    p.skip()
    swipe(p, s, [130, 150, 120, 160, 110], 100)
    assert p.hooks(s) == ["willAppear 2", "willDisappear 1", "willAppear 1", "didAppear 1", "willDisappear 2",
                          "didDisappear 2"]
    assert_at_rest(p, s, 1)
    swipe(p, s, [130, 150, 120, 160, 190], 200, decelerate=False)
    assert p.hooks(s) == ["willAppear 2", "willDisappear 1", "didAppear 2", "didDisappear 1"]
    assert_at_rest(p, s, 2)
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


def test_page_events_go_to_the_owner_and_observers_only(vhost):
    """docs/protocol.md/docs/pages.md: page events go to the session's owner (subscribed) and `scope: all` observers,
    not to other
    connections."""
    owner, stranger = peer(vhost), peer(vhost)
    observer = peer(vhost, scope="all")
    s, _ = sessions(owner)
    owner("page.show", {"session": s, "index": 2, "animated": False})
    stranger("host.ping")
    observer("host.ping")
    assert [t for t in owner.tags() if t.startswith("page:")] == ["page:willTransition:1->2",
                                                                   "page:didTransition:1->2:True"]
    assert stranger.tags() == []
    assert [t for t in observer.tags() if t.startswith("page:")] == ["page:willTransition:1->2",
                                                                      "page:didTransition:1->2:True"]


def test_container_info_reports_state_appearance_and_parent(vhost):
    """rpc-schema/openrpc.json container.info: fresh (view not loaded) or the appearance state, viewLoaded, last layout
    size, parent
    (null, a stack, a page session at an index), offscreen false for the caller's containers."""
    p = peer(vhost)
    stack = p("stack.create", {"width": 320, "height": 480})["stack"]
    c = p("container.create", {"class": "Container"})["container"]
    info = p.info(c)
    assert (info["state"], info["appearance"], info["viewLoaded"], info["size"], info["parent"], info["offscreen"]) \
        == ("fresh", "disappeared", False, None, None, False), info
    p("stack.push", {"stack": stack, "container": c, "animated": True})
    info = p.info(c)
    assert (info["state"], info["appearance"], info["viewLoaded"], info["size"], info["parent"]) == \
        ("appearing", "appearing", True, {"width": 320, "height": 480}, {"kind": "stack", "id": stack}), info
    p("clock.advance", {"ms": 300})
    assert p.info(c)["state"] == "appeared"
    p("stack.pop", {"stack": stack})
    info = p.info(c)
    assert (info["state"], info["parent"]) == ("disappeared", None), info
    s, pinfo = sessions(p)
    child = pinfo["children"][0]["container"]
    assert p.info(child)["parent"] == {"kind": "page", "id": s, "index": 1}


# ---------------------------------------------------------------------------------------------------
# docs/tasks.md with a real clock: the dispatcher runs by itself, before the loop waits


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_real_clock_paused_tasks_wait_without_a_busy_loop_then_run_at_rest(start_host):
    """docs/tasks.md: with a real clock idle tasks run by themselves; `default` ones pause while a session tracks, and
    the
    idle handle keeps the loop turning only while runnable tasks exist (no busy loop when they are paused);
    at rest the paused warm-up runs without any further request."""
    host = start_host()
    p = peer(host)
    p("classes.define", {"name": "Web"})
    s, _ = sessions(p)
    p("page.willBeginDragging", {"session": s, "offset": 100})
    p("showRendered", {"class": "Web"})
    status = p("tasks.status")
    assert (status["automatic"], status["pending"], status["runnable"], status["paused"]) == (True, 1, 0, True)
    before = cpu_seconds(host.pid)
    pump(p, 0.6)
    used = cpu_seconds(host.pid) - before
    assert used < 0.15, f"the host burned {used:.2f} s of CPU in 0.6 s with only paused tasks queued"
    assert p("tasks.status")["pending"] == 1
    assert not [e for e in p.conn.events if e["method"] == "pool" and e["params"]["kind"] == "warmed"]
    p("page.didEndDragging", {"session": s, "offset": 100, "willDecelerate": False})
    deadline = time.monotonic() + 5
    while not [e for e in p.conn.events if e["method"] == "pool" and e["params"]["kind"] == "warmed"]:
        assert time.monotonic() < deadline, "the paused warm-up never ran after the session came to rest"
        pump(p, 0.1)
    assert p("tasks.status")["pending"] == 0


def test_real_clock_costly_tasks_run_one_per_pass_cheap_ones_share_passes(start_host):
    """docs/tasks.md: each pass runs tasks until the 4 ms slice is spent, always at least one; a task whose average cost
    will not fit waits for the next pass: 3 ms warm-ups run one per pass, cheap ones share passes."""
    host = start_host()
    p = peer(host, topics=("pool",))
    p("classes.define", {"name": "Slow", "hooks": {"viewDidLoad": {"costMs": 3}}})
    p("classes.define", {"name": "Cheap"})

    def run(cls: str, n: int) -> int:
        passes = p("tasks.status")["passes"]
        p.skip()
        p("pool.warm", {"class": cls, "count": n})
        deadline = time.monotonic() + 10
        while len([e for e in p.events() if e["params"]["kind"] == "warmed"]) < n:
            assert time.monotonic() < deadline
            pump(p, 0.05)
            p.mark = 0
        p.skip()
        return p("tasks.status")["passes"] - passes

    assert run("Slow", 6) >= 5   # at most two in the first pass (no average yet), then one per pass
    assert run("Cheap", 40) < 30


# ---------------------------------------------------------------------------------------------------
# interleaved flows and edge cases


def test_page_show_while_the_session_is_being_covered_settles_the_old_page(vhost):
    """docs/lifecycle.md "Every flow the host drives itself must produce zero [unbalanced calls]" and docs/pages.md's
    rest invariant
    (every child but the current one `disappeared`). A session in a stack is covered by an animated push (its
    container and current page get viewWillDisappear), and during those 300 ms the client calls page.show.
    When the push animation ends, no unbalanced call is made (no `unbalancedAppearanceTransition`) and the old
    page finishes disappearing: both the old page and the new current page end `disappeared`."""
    p = peer(vhost)
    stack = p("stack.create", {"width": W, "height": 200})["stack"]
    s, _ = sessions(p, stack=stack, initialIndex=0)
    top = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": stack, "container": top, "animated": True})
    p("page.show", {"session": s, "index": 2})
    p("clock.advance", {"ms": 300})
    p._feed()
    states = {c["index"]: c["state"] for c in p.page(s)["children"]}
    assert p.model.unbalanced == [], p.model.unbalanced
    assert states == {0: "disappeared", 2: "disappeared"}, states


def test_page_show_while_the_session_is_being_revealed_is_balanced(vhost):
    """docs/lifecycle.md: the host's own flows must make no unbalanced call. A session in a stack is revealed by an
    animated
    pop (its current page gets viewWillAppear, forwarded); during those 300 ms page.show {animated: false} moves
    to another page (the old page: willDisappear/didDisappear, the new one willAppear/didAppear). When the pop
    ends, no unbalanced call is made (unbalancedTransitions stays 0) and the session is at rest on the new
    page."""
    p = peer(vhost)
    stack = p("stack.create", {"width": W, "height": 200})["stack"]
    s, _ = sessions(p, stack=stack)
    top = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": stack, "container": top})
    p("stack.pop", {"stack": stack, "animated": True})
    p("page.show", {"session": s, "index": 3, "animated": False})
    p("clock.advance", {"ms": 300})
    p._feed()
    assert p.model.unbalanced == [], p.model.unbalanced
    assert p.stats()["unbalancedTransitions"] == 0
    assert_at_rest(p, s, 3)


def test_a_swipe_while_the_session_is_being_revealed_is_balanced(vhost):
    """docs/lifecycle.md/docs/pages.md: same as above with a drag: a swipe from page 1 to 2 during the 300 ms of the pop
    that reveals the
    session settles (didAppear 2); when the pop ends, no unbalanced call is made (unbalancedTransitions stays 0)
    and the session is at rest on page 2."""
    p = peer(vhost)
    stack = p("stack.create", {"width": W, "height": 200})["stack"]
    s, _ = sessions(p, stack=stack)
    top = p("container.create", {"class": "Container"})["container"]
    p("stack.push", {"stack": stack, "container": top})
    p("stack.pop", {"stack": stack, "animated": True})
    swipe(p, s, [100, 150], 200, decelerate=False)
    p("clock.advance", {"ms": 300})
    p._feed()
    assert p.model.unbalanced == [], p.model.unbalanced
    assert p.stats()["unbalancedTransitions"] == 0
    assert_at_rest(p, s, 2)


def test_session_container_events_all_name_their_session(vhost):
    """rpc-schema LifecycleEvent.page: "Set when the container belongs to a page session: ... or the session's own
    container in a stack (`session` only)". Every lifecycle event of the session's own container (class
    PageViewController), from its `init` (page.create) to its final willMoveToParent / didMoveToParent / deinit
    (page.destroy), carries `page: {session}`, so a client can tell they belong to the session."""
    p = peer(vhost)
    stack = p("stack.create", {"width": W, "height": 200})["stack"]
    s, info = sessions(p, stack=stack)
    own = info["container"]
    p("page.destroy", {"session": s})
    mine = [e for e in lifecycle(p.events(), own)]
    assert mine and mine[0]["event"] == "init" and mine[-1]["event"] == "deinit"
    missing = [e["event"] for e in mine if e.get("page") != {"session": s}]
    assert not missing, f"events of {own} without page {{session: {s}}}: {missing}"


def test_rest_on_a_page_other_than_the_guess_is_announced(vhost):
    """docs/pages.md + rpc-schema PageEvent: willTransition {from, to} "when a page starts coming in"; didTransition
    {from,
    to, completed}: "`to` the page the transition headed for, `completed` whether the session ended on `to`".
    A drag from 1 toward 2 (willTransition 1->2) released so that it comes to rest on page 0 (round(offset / w) is
    neither the old page nor the guess): page 0 coming in is announced by a willTransition naming it, as when no
    guess was made, and every didTransition names a page some willTransition announced, with `completed` true
    only for the one to page 0."""
    p = peer(vhost)
    s, _ = sessions(p)
    S = {"session": s}
    p.skip()
    p("page.willBeginDragging", {**S, "offset": 100})
    p("page.didScroll", {**S, "offset": 160})
    p("page.willEndDragging", {**S, "offset": 40, "velocity": -3})
    p("page.didEndDragging", {**S, "offset": 40, "willDecelerate": False})
    events = [e["params"] for e in p.events() if e["method"] == "page"]
    announced = {e["to"] for e in events if e["kind"] == "willTransition"}
    assert p.page(s)["index"] == 0
    for d in (e for e in events if e["kind"] == "didTransition"):
        assert d["to"] in announced, f"didTransition to {d['to']} was never announced by a willTransition: {events}"
        assert d["completed"] == (d["to"] == 0), events
    assert 0 in announced, f"page 0 came in without a willTransition naming it: {events}"


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
            assert others == [f"{below}:viewWillAppear~", f"{below}:viewDidAppear~"], tags
        else:
            assert others == [] and c == below, tags
    assert p("host.stats")["unbalancedTransitions"] == 0


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


@pytest.mark.parametrize("how", ["container.release", "stack.destroy"])
def test_releasing_a_sessions_own_container_leaves_no_zombie_session(vhost, how):
    """Contract silent; what a UIKit user would expect. rpc-schema container.release refuses a page session's
    child (-32003, "destroy the session instead"). For the session's own container (class PageViewController),
    container.release either refuses likewise (-32003, the session and its container untouched) or destroys the
    session with its container; stack.destroy destroys the session with it. A session never outlives its
    container: page.info never names a dead container, and no session or container (children included) is left
    behind."""
    p = peer(vhost)
    stack = p("stack.create", {"width": W, "height": 200})["stack"]
    s, info = sessions(p, stack=stack)
    own = info["container"]
    if how == "container.release":
        reply = p.conn.call("container.release", {"container": own})
        if "error" in reply:
            assert reply["error"]["code"] == -32003
            assert p.page(s)["container"] == own and p.info(own)["parent"] == {"kind": "stack", "id": stack}
            return
    else:
        p("stack.destroy", {"stack": stack})
    reply = p.conn.call("page.info", {"session": s})
    if "result" in reply:
        named = reply["result"]["container"]
        assert named is None or "result" in p.conn.call("container.info", {"container": named}), \
            f"session {s} still names its released container {named}: {reply['result']}"
    stats = p.stats()
    assert stats["sessions"]["page"] == 0 and stats["containers"]["total"] == 0, stats
