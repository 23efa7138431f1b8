"""Helpers shared by the lifecycle, stack, pool, task and page test files: connections that watch their
events and check every appearance hook against docs/lifecycle.md's table, the page-session gestures, and
the tags the tests compare (see grhost.tag).

The table, its checker, the short names and the gestures are the ones users get: `greenroom.lifecycle`, the
Python client's lifecycle model (clients/python/src/greenroom/lifecycle.py). What is here is what only these
tests need: raw line connections that feed the shipped checker, the tags, the page-session fixtures.

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

# APPEARANCE, SHORT and TABLE are imported by the test files from here.
from greenroom.lifecycle import APPEARANCE, SHORT, TABLE  # noqa: F401
from greenroom.lifecycle import (AppearanceChecker, assert_page_at_rest, drag_pages, page_calls, release_pages,
                                 swipe_pages)
from grhost import REPO, EventCursor, LineConn, tag
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7


DOC = json.loads((REPO / "rpc-schema" / "openrpc.json").read_text())


DOC_URI = "urn:greenroom:openrpc"


REGISTRY = Registry().with_resource(DOC_URI, Resource(contents=DOC, specification=DRAFT7))


W = 100.0  # page width used by most page tests: page i sits at offset i * W


class Model(AppearanceChecker):
    """docs/lifecycle.md's appearance table, fed with every lifecycle event as it arrives: the shipped checker,
    with `errors` (the hooks it does not allow, as sentences) beside its `unbalanced` (the host's reports)."""

    @property
    def errors(self) -> list[str]:
        return [v.message for v in self.illegal]


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
        return page_calls(self.events(), session)

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
    """willBeginDragging at offsets[0], didScroll through offsets[1:], release (velocity 1), rest at `rest`."""
    swipe_pages(p, s, offsets, rest, velocity=1.0, decelerate=decelerate)


def assert_at_rest(p: Peer, s: str, index: int) -> dict:
    """docs/pages.md at rest: exactly the current page is `appeared`, every other attached child `disappeared`."""
    return assert_page_at_rest(p, s, index)


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


class PagePeer(EventCursor):
    """A connection with a cursor over its events, checking every appearance hook against docs/lifecycle.md's table."""

    tag = staticmethod(tag)

    def __init__(self, conn: LineConn):
        super().__init__(conn)
        self.fed = 0
        self.checker = AppearanceChecker()

    @property
    def state(self) -> dict[str, str]:
        return self.checker.states

    @property
    def errors(self) -> list[str]:
        """Hooks the table does not allow and the host's unbalanced reports, as sentences."""
        return [v.message for v in self.checker.violations]

    def received(self) -> None:
        self.checker.feed_all(self.conn.events[self.fed:])
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
    """The appearance hooks of `page_session`'s children among `events`, the article's way ("willAppear 0")."""
    return page_calls(events, page_session)


def page_peer(host, topics=("lifecycle", "pool", "page"), scope=None) -> PagePeer:
    return PagePeer(host.connect()).subscribe(topics, scope)


def page_session(p: PagePeer, **params) -> str:
    base = {"class": "Container", "count": 5, "width": W, "height": 200, "initialIndex": 1}
    base.update(params)
    return p("page.create", base)["session"]


def drag(p: PagePeer, s: str, offsets: list[float]) -> None:
    """willBeginDragging at offsets[0], didScroll through offsets[1:]; the finger stays down."""
    drag_pages(p, s, offsets)


def release(p: PagePeer, s: str, rest: float, decelerate: bool = True) -> None:
    """The finger lifts; the view rests at `rest` (decelerating there with velocity 0.5, or stopping at once)."""
    release_pages(p, s, rest, velocity=0.5, decelerate=decelerate)


def assert_settled(p: PagePeer, s: str, index: int) -> dict:
    """docs/pages.md at rest: exactly the current page is appeared, every other attached child disappeared."""
    return assert_page_at_rest(p, s, index)


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
