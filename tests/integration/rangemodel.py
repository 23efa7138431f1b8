"""A reference model of range sessions (Texture's rules, TextureGroup/Texture be0b74b4) for the socket tests: geometry, and an event replayer.

- `Content`: item lengths per section, with the index path <-> flat index mapping and inserts/deletes.
- `expected_ranges`: the visible, display and preload index intervals that docs/ranges.md gives for an offset, a
  viewport length, a mode and a direction (Texture's buffers, in screenfuls, leading in the direction).
- `Replay`: applies `range` / `prefetch` events to sets of paths, checking each against what it holds
  (an item enters a range it is not in, leaves one it is in; prefetch/cancel mirror the preload changes).
- `RangeConn`: a raw line connection that returns each call's result together with the events it caused.

Intervals are half-open `(lo, hi)` pairs of flat indices; `EMPTY` is `(0, 0)`.

The range test files (test_ranges_*.py), whose shared helpers are at the end of this file: every expected value is
worked out by hand from docs/ranges.md and rpc-schema/openrpc.json (in the comments), from Texture's source
(TextureGroup/Texture be0b74b4: ASRangeController.mm, ASAbstractLayoutController.mm, ASBatchFetching.mm,
ASTableView.mm / ASCollectionView.mm), or from a brute-force model (`grown`, `Layout`, `rangemodel`), never from
what the host prints. Each test talks raw JSON lines to a virtual-clock host.

The usual session of these files ("setup A"): 200 rows of 50 points, viewport height 400 (L = 400, content
10000).
  minimum, down, offset 0:    visible 0..7,   display [-100, 500) 0..9,    preload [-100, 600) 0..11
  minimum, down, offset 2000: visible 40..47, display [1900, 2500) 38..49, preload [1900, 2600) 38..51
  minimum, up,   offset 1990: visible 39..47, display [1890, 2490) 37..49, preload [1790, 2490) 35..49
  full,    down, offset 2000: display [1800, 2800) 36..55, preload [1400, 3400) 28..67
  full,    up,   offset 1990: display [1590, 2590) 31..51, preload [990, 2990) 19..59

"setup B": `count` rows of 100 points, L = 1000 (content 10000 by default): Texture's batch rule fires when
10000 - 1000 - offset <= 2000, i.e. offset >= 7000.

The multi-section layout (`SECTIONS`, L = 300 along the axis):
  (0,0) [0,100)  (0,1) [100,200)  (0,2) [200,300)  (0,3) [300,400)
  (1,0) [400,450)  (1,1) [450,500)  (1,2) [500,550)
  section 2 empty
  (3,0) [550,650)  (3,1) [650,750)  (3,2) [750,850)  (3,3) [850,950)  (3,4) [950,1050)  (3,5) [1050,1150)
"""

from __future__ import annotations

import bisect
import itertools

#: Texture's tuning (ASRangeControllerTuningParameters), (leading, trailing) screenfuls per mode and type.
TEXTURE = {
    "full": {"display": (1.0, 0.5), "preload": (2.5, 1.5)},
    "minimum": {"display": (0.25, 0.25), "preload": (0.5, 0.25)},
    "visibleOnly": {"display": (0.0, 0.0), "preload": (0.0, 0.0)},
    "lowMemory": {"display": (0.0, 0.0), "preload": (0.0, 0.0)},
}
KINDS = ("preload", "display", "visible")
EMPTY = (0, 0)


def hull(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    if a[1] <= a[0]:
        return b
    if b[1] <= b[0]:
        return a
    return (min(a[0], b[0]), max(a[1], b[1]))


class Content:
    """Item lengths along the axis, per section."""

    def __init__(self, sections: list[list[float]]):
        self.sections = [list(s) for s in sections]
        self._starts: list[float] | None = None

    @classmethod
    def uniform(cls, count: int, length: float) -> Content:
        return cls([[float(length)] * count])

    @property
    def lengths(self) -> list[float]:
        return [x for s in self.sections for x in s]

    @property
    def count(self) -> int:
        return sum(len(s) for s in self.sections)

    @property
    def starts(self) -> list[float]:
        """Offset of each item, plus the total at the end."""
        if self._starts is None:
            self._starts = [0.0, *itertools.accumulate(self.lengths)]
        return self._starts

    @property
    def total(self) -> float:
        return self.starts[-1]

    def items(self, a: float, b: float) -> tuple[int, int]:
        """Items intersecting [a, b) (positive lengths assumed)."""
        lo, hi = max(a, 0.0), min(b, self.total)
        if hi <= lo:
            return EMPTY
        starts = self.starts
        first = bisect.bisect_right(starts, lo) - 1
        last = bisect.bisect_left(starts, hi, 0, len(starts) - 1)  # items starting before hi
        return (first, max(first, last))

    def path(self, flat: int) -> tuple[int, int]:
        for s, rows in enumerate(self.sections):
            if flat < len(rows):
                return (s, flat)
            flat -= len(rows)
        raise IndexError(flat)

    def flat(self, path) -> int:
        s, r = path
        return sum(len(x) for x in self.sections[:s]) + r

    def paths(self, iv: tuple[int, int]) -> list[tuple[int, int]]:
        return [self.path(i) for i in range(iv[0], iv[1])]

    def insert(self, section: int, row: int, lengths) -> None:
        self.sections[section][row:row] = [float(x) for x in lengths]
        self._starts = None

    def delete(self, path) -> None:
        del self.sections[path[0]][path[1]]
        self._starts = None


def expected_ranges(content: Content, offset: float, L: float, mode: str, forward: bool, visible: bool = True,
                    tuning=TEXTURE) -> dict[str, tuple[int, int]]:
    """Texture's sets at a recompute (ASRangeController `_updateVisibleNodeIndexPaths`): on = items
    intersecting [offset, offset + L); each range = the viewport grown by leading * L ahead and
    trailing * L behind; lowMemory has no display range. A visible session: visible = on, display =
    display range + on, preload = preload range + on (independent sets). An invisible one: nothing
    visible, display = on (none in lowMemory), preload = display range + on."""
    on = content.items(offset, offset + L)

    def grown(kind):
        lead, trail = tuning[mode][kind]
        ahead, behind = lead * L, trail * L
        return content.items(offset - behind, offset + L + ahead) if forward else \
            content.items(offset - ahead, offset + L + behind)

    display = EMPTY if mode == "lowMemory" else grown("display")
    if visible:
        return {"visible": on, "display": hull(display, on), "preload": hull(grown("preload"), on)}
    return {"visible": EMPTY, "display": EMPTY if mode == "lowMemory" else on, "preload": hull(display, on)}


class TextureModel:
    """Texture's range controller by brute force (TextureGroup/Texture be0b74b4: ASRangeController.mm,
    ASTableView.mm, ASBatchFetching.mm), items identified by ids (so inserts and deletes need no index
    arithmetic). Ranges are recomputed only when the items on screen, the mode or the visibility changed."""

    def __init__(self, sections, L, prepend=False, lead=2.0, lazy=False, visible=True):
        self.next_id = 0
        self.sections = [[self._new(x) for x in s] for s in sections]
        self.L = L
        self.offset = 0.0
        self.forward = True  # _previousScrollDirection
        self.visible = visible
        self.lazy = lazy  # Greenroom's option: during a fling, ranges around the target
        self.target = None
        self.scrolled = False  # contentHasBeenScrolled
        self.current = None  # _currentRangeMode (None: unspecified)
        self.preserve = False  # _preserveCurrentRangeMode
        self.needs_update = True
        self.phase = "idle"
        self.tracking_sign = 0  # the drag's motion (offset deltas: the walk sends no velocity)
        self.decel_sign = 0  # toward the target (_deceleratingVelocity)
        self.on_screen = set()  # the items on the viewport at the last layout
        self.prepend = prepend
        self.lead = lead
        self.in_flight = None
        self.in_flight_prepends = False
        self.sets = {k: set() for k in KINDS}
        self.seen = set()

    def _new(self, length):
        self.next_id += 1
        return (self.next_id, float(length))

    # geometry

    def flat(self):
        out, pos = [], 0.0
        for s, rows in enumerate(self.sections):
            for r, (iid, length) in enumerate(rows):
                out.append((iid, (s, r), pos, pos + length))
                pos += length
        return out

    @property
    def total(self):
        return sum(x[1] for s in self.sections for x in s)

    @property
    def count(self):
        return sum(len(s) for s in self.sections)

    def path_of(self):
        return {iid: p for iid, p, _, _ in self.flat()}

    def gap(self, iid):
        for i, _, a, b in self.flat():
            if i == iid:
                if b <= self.offset:
                    return self.offset - b
                if a >= self.offset + self.L:
                    return a - (self.offset + self.L)
                return 0.0
        raise KeyError(iid)

    def hits(self, a, b):
        return {iid for iid, _, x, y in self.flat() if x < b and y > a}

    @property
    def mode(self):
        return self.current or "minimum"

    def scroll_sign(self):
        return self.tracking_sign if self.phase == "dragging" else self.decel_sign if self.phase == "decelerating" else 0

    def grown(self, mode, kind, at=None):
        if mode == "lowMemory" and kind == "display":
            return set()
        lead, trail = TEXTURE[mode][kind]
        L, o = self.L, (self.offset if at is None else at)
        if self.forward:
            return self.hits(o - trail * L, o + L + lead * L)
        return self.hits(o - lead * L, o + L + trail * L)

    # what the host does

    def layout(self):
        now = self.hits(self.offset, self.offset + self.L)
        if now != self.on_screen:
            self.on_screen = now
            self.needs_update = True

    def set_mode(self, mode):
        """updateCurrentRangeWithMode:"""
        self.preserve = True
        if self.current != mode:
            self.current = mode
            self.needs_update = True

    def ranges(self):
        """The sets after this call: recomputed when needed (updating the model's mode and direction)."""
        if not self.needs_update:
            return dict(self.sets)
        self.needs_update = False
        sign = self.scroll_sign()
        if sign:
            self.forward = sign > 0
        vp = self.hits(self.offset, self.offset + self.L)
        self.on_screen = set(vp)  # its own set: the ranges' sets are edited in place
        if not vp:  # nothing on screen: keep the ranges, take the visible bit
            return {"visible": set(), "display": set(self.sets["display"]), "preload": set(self.sets["preload"])}
        m = self.mode
        if self.current is None or (not self.preserve and self.scrolled and self.visible):
            m = "minimum" if (self.current is None or not self.visible) else "full"
        self.current, self.preserve = m, False
        at = self.target if self.lazy and self.phase == "decelerating" else None
        display, preload = self.grown(m, "display", at), self.grown(m, "preload", at)
        if self.visible:
            return {"visible": vp, "display": display | vp, "preload": preload | vp}
        return {"visible": set(), "display": set() if m == "lowMemory" else vp, "preload": display | vp}

    def scroll(self, x):
        if self.phase == "dragging":
            self.tracking_sign = (x > self.offset) - (x < self.offset)
        self.offset = x
        self.layout()

    # the scroll stream and edits, as the host applies them (batch decisions: None, False, True)

    def will_begin_dragging(self, x=None):
        self.phase, self.tracking_sign, self.decel_sign, self.target = "dragging", 0, 0, None
        self.scrolled = True
        self.set_mode("full")
        if x is not None:
            self.offset = x  # where the drag starts: no motion yet
            self.layout()

    def did_scroll(self, x):
        """Returns the batch decision (judged when visible and not dragging)."""
        self.scroll(x)
        return self.batch_due(x) if self.phase != "dragging" and self.visible else None

    def will_end_dragging(self, target):
        """`target`: the host's clamped target offset."""
        self.phase = "decelerating"
        self.target = target
        self.decel_sign = (target > self.offset) - (target < self.offset)
        if self.lazy:
            self.needs_update = True
        return self.batch_due(target)

    def did_end_decelerating(self, x=None):
        decision = self.did_scroll(x) if x is not None else None
        if self.lazy and self.phase == "decelerating":
            self.needs_update = True
        was_dragging = self.phase == "dragging"
        self.phase, self.tracking_sign, self.decel_sign, self.target = "idle", 0, 0, None
        # a drag ended without willEndDragging: judged as a release at rest
        return self.batch_due() if was_dragging else decision

    def set_visible(self, v):
        changed = v != self.visible
        self.visible = v
        if changed:
            self.needs_update = True
        return self.batch_due() if changed and v and self.phase != "dragging" else None

    def memory_warning(self):
        self.set_mode("visibleOnly" if self.visible else "lowMemory")

    def deleted(self, gone):
        """Items deleted (already out of the sections): they leave every set; one on screen is a change."""
        for k in KINDS:
            self.sets[k] -= gone
        self.seen -= gone
        if self.on_screen & gone:
            self.needs_update = True
        self.on_screen -= gone
        return self.edited()

    def edited(self):
        """After an insert or delete (the model's sections already changed)."""
        self.layout()
        return self.batch_due() if self.phase != "dragging" else None

    def batch_due(self, at=None):
        """ASDisplayShouldFetchBatchForContext with the scroll direction now: None (no batch), False
        (append), True (prepend)."""
        if self.in_flight is not None or self.lead <= 0:
            return None
        L, total = self.L, self.total
        if total < L:
            return False
        if not self.visible:
            return None
        o = self.offset if at is None else at
        if self.scroll_sign() < 0:
            return True if self.prepend and o <= self.lead * L else None
        return False if total - L - o <= self.lead * L else None


def state_paths(state: dict) -> dict[str, list[tuple[int, int]]]:
    """range.state's lists as lists of path tuples."""
    return {k: [tuple(p) for p in state[k]] for k in KINDS}


class Replay:
    """The client's view of a session, built only from the events it received (and its own edits)."""

    def __init__(self):
        self.sets: dict[str, set] = {k: set() for k in KINDS}
        #: Items that became visible since entering preload (they get no cancelPrefetching).
        self.seen: set = set()

    def _map(self, fn) -> None:
        for k in KINDS:
            self.sets[k] = {q for q in (fn(p) for p in self.sets[k]) if q is not None}
        self.seen = {q for q in (fn(p) for p in self.seen) if q is not None}

    def insert(self, section: int, row: int, k: int) -> None:
        self._map(lambda p: (p[0], p[1] + k) if p[0] == section and p[1] >= row else p)

    def delete(self, path) -> bool:
        """Removes one item (the client deleted it); returns whether it sat in a range."""
        path = tuple(path)
        was = any(path in self.sets[k] for k in KINDS)
        s, r = path
        self._map(lambda p: None if p == path else ((s, p[1] - 1) if p[0] == s and p[1] > r else p))
        return was

    def apply(self, event: dict | None, prefetch: list[dict]) -> list[str]:
        """Applies one update (its `range` event, or None when none came, and its `prefetch` events);
        returns what does not add up."""
        problems = []
        if event is None:
            if prefetch:
                problems.append(f"prefetch events without a range event: {prefetch}")
            return problems
        enter = {k: [tuple(p) for p in event["enter"][k]] for k in KINDS}
        exit_ = {k: [tuple(p) for p in event["exit"][k]] for k in KINDS}
        for k in KINDS:
            # Each list is read as a set here; duplicates are test_violation_*'s subject.
            for p in dict.fromkeys(enter[k]):
                if p in self.sets[k]:
                    problems.append(f"{p} enters {k} but is already in it")
            for p in dict.fromkeys(exit_[k]):
                if p not in self.sets[k]:
                    problems.append(f"{p} leaves {k} but is not in it")
            self.sets[k] = (self.sets[k] - set(exit_[k])) | set(enter[k])
        # prefetchItems: entered preload and not visible; cancelPrefetching: left preload unseen.
        self.seen |= set(enter["visible"])
        want_prefetch = [p for p in dict.fromkeys(enter["preload"]) if p not in self.sets["visible"]]
        want_cancel = [p for p in dict.fromkeys(exit_["preload"]) if p not in self.seen]
        self.seen -= set(exit_["preload"])
        got = {"prefetchItems": [], "cancelPrefetching": []}
        for e in prefetch:
            got[e["kind"]].extend(dict.fromkeys(tuple(p) for p in e["paths"]))
        if got["prefetchItems"] != want_prefetch:
            problems.append(f"prefetchItems {got['prefetchItems']} != {want_prefetch}")
        if got["cancelPrefetching"] != want_cancel:
            problems.append(f"cancelPrefetching {got['cancelPrefetching']} != {want_cancel}")
        return problems

    def as_lists(self) -> dict[str, list[tuple[int, int]]]:
        return {k: sorted(self.sets[k]) for k in KINDS}


class RangeConn:
    """A raw connection subscribed to range, prefetch and batch events. `call` returns (result, events)
    where events are the notifications written before the reply (those the request caused)."""

    def __init__(self, conn, topics=("range", "prefetch", "batch")):
        self.c = conn
        if topics:
            self.c.result("events.subscribe", {"topics": list(topics)})

    def call(self, method: str, timeout: float = 10.0, **params):
        self.c.events.clear()
        reply = self.c.call(method, params, timeout=timeout)
        assert "result" in reply, f"{method} {params} failed: {reply}"
        events = list(self.c.events)
        self.c.events.clear()
        return reply["result"], events

    def fail(self, method: str, timeout: float = 10.0, **params):
        """Calls, expecting an error; returns (error, events)."""
        self.c.events.clear()
        reply = self.c.call(method, params, timeout=timeout)
        assert "error" in reply, f"{method} {params} should fail: {reply}"
        events = list(self.c.events)
        self.c.events.clear()
        return reply["error"], events

    def state(self, session: str) -> dict:
        return self.call("range.state", session=session)[0]


def split(events: list[dict]):
    """(range event or None, prefetch events, batch events) of one call; at most one range event."""
    ranges = [e["params"] for e in events if e["method"] == "range"]
    assert len(ranges) <= 1, f"one range event per update: {ranges}"
    prefetch = [e["params"] for e in events if e["method"] == "prefetch"]
    batches = [e["params"] for e in events if e["method"] == "batch"]
    return (ranges[0] if ranges else None), prefetch, batches


def snapshot(rc, session: str):
    """What a refused call must leave as it was: the session's ranges and the host's session counts.
    `rc`: any range connection with `state` and `call`."""
    return rc.state(session), rc.call("host.stats")[0]["sessions"]


def assert_refused(rc, method: str, session: str, params: dict, path: str, before) -> None:
    """A bad call answers -32602 naming `path`, causes no event and changes nothing."""
    error, events = rc.fail(method, session=session, **params)
    assert error["code"] == -32602 and error["data"]["path"] == path, (method, params, error)
    assert events == [], (method, params, events)
    assert snapshot(rc, session) == before, (method, params)


def tup(lst) -> list:
    """Paths (JSON lists) as tuples."""
    return [tuple(p) for p in lst]


def range_events(events) -> list:
    return [e["params"] for e in events if e["method"] == "range"]


def one_range(events) -> dict:
    r = range_events(events)
    assert len(r) == 1, f"expected exactly one range event, got {r}"
    return r[0]


def prefetches(events) -> dict:
    """Every prefetch event's paths as tuples, by kind, in order."""
    out = {"prefetchItems": [], "cancelPrefetching": []}
    for e in events:
        if e["method"] == "prefetch":
            out[e["params"]["kind"]].extend(tuple(p) for p in e["params"]["paths"])
    return out


def batches(events) -> list:
    return [e["params"] for e in events if e["method"] == "batch"]


class RC:
    """A raw line connection (grhost.LineConn) subscribed to `topics` (range, prefetch and batch by
    default; `scope` "all" to observe every connection's sessions). `call` returns (result, the events the
    call caused, which the host writes before the reply); `fail` returns (error, events)."""

    def __init__(self, conn, topics=("range", "prefetch", "batch"), scope=None):
        self.c = conn
        if topics:
            params = {"topics": list(topics)}
            if scope:
                params["scope"] = scope
            self.c.result("events.subscribe", params)

    def _do(self, method, params, timeout=20.0):
        self.c.events.clear()
        reply = self.c.call(method, params, timeout=timeout)
        events = list(self.c.events)
        self.c.events.clear()
        return reply, events

    def call(self, method, timeout: float = 20.0, **params):
        reply, events = self._do(method, params, timeout)
        assert "result" in reply, f"{method} {params} failed: {reply}"
        return reply["result"], events

    def fail(self, method, timeout: float = 20.0, **params):
        reply, events = self._do(method, params, timeout)
        assert "error" in reply, f"{method} {params} should fail: {reply}"
        return reply["error"], events

    def state(self, s, **params):
        return self.call("range.state", session=s, **params)[0]

    def lists(self, s):
        st = self.state(s)
        return {k: [tuple(p) for p in st[k]] for k in KINDS}

    def snapshot(self, s):
        """The session's state and the host's session counts (to check that a refused call changed nothing)."""
        return self.state(s), self.call("host.stats")[0]["sessions"]


# ---------------------------------------------------------------------------------------------------
# Helpers shared by the range test files (test_ranges_*.py)


INFO_KEYS = {"session", "count", "sections", "contentLength", "offset", "mode", "direction", "phase", "visible",
             "batchInFlight"}


RANGE_EVENT_KEYS = {"seq", "t", "cause", "session", "mode", "direction", "enter", "exit"}


#: Texture's tuning, (leading, trailing) screenfuls; lowMemory has no display range.
TUNING = {
    "full": {"display": (1.0, 0.5), "preload": (2.5, 1.5)},
    "minimum": {"display": (0.25, 0.25), "preload": (0.5, 0.25)},
    "visibleOnly": {"display": (0.0, 0.0), "preload": (0.0, 0.0)},
    "lowMemory": {"display": None, "preload": (0.0, 0.0)},
}


def P(*rows, section=0):
    """Index paths of section `section` (tuples, for comparing with `lists`)."""
    return [(section, r) for r in rows]


def span(a, b, section=0):
    """Rows a..b inclusive as path tuples."""
    return [(section, r) for r in range(a, b + 1)]


def changes(event):
    return {part: {k: tup(event[part][k]) for k in KINDS} for part in ("enter", "exit")}


def items(lengths, a, b):
    """Flat indices of the items intersecting [a, b) (brute force)."""
    out, pos = [], 0.0
    for i, length in enumerate(lengths):
        if pos < b and pos + length > a:
            out.append(i)
        pos += length
    return out


def grown(lengths, offset, L, mode, forward, visible=True, tuning=TUNING):
    """The rule literally: visible = items intersecting [offset, offset + L); each range is the viewport grown
    by leading * L in the scroll direction and trailing * L behind; a visible item has all three bits;
    display and preload are independent sets (Texture's ASRangeController)."""
    vis = items(lengths, offset, offset + L) if visible else []

    def rng(kind):
        b = tuning[mode][kind]
        if b is None:
            return []
        lead, trail = b
        if forward:
            return items(lengths, offset - trail * L, offset + L + lead * L)
        return items(lengths, offset - lead * L, offset + L + trail * L)

    display = sorted(set(rng("display")) | set(vis))
    preload = sorted(set(rng("preload")) | set(vis))
    return {"visible": P(*vis), "display": P(*display), "preload": P(*preload)}


def setup_a(rc, **params):
    """200 rows of 50 points, L = 400."""
    reply, events = rc.call("range.create", count=200, itemLength=50, viewport={"width": 320, "height": 400},
                            **params)
    return reply["session"], reply, events


def setup_b(rc, count=100, L=1000, **params):
    """`count` rows of 100 points, L = 1000 (content 10000 by default): Texture's batch rule fires when
    10000 - 1000 - offset <= 2000, i.e. offset >= 7000."""
    reply, events = rc.call("range.create", count=count, itemLength=100, viewport={"width": 400, "height": L},
                            **params)
    return reply["session"], reply, events


PATTERN = [44.0, 120.0, 80.0, 200.0, 60.0]  # uneven rows, so that no interval is a multiple of L


def flat_lists(state: dict) -> dict[str, list[int]]:
    """range.state of a one-section session as flat row lists."""
    return {k: [p[1] for p in state[k]] for k in KINDS}


def iv_rows(iv) -> list[int]:
    return list(range(iv[0], iv[1]))


def assert_geometry(rc, session, content, offset, L, mode, forward, visible=True, direction=None):
    st = rc.state(session)
    assert st["mode"] == mode, st["mode"]
    if direction is not None:
        assert st["direction"] == direction, (st["direction"], direction)
    exp = expected_ranges(content, offset, L, mode, forward, visible)
    got = state_paths(st)
    for k in KINDS:
        assert got[k] == content.paths(exp[k]), (
            f"{k} at offset {offset} ({mode}, {'forward' if forward else 'backward'}): "
            f"host {got[k][:1]}..{got[k][-1:]} ({len(got[k])}), docs/ranges.md {exp[k]}")
    return st


def viewport(axis: str, L: float, cross: float = 375.0) -> dict:
    return {"width": cross, "height": L} if axis == "vertical" else {"width": L, "height": cross}


def batches_of(events):
    return split(events)[2]


def new_session(rc, count=100, length=100, L=1000, **params):
    return rc.call("range.create", count=count, itemLength=length, viewport={"width": 400, "height": L}, **params)


SECTIONS = [{"count": 4, "itemLength": 100}, {"count": 3, "itemLength": 50}, {"count": 0},
            {"count": 6, "itemLength": 100}]


NO_BATCH = {"leadingScreens": 0}


def sorted_changes(event):
    """The event's lists as sorted path tuples (order is checked separately)."""
    return {part: {k: sorted(tup(event[part][k])) for k in KINDS} for part in ("enter", "exit")}


def no_changes():
    return {part: {k: [] for k in KINDS} for part in ("enter", "exit")}


def with_changes(**kw):
    """no_changes() with some lists set: enter_visible=[...], exit_preload=[...]."""
    out = no_changes()
    for key, paths in kw.items():
        part, kind = key.split("_")
        out[part][kind] = sorted(paths)
    return out


def span_in(section, a, b):
    return [(section, r) for r in range(a, b + 1)]


def make_sections(rc, axis="vertical", L=300, **params):
    vp = {"width": 320, "height": L} if axis == "vertical" else {"width": L, "height": 320}
    params.setdefault("batch", NO_BATCH)
    reply, events = rc.call("range.create", sections=SECTIONS, viewport=vp, axis=axis, **params)
    return reply["session"], reply, events


def rows_of(paths):
    return {p[1] for p in paths}


def make(rc, count=100, length=100, L=1000, axis="vertical", **params):
    vp = {"width": 375, "height": L} if axis == "vertical" else {"width": L, "height": 375}
    r, events = rc.call("range.create", count=count, itemLength=length, viewport=vp, axis=axis, **params)
    return r["session"], events


def path_rows(lst):
    return [p[1] for p in tup(lst)]


def row_range(a, b):
    return list(range(a, b))
