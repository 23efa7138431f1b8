"""Page sessions under seeded random gesture storms, through the socket (docs/pages.md, the GYPageViewController
article).

Each seed starts a virtual-clock host, opens one connection with two page sessions (cache `{limit: 2..4}`
or `{mode: "reuse"}`, 3 to 7 pages, various widths and start pages) and drives STEPS random interactions on
them, one JSON-RPC batch per step: `page.show` (animated or not, with or without `clock.advance`), drags
with random `didScroll` offsets in [0, (count-1)*w], releases with and without deceleration, scrolls while
decelerating, drags that begin while decelerating or during an animation, memory warnings, and calls that
do not fit the scroll stream (which must fail with the right error and change nothing). Every lifecycle and
page event goes through a model of docs/lifecycle.md's appearance table; after every step, each session at rest is
checked against docs/pages.md's invariants:

- no `unbalancedAppearanceTransition` event, and `host.stats` counts none;
- exactly the current page is `appeared`, every other attached child `disappeared`, as tracked from the
  events and as `page.info` reports them (both must agree);
- one interaction gives at most one `didAppear`;
- every `willDisappear` is answered by a `didDisappear` before rest (see `test_violation_cancelled_swipe_*`
  for the one case the host handles otherwise, which the storms let through so as to see past it);
- at rest the cache limit holds (attached children <= limit), nothing is left deferred, and reuse mode keeps
  children within current +- 1; no container leaks (attached + reuse-queued = alive);
- every container that is deinit'd had disappeared first.

At the end a session is destroyed (sometimes mid-gesture) or the connection is closed with everything alive
and a second connection observes the teardown (`scope: "all"`).

Tests named test_violation_* show host behaviour that contradicts docs/ docs/pages.md or the GYPageViewController
article: they fail until
the host (or the contract) is fixed.
"""

from __future__ import annotations

import math
import random
import sys
from dataclasses import dataclass, field

import pytest
from grhost import REPO

try:
    import greenroom
except ImportError:  # the client is not installed: use the one in this repository
    sys.path.insert(0, str(REPO / "clients" / "python" / "src"))
    import greenroom
from greenroom.lifecycle import APPEARANCE, SHORT

SEEDS = list(range(24))
STEPS = 40  # interactions per seed: 24 x 40 = 960 sequences (about 5 s in all on 2 cores)
INVALID_STATE, INVALID_PARAMS = -32003, -32602


def test_the_storms_are_big_enough():
    assert len(SEEDS) * STEPS >= 300


# ---------------------------------------------------------------------------------------------------
# The model: docs/lifecycle.md's appearance table, fed with the events as they arrive


# From-state -> allowed hook -> to-state. A child that never appeared is `fresh` (or `disappeared`).
TABLE = {
    "viewWillAppear": ({"fresh", "disappeared", "disappearing"}, "appearing"),
    "viewDidAppear": ({"appearing"}, "appeared"),
    "viewWillDisappear": ({"appearing", "appeared"}, "disappearing"),
    "viewDidDisappear": ({"disappearing"}, "disappeared"),
}
AT_REST = {"fresh", "disappeared"}  # what a non-current child may be at rest


@dataclass
class Child:
    container: str
    session: str | None = None
    index: int | None = None
    state: str = "fresh"
    alive: bool = True
    reversed: bool = False  # got willAppear while disappearing (its willDisappear had no didDisappear)
    history: list[str] = field(default_factory=list)


@dataclass
class SessionModel:
    id: str
    count: int
    width: float
    cache: dict
    index: int  # as the page events tell it (didTransition `to`)
    phase: str = "idle"  # as the replies tell it
    offset: float = 0.0
    did_appear: int = 0  # viewDidAppear since the last end of an interaction
    did_appear_log: list[str] = field(default_factory=list)
    start_index: int = 0  # the current page when the running interaction began
    destroyed: bool = False


class Model:
    def __init__(self, seed: int):
        self.seed = seed
        self.children: dict[str, Child] = {}
        self.sessions: dict[str, SessionModel] = {}
        self.log: list[str] = []  # what happened, for failure messages

    def fail(self, message: str) -> None:
        tail = "\n  ".join(self.log[-60:])
        pytest.fail(f"seed {self.seed}: {message}\nlast steps and events:\n  {tail}", pytrace=False)

    def feed(self, events) -> None:
        for event in events:
            self.event(event.topic, event.params)

    def event(self, topic: str, p: dict) -> None:
        if topic == "page":
            self.page_event(p)
            return
        if topic != "lifecycle":
            return
        kind = p["event"]
        if kind == "unbalancedAppearanceTransition":
            self.log.append(f"  !! {p}")
            self.fail(f"unbalanced appearance transition: {p}")
        c = self.children.setdefault(p["container"], Child(p["container"]))
        if not c.alive:
            self.fail(f"{c.container} got {kind} after its deinit")
        page = p.get("page")
        if page and "index" in page:
            c.session = page["session"]
            if page["index"] >= 0:
                c.index = page["index"]
        c.history.append(kind)
        if kind in TABLE:
            allowed, to = TABLE[kind]
            self.log.append(f"  {SHORT[kind]} {c.index} ({c.container}, {c.session})")
            if c.state not in allowed:
                self.fail(f"{c.container} (page {c.index}) got {kind} while {c.state}: not in docs/lifecycle.md's table")
            if kind == "viewWillAppear" and c.state == "disappearing":
                c.reversed = True
            c.state = to
            if kind == "viewDidAppear" and c.session in self.sessions:
                s = self.sessions[c.session]
                s.did_appear += 1
                s.did_appear_log.append(f"didAppear {c.index}")
        elif kind == "deinit":
            self.log.append(f"  deinit {c.container} ({c.session}, page {c.index})")
            if c.state not in AT_REST:
                self.fail(f"{c.container} (page {c.index} of {c.session}) was deinit'd while {c.state}: "
                          "a container must disappear before its deinit")
            c.alive = False

    def page_event(self, p: dict) -> None:
        s = self.sessions.get(p["session"])
        self.log.append(f"  page {p['kind']} {p['from']}->{p['to']} {p.get('completed', '')}")
        if s is None:
            return
        if not (0 <= p["to"] < s.count and 0 <= p["from"] < s.count):
            self.fail(f"page event out of range: {p}")
        if p["kind"] == "didTransition":
            if p["from"] != s.index:
                self.fail(f"didTransition from {p['from']}, but the session was on page {s.index}: {p}")
            self.end_interaction(s)
            if p.get("completed") is not False:  # a cancelled interaction stays where it was
                s.index = p["to"]
            s.start_index = s.index

    def end_interaction(self, s: SessionModel) -> None:
        if s.did_appear > 1:
            self.fail(f"{s.id}: one interaction gave {s.did_appear} didAppear calls: {s.did_appear_log}")
        s.did_appear = 0
        s.did_appear_log = []

    def children_of(self, session: str) -> list[Child]:
        return [c for c in self.children.values() if c.session == session and c.alive]

    def check_rest(self, s: SessionModel, info: dict, stats: dict) -> None:
        """docs/pages.md's invariants for a session at rest."""
        where = f"{s.id} at rest on page {info['index']} ({s.cache}, {s.count} pages)"
        if stats["unbalancedTransitions"] != 0:
            self.fail(f"host.stats counts {stats['unbalancedTransitions']} unbalanced transitions")
        if info["phase"] != "idle":
            self.fail(f"{where}: phase {info['phase']}")
        self.end_interaction(s)
        if info["index"] != s.index:
            self.fail(f"{where}: the page events said page {s.index}")
        reported = {ch["container"]: ch for ch in info["children"]}
        current = [ch for ch in info["children"] if ch["index"] == info["index"]]
        if len(current) != 1:
            self.fail(f"{where}: the current page is not attached exactly once: {info['children']}")
        for ch in info["children"]:
            mine = self.children.get(ch["container"])
            if mine is None or not mine.alive:
                self.fail(f"{where}: page.info lists {ch} which the events never made or already deinit'd")
            if mine.state != ch["state"]:
                self.fail(f"{where}: events leave {ch['container']} (page {ch['index']}) {mine.state}, "
                          f"page.info says {ch['state']}")
            want = {"appeared"} if ch["index"] == info["index"] else AT_REST
            if ch["state"] not in want:
                self.fail(f"{where}: page {ch['index']} is {ch['state']}, expected {' or '.join(sorted(want))}")
        for c in self.children_of(s.id):
            if c.state in ("appearing", "disappearing"):
                self.fail(f"{where}: {c.container} (page {c.index}) is left {c.state}: every willDisappear must "
                          "get its didDisappear (and nothing may be left half way) before rest")
            if c.reversed:
                # A willDisappear answered by willAppear + didAppear instead of didDisappear: only the page a
                # cancelled interaction returns to gets that (test_violation_cancelled_swipe_*).
                cancelled_return = (c.container in reported and reported[c.container]["index"] == info["index"]
                                    and info["index"] == s.start_index)
                if not cancelled_return:
                    self.fail(f"{where}: {c.container} (page {c.index}) got willDisappear, then willAppear, and "
                              "never didDisappear")
                c.reversed = False
        queued = sum(info["reuseQueue"].values())
        alive = self.children_of(s.id)
        if len(alive) != len(info["children"]) + queued:
            self.fail(f"{where}: {len(alive)} containers alive by the events, page.info has "
                      f"{len(info['children'])} attached + {queued} queued")
        if info["deferred"]:
            self.fail(f"{where}: deferred pages left at rest: {info['deferred']}")
        if "limit" in s.cache and len(info["children"]) > s.cache["limit"]:
            self.fail(f"{where}: {len(info['children'])} attached children, limit {s.cache['limit']}")
        if s.cache.get("mode") == "reuse":
            far = [ch["index"] for ch in info["children"] if abs(ch["index"] - info["index"]) > 1]
            if far:
                self.fail(f"{where}: reuse mode keeps pages {far} outside current +- 1")
        s.start_index = info["index"]
        s.offset = info["offset"]


# ---------------------------------------------------------------------------------------------------
# The driver


@dataclass
class Call:
    method: str
    params: dict
    expect: tuple | None = None  # None: must succeed; (code, key, value): an error with data[key] == value


class Storm:
    def __init__(self, seed: int, client: greenroom.Client):
        self.rng = random.Random(seed)
        self.client = client
        self.model = Model(seed)
        self.sequences = 0

    # -- sending -----------------------------------------------------------------------------------

    def send(self, calls: list[Call], label: str) -> list:
        """One JSON-RPC batch: the calls, then page.info of every live session and host.stats."""
        self.model.log.append(f"step: {label}")
        live = [s for s in self.model.sessions.values() if not s.destroyed]
        tail = [Call("page.info", {"session": s.id}) for s in live] + [Call("host.stats", {})]
        everything = calls + tail
        results = self.client.batch([(c.method, c.params) for c in everything])
        self.model.feed(self.client.events(timeout=0))
        for call, result in zip(everything, results, strict=True):
            self.check_outcome(call, result)
            if call.expect is None and isinstance(result, dict) and "phase" in result and "session" in call.params:
                self.model.sessions[call.params["session"]].phase = result["phase"]
        stats = results[-1]
        for s, info in zip(live, results[len(calls):-1], strict=True):
            s.phase = info["phase"]
            if info["phase"] == "idle":
                self.model.check_rest(s, info, stats)
        return results

    def check_outcome(self, call: Call, result) -> None:
        brief = f"{call.method} {call.params}"
        if call.expect is None:
            if isinstance(result, greenroom.RPCError):
                self.model.fail(f"{brief} failed: {result.code} {result.message} {result.data}")
            return
        code, key, value = call.expect
        if not isinstance(result, greenroom.RPCError):
            self.model.fail(f"{brief} succeeded ({result}); expected error {code} with data.{key} == {value!r}")
        if result.code != code or (result.data or {}).get(key) != value:
            self.model.fail(f"{brief}: got {result.code} {result.data}; expected {code} with data.{key} == {value!r}")
        self.model.log.append(f"  (refused as expected: {call.method} {result.code} {key}={value})")

    # -- sessions ----------------------------------------------------------------------------------

    def create_session(self) -> SessionModel:
        rng = self.rng
        count = rng.randint(3, 7)
        width = rng.choice([375.0, 320.0, 414.0, 390.5])
        cache = {"mode": "reuse"} if rng.random() < 0.35 else {"limit": rng.randint(2, 4)}
        initial = rng.randrange(count)
        info = self.client.call("page.create", {"class": "Container", "count": count, "width": width,
                                                "height": 640, "initialIndex": initial, "cache": cache})
        s = SessionModel(info["session"], count, width, cache, index=initial, start_index=initial,
                         offset=initial * width)
        self.model.sessions[s.id] = s
        self.model.log.append(f"created {s.id}: {count} pages x {width}, cache {cache}, on page {initial}")
        self.model.feed(self.client.events(timeout=0))
        stats = self.client.call("host.stats")
        self.model.check_rest(s, self.client.call("page.info", {"session": s.id}), stats)
        return s

    # -- random pieces -----------------------------------------------------------------------------

    def far_offset(self, s: SessionModel) -> float:
        """An offset well outside the content (the host allows one page of overscroll each side)."""
        return self.rng.choice([-3 * s.width - 1, (s.count + 2) * s.width, 1e9, -1e7])

    def clamp(self, s: SessionModel, x: float) -> float:
        return min(max(x, 0.0), (s.count - 1) * s.width)

    def out_of_order(self, s: SessionModel, phase: str) -> list[Call]:
        """A call that does not fit `phase` (or bad params), with the error it must get."""
        rng, sid = self.rng, s.id
        x = s.offset
        options: list[Call] = [
            Call("page.didScroll", {"session": sid, "offset": self.far_offset(s)}, (INVALID_PARAMS, "path", "offset")),
            Call("page.willBeginDragging", {"session": sid, "offset": self.far_offset(s)},
                 (INVALID_PARAMS, "path", "offset")),
            Call("page.show", {"session": sid, "index": rng.choice([s.count, s.count + 3, -1])},
                 (INVALID_PARAMS, "path", "index")),
        ]
        if phase != "decelerating":
            options.append(Call("page.didEndDecelerating", {"session": sid, "offset": x},
                                (INVALID_STATE, "phase", phase)))
        if phase != "dragging":
            options.append(Call("page.willEndDragging", {"session": sid, "offset": x, "velocity": 0.5},
                                (INVALID_STATE, "phase", phase)))
            options.append(Call("page.didEndDragging", {"session": sid, "offset": x, "willDecelerate": True},
                                (INVALID_STATE, "phase", phase)))
        else:
            options.append(Call("page.willBeginDragging", {"session": sid, "offset": x},
                                (INVALID_STATE, "phase", "dragging")))
        return [rng.choice(options)]

    def maybe_noise(self, s: SessionModel, phase: str, p: float = 0.12) -> list[Call]:
        return self.out_of_order(s, phase) if self.rng.random() < p else []

    def maybe_memory_warning(self, p: float = 0.04) -> list[Call]:
        if self.rng.random() < p:
            return [Call("host.memoryWarning", {"level": self.rng.choice(["warning", "critical"])})]
        return []

    # -- interactions ------------------------------------------------------------------------------

    def show(self, s: SessionModel) -> None:
        rng = self.rng
        index = rng.randrange(s.count)
        animated = rng.random() < 0.7
        calls = self.maybe_noise(s, s.phase)
        calls.append(Call("page.show", {"session": s.id, "index": index, "animated": animated}))
        if animated and rng.random() < 0.5:
            calls.append(Call("clock.advance", {"ms": rng.choice([100, 299, 300, 450])}))
        calls += self.maybe_memory_warning()
        self.send(calls, f"{s.id} show {index} animated={animated} (from {s.phase} on {s.index})")
        if s.phase == "animating":
            s.offset = index * s.width  # where a drag that interrupts the animation starts

    def advance(self) -> None:
        self.send([Call("clock.advance", {"ms": self.rng.choice([50, 300, 1000])})], "clock.advance")

    def drag_calls(self, s: SessionModel, x: float, phase: str) -> tuple[list[Call], float, str]:
        """willBeginDragging .. didEndDragging [.. didEndDecelerating]; returns the calls, the last offset
        and the phase they leave the session in."""
        rng, sid, w = self.rng, s.id, s.width
        calls = self.maybe_noise(s, phase)
        calls.append(Call("page.willBeginDragging", {"session": sid, "offset": x}))
        for _ in range(rng.randint(1, 7)):
            r = rng.random()
            if r < 0.1:
                x = float(round(x / w) * w)  # exactly on a page boundary
            elif r < 0.15:
                x = x  # no movement
            else:
                x = float(round(self.clamp(s, x + rng.uniform(-0.9, 0.9) * w)))
            calls.append(Call("page.didScroll", {"session": sid, "offset": x}))
            calls += self.maybe_noise(s, "dragging", 0.05)
        calls += self.maybe_memory_warning(0.03)
        velocity = round(rng.uniform(-3, 3), 2)
        end = {"session": sid, "offset": x, "velocity": velocity}
        if rng.random() < 0.5:
            end["targetOffset"] = self.clamp(s, round(x / w + math.copysign(0.5, velocity)) * w)
        calls.append(Call("page.willEndDragging", end))
        if rng.random() < 0.3:
            # No deceleration: usually the finger lifts exactly on a page, sometimes anywhere.
            if rng.random() < 0.7:
                boundary = float(round(x / w) * w)
                if boundary != x:
                    x = boundary
                    calls.append(Call("page.didScroll", {"session": sid, "offset": x}))
            calls.append(Call("page.didEndDragging", {"session": sid, "offset": x, "willDecelerate": False}))
            return calls, x, "idle"
        calls.append(Call("page.didEndDragging", {"session": sid, "offset": x, "willDecelerate": True}))
        target = self.clamp(s, (round(x / w) + (1 if velocity > 1 else -1 if velocity < -1 else 0)) * w)
        for _ in range(rng.randint(0, 2)):  # the deceleration: offsets move toward the target
            x = float(round(x + (target - x) * rng.uniform(0.3, 0.9)))
            calls.append(Call("page.didScroll", {"session": sid, "offset": x}))
        return calls, x, "decelerating"

    def end_deceleration(self, s: SessionModel, x: float) -> tuple[list[Call], float]:
        rng, w = self.rng, s.width
        if rng.random() < 0.9:
            rest = self.clamp(s, round(x / w) * w) if rng.random() < 0.7 else self.clamp(s, round(
                x / w + rng.choice([-1, 1])) * w)
        else:
            rest = float(round(self.clamp(s, x + rng.uniform(-0.3, 0.3) * w)))  # not on a page boundary
        calls = [Call("page.didEndDecelerating", {"session": s.id, "offset": rest})]
        if rng.random() < 0.15:  # the same callback twice: the second one does not fit
            calls.append(Call("page.didEndDecelerating", {"session": s.id, "offset": rest},
                              (INVALID_STATE, "phase", "idle")))
        return calls, rest

    def drag(self, s: SessionModel) -> None:
        """A whole gesture: one or more drags (the later ones beginning while decelerating), usually to rest;
        sometimes the session is left decelerating, for a later step to end or drag again."""
        rng = self.rng
        start_phase = s.phase
        x = s.offset
        calls, x, phase = self.drag_calls(s, x, start_phase)
        label = f"{s.id} drag from {start_phase} on {s.index}"
        for _ in range(3):
            if phase != "decelerating" or rng.random() >= 0.3:
                break
            more, x, phase = self.drag_calls(s, x, "decelerating")  # a fast repeated swipe
            calls += more
            label += " + drag while decelerating"
        if phase == "decelerating":
            calls += self.maybe_noise(s, "decelerating", 0.2)
            if rng.random() < 0.85:
                ending, x = self.end_deceleration(s, x)
                calls += ending
                phase = "idle"
        if phase == "idle":
            calls += self.maybe_noise(s, "idle", 0.15)
        s.offset = x
        self.send(calls, label)

    def continue_deceleration(self, s: SessionModel) -> None:
        """A session left decelerating: drag again, or let it come to rest."""
        if self.rng.random() < 0.5:
            self.drag(s)
            return
        calls: list[Call] = []
        x = s.offset
        for _ in range(self.rng.randint(0, 2)):
            x = float(round(self.clamp(s, x + self.rng.uniform(-0.2, 0.2) * s.width)))
            calls.append(Call("page.didScroll", {"session": s.id, "offset": x}))
        ending, x = self.end_deceleration(s, x)
        s.offset = x
        self.send(calls + ending, f"{s.id} deceleration ends at {x}")

    def stray_scroll(self, s: SessionModel) -> None:
        """didScroll without willBeginDragging: tolerated, and it changes nothing."""
        x = float(round(self.rng.uniform(0, (s.count - 1) * s.width)))
        before = self.client.call("page.info", {"session": s.id})
        self.send([Call("page.didScroll", {"session": s.id, "offset": x})], f"{s.id} stray didScroll {x}")
        after = self.client.call("page.info", {"session": s.id})
        for key in ("index", "phase", "guess", "children", "deferred"):
            if before[key] != after[key]:
                self.model.fail(f"a stray didScroll changed {key}: {before[key]} -> {after[key]}")

    def step(self) -> None:
        rng = self.rng
        live = [s for s in self.model.sessions.values() if not s.destroyed]
        s = rng.choice(live)
        self.sequences += 1
        if s.phase == "decelerating":
            self.continue_deceleration(s)
        elif s.phase == "animating":
            r = rng.random()
            if r < 0.3:
                self.advance()
            elif r < 0.6:
                self.show(s)
            else:
                self.drag(s)  # completes the animation first
        else:
            r = rng.random()
            if r < 0.3:
                self.show(s)
            elif r < 0.36:
                self.stray_scroll(s)
            else:
                self.drag(s)

    # -- the end -----------------------------------------------------------------------------------

    def destroy(self, s: SessionModel) -> None:
        """page.destroy, sometimes in the middle of a drag."""
        calls: list[Call] = []
        if s.phase == "idle" and self.rng.random() < 0.5:
            calls += [Call("page.willBeginDragging", {"session": s.id, "offset": s.offset}),
                      Call("page.didScroll", {"session": s.id, "offset": self.clamp(s, s.offset + 0.6 * s.width)})]
        calls.append(Call("page.destroy", {"session": s.id}))
        s.destroyed = True
        self.send(calls, f"destroy {s.id} (was {s.phase})")
        left = self.model.children_of(s.id)
        if left:
            self.model.fail(f"page.destroy left {[(c.container, c.index, c.state) for c in left]} alive")


# ---------------------------------------------------------------------------------------------------
# The storms


def client_for(host) -> greenroom.Client:
    client = greenroom.Client(host.socket_path, timeout=15)
    client.subscribe(["lifecycle", "page"])
    return client


@pytest.mark.parametrize("seed", SEEDS)
def test_gesture_storm(start_host, seed):
    host = start_host("--clock", "virtual")
    client = client_for(host)
    storm = Storm(seed, client)
    try:
        storm.create_session()
        storm.create_session()
        for _ in range(STEPS):
            storm.step()
        assert storm.sequences == STEPS

        if seed % 2 == 0:
            # Tear down with page.destroy (sometimes mid-drag); nothing is left.
            for s in list(storm.model.sessions.values()):
                storm.destroy(s)
            stats = client.call("host.stats")
            assert stats["containers"]["total"] == 0, stats
            assert stats["unbalancedTransitions"] == 0, stats
            assert client.ping()
        else:
            # Close the connection with the sessions alive (and maybe mid-gesture): a second connection
            # watches their children disappear, then deinit.
            alive = {c.container for s in storm.model.sessions.values() for c in storm.model.children_of(s.id)}
            with greenroom.Client(host.socket_path, timeout=15) as observer:
                observer.subscribe(["lifecycle"], scope="all")
                client.close()
                for event in observer.events("lifecycle", timeout=10):
                    storm.model.event(event.topic, event.params)
                    if not any(storm.model.children[c].alive for c in alive):
                        break
                still = sorted(c for c in alive if storm.model.children[c].alive)
                assert not still, f"seed {seed}: not deinit'd after the connection closed: {still}"
                stats = observer.call("host.stats")
                assert stats["containers"]["total"] == 0, stats
                assert stats["unbalancedTransitions"] == 0, stats
    finally:
        client.close()


# ---------------------------------------------------------------------------------------------------
# Calls that do not fit the scroll stream, one phase at a time


W = 375.0


def info_without_offset(client, session):
    info = client.call("page.info", {"session": session})
    info.pop("offset")
    return info


def lifecycle_of(client) -> list[str]:
    return [f"{e['container']}:{e['event']}" for e in client.events("lifecycle", timeout=0)]


def bring_to(client, session: str, phase: str) -> None:
    """From rest on page 1 to `phase`."""
    if phase == "dragging":
        client.call("page.willBeginDragging", {"session": session, "offset": 375})
        client.call("page.didScroll", {"session": session, "offset": 450})  # heading for page 2
    elif phase == "decelerating":
        bring_to(client, session, "dragging")
        client.call("page.willEndDragging", {"session": session, "offset": 450, "velocity": 1.0})
        client.call("page.didEndDragging", {"session": session, "offset": 450, "willDecelerate": True})
    elif phase == "animating":
        client.call("page.show", {"session": session, "index": 3, "animated": True})
    assert client.call("page.info", {"session": session})["phase"] == phase


@pytest.mark.parametrize("phase", ["idle", "dragging", "decelerating", "animating"])
def test_out_of_order_calls_are_refused_and_change_nothing(start_host, phase):
    host = start_host("--clock", "virtual")
    client = client_for(host)
    session = client.call("page.create", {"class": "Container", "count": 5, "width": W, "height": 667,
                                          "initialIndex": 1})["session"]
    bring_to(client, session, phase)
    lifecycle_of(client)
    s = {"session": session}
    refused = [
        ("page.show", {**s, "index": 5}, -32602, "path", "index"),
        ("page.show", {**s, "index": -1}, -32602, "path", "index"),
        ("page.didScroll", {**s, "offset": 1e9}, -32602, "path", "offset"),
        ("page.didScroll", {**s, "offset": -2000}, -32602, "path", "offset"),
        ("page.willBeginDragging", {**s, "offset": 1e7}, -32602, "path", "offset"),
        ("page.didEndDecelerating", {**s, "offset": -1e6}, -32602, "path", "offset"),
        ("page.willEndDragging", {**s, "offset": 99999, "velocity": 1}, -32602, "path", "offset"),
    ]
    if phase != "dragging":
        refused += [
            ("page.willEndDragging", {**s, "offset": 375, "velocity": 1.0}, -32003, "phase", phase),
            ("page.didEndDragging", {**s, "offset": 375, "willDecelerate": False}, -32003, "phase", phase),
        ]
    else:
        refused.append(("page.willBeginDragging", {**s, "offset": 450}, -32003, "phase", "dragging"))
    if phase != "decelerating":
        refused.append(("page.didEndDecelerating", {**s, "offset": 375}, -32003, "phase", phase))
    before = info_without_offset(client, session)
    for method, params, code, key, value in refused:
        with pytest.raises(greenroom.RPCError) as error:
            client.call(method, params)
        assert error.value.code == code, (method, params, error.value)
        assert error.value.data[key] == value, (method, params, error.value.data)
        assert lifecycle_of(client) == [], (method, params)
        assert info_without_offset(client, session) == before, (method, params)
    if phase != "dragging":
        # didScroll outside a drag is tolerated (recorded): no error, no lifecycle, nothing else changes.
        client.call("page.didScroll", {"session": session, "offset": 700})
        assert lifecycle_of(client) == []
        assert info_without_offset(client, session) == before
    assert client.ping()  # the connection still works
    stats = client.call("host.stats")
    assert stats["unbalancedTransitions"] == 0
    # And the session still works: bring it to rest, then swipe once more.
    client.call("clock.advance", {"ms": 300})
    if client.call("page.info", {"session": session})["phase"] == "dragging":
        client.call("page.didEndDragging", {"session": session, "offset": 750, "willDecelerate": False})
    if client.call("page.info", {"session": session})["phase"] == "decelerating":
        client.call("page.didEndDecelerating", {"session": session, "offset": 750})
    info = client.call("page.info", {"session": session})
    assert info["phase"] == "idle"
    assert client.call("host.stats")["unbalancedTransitions"] == 0


def test_did_end_decelerating_twice(start_host):
    host = start_host("--clock", "virtual")
    client = client_for(host)
    session = client.call("page.create", {"class": "Container", "count": 5, "width": W, "height": 667,
                                          "initialIndex": 1})["session"]
    bring_to(client, session, "decelerating")
    client.call("page.didEndDecelerating", {"session": session, "offset": 750})
    lifecycle_of(client)
    with pytest.raises(greenroom.InvalidState) as error:
        client.call("page.didEndDecelerating", {"session": session, "offset": 750})
    assert error.value.code == -32003
    assert error.value.data["phase"] == "idle"
    assert lifecycle_of(client) == []
    info = client.call("page.info", {"session": session})
    assert info["index"] == 2 and info["phase"] == "idle"
    assert client.call("host.stats")["unbalancedTransitions"] == 0


def test_out_of_order_calls_in_one_batch_leave_the_rest_of_the_batch_working(start_host):
    """A refused call inside a JSON-RPC batch changes nothing; the calls around it run as usual."""
    host = start_host("--clock", "virtual")
    client = client_for(host)
    session = client.call("page.create", {"class": "Container", "count": 5, "width": W, "height": 667,
                                          "initialIndex": 1})["session"]
    lifecycle_of(client)
    s = {"session": session}
    results = client.batch([
        ("page.willEndDragging", {**s, "offset": 375, "velocity": 1}),      # idle: -32003
        ("page.willBeginDragging", {**s, "offset": 375}),
        ("page.didScroll", {**s, "offset": 5e8}),                            # -32602 offset
        ("page.didScroll", {**s, "offset": 450}),
        ("page.willBeginDragging", {**s, "offset": 450}),                    # dragging: -32003
        ("page.show", {**s, "index": 9}),                                    # -32602 index
        ("page.willEndDragging", {**s, "offset": 600, "velocity": 1.2}),
        ("page.didEndDragging", {**s, "offset": 600, "willDecelerate": True}),
        ("page.didEndDecelerating", {**s, "offset": 750}),
        ("page.didEndDecelerating", {**s, "offset": 750}),                   # idle: -32003
    ])
    errors = {i: (r.code, r.data) for i, r in enumerate(results) if isinstance(r, greenroom.RPCError)}
    assert sorted(errors) == [0, 2, 4, 5, 9], results
    assert errors[0][0] == errors[4][0] == errors[9][0] == -32003
    assert (errors[0][1]["phase"], errors[4][1]["phase"], errors[9][1]["phase"]) == ("idle", "dragging", "idle")
    assert errors[2][0] == errors[5][0] == -32602
    assert (errors[2][1]["path"], errors[5][1]["path"]) == ("offset", "index")
    hooks = [h.split(":")[1] for h in lifecycle_of(client) if h.split(":")[1] in APPEARANCE]
    assert hooks == ["viewWillAppear", "viewWillDisappear", "viewDidAppear", "viewDidDisappear"]
    assert client.call("page.info", s)["index"] == 2
    assert client.call("host.stats")["unbalancedTransitions"] == 0


def test_a_show_during_an_animation_completes_the_running_one_first(start_host):
    """docs/pages.md: a new page.show during an animation first delivers the running one's end calls."""
    host = start_host("--clock", "virtual")
    client = client_for(host)
    session = client.call("page.create", {"class": "Container", "count": 5, "width": W, "height": 667,
                                          "initialIndex": 1})["session"]
    list(client.events(timeout=0))
    client.call("page.show", {"session": session, "index": 2})
    client.call("clock.advance", {"ms": 100})
    client.call("page.show", {"session": session, "index": 4})
    assert hooks_of(client, session) == ["willAppear 2", "willDisappear 1", "didAppear 2", "didDisappear 1",
                                         "willAppear 4", "willDisappear 2"]
    client.call("clock.advance", {"ms": 299})
    assert hooks_of(client, session) == []
    client.call("clock.advance", {"ms": 1})
    assert hooks_of(client, session) == ["didAppear 4", "didDisappear 2"]
    assert client.call("page.info", {"session": session})["index"] == 4
    assert client.call("host.stats")["unbalancedTransitions"] == 0


def test_a_drag_during_an_animation_completes_it_first(start_host):
    host = start_host("--clock", "virtual")
    client = client_for(host)
    session = client.call("page.create", {"class": "Container", "count": 5, "width": W, "height": 667,
                                          "initialIndex": 1})["session"]
    list(client.events(timeout=0))
    client.call("page.show", {"session": session, "index": 2})
    client.call("page.willBeginDragging", {"session": session, "offset": 750})
    assert hooks_of(client, session) == ["willAppear 2", "willDisappear 1", "didAppear 2", "didDisappear 1"]
    client.call("page.didScroll", {"session": session, "offset": 800})
    client.call("page.didEndDragging", {"session": session, "offset": 1125, "willDecelerate": False})
    assert hooks_of(client, session) == ["willAppear 3", "willDisappear 2", "didAppear 3", "didDisappear 2"]
    assert client.call("host.stats")["unbalancedTransitions"] == 0


def test_a_drag_beginning_while_decelerating_continues_the_interaction(start_host):
    """The GYPageViewController article's case 4 made regular (docs/pages.md): one interaction, one didAppear, nothing
    left half way."""
    host = start_host("--clock", "virtual")
    client = client_for(host)
    session = client.call("page.create", {"class": "Container", "count": 5, "width": W, "height": 667,
                                          "initialIndex": 1})["session"]
    list(client.events(timeout=0))
    s = {"session": session}
    client.batch([
        ("page.willBeginDragging", {**s, "offset": 375}),
        ("page.didScroll", {**s, "offset": 560}),                                    # toward 2
        ("page.willEndDragging", {**s, "offset": 640, "velocity": 2.0}),
        ("page.didEndDragging", {**s, "offset": 640, "willDecelerate": True}),
        ("page.willBeginDragging", {**s, "offset": 690}),                            # caught while decelerating
        ("page.didScroll", {**s, "offset": 800}),                                    # on toward 3
        ("page.willEndDragging", {**s, "offset": 980, "velocity": 2.0}),
        ("page.didEndDragging", {**s, "offset": 980, "willDecelerate": True}),
        ("page.didEndDecelerating", {**s, "offset": 1125}),
    ])
    assert hooks_of(client, session) == ["willAppear 2", "willDisappear 1", "willAppear 3", "willDisappear 2",
                                         "didDisappear 2", "didAppear 3", "didDisappear 1"]
    info = client.call("page.info", s)
    assert info["index"] == 3 and info["phase"] == "idle"
    assert client.call("host.stats")["unbalancedTransitions"] == 0


def hooks_of(client, session: str) -> list[str]:
    return [f"{SHORT[e['event']]} {e['page']['index']}" for e in client.events("lifecycle", timeout=0)
            if e["event"] in SHORT and e["page"]["session"] == session]


# ---------------------------------------------------------------------------------------------------
# Violations of docs/pages.md / the GYPageViewController article


TOWARD_2_THEN_0 = ["willAppear 2", "willDisappear 1", "willAppear 0", "willDisappear 2", "didDisappear 2",
                   "didAppear 0", "didDisappear 1"]
ONE_TWO_ZERO_TWO = ["willAppear 2", "willDisappear 1", "willAppear 0", "willDisappear 2", "didDisappear 2",
                    "willAppear 2", "willDisappear 0", "didDisappear 0", "didAppear 2", "didDisappear 1"]


def swipe_hooks(client, cache, offsets, rest) -> list[str]:
    info = client.call("page.create", {"class": "Container", "count": 5, "width": W, "height": 667,
                                       "initialIndex": 1, "cache": cache})
    session = info["session"]
    list(client.events(timeout=0))  # page 1's start-up
    s = {"session": session}
    calls = [("page.willBeginDragging", {**s, "offset": offsets[0]})]
    calls += [("page.didScroll", {**s, "offset": x}) for x in offsets[1:]]
    calls += [("page.willEndDragging", {**s, "offset": offsets[-1], "velocity": 1.0}),
              ("page.didEndDragging", {**s, "offset": offsets[-1], "willDecelerate": True}),
              ("page.didEndDecelerating", {**s, "offset": rest})]
    results = client.batch(calls)
    assert not [r for r in results if isinstance(r, greenroom.RPCError)], results
    hooks = hooks_of(client, session)
    client.call("page.destroy", s)
    list(client.events(timeout=0))
    return hooks


@pytest.mark.parametrize("limit", [2, 1])
@pytest.mark.parametrize("table", ["toward 2 then 0", "1-2-0-2"])
def test_small_caches_keep_seed_001s_interactive_tables(start_host, limit, table):
    """The GYPageViewController article's interactive tables must come out the same whatever the cache (docs/pages.md:
    "These rules
    reproduce the GYPageViewController article's tables exactly"; the cache only defers releases of interaction-related
    pages).

    With `cache: {limit: 2}` (or 1) the host releases the previous guess (page 2, `appearing`) the moment
    the drag turns toward page 0 and page 0 is attached: page 2 gets willDisappear/didDisappear/deinit
    *before* willAppear 0, instead of willAppear 0, willDisappear 2, didDisappear 2. For 1-2-0-2 the second
    approach to page 2 even gets a fresh container. Observed (limit 2, toward 2 then 0):
    willAppear 2, willDisappear 1, willDisappear 2, didDisappear 2, willAppear 0, didAppear 0, didDisappear 1.

    The page the guess moves away from is interaction-related at that moment (it is in the middle of its
    appearance transition and gets begin(false)/end() in the very same didScroll): its eviction should be
    deferred to rest like the others (GYPageViewController's "相关交互页面"), or at least come after the
    table's calls."""
    host = start_host("--clock", "virtual")
    client = client_for(host)
    if table == "toward 2 then 0":
        offsets, rest, expected = [375, 450, 560, 370, 200], 0, TOWARD_2_THEN_0
    else:
        offsets, rest, expected = [375, 450, 300, 450, 600], 750, ONE_TWO_ZERO_TWO
    # The same swipe with the default cache is the GYPageViewController article's table (the host gets it right there).
    assert swipe_hooks(client, {"limit": 3}, offsets, rest) == expected
    assert swipe_hooks(client, {"limit": limit}, offsets, rest) == expected


def test_cancelled_swipe_reverses_willDisappear_as_design_7_says(start_host):  # noqa: N802
    """A swipe toward page 2 that springs back to page 1: docs/pages.md's cancel rule (old.begin(true),
    old.end(), guess.begin(false), guess.end()) reverses page 1's willDisappear with willAppear and
    didAppear, as UIKit does for a cancelled interactive transition. The invariant "every willDisappear
    gets its didDisappear before rest" is read with that reversal: every willDisappear is answered by
    didDisappear, or reversed by willAppear + didAppear of the same page; the guess gets its didDisappear."""
    host = start_host("--clock", "virtual")
    client = client_for(host)
    hooks = swipe_hooks(client, {"limit": 3}, [375, 420, 500], 375)
    assert hooks == ["willAppear 2", "willDisappear 1", "willAppear 1", "didAppear 1", "willDisappear 2", "didDisappear 2"]
    for i, hook in enumerate(hooks):
        if hook.startswith("willDisappear"):
            page = hook.split()[1]
            rest = [h for h in hooks[i + 1:] if h.split()[1] == page]
            assert rest[:1] == [f"didDisappear {page}"] or rest[:2] == [f"willAppear {page}", f"didAppear {page}"], (
                f"{hook} is neither answered nor reversed: {hooks}")
