"""Random gesture sequences with fixed seeds checked against models of the range rules: events replayed
into a client-side model must agree with range.state after every call (`rangemodel.Replay`), and a
random walk must match a brute-force model written from docs/ranges.md's sentences. (The independent
model of Texture's range controller is checked in test_ranges_texture_model.py.)

How the expected values are worked out, and the usual sessions ("setup A", "setup B", `SECTIONS`): rangemodel.py.
"""

from __future__ import annotations

import collections
import random

import pytest
from rangemodel import (Content, INFO_KEYS, KINDS, Replay, TextureModel, batches, prefetches, range_events, split,
                        state_paths, viewport)

pytestmark = pytest.mark.integration


def random_sections(rng: random.Random, shape: str) -> list[list[float]]:
    def iv_rows(n):
        return [float(rng.choice([30, 44, 60, 90, 150, 220])) for _ in range(n)]

    if shape == "sections":
        return [iv_rows(25), [], iv_rows(15), iv_rows(40)]
    return [iv_rows(90)]


def check_update(rc, s, m, events, where, removed_paths=()):
    """The call's events against the model's diff (the model's sets are still the old ones, ids)."""
    new = m.ranges()
    paths = m.path_of()
    rng = range_events(events)
    assert len(rng) <= 1, where
    changed = any(new[k] != m.sets[k] for k in KINDS)
    if not changed and not removed_paths:
        assert rng == [], f"{where}: a range event without a change: {rng}"
    else:
        assert len(rng) == 1, f"{where}: no range event for a change"
        ev = rng[0]
        assert ev["session"] == s and ev["mode"] == m.mode, where
        assert ev["direction"] == ("down" if m.forward else "up"), where
        for k in KINDS:
            enter = [tuple(p) for p in ev["enter"][k]]
            exit_ = [tuple(p) for p in ev["exit"][k]]
            assert len(set(enter)) == len(enter) and len(set(exit_)) == len(exit_), (where, k, ev)
            assert sorted(enter) == sorted(paths[i] for i in new[k] - m.sets[k]), (where, "enter", k)
            assert sorted(exit_) == sorted(paths[i] for i in m.sets[k] - new[k] if i in paths), (where, "exit", k)
            by_path = {p: i for i, p in paths.items()}
            gaps = [m.gap(by_path[p]) for p in enter]
            assert gaps == sorted(gaps), (where, "enter order", k, enter, gaps)
            if m.on_screen:  # with nothing on screen the leaving items are ordered from the offset's row
                gaps = [m.gap(by_path[p]) for p in exit_]
                assert gaps == sorted(gaps), (where, "exit order", k, exit_, gaps)
        if removed_paths:
            assert ev.get("removed") == [list(p) for p in removed_paths], (where, ev.get("removed"))
        else:
            assert "removed" not in ev, where
    # prefetch
    m.seen |= new["visible"] - m.sets["visible"]
    entered = new["preload"] - m.sets["preload"]
    left = {i for i in m.sets["preload"] - new["preload"] if i in paths}
    want_pre = sorted(paths[i] for i in entered if i not in new["visible"])
    want_cancel = sorted(paths[i] for i in left if i not in m.seen)
    got = prefetches(events)
    assert sorted(got["prefetchItems"]) == want_pre, (where, got, want_pre)
    assert sorted(got["cancelPrefetching"]) == want_cancel, (where, got, want_cancel)
    m.seen -= left
    m.sets = new
    st = rc.state(s)
    assert {k: sorted(tuple(p) for p in st[k]) for k in KINDS} == \
        {k: sorted(paths[i] for i in new[k]) for k in KINDS}, where
    assert (st["mode"], st["direction"]) == (m.mode, "down" if m.forward else "up"), where


def summary_matches(r, m, s, where):
    assert set(r) == INFO_KEYS, where
    assert r["session"] == s and r["count"] == m.count and r["sections"] == len(m.sections), (where, r)
    assert r["contentLength"] == pytest.approx(m.total) and r["offset"] == pytest.approx(m.offset), (where, r)
    assert (r["mode"], r["phase"], r["visible"]) == (m.mode, m.phase, m.visible), (where, r)
    assert r["batchInFlight"] == m.in_flight, (where, r)


@pytest.mark.parametrize("seed,shape", [(4, "single"), (1004, "sections"), (2004, "horizontal"), (3004, "lazy")])
def test_random_scroll_sequences_replay_into_range_state(rc, seed, shape):
    """A few hundred random steps (scrolls, drags, flings, visibility, memory warnings, inserts, deletes,
    viewport changes, finished batches). After each: the events replayed into a model equal range.state,
    range.state equals what Texture's rules give (`TextureModel`: recomputed only when the items on screen,
    the mode or the visibility changed), and each batch is the one Texture's rule asks for."""
    rng = random.Random(seed)
    axis = "horizontal" if shape == "horizontal" else "vertical"
    L = 600.0
    content = Content(random_sections(rng, shape))
    params = {"viewport": viewport(axis, L), "axis": axis, "lazy": shape == "lazy"}
    if shape == "sections":
        params["sections"] = [{"lengths": s} for s in content.sections]
    else:
        params["lengths"] = content.lengths
    reply, events = rc.call("range.create", **params)
    s = reply["session"]
    replay = Replay()
    m = TextureModel(content.sections, L, lazy=shape == "lazy")
    ids = [iid for sec in m.sections for iid, _ in sec]  # flat index -> id, kept beside `content`
    names = ("down", "up") if axis == "vertical" else ("right", "left")
    ran: collections.Counter = collections.Counter()

    def model_paths():
        by_id = m.path_of()
        return {k: sorted(by_id[i] for i in m.sets[k]) for k in KINDS}

    for step in range(400):
        removed: list = []
        decision = None
        if step == 0:
            op = "create"
            decision = m.batch_due(0.0)
        else:
            op = rng.choices(["scroll", "jump", "tail", "drag", "fling", "stop", "visible", "memory", "insert",
                              "delete", "viewport", "done"], [30, 6, 4, 8, 8, 6, 3, 1, 6, 5, 2, 6])[0]
            if op in ("scroll", "jump", "tail"):
                top = max(0.0, content.total - L)
                x = m.offset + rng.uniform(-L, L) if op == "scroll" else \
                    rng.uniform(0, top) if op == "jump" else top - rng.uniform(0, 3 * L)  # near the end
                x = round(min(max(x, -0.4 * L), top + 0.4 * L), 2)
                reply, events = rc.call("range.didScroll", session=s, offset=x)
                decision = m.did_scroll(x)
            elif op == "drag":
                reply, events = rc.call("range.willBeginDragging", session=s)
                m.will_begin_dragging()
            elif op == "fling":
                if m.phase != "dragging":
                    continue
                v = round(rng.uniform(-3, 3), 3)
                reply, events = rc.call("range.willEndDragging", session=s, velocity=v)
                target = min(max(m.offset + v * 499, 0.0), max(0.0, content.total - L))
                assert reply["targetOffset"] == pytest.approx(target)
                decision = m.will_end_dragging(reply["targetOffset"])
            elif op == "stop":
                if m.phase == "idle":
                    continue
                reply, events = rc.call("range.didEndDecelerating", session=s)
                decision = m.did_end_decelerating()
            elif op == "visible":
                v = rng.random() < 0.6
                reply, events = rc.call("range.setVisible", session=s, visible=v)
                decision = m.set_visible(v)
            elif op == "memory":
                reply, events = rc.call("host.memoryWarning")
                m.memory_warning()
            elif op == "insert":
                sec = rng.randrange(len(content.sections))
                row = rng.randint(0, len(content.sections[sec]))
                lengths = [float(rng.choice([20, 50, 120])) for _ in range(rng.randint(1, 4))]
                reply, events = rc.call("range.insertItems", session=s, at=[sec, row], lengths=lengths)
                new = [m._new(x) for x in lengths]
                m.sections[sec][row:row] = new
                ids[content.flat((sec, row)):content.flat((sec, row))] = [iid for iid, _ in new]
                content.insert(sec, row, lengths)
                replay.insert(sec, row, len(lengths))
                decision = m.edited()
            elif op == "delete":
                if content.count < 10:
                    continue
                paths = {content.path(i) for i in rng.sample(range(content.count), rng.randint(1, 3))}
                reply, events = rc.call("range.deleteItems", session=s, paths=[list(p) for p in paths])
                gone = set()
                for p in sorted(paths, key=content.flat, reverse=True):
                    if replay.delete(p):
                        removed.append(p)
                    gone.add(ids.pop(content.flat(p)))
                    content.delete(p)
                for sec in m.sections:
                    sec[:] = [x for x in sec if x[0] not in gone]
                decision = m.deleted(gone)
            elif op == "viewport":
                L = float(rng.choice([400, 600, 900]))
                reply, events = rc.call("range.setViewport", session=s, viewport=viewport(axis, L))
                m.L = L
                m.layout()
            elif op == "done":
                if m.in_flight is None:
                    continue
                lengths = [float(rng.choice([44, 90])) for _ in range(rng.randint(0, 6))]
                reply, events = rc.call("range.batchFetchDone", session=s, context=m.in_flight, lengths=lengths)
                last = len(content.sections) - 1
                size = len(content.sections[last])
                new = [m._new(x) for x in lengths]
                m.sections[last].extend(new)
                ids.extend(iid for iid, _ in new)
                content.insert(last, size, lengths)
                replay.insert(last, size, len(lengths))
                m.in_flight = None
                decision = m.edited() if lengths else None
        ran[op] += 1
        where = f"step {step} ({op}, seed {seed})"
        assert ids == [iid for sec in m.sections for iid, _ in sec], where
        event, prefetch, event_batches = split(events)
        if event is not None:
            assert sorted(tuple(p) for p in event.get("removed", [])) == sorted(removed), where
        else:
            assert not removed, where
        problems = replay.apply(event, prefetch)
        assert problems == [], f"{where}: {problems}"
        st = rc.state(s)
        got = state_paths(st)
        assert replay.as_lists() == {k: sorted(v) for k, v in got.items()}, where
        if event is not None:
            assert event["mode"] == st["mode"] and event["direction"] == st["direction"], where
        m.sets = m.ranges()
        want = model_paths()
        for k in KINDS:
            assert sorted(got[k]) == want[k], (where, k, sorted(set(got[k]) - set(want[k])), sorted(set(want[k]) - set(got[k])))
        assert (st["mode"], st["direction"]) == (m.mode, names[0 if m.forward else 1]), where
        if not m.visible:
            assert got["visible"] == [], where
        # Batches: never two in flight, exactly when Texture's rule asks for one.
        assert len(event_batches) <= 1, where
        if decision is not None:
            assert len(event_batches) == 1 and event_batches[0]["prepend"] is decision, f"{where}: no batch"
            m.in_flight = event_batches[0]["context"]
            ran["batch"] += 1
        else:
            assert event_batches == [], f"{where}: a batch against the rule"
    # The walk went everywhere it should (a seed that skipped something would prove little).
    assert all(ran[op] >= 2 for op in ["scroll", "jump", "tail", "drag", "fling", "stop", "visible", "insert",
                                       "delete", "viewport", "done", "batch"]), ran


@pytest.mark.parametrize("seed,prepend", [(11, False), (12, True), (13, False), (14, True), (15, False), (16, True)])
def test_random_walk_matches_a_brute_force_model(rc, seed, prepend):
    rnd = random.Random(seed)
    choices = [20.0, 35.0, 50.0, 80.0, 130.0]
    sections = [[rnd.choice(choices) for _ in range(n)] for n in (12, 0, 20, 7, 25)]
    L = 400.0
    m = TextureModel(sections, L, prepend)
    reply, events = rc.call("range.create", sections=[{"lengths": x} for x in sections],
                            viewport={"width": 320, "height": L}, batch={"prepend": prepend})
    s = reply["session"]

    def after(op, reply, events, decision=None, removed=()):
        """`decision`: the model's batch decision for this call (None: no batch)."""
        where = f"seed {seed} step {step} {op}"
        ran[op] += 1
        check_update(rc, s, m, events, where, removed)
        bs = batches(events)
        if decision is not None:
            assert len(bs) == 1, f"{where}: the rule holds but no batch"
            assert bs[0]["prepend"] is decision, where
            m.in_flight = bs[0]["context"]
            m.in_flight_prepends = bs[0]["prepend"]
            ran["batch"] += 1
        else:
            assert bs == [], f"{where}: a batch against the rule"
        if reply is not None and "count" in reply:
            summary_matches(reply, m, s, where)

    step = 0
    ran = collections.Counter()
    after("create", reply, events, decision=m.batch_due(0.0))
    ops = ["scroll", "drag", "fling", "stop", "hide", "memory", "insert", "delete", "viewport", "done", "jitter",
           "tail"]
    weights = [30, 6, 6, 6, 3, 2, 7, 6, 2, 6, 4, 4]
    for step in range(1, 220):
        op = rnd.choices(ops, weights)[0]
        top = max(0.0, m.total - m.L)
        if op in ("scroll", "jitter", "tail"):
            if op == "tail":  # near the end, where batches are asked for
                x = float(round(max(-m.L, top - rnd.uniform(0, 3 * m.L))))
            elif op == "scroll":
                x = float(round(min(max(m.offset + rnd.uniform(-m.L, m.L), -0.5 * m.L), top + 0.5 * m.L)))
                if rnd.random() < 0.1:
                    x = float(round(rnd.uniform(0, top)))
            else:  # a few points back and forth: usually the same items on screen
                x = float(min(max(m.offset + rnd.choice([-5.0, 5.0]), -m.L), top + m.L))
            r, ev = rc.call("range.didScroll", session=s, offset=x)
            after(op, None, ev, decision=m.did_scroll(x))
        elif op == "drag":
            x = float(round(min(max(m.offset + rnd.uniform(-50, 50), 0.0), top)))
            r, ev = rc.call("range.willBeginDragging", session=s, offset=x)
            m.will_begin_dragging(x)
            after(op, r, ev)
        elif op == "fling":
            if m.phase != "dragging":
                continue
            t = float(round(rnd.uniform(-0.2 * m.L, top + 0.2 * m.L)))
            if rnd.random() < 0.2:
                t = m.offset  # a release at rest
            v = rnd.choice([-1.5, -0.5, 0.0, 0.5, 1.5])
            r, ev = rc.call("range.willEndDragging", session=s, velocity=v, targetOffset=t)
            clamped = min(max(t, 0.0), top)
            assert r == {"session": s, "targetOffset": pytest.approx(clamped)}, r
            after(op, None, ev, decision=m.will_end_dragging(clamped))
        elif op == "stop":
            if m.phase == "idle":
                continue
            x = float(round(min(max(m.offset + rnd.uniform(-100, 100), 0.0), top)))
            r, ev = rc.call("range.didEndDecelerating", session=s, offset=x)
            after(op, r, ev, decision=m.did_end_decelerating(x))
        elif op == "hide":
            v = rnd.random() < 0.6
            r, ev = rc.call("range.setVisible", session=s, visible=v)
            after(op, r, ev, decision=m.set_visible(v))
        elif op == "memory":
            _, ev = rc.call("host.memoryWarning")
            m.memory_warning()
            after(op, None, ev)
        elif op == "insert":
            sec = rnd.randrange(len(m.sections))
            row = rnd.randint(0, len(m.sections[sec]))
            lengths = [rnd.choice(choices) for _ in range(rnd.randint(1, 3))]
            r, ev = rc.call("range.insertItems", session=s, at=[sec, row], lengths=lengths)
            m.sections[sec][row:row] = [m._new(x) for x in lengths]
            after(op, r, ev, decision=m.edited())
        elif op == "delete":
            if m.count < 15:
                continue
            flat = m.flat()
            picked = rnd.sample(flat, rnd.randint(1, 4))
            in_range = set().union(*m.sets.values())
            removed = [p for iid, p, a, _ in sorted(picked, key=lambda x: x[2], reverse=True) if iid in in_range]
            gone = {iid for iid, _, _, _ in picked}
            r, ev = rc.call("range.deleteItems", session=s, paths=[list(p) for _, p, _, _ in picked])
            for sec in m.sections:
                sec[:] = [x for x in sec if x[0] not in gone]
            after(op, r, ev, decision=m.deleted(gone), removed=removed)
        elif op == "viewport":
            m.L = float(rnd.choice([250, 400, 700]))
            r, ev = rc.call("range.setViewport", session=s, viewport={"width": 320, "height": m.L})
            m.layout()
            after(op, r, ev)
        elif op == "done":
            if m.in_flight is None:
                continue
            lengths = [rnd.choice(choices) for _ in range(rnd.choice([0, 0, 1, 3, 5]))]
            r, ev = rc.call("range.batchFetchDone", session=s, context=m.in_flight, lengths=lengths)
            new = [m._new(x) for x in lengths]
            if m.in_flight_prepends:
                m.sections[0][0:0] = new
                m.offset += sum(lengths)
            else:
                m.sections[-1].extend(new)
            m.in_flight = None
            # An exhausted backend (no items) is not asked again.
            after(op, r, ev, decision=m.edited() if lengths else None)
    # the walk went everywhere (a seed that skipped something would prove little)
    assert all(ran[op] >= 1 for op in ops if op != "memory") and ran["done"] >= 2 and ran["batch"] >= 3, ran
