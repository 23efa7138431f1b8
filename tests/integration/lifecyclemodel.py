"""Helpers shared by the lifecycle, stack, pool, task and page test files: connections that watch their
events and check every appearance hook against docs/lifecycle.md's table, the page-session gestures, and
the tags the tests compare (see grhost.tag).

The lifecycle, pool, task and page test files (test_lifecycle_*.py, test_pages_*.py, test_pools.py, test_tasks.py,
test_show_rendered.py): every expected sequence is worked out by hand from rpc-schema/openrpc.json and docs/
(lifecycle.md, pools.md, tasks.md, pages.md) and the articles they name (GYPageViewController's lifecycle tables
and cache rules, MJianshu's reuse queue, the prerendering article's pools), not from what the host prints. Each
test starts its own `greenroom serve --clock virtual` (time moves only by `clock.advance`, idle tasks run only on
`tasks.drain`) unless it says otherwise, so every run is identical; every read is bounded. The page tests feed
each lifecycle event through docs/lifecycle.md's four-state table and require zero
`unbalancedAppearanceTransition`.

Events are written as compact tags, in the order they arrive (grhost.tag):

    "c-2:viewDidLoad~"     lifecycle event `viewDidLoad` of c-2, offscreen (~), "!" when the hook failed
    "pool:warmed:c-2"      pool event of kind `warmed` about c-2 ("pool:purged" has no container)
    "willAppear 0"         (page sessions) an appearance hook of the child on page 0, as the GYPageViewController
                           article writes them
"""

from __future__ import annotations

import json
import time

from grhost import REPO, EventCursor, LineConn, tag
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7


APPEARANCE = ("viewWillAppear", "viewDidAppear", "viewWillDisappear", "viewDidDisappear")


SHORT = {"viewWillAppear": "willAppear", "viewDidAppear": "didAppear",
         "viewWillDisappear": "willDisappear", "viewDidDisappear": "didDisappear"}


# docs/lifecycle.md's table: (state, call) -> (next state, hook). Every other pair is unbalanced.
TABLE = {
    ("disappeared", "beginAppearance(true)"): ("appearing", "viewWillAppear"),
    ("disappearing", "beginAppearance(true)"): ("appearing", "viewWillAppear"),
    ("appearing", "beginAppearance(false)"): ("disappearing", "viewWillDisappear"),
    ("appeared", "beginAppearance(false)"): ("disappearing", "viewWillDisappear"),
    ("appearing", "endAppearance"): ("appeared", "viewDidAppear"),
    ("disappearing", "endAppearance"): ("disappeared", "viewDidDisappear"),
}


# hook -> the states it may run from
HOOK_FROM = {hook: {s for (s, _), (_, h) in TABLE.items() if h == hook} for hook in APPEARANCE}


HOOK_TO = {hook: nxt for (_, _), (nxt, hook) in TABLE.items()}


DOC = json.loads((REPO / "rpc-schema" / "openrpc.json").read_text())


DOC_URI = "urn:greenroom:openrpc"


REGISTRY = Registry().with_resource(DOC_URI, Resource(contents=DOC, specification=DRAFT7))


W = 100.0  # page width used by most page tests: page i sits at offset i * W


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


SEED001 = {
    "interactive 1->0": ([100, 80, 30], 0, ["willAppear 0", "willDisappear 1", "didAppear 0", "didDisappear 1"]),
    "1 toward 2 then back to 0": ([100, 120, 160, 90, 40], 0,
                                  ["willAppear 2", "willDisappear 1", "willAppear 0", "willDisappear 2",
                                   "didDisappear 2", "didAppear 0", "didDisappear 1"]),
    "1->2->0->2": ([100, 120, 80, 130, 170], 200,
                   ["willAppear 2", "willDisappear 1", "willAppear 0", "willDisappear 2", "didDisappear 2",
                    "willAppear 2", "willDisappear 0", "didDisappear 0", "didAppear 2", "didDisappear 1"]),
}


# docs/lifecycle.md: hook -> (states it may run from, state after). Anything else is unbalanced.
HOOK_TABLE = {
    "viewWillAppear": ({"disappeared", "disappearing"}, "appearing"),
    "viewWillDisappear": ({"appearing", "appeared"}, "disappearing"),
    "viewDidAppear": ({"appearing"}, "appeared"),
    "viewDidDisappear": ({"disappearing"}, "disappeared"),
}


class PagePeer(EventCursor):
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
            elif hook in HOOK_TABLE:
                before = self.state.get(c)
                if before is not None and before not in HOOK_TABLE[hook][0]:
                    self.errors.append(f"{c}:{hook} from {before}")
                self.state[c] = HOOK_TABLE[hook][1]
            elif hook == "unbalancedAppearanceTransition":
                self.errors.append(f"unbalanced: {p}")
            elif hook == "deinit":
                self.state.pop(c, None)
        self.fed = len(self.conn.events)

    def hooks(self, page_session: str) -> list[str]:
        """Appearance hooks of `session`'s children since the last look, the GYPageViewController article's way."""
        return hooks_of(self.events(), page_session)

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


def hooks_of(events: list[dict], page_session: str) -> list[str]:
    return [f"{SHORT[e['params']['event']]} {e['params']['page']['index']}" for e in events
            if e["method"] == "lifecycle" and e["params"]["event"] in SHORT
            and e["params"].get("page", {}).get("session") == page_session and "index" in e["params"]["page"]]


def page_peer(host, topics=("lifecycle", "pool", "page"), scope=None) -> PagePeer:
    return PagePeer(host.connect()).subscribe(topics, scope)


def page_session(p: PagePeer, **params) -> str:
    base = {"class": "Container", "count": 5, "width": W, "height": 200, "initialIndex": 1}
    base.update(params)
    return p("page.create", base)["session"]


def drag(p: PagePeer, s: str, offsets: list[float]) -> None:
    p("page.willBeginDragging", {"session": s, "offset": offsets[0]})
    for x in offsets[1:]:
        p("page.didScroll", {"session": s, "offset": x})


def release(p: PagePeer, s: str, rest: float, decelerate: bool = True) -> None:
    if decelerate:
        p("page.willEndDragging", {"session": s, "offset": rest, "velocity": 0.5})
        p("page.didEndDragging", {"session": s, "offset": rest, "willDecelerate": True})
        p("page.didEndDecelerating", {"session": s, "offset": rest})
    else:
        p("page.didEndDragging", {"session": s, "offset": rest, "willDecelerate": False})


def assert_settled(p: PagePeer, s: str, index: int) -> dict:
    """docs/pages.md at rest: exactly the current page is appeared, every other attached child disappeared."""
    info = p.page(s)
    assert (info["phase"], info["index"], info["guess"]) == ("idle", index, None), info
    states = {c["index"]: c["state"] for c in info["children"]}
    assert states.get(index) == "appeared", info
    assert all(st == "disappeared" for i, st in states.items() if i != index), info
    return info


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


def load_and_appear(c: str, offscreen: bool = False) -> list[str]:
    o = "~" if offscreen else ""
    return [f"{c}:{h}{o}" for h in ("loadView", "viewDidLoad", "viewWillLayoutSubviews", "viewDidLayoutSubviews")]
