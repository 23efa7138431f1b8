"""An audit of range sessions against an independent model of Texture be0b74b4 (texturemodel_audit.Texture,
written from `ASRangeController.mm`, `ASAbstractLayoutController.mm`, `ASBatchFetching.mm`,
`ASTableView.mm` / `ASCollectionView.mm`): hand-picked edge cases and randomized gesture sequences with
fixed seeds drive a real host (virtual clock) and the model side by side; after every call range.state
(mode, direction, the three sets), the call's range events (what entered and left each range) and its
batch events must agree.
"""

from __future__ import annotations

import os
import random

import pytest
from rangemodel import RC
from texturemodel_audit import KINDS, Texture

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def rc(request):
    import grhost

    factory = grhost.HostFactory(grhost.find_bin())
    request.addfinalizer(factory.teardown)
    return RC(factory.start("--clock", "virtual").connect())


class Pair:
    """One host session and its model, driven together; `do` compares after each call."""

    def __init__(self, rc, sections, L=1000, axis="vertical", visible=True, lead=2.0, tuning=None):
        self.rc = rc
        self.m = Texture(sections, L, visible=visible, lead=lead, tuning=tuning, axis=axis)
        vp = {"width": 375, "height": L} if axis == "vertical" else {"width": L, "height": 375}
        params = dict(sections=[{"lengths": list(s)} for s in sections], viewport=vp, axis=axis, visible=visible,
                      batch={"leadingScreens": lead})
        if tuning:
            params["tuning"] = tuning
        self.log = [("create", params)]
        r, events = rc.call("range.create", **params)
        self.s = r["session"]
        self.context = None
        self.check("create", self.m.create(), events)

    def fail(self, what):
        trail = "\n".join(f"  {m} {p}" for m, p in self.log)
        pytest.fail(f"{what}\nafter:\n{trail}", pytrace=False)

    def check(self, method, model_out, events):
        updates, nbatch = model_out
        ranges = [e["params"] for e in events if e["method"] == "range" and e["params"]["session"] == self.s]
        bats = [e["params"] for e in events if e["method"] == "batch" and e["params"]["session"] == self.s]
        if len(bats) != nbatch:
            self.fail(f"{method}: host asked for {len(bats)} batches, Texture {nbatch}")
        if bats:
            self.context = bats[-1]["context"]
        got_enter = {k: sorted({tuple(p) for e in ranges for p in e["enter"][k]}) for k in KINDS}
        got_exit = {k: sorted({tuple(p) for e in ranges for p in e["exit"][k]}) for k in KINDS}
        want_enter = {k: self.m.paths(set().union(*[u[0][k] for u in updates])) for k in KINDS}
        want_exit = {k: self.m.paths(set().union(*[u[1][k] for u in updates])) for k in KINDS}
        st = self.rc.state(self.s)
        lists = {k: [tuple(p) for p in st[k]] for k in KINDS}
        want = self.m.lists()
        if lists != want:
            self.fail(f"{method}: state {lists}\n  Texture {want}\n  mode {st['mode']} / {self.m.mode}")
        if self.m.mode is not None and st["mode"] != self.m.mode:
            self.fail(f"{method}: mode {st['mode']}, Texture {self.m.mode}")
        if st["direction"] != self.m.direction():
            self.fail(f"{method}: direction {st['direction']}, Texture {self.m.direction()}")
        if (got_enter, got_exit) != (want_enter, want_exit):
            self.fail(f"{method}: events enter {got_enter} exit {got_exit}\n  Texture enter {want_enter} exit {want_exit}")
        if len(ranges) > max(len(updates), 1) or (updates and not ranges):
            self.fail(f"{method}: {len(ranges)} range events, Texture {len(updates)} updates")

    def do(self, method, **p):
        self.log.append((method, p))
        m = self.m
        if method == "range.memoryWarning":  # host-wide: every session of the host
            r, events = self.rc.call("host.memoryWarning")
            self.check(method, m.memory_warning(), events)
            return
        if method == "range.batchFetchDone":
            if self.context is None:
                return
            p = dict(p, context=self.context)
            self.context = None
        r, events = self.rc.call(method, session=self.s, **p)
        if method == "range.willBeginDragging":
            out = m.will_begin_dragging(p.get("offset"), p.get("velocity"))
        elif method == "range.didScroll":
            out = m.did_scroll(p["offset"], p.get("velocity"))
        elif method == "range.willEndDragging":
            target = m.will_end_dragging(p.get("targetOffset", m.offset if "offset" not in p else p["offset"]),
                                         p.get("offset"))
            if r["targetOffset"] != target:
                self.fail(f"targetOffset {r['targetOffset']}, Texture {target}")
            out = (m.updates, m.batches)
        elif method == "range.didEndDecelerating":
            out = m.did_end_decelerating(p.get("offset"))
        elif method == "range.setVisible":
            out = m.set_visible(p["visible"])
        elif method == "range.setViewport":
            vp = p["viewport"]
            out = m.set_viewport(vp["height"] if m.axis == "vertical" else vp["width"])
        elif method == "range.insertItems":
            out = m.insert(p["at"][0], p["at"][1], p["lengths"])
        elif method == "range.deleteItems":
            out = m.delete([tuple(x) for x in p["paths"]])
        elif method == "range.batchFetchDone":
            out = m.batch_done(p.get("lengths"))
        else:
            raise AssertionError(method)
        self.check(method, out, events)

    def destroy(self):
        self.rc.call("range.destroy", session=self.s)


# --------------------------------------------------------------------------------------------------
# Gestures


def drag(pair, path, velocity=None):
    """A drag through the offsets of `path` (the first is where the finger lands)."""
    pair.do("range.willBeginDragging", offset=path[0])
    for x in path[1:]:
        if velocity is None:
            pair.do("range.didScroll", offset=x)
        else:
            pair.do("range.didScroll", offset=x, velocity=velocity)


def fling(pair, target, steps=3, velocity=1.0):
    start = pair.m.offset
    pair.do("range.willEndDragging", velocity=velocity, targetOffset=target)
    t = min(max(target, 0), max(pair.m.total() - pair.m.L, 0))
    for k in range(1, steps + 1):
        pair.do("range.didScroll", offset=round(start + (t - start) * k / steps, 3))
    pair.do("range.didEndDecelerating")


def rest(pair, at):
    pair.do("range.willEndDragging", velocity=0)
    pair.do("range.didEndDecelerating", offset=at) if at != pair.m.offset else pair.do("range.didEndDecelerating")


U = [[100.0] * 100]  # 100 rows of 100 points, L = 1000


SCENARIOS = {
    "reversal": lambda p: (drag(p, [0, 800, 1600, 2400, 2000, 1500]), fling(p, 600, velocity=-2)),
    "overscroll_head": lambda p: (drag(p, [0, -300, -900]), p.do("range.didEndDecelerating", offset=0)),
    "overscroll_tail": lambda p: (drag(p, [0, 4000, 9000, 9800]), fling(p, 9500), p.do("range.didScroll", offset=9990)),
    "jitter": lambda p: (drag(p, [3000, 3005, 2995, 3005, 2995, 3000]), rest(p, 3000)),
    "invisible_drag": lambda p: (p.do("range.setVisible", visible=False), drag(p, [0, 1500, 3000]),
                                 fling(p, 2000, velocity=-1), p.do("range.setVisible", visible=True),
                                 drag(p, [2000, 2600])),
    "memory_before_drag": lambda p: (p.do("range.memoryWarning"), p.do("range.didScroll", offset=1500),
                                     drag(p, [1500, 2500, 3500]), fling(p, 4000)),
    "memory_during_drag": lambda p: (drag(p, [0, 1000, 2000]), p.do("range.memoryWarning"),
                                     p.do("range.didScroll", offset=2050), p.do("range.didScroll", offset=2600),
                                     fling(p, 3000)),
    "memory_after_drag": lambda p: (drag(p, [0, 1000, 2000]), fling(p, 2500), p.do("range.memoryWarning"),
                                    p.do("range.didScroll", offset=2550), p.do("range.didScroll", offset=3300)),
    "memory_invisible": lambda p: (p.do("range.setVisible", visible=False), p.do("range.memoryWarning"),
                                   p.do("range.didScroll", offset=1200), p.do("range.setVisible", visible=True),
                                   p.do("range.didScroll", offset=2400)),
    "memory_overscrolled": lambda p: (drag(p, [0, -1000]), p.do("range.memoryWarning"),
                                      p.do("range.didScroll", offset=-500), p.do("range.didScroll", offset=0),
                                      p.do("range.didEndDecelerating")),
    "batch_boundary": lambda p: (p.do("range.didScroll", offset=6999), p.do("range.didScroll", offset=7000),
                                 p.do("range.batchFetchDone", lengths=[100.0] * 5),
                                 p.do("range.didScroll", offset=7499), p.do("range.didScroll", offset=7500)),
    "batch_release_boundary": lambda p: (drag(p, [0, 3000, 5000]), fling(p, 7000, steps=2)),
    "snap_against_motion": lambda p: (drag(p, [0, 3000, 7500]), p.do("range.willEndDragging", velocity=2, targetOffset=6000),
                                      p.do("range.didScroll", offset=6500), p.do("range.didEndDecelerating", offset=6000)),
    "exhausted": lambda p: (p.do("range.didScroll", offset=7500), p.do("range.batchFetchDone"),
                            p.do("range.didScroll", offset=7600), p.do("range.batchFetchDone", lengths=[]),
                            drag(p, [7600, 7700]), fling(p, 7700, steps=1)),
    "programmatic": lambda p: (drag(p, [0, 2000, 1800]), rest(p, 1800), p.do("range.didScroll", offset=6000),
                               p.do("range.didScroll", offset=200), p.do("range.didScroll", offset=8900)),
    "end_drag_without_release": lambda p: (drag(p, [0, 3000, 7200, 7100]), p.do("range.didEndDecelerating", offset=7150)),
    "inserts_deletes": lambda p: (p.do("range.didScroll", offset=1000), p.do("range.insertItems", at=[0, 0], lengths=[50, 50]),
                                  p.do("range.insertItems", at=[0, 50], lengths=[300]),
                                  p.do("range.deleteItems", paths=[[0, 12], [0, 3], [0, 30]]),
                                  p.do("range.deleteItems", paths=[]),
                                  drag(p, [1000, 1300]), p.do("range.insertItems", at=[0, 0], lengths=[100]),
                                  p.do("range.deleteItems", paths=[[0, 10]])),
    "viewport": lambda p: (p.do("range.didScroll", offset=500), p.do("range.setViewport", viewport={"width": 375, "height": 1500}),
                           p.do("range.setViewport", viewport={"width": 375, "height": 1520}),
                           drag(p, [500, 900]), p.do("range.setViewport", viewport={"width": 375, "height": 600})),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario(rc, name):
    p = Pair(rc, U)
    SCENARIOS[name](p)
    p.destroy()


SHAPES = {
    "short": dict(sections=[[100.0] * 3]),
    "empty": dict(sections=[[]]),
    "sections": dict(sections=[[80.0] * 7, [], [120.0] * 5, [], [], [60.0] * 30, [200.0] * 4]),
    "horizontal": dict(sections=[[50.0] * 40], L=500, axis="horizontal", lead=1.5),
    "invisible_short": dict(sections=[[100.0] * 3], visible=False),
    "tuned": dict(sections=[[100.0] * 60], tuning={"full": {"display": {"leading": 3, "trailing": 0},
                                                            "preload": {"leading": 1, "trailing": 1}}}),
    "no_batches": dict(sections=[[100.0] * 30], lead=0),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_shapes_with_a_drag(rc, shape):
    p = Pair(rc, **SHAPES[shape])
    hi = max(p.m.total() - p.m.L, 0)
    drag(p, [0, hi / 2, hi + 100, hi])
    fling(p, hi, steps=1)
    p.do("range.batchFetchDone")
    p.do("range.memoryWarning")
    p.do("range.didScroll", offset=hi / 3)
    p.do("range.insertItems", at=[0, 0], lengths=[100.0])
    p.do("range.batchFetchDone", lengths=[100.0, 100.0])
    p.destroy()


def random_run(rc, seed, steps=60):
    rnd = random.Random(seed)
    n_sec = rnd.choice([1, 1, 2, 4])
    sections = [[float(rnd.choice([40, 60, 100, 150, 300])) for _ in range(rnd.choice([0, 3, 10, 30, 50]))]
                for _ in range(n_sec)]
    if not any(sections):
        sections[0] = [100.0] * 20
    axis = rnd.choice(["vertical", "horizontal"])
    L = rnd.choice([400, 700, 1000])
    p = Pair(rc, sections, L=L, axis=axis, visible=rnd.random() < 0.85, lead=rnd.choice([1.0, 2.0, 2.0, 0.5]))
    m = p.m
    for _ in range(steps):
        hi = max(m.total() - m.L, 0)
        r = rnd.random()
        if m.phase == "dragging":
            if r < 0.6:
                x = min(max(m.offset + rnd.choice([-1, 1, 1]) * rnd.choice([5, 50, 300, 900]), -m.L * 0.5), hi + m.L * 0.5)
                if rnd.random() < 0.3:
                    p.do("range.didScroll", offset=x, velocity=rnd.choice([-1.5, 0.0, 1.5]))
                else:
                    p.do("range.didScroll", offset=x)
            elif r < 0.9:
                t = rnd.choice([m.offset, m.offset + 1500, m.offset - 1500, hi, 0, hi + 0.5 * m.L])
                t = min(max(t, -m.L), hi + m.L)
                p.do("range.willEndDragging", velocity=rnd.choice([-2, 2]), targetOffset=t)
            else:
                p.do("range.didEndDecelerating", offset=min(max(m.offset, 0), hi))
        elif r < 0.25:
            x = min(max(m.offset, -m.L), hi + m.L)
            if rnd.random() < 0.3:
                p.do("range.willBeginDragging", offset=x, velocity=rnd.choice([-1.0, 1.0, 0.0]))
            else:
                p.do("range.willBeginDragging", offset=x)
        elif r < 0.4 and m.phase == "decelerating":
            p.do("range.didScroll", offset=min(max(m.offset + rnd.choice([-400, 400, 100]), 0), hi))
        elif r < 0.5 and m.phase == "decelerating":
            p.do("range.didEndDecelerating", offset=min(max(m.offset, 0), hi))
        elif r < 0.58:
            p.do("range.didScroll", offset=rnd.uniform(0, hi))
        elif r < 0.64:
            p.do("range.memoryWarning")
        elif r < 0.7:
            p.do("range.setVisible", visible=not m.visible)
        elif r < 0.8 and m.in_flight:
            p.do("range.batchFetchDone", lengths=rnd.choice([[], [100.0] * 3, [50.0] * 10]))
        elif r < 0.86:
            s = rnd.randrange(len(m.sections))
            p.do("range.insertItems", at=[s, rnd.randint(0, len(m.sections[s]))], lengths=[rnd.choice([60.0, 100.0])] * rnd.randint(1, 4))
        elif r < 0.92:
            all_paths = [[s, i] for s, sec in enumerate(m.sections) for i in range(len(sec))]
            if all_paths:
                p.do("range.deleteItems", paths=rnd.sample(all_paths, min(len(all_paths), rnd.randint(1, 3))))
        elif r < 0.95:
            L2 = rnd.choice([400, 700, 1000])
            vp = {"width": 375, "height": L2} if axis == "vertical" else {"width": L2, "height": 375}
            p.do("range.setViewport", viewport=vp)
        else:
            p.do("range.didScroll", offset=min(max(m.offset + rnd.choice([-5, 5]), 0), hi))
    p.destroy()


#: Seeds run by the suite (a few seconds); GREENROOM_AUDIT_SEEDS=N runs N (the audit ran 5,000).
SEEDS = int(os.environ.get("GREENROOM_AUDIT_SEEDS", "120"))


@pytest.mark.parametrize("seed", range(SEEDS))
def test_random(rc, seed):
    random_run(rc, seed)


LOWMEM_EQUAL = {"lowMemory": {"display": {"leading": 1, "trailing": 1}, "preload": {"leading": 1, "trailing": 1}}}

EDGES = {
    # ASRangeController: equalDisplayPreload makes preload reuse the display set, which lowMemory empties.
    "lowmemory_equal_tunings_invisible": (dict(sections=U, visible=False, tuning=LOWMEM_EQUAL), lambda p: (
        p.do("range.memoryWarning"), p.do("range.didScroll", offset=2000))),
    "lowmemory_equal_tunings_shown": (dict(sections=U, visible=False, tuning=LOWMEM_EQUAL), lambda p: (
        p.do("range.memoryWarning"), p.do("range.setVisible", visible=True), p.do("range.didScroll", offset=2000))),
    # A second warning while the mode is already visibleOnly preserves it for the next update.
    "double_warning": (dict(sections=U), lambda p: (
        drag(p, [0, 1000]), fling(p, 1500), p.do("range.memoryWarning"), p.do("range.didScroll", offset=1500),
        p.do("range.didScroll", offset=2600), p.do("range.memoryWarning"), p.do("range.memoryWarning"),
        p.do("range.didScroll", offset=3700), p.do("range.didScroll", offset=4800))),
    "drag_begins_with_velocity_up": (dict(sections=U), lambda p: (
        p.do("range.didScroll", offset=3000), p.do("range.willBeginDragging", offset=3000, velocity=-1),
        p.do("range.didScroll", offset=2950, velocity=-1))),
    "drag_begins_with_a_jump": (dict(sections=U), lambda p: (
        p.do("range.didScroll", offset=3000), p.do("range.willBeginDragging", offset=2500),
        p.do("range.didScroll", offset=2500))),
    "content_exactly_L_invisible": (dict(sections=[[100.0] * 10], visible=False), lambda p: (
        p.do("range.setVisible", visible=True),)),
    "content_just_under_L_invisible": (dict(sections=[[100.0] * 9, [99.0]], visible=False), lambda p: (
        p.do("range.batchFetchDone", lengths=[1.0]), p.do("range.setVisible", visible=True))),
    "viewport_grows_into_the_threshold": (dict(sections=U), lambda p: (
        p.do("range.didScroll", offset=5000), p.do("range.setViewport", viewport={"width": 375, "height": 2000}),
        p.do("range.didScroll", offset=5001))),
    "delete_everything_on_screen": (dict(sections=[[100.0] * 30]), lambda p: (
        p.do("range.didScroll", offset=1900), p.do("range.deleteItems", paths=[[0, i] for i in range(15, 30)]),
        p.do("range.didScroll", offset=1000))),
    "batch_done_while_dragging_toward_the_end": (dict(sections=U), lambda p: (
        drag(p, [0, 7000, 7500]), p.do("range.willEndDragging", velocity=1, targetOffset=7600),
        p.do("range.willBeginDragging", offset=7550), p.do("range.batchFetchDone", lengths=[100.0]),
        p.do("range.didScroll", offset=7700), p.do("range.willEndDragging", velocity=0),
        p.do("range.didEndDecelerating"))),
    "release_into_overscroll_at_the_head": (dict(sections=U), lambda p: (
        drag(p, [500, 200, -400]), p.do("range.willEndDragging", velocity=-1, targetOffset=0),
        p.do("range.didScroll", offset=-100), p.do("range.didEndDecelerating", offset=0))),
}


@pytest.mark.parametrize("name", sorted(EDGES))
def test_edge(rc, name):
    shape, run = EDGES[name]
    p = Pair(rc, **shape)
    run(p)
    p.destroy()
