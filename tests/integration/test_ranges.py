"""docs/ranges.md range sessions over the socket: Texture's working ranges, prefetch diffs and batch fetching.

Every test talks raw JSON lines to a virtual-clock `greenroom serve`. Expected index intervals come from
`rangemodel` (docs/ranges.md's geometry written independently of the host), and events are replayed into a
client-side model that must always agree with `range.state`.

Tests named `test_violation_*` pin host behaviour that contradicts docs/ docs/ranges.md; they fail until the host
is fixed (each docstring says which sentence of docs/ranges.md it breaks and what the host does instead).
"""

from __future__ import annotations

import collections
import random

import pytest
from rangemodel import (KINDS, TEXTURE, Content, RangeConn, Replay, TextureModel, assert_refused, expected_ranges,
                        snapshot, split, state_paths)

pytestmark = pytest.mark.integration

PATTERN = [44.0, 120.0, 80.0, 200.0, 60.0]  # uneven rows, so that no interval is a multiple of L


@pytest.fixture
def rc(start_host) -> RangeConn:
    host = start_host("--clock", "virtual")
    return RangeConn(host.connect())


def flat_lists(state: dict) -> dict[str, list[int]]:
    """range.state of a one-section session as flat row lists."""
    return {k: [p[1] for p in state[k]] for k in KINDS}


def rows(iv) -> list[int]:
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


# --------------------------------------------------------------------------------------------------
# Geometry


def test_hand_computed_intervals_of_the_default_tuning(rc):
    """100-point rows, a 1000-point viewport: Texture's buffers worked out by hand."""
    s = rc.call("range.create", count=100, itemLength=100, viewport={"width": 400, "height": 1000})[0]["session"]
    # minimum: display 0.25/0.25 -> [-250, 1250); preload 0.5 ahead / 0.25 behind -> [-250, 1500)
    assert flat_lists(rc.state(s)) == {"visible": rows((0, 10)), "display": rows((0, 13)), "preload": rows((0, 15))}
    rc.call("range.willBeginDragging", session=s)
    rc.call("range.didScroll", session=s, offset=5000)
    # full, down: display [4500, 7000), preload [3500, 8500)
    assert flat_lists(rc.state(s)) == {"visible": rows((50, 60)), "display": rows((45, 70)), "preload": rows((35, 85))}
    rc.call("range.didScroll", session=s, offset=4950)
    # full, up: display [3950, 6450), preload [2450, 7450)
    st = rc.state(s)
    assert st["direction"] == "up"
    assert flat_lists(st) == {"visible": rows((49, 60)), "display": rows((39, 65)), "preload": rows((24, 75))}


@pytest.mark.parametrize("axis", ["vertical", "horizontal"])
def test_default_tuning_geometry_at_many_offsets_both_directions(rc, axis):
    L = 667.0
    content = Content([PATTERN * 60])
    names = ("down", "up") if axis == "vertical" else ("right", "left")
    created, _ = rc.call("range.create", lengths=content.lengths, viewport=viewport(axis, L), axis=axis)
    s = created["session"]
    assert created["contentLength"] == content.total and created["direction"] == names[0]
    assert_geometry(rc, s, content, 0.0, L, "minimum", True, direction=names[0])
    rc.call("range.willBeginDragging", session=s)
    assert_geometry(rc, s, content, 0.0, L, "full", True, direction=names[0])
    # Dragging: the direction is the offsets' delta, taken when the items on screen change (Texture
    # recomputes then, not for every offset); the ranges are those of that recompute.
    offset, forward, at = 0.0, True, 0.0
    on_screen = content.items(0, L)
    end = content.total - L
    for x in [1000.0, 5000.5, 12345.0, 11000.0, 3000.25, 10.0, 20000.0, 20000.0, end, end + 50, end - 3,
              -100.0, 0.0, 7777.0, 7776.0]:
        sign = (x > offset) - (x < offset)
        offset = x
        if content.items(x, x + L) != on_screen:
            on_screen = content.items(x, x + L)
            forward = sign > 0 if sign else forward
            at = x
        reply, _ = rc.call("range.didScroll", session=s, offset=x)
        assert reply["direction"] == names[0 if forward else 1], (x, reply)
        assert_geometry(rc, s, content, at, L, "full", forward, direction=names[0 if forward else 1])


def test_custom_tuning_replaces_only_the_given_buffers(rc):
    content = Content.uniform(200, 50)
    tuning = {"full": {"preload": {"leading": 1.0}}, "minimum": {"display": {"trailing": 0.0, "leading": 0.0}}}
    s = rc.call("range.create", count=200, itemLength=50, viewport={"width": 300, "height": 500},
                tuning=tuning)[0]["session"]
    mine = {m: dict(v) for m, v in TEXTURE.items()}
    mine["full"]["preload"] = (1.0, 1.5)
    mine["minimum"]["display"] = (0.0, 0.0)
    exp = expected_ranges(content, 0, 500, "minimum", True, tuning=mine)
    assert state_paths(rc.state(s))["display"] == content.paths(exp["display"])
    rc.call("range.willBeginDragging", session=s, offset=2000)
    st = state_paths(rc.state(s))
    exp = expected_ranges(content, 2000, 500, "full", True, tuning=mine)
    assert st == {k: content.paths(exp[k]) for k in KINDS}


def test_range_event_lists_changes_nearest_the_viewport_first(rc):
    s = rc.call("range.create", count=100, itemLength=100, viewport={"width": 400, "height": 1000})[0]["session"]
    rc.call("range.willBeginDragging", session=s)
    _, events = rc.call("range.didScroll", session=s, offset=5000)
    event, prefetch, _ = split(events)
    assert event["mode"] == "full" and event["direction"] == "down"

    def distance(i, lo=50, hi=60):
        return lo - i if i < lo else (i - hi + 1 if i >= hi else 0)

    for part in ("enter", "exit"):
        for k in KINDS:
            got = [p[1] for p in event[part][k]]
            # Ties (49 and 60 are both adjacent to the viewport) may come in either order.
            assert [distance(i) for i in got] == sorted(distance(i) for i in got), (part, k, got)
    assert [p[1] for p in event["enter"]["visible"]] == rows((50, 60))
    assert [p[1] for p in event["exit"]["visible"]] == [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]
    # Preload was [0, 35) at offset 0 (full, down); now [35, 85): 35..84 enter, 0..34 leave.
    assert sorted(p[1] for p in event["enter"]["preload"]) == rows((35, 85))
    # prefetchItems: what entered preload and is not visible, nearest first; nothing left preload
    # unseen except 10..34 (0..9 were visible).
    kinds = {p["kind"]: [q[1] for q in p["paths"]] for p in prefetch}
    assert kinds["prefetchItems"] == [i for i in (p[1] for p in event["enter"]["preload"]) if not 50 <= i < 60]
    assert sorted(kinds["cancelPrefetching"]) == rows((10, 35))


# --------------------------------------------------------------------------------------------------
# Modes and visibility


def test_mode_is_minimum_until_the_first_drag_while_visible_then_full(rc):
    s = rc.call("range.create", count=100, itemLength=100, viewport={"width": 400, "height": 1000})[0]["session"]
    for method, params in [("range.didScroll", {"offset": 300}), ("range.didScroll", {"offset": 0})]:
        reply, _ = rc.call(method, session=s, **params)
        assert reply["mode"] == "minimum", (method, reply)
    reply, events = rc.call("range.willBeginDragging", session=s)
    assert reply["mode"] == "full" and reply["phase"] == "dragging"
    assert split(events)[0]["mode"] == "full"
    rc.call("range.willEndDragging", session=s, velocity=1.0)
    reply, _ = rc.call("range.didEndDecelerating", session=s, offset=499)
    assert reply["mode"] == "full" and reply["phase"] == "idle"
    assert rc.state(s)["mode"] == "full"


def test_a_drag_while_invisible_sets_full(rc):
    """Texture's scrollViewWillBeginDragging sets full whether or not the list is visible."""
    content = Content.uniform(100, 100)
    s = rc.call("range.create", count=100, itemLength=100, viewport={"width": 400, "height": 1000},
                visible=False)[0]["session"]
    reply, _ = rc.call("range.willBeginDragging", session=s)
    assert reply["mode"] == "full", reply
    rc.call("range.didScroll", session=s, offset=800)
    rc.call("range.willEndDragging", session=s, velocity=0.5)
    rc.call("range.didEndDecelerating", session=s, offset=1049.5)
    assert_geometry(rc, s, content, 1049.5, 1000, "full", True, visible=False)
    reply, _ = rc.call("range.setVisible", session=s, visible=True)
    assert reply["mode"] == "full", reply
    assert_geometry(rc, s, content, 1049.5, 1000, "full", True)


def test_memory_warning_visible_sessions_go_visible_only_others_low_memory(rc):
    content = Content([PATTERN * 40])
    L = 700.0
    shown = rc.call("range.create", lengths=content.lengths, viewport={"width": 300, "height": L})[0]["session"]
    hidden = rc.call("range.create", lengths=content.lengths, viewport={"width": 300, "height": L})[0]["session"]
    for s in (shown, hidden):
        rc.call("range.willBeginDragging", session=s)
        rc.call("range.didScroll", session=s, offset=3000)
    rc.call("range.setVisible", session=hidden, visible=False)
    reply, events = rc.call("host.memoryWarning")
    assert reply["purged"]["rangeSessions"] == 2
    by_session = {e["params"]["session"]: e["params"] for e in events if e["method"] == "range"}
    assert by_session[shown]["mode"] == "visibleOnly"
    st = assert_geometry(rc, shown, content, 3000, L, "visibleOnly", True)
    assert st["visible"] == st["display"] == st["preload"]  # visibleOnly: nothing but what is on screen
    st = assert_geometry(rc, hidden, content, 3000, L, "lowMemory", True, visible=False)
    assert st["display"] == [] and st["visible"] == []


def test_an_invisible_session_never_marks_items_visible(rc):
    s = rc.call("range.create", count=300, itemLength=80, viewport={"width": 400, "height": 800})[0]["session"]
    before = rc.state(s)
    reply, events = rc.call("range.setVisible", session=s, visible=False)
    assert reply["visible"] is False
    event = split(events)[0]
    assert event["enter"]["visible"] == [] and event["exit"]["visible"] == before["visible"]
    calls = [("range.didScroll", {"offset": 1200}), ("range.willBeginDragging", {"offset": 1300}),
             ("range.didScroll", {"offset": 4000}), ("range.willEndDragging", {"velocity": 3.0}),
             ("range.didScroll", {"offset": 5000}), ("range.didEndDecelerating", {"offset": 5497}),
             ("range.insertItems", {"at": [0, 70], "lengths": [40, 40]}), ("range.deleteItems", {"paths": [[0, 69]]}),
             ("range.setViewport", {"viewport": {"width": 400, "height": 1600}}), ("host.memoryWarning", {}),
             ("range.willBeginDragging", {}), ("range.didScroll", {"offset": 100})]
    for method, params in calls:
        _, events = rc.call(method, **({"session": s} if method.startswith("range.") else {}), **params)
        for e in events:
            if e["method"] == "range":
                assert e["params"]["enter"]["visible"] == [], (method, e)
        assert rc.state(s)["visible"] == [], method
    _, events = rc.call("range.setVisible", session=s, visible=True)
    entered = split(events)[0]["enter"]["visible"]
    assert entered and sorted(entered) == rc.state(s)["visible"]  # on screen again at once


# --------------------------------------------------------------------------------------------------
# Batch fetching (Texture's rule, leadingScreens 2 by default)


def batches_of(events):
    return split(events)[2]


def new_session(rc, count=100, length=100, L=1000, **params):
    return rc.call("range.create", count=count, itemLength=length, viewport={"width": 400, "height": L}, **params)


def test_small_content_fetches_on_create_even_when_invisible(rc):
    for count in (0, 3):
        reply, events = new_session(rc, count=count, visible=False)
        [batch] = batches_of(events)
        assert batch["session"] == reply["session"] and batch["kind"] == "willBeginBatchFetch"
        assert batch["prepend"] is False and batch["context"].startswith("b-")
        assert reply["batchInFlight"] == batch["context"]


def test_no_batch_while_invisible(rc):
    s = new_session(rc, visible=False)[0]["session"]
    for method, params in [("range.didScroll", {"offset": 8500}), ("range.didScroll", {"offset": 9000}),
                           ("range.willBeginDragging", {}), ("range.willEndDragging", {"velocity": 0.5}),
                           ("range.didScroll", {"offset": 9000}), ("range.didEndDecelerating", {})]:
        _, events = rc.call(method, session=s, **params)
        assert batches_of(events) == [], method
    fired = []
    for method, params in [("range.setVisible", {"visible": True}), ("range.didScroll", {"offset": 9000})]:
        fired += batches_of(rc.call(method, session=s, **params)[1])
    assert len(fired) == 1, fired  # visible again, 0 points left: one fetch


def test_no_batch_toward_the_head_without_prepend(rc):
    s = new_session(rc)[0]["session"]
    rc.call("range.willBeginDragging", session=s, offset=9000)  # dragging: not judged
    rc.call("range.didScroll", session=s, offset=8500)
    reply, events = rc.call("range.willEndDragging", session=s, velocity=-0.5)
    assert reply["targetOffset"] == pytest.approx(8250.5)
    assert batches_of(events) == []  # 749.5 points left, but moving up
    for x in (8400, 8300, 8250.5):
        assert batches_of(rc.call("range.didScroll", session=s, offset=x)[1]) == []
    assert batches_of(rc.call("range.didEndDecelerating", session=s)[1]) == []


def test_prepend_fetches_toward_the_head_and_keeps_what_is_on_screen(rc):
    content = Content.uniform(100, 100)
    s = new_session(rc, batch={"prepend": True})[0]["session"]
    replay = Replay()
    replay.apply(*split(rc.call("range.willBeginDragging", session=s, offset=3000)[1])[:2])
    replay.apply(*split(rc.call("range.didScroll", session=s, offset=1500)[1])[:2])
    on_screen = flat_lists(rc.state(s))["visible"]
    reply, events = rc.call("range.willEndDragging", session=s, velocity=-1.0)
    assert reply["targetOffset"] == pytest.approx(1001)  # 1500 - 499: within 2 screens of the head
    [batch] = batches_of(events)
    assert batch["prepend"] is True
    reply, events = rc.call("range.batchFetchDone", session=s, context=batch["context"], lengths=[100] * 5)
    content.insert(0, 0, [100] * 5)
    replay.insert(0, 0, 5)
    assert reply["count"] == 105 and reply["offset"] == 2000  # the content grew above by 500 points
    assert flat_lists(rc.state(s))["visible"] == [i + 5 for i in on_screen]
    event, prefetch, _ = split(events)
    assert replay.apply(event, prefetch) == []
    assert replay.as_lists() == state_paths(rc.state(s))


def test_one_batch_in_flight_and_rechecked_after_batch_fetch_done(rc):
    s = new_session(rc)[0]["session"]
    [batch] = batches_of(rc.call("range.didScroll", session=s, offset=7000)[1])  # 2000 left: fetch
    for method, params in [("range.didScroll", {"offset": 8000}), ("range.didScroll", {"offset": 9000}),
                           ("range.willBeginDragging", {}), ("range.willEndDragging", {"velocity": 0.1}),
                           ("range.insertItems", {"at": [0, 100], "lengths": [1]}),
                           ("range.didEndDecelerating", {})]:
        reply, events = rc.call(method, session=s, **params)
        assert batches_of(events) == [], method
    assert rc.call("range.setVisible", session=s, visible=True)[0]["batchInFlight"] == batch["context"]
    # Done with 10 rows: at 9000 of 11001 points, 1001 are left -> re-checked, fetches again.
    reply, events = rc.call("range.batchFetchDone", session=s, context=batch["context"], lengths=[100] * 10)
    [again] = batches_of(events)
    assert again["context"] != batch["context"] and reply["batchInFlight"] == again["context"]
    assert reply["count"] == 111
    error, _ = rc.fail("range.batchFetchDone", session=s, context=batch["context"], lengths=[])
    assert error["code"] == -32602 and error["data"]["path"] == "context"
    reply, events = rc.call("range.batchFetchDone", session=s, context=again["context"], lengths=[100] * 30)
    assert batches_of(events) == [] and reply["batchInFlight"] is None  # 4001 points left


def test_batch_fires_when_remaining_content_is_within_leading_screens(rc):
    s = new_session(rc, batch={"leadingScreens": 1.5})[0]["session"]
    # 10000 - 1000 - offset <= 1500  <=>  offset >= 7500
    assert batches_of(rc.call("range.didScroll", session=s, offset=7499)[1]) == []
    assert len(batches_of(rc.call("range.didScroll", session=s, offset=7500)[1])) == 1


def test_batch_not_judged_while_dragging_but_at_the_target_on_will_end_dragging(rc):
    s = new_session(rc)[0]["session"]
    rc.call("range.willBeginDragging", session=s)
    for x in (3000, 5000, 8500, 5000):
        assert batches_of(rc.call("range.didScroll", session=s, offset=x)[1]) == [], x
    reply, events = rc.call("range.willEndDragging", session=s, velocity=4.0)
    assert reply["targetOffset"] == pytest.approx(6996) and batches_of(events) == []  # 2004 left at the target
    rc.call("range.didEndDecelerating", session=s, offset=5000)

    rc.call("range.willBeginDragging", session=s)
    reply, events = rc.call("range.willEndDragging", session=s, velocity=4.01)
    assert reply["targetOffset"] == pytest.approx(7000.99)
    assert len(batches_of(events)) == 1  # judged at the target, 1999 left, although the offset is 5000


def test_batch_rechecked_after_insert_items_outside_a_drag(rc):
    s = new_session(rc)[0]["session"]
    rc.call("range.willBeginDragging", session=s)
    assert batches_of(rc.call("range.didScroll", session=s, offset=8000)[1]) == []  # dragging
    _, events = rc.call("range.insertItems", session=s, at=[0, 0], lengths=[100])
    assert batches_of(events) == []  # dragging: Texture judges at the release
    _, events = rc.call("range.willEndDragging", session=s, velocity=0)
    assert len(batches_of(events)) == 1  # 1100 left at the release
    s = new_session(rc)[0]["session"]
    rc.call("range.didScroll", session=s, offset=6900)  # 2100 left
    _, events = rc.call("range.deleteItems", session=s, paths=[[0, 99]])
    assert len(batches_of(events)) == 1  # 2000 left: judged after the delete


@pytest.mark.parametrize("leading", [0, -1])
def test_leading_screens_zero_or_less_never_fetches(rc, leading):
    for count in (0, 5, 100):
        reply, events = new_session(rc, count=count, batch={"leadingScreens": leading})
        s = reply["session"]
        assert batches_of(events) == []
        for x in (0, max(0, count * 100 - 1000)):
            assert batches_of(rc.call("range.didScroll", session=s, offset=x)[1]) == []
        rc.call("range.willBeginDragging", session=s)
        assert batches_of(rc.call("range.willEndDragging", session=s, velocity=100)[1]) == []
        assert batches_of(rc.call("range.insertItems", session=s, at=[0, 0], lengths=[1])[1]) == []


def test_threshold_strategy_fires_at_the_ratio_of_content(rc):
    s = new_session(rc, count=10, L=300, strategy="threshold")[0]["session"]
    assert batches_of(rc.call("range.didScroll", session=s, offset=399)[1]) == []  # 699/1000
    [b] = batches_of(rc.call("range.didScroll", session=s, offset=400)[1])  # 700/1000 >= 0.7
    reply, events = rc.call("range.batchFetchDone", session=s, context=b["context"], lengths=[100] * 10)
    assert batches_of(events) == [] and reply["contentLength"] == 2000
    assert batches_of(rc.call("range.didScroll", session=s, offset=1099)[1]) == []
    [b] = batches_of(rc.call("range.didScroll", session=s, offset=1100)[1])  # 1400/2000: 0.7 of ALL content
    rc.call("range.batchFetchDone", session=s, context=b["context"], lengths=[100] * 10)
    # Moving up past the ratio never fetches (a release toward a target above, then decelerating).
    rc.call("range.willBeginDragging", session=s, offset=2600)
    rc.call("range.didScroll", session=s, offset=2500)
    assert batches_of(rc.call("range.willEndDragging", session=s, velocity=-0.5, targetOffset=2300)[1]) == []
    assert batches_of(rc.call("range.didScroll", session=s, offset=2400)[1]) == []

    s = new_session(rc, count=10, L=300, strategy={"name": "threshold", "ratio": 0.5})[0]["session"]
    assert batches_of(rc.call("range.didScroll", session=s, offset=199)[1]) == []
    assert len(batches_of(rc.call("range.didScroll", session=s, offset=200)[1])) == 1


def test_dynamic_threshold_grows_with_the_pages_loaded(rc):
    """The ASDK preloading article: needRead = perPage * 0.7 + page * perPage, of perPage * (page + 1). With 10 rows per
    page
    the ratio is 0.7, then 0.85, then 0.9 — where the static threshold stays at 0.7 of all content."""
    s = new_session(rc, count=10, L=300, strategy="dynamicThreshold")[0]["session"]
    [b] = batches_of(rc.call("range.didScroll", session=s, offset=400)[1])  # 700/1000 = 0.7
    rc.call("range.batchFetchDone", session=s, context=b["context"], lengths=[100] * 10)
    assert batches_of(rc.call("range.didScroll", session=s, offset=1100)[1]) == []  # static would fire
    assert batches_of(rc.call("range.didScroll", session=s, offset=1200)[1]) == []  # 1500/2000 < 0.85
    [b] = batches_of(rc.call("range.didScroll", session=s, offset=1400)[1])  # 1700/2000 = 0.85
    rc.call("range.batchFetchDone", session=s, context=b["context"], lengths=[100] * 10)
    assert batches_of(rc.call("range.didScroll", session=s, offset=2100)[1]) == []  # 2400/3000 < 0.9
    assert len(batches_of(rc.call("range.didScroll", session=s, offset=2400)[1])) == 1  # 2700/3000


def test_will_end_dragging_predicts_the_target_offset(rc):
    s = new_session(rc, batch={"leadingScreens": 0})[0]["session"]
    cases = [({"velocity": 1.0}, 2499), ({"velocity": -2.0}, 1002), ({"velocity": -10.0}, 0),
             ({"velocity": 100.0}, 9000), ({"velocity": 0.0}, 2000), ({"velocity": 0.25}, 2124.75),
             ({"velocity": 5.0, "targetOffset": 3000}, 3000), ({"velocity": 5.0, "targetOffset": 9500}, 9000),
             ({"velocity": -5.0, "targetOffset": -300}, 0)]
    for params, want in cases:
        rc.call("range.willBeginDragging", session=s, offset=2000)
        reply, _ = rc.call("range.willEndDragging", session=s, **params)
        assert reply["targetOffset"] == pytest.approx(want), (params, reply)  # offset + v * 0.998 / 0.002
        rc.call("range.didEndDecelerating", session=s, offset=2000)
    error, _ = rc.fail("range.willEndDragging", session=s, velocity=1.0)  # not dragging
    assert error["code"] == -32003 and error["data"]["call"] == "range.willEndDragging"
    small = new_session(rc, count=3, batch={"leadingScreens": 0})[0]["session"]
    rc.call("range.willBeginDragging", session=small)
    assert rc.call("range.willEndDragging", session=small, velocity=3.0)[0]["targetOffset"] == 0


# --------------------------------------------------------------------------------------------------
# Inserts, deletes, sections


def check_step(rc, s, replay, content, events, offset, L, forward, removed=()):
    event, prefetch, _ = split(events)
    if event is not None:
        assert sorted(tuple(p) for p in event.get("removed", [])) == sorted(removed), event
    else:
        assert not removed, f"items {removed} were removed from ranges without a range event"
    problems = replay.apply(event, prefetch)
    assert problems == [], problems
    st = rc.state(s)
    got = state_paths(st)
    assert replay.as_lists() == {k: sorted(v) for k, v in got.items()}
    # Recomputed when the items on screen changed (Texture); otherwise the shifted sets stay as they were.
    if event is not None and any(event[part][k] for part in ("enter", "exit") for k in KINDS):
        exp = expected_ranges(content, offset, L, st["mode"], forward)
        assert got == {k: content.paths(exp[k]) for k in KINDS}


def test_inserts_and_deletes_keep_events_and_state_consistent(rc):
    L = 600.0
    content = Content([PATTERN * 30])
    s = rc.call("range.create", lengths=content.lengths, viewport={"width": 300, "height": L},
                batch={"leadingScreens": 0})[0]["session"]
    offset = 3000.0
    rc.call("range.willBeginDragging", session=s, offset=offset)
    # Start the model from the state (every row in preload now entered it with this jump).
    st = rc.state(s)
    replay = Replay()
    replay.sets = {k: {tuple(p) for p in st[k]} for k in KINDS}
    replay.seen = set(replay.sets["visible"])

    def rows_of(kind):
        return [p[1] for p in rc.state(s)[kind]]

    inserts = [lambda: (0, [50]), lambda: (rows_of("visible")[0], [30, 30]), lambda: (rows_of("visible")[3], [70]),
               lambda: (rows_of("visible")[-1] + 1, [10]), lambda: (rows_of("preload")[0], [25]),
               lambda: (rows_of("preload")[-1] + 1, [90, 90, 90]), lambda: (rows_of("preload")[-1] + 40, [5]),
               lambda: (len(content.sections[0]), [100])]
    for where in inserts:
        row, lengths = where()
        _, events = rc.call("range.insertItems", session=s, at=[0, row], lengths=lengths)
        content.insert(0, row, lengths)
        replay.insert(0, row, len(lengths))
        check_step(rc, s, replay, content, events, offset, L, True)

    def paths_of(kind, *indices):
        ps = [tuple(p) for p in rc.state(s)[kind]]
        return [ps[i] for i in indices]

    deletes = [lambda: paths_of("visible", 0), lambda: paths_of("visible", 2, 4),
               lambda: paths_of("preload", 0) + [(0, 0)], lambda: paths_of("preload", -1),
               lambda: [(0, len(content.sections[0]) - 1)], lambda: [(0, 1), (0, 2), (0, 3)],
               lambda: [tuple(p) for p in rc.state(s)["visible"]]]
    for which in deletes:
        paths = which()
        removed = []
        for p in sorted(paths, key=content.flat, reverse=True):
            if replay.delete(p):
                removed.append(p)
            content.delete(p)
        _, events = rc.call("range.deleteItems", session=s, paths=[list(p) for p in paths])
        check_step(rc, s, replay, content, events, offset, L, True, removed=removed)


def test_sections_are_addressed_by_index_paths(rc):
    L = 300.0
    sections = [[100.0] * 3, [], [50.0, 50.0], [200.0] * 5]
    content = Content(sections)
    reply, events = rc.call("range.create", sections=[{"count": 3, "itemLength": 100}, {"count": 0},
                                                      {"lengths": [50, 50]}, {"count": 5, "itemLength": 200}],
                            viewport={"width": 400, "height": L})
    s = reply["session"]
    assert reply["sections"] == 4 and reply["count"] == 10 and reply["contentLength"] == content.total
    replay = Replay()
    check_step(rc, s, replay, content, events, 0, L, True)
    assert rc.state(s)["preload"] == [[0, 0], [0, 1], [0, 2], [2, 0], [2, 1], [3, 0]]
    _, events = rc.call("range.insertItems", session=s, at=[1, 0], lengths=[10])  # into the empty section
    content.insert(1, 0, [10])
    replay.insert(1, 0, 1)
    check_step(rc, s, replay, content, events, 0, L, True)
    # [300, 310) is below the viewport: the items on screen did not change, so nothing is recomputed and
    # the new item is unmarked until the next update (as Texture); the others keep their bits
    assert [1, 0] not in rc.state(s)["display"]
    items = rc.call("range.state", session=s, paths=[[1, 0], [3, 4], [2, 1]])[0]["items"]
    assert items == [{"path": [1, 0], "preload": False, "display": False, "visible": False},
                     {"path": [3, 4], "preload": False, "display": False, "visible": False},
                     {"path": [2, 1], "preload": True, "display": True, "visible": False}]
    _, events = rc.call("range.willBeginDragging", session=s)  # full: a mode change recomputes
    check_step(rc, s, replay, content, events, 0, L, True)
    assert [1, 0] in rc.state(s)["display"]
    offset = 0.0
    for x in (350.0, 900.0, 1300.0, 120.0):
        forward = x > offset
        offset = x
        _, events = rc.call("range.didScroll", session=s, offset=x)
        check_step(rc, s, replay, content, events, offset, L, forward)
    removed = []
    for p in [(3, 2), (2, 0), (0, 1)]:
        if replay.delete(p):
            removed.append(p)
        content.delete(p)
    _, events = rc.call("range.deleteItems", session=s, paths=[[0, 1], [3, 2], [2, 0]])
    check_step(rc, s, replay, content, events, offset, L, False, removed=removed)


# --------------------------------------------------------------------------------------------------
# The property test


def random_sections(rng: random.Random, shape: str) -> list[list[float]]:
    def rows(n):
        return [float(rng.choice([30, 44, 60, 90, 150, 220])) for _ in range(n)]

    if shape == "sections":
        return [rows(25), [], rows(15), rows(40)]
    return [rows(90)]


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


# --------------------------------------------------------------------------------------------------
# Bad input


BAD_CREATE = [
    ({"count": -1}, "count"),
    ({"count": 10_000_001}, "count"),
    ({"count": 2.5}, "count"),
    ({"lengths": [10, -1]}, "lengths[1]"),
    ({"lengths": [10, "x"]}, "lengths[1]"),
    ({"lengths": "x"}, "lengths"),
    ({"count": 3, "lengths": [1, 2]}, "count"),
    ({"count": 3, "itemLength": -1}, "itemLength"),
    ({"sections": []}, "sections"),
    ({"sections": [{"count": 1}], "count": 1}, "sections"),
    ({"sections": [{"count": 1}, {"count": -2}]}, "sections[1].count"),
    ({"sections": [{"rows": 1}]}, "sections[0].rows"),
    ({"count": 3, "viewport": {"height": 100}}, "viewport.width"),
    ({"count": 3, "viewport": {"width": 100, "height": 0}}, "viewport.height"),
    ({"count": 3, "viewport": None}, "viewport"),
    ({"count": 3, "axis": "diagonal"}, "axis"),
    ({"count": 3, "tuning": {"huge": {}}}, "tuning.huge"),
    ({"count": 3, "tuning": {"full": {"visible": {}}}}, "tuning.full.visible"),
    ({"count": 3, "tuning": {"full": {"display": {"leading": -1}}}}, "tuning.full.display.leading"),
    ({"count": 3, "tuning": {"full": {"display": {"ahead": 1}}}}, "tuning.full.display.ahead"),
    ({"count": 3, "batch": {"leadingScreens": "x"}}, "batch.leadingScreens"),
    ({"count": 3, "batch": {"screens": 1}}, "batch.screens"),
    ({"count": 3, "strategy": "random"}, "strategy"),
    ({"count": 3, "strategy": {"name": "threshold", "ratio": 0}}, "strategy.ratio"),
    ({"count": 3, "strategy": {"name": "nope"}}, "strategy.name"),
    ({"count": 3, "lazy": "yes"}, "lazy"),
    ({"count": 3, "visible": 1}, "visible"),
    ({"count": 3, "colour": "red"}, "colour"),
]


def test_bad_create_params_are_invalid_params_and_create_nothing(rc):
    s = new_session(rc, count=1000, L=800)[0]["session"]
    before = snapshot(rc, s)
    for params, path in BAD_CREATE:
        full = {"viewport": {"width": 400, "height": 800}, **params}
        if full["viewport"] is None:
            del full["viewport"]
        error, events = rc.fail("range.create", **full)
        assert error["code"] == -32602 and error["data"]["path"] == path, (params, error)
        assert events == [], (params, events)
    assert snapshot(rc, s) == before


def test_bad_params_on_a_session_are_invalid_params_and_change_nothing(rc):
    s = new_session(rc, count=1000, L=800)[0]["session"]
    rc.call("range.willBeginDragging", session=s)
    rc.call("range.didScroll", session=s, offset=30000)
    rc.call("range.willEndDragging", session=s, velocity=0)
    rc.call("range.didEndDecelerating", session=s)
    before = snapshot(rc, s)
    cases = [
        ("range.didScroll", {"offset": -1e9}, "offset"),
        ("range.didScroll", {"offset": 1e12}, "offset"),
        ("range.didScroll", {"offset": 100000.5}, "offset"),  # past the end plus one viewport of bounce
        ("range.didScroll", {"offset": "x"}, "offset"),
        ("range.didScroll", {}, "offset"),
        ("range.willBeginDragging", {"offset": 1e12}, "offset"),
        ("range.didEndDecelerating", {"offset": -1e6}, "offset"),
        ("range.setVisible", {"visible": "no"}, "visible"),
        ("range.setViewport", {"viewport": {"width": -1, "height": 5}}, "viewport.width"),
        ("range.insertItems", {"at": [9, 0], "lengths": [1]}, "at[0]"),
        ("range.insertItems", {"at": [0, 1001], "lengths": [1]}, "at[1]"),
        ("range.insertItems", {"at": [0, -1], "lengths": [1]}, "at[1]"),
        ("range.insertItems", {"at": [0, 1.5], "lengths": [1]}, "at[1]"),
        ("range.insertItems", {"at": [0], "lengths": [1]}, "at"),
        ("range.insertItems", {"at": [0, 0], "lengths": []}, "lengths"),
        ("range.insertItems", {"at": [0, 0], "lengths": [5, -5]}, "lengths[1]"),
        ("range.insertItems", {"at": [0, 0], "lengths": "x"}, "lengths"),
        ("range.deleteItems", {"paths": [[0, 1000]]}, "paths[0]"),
        ("range.deleteItems", {"paths": [[0, 1], [3, 0]]}, "paths[1]"),
        ("range.deleteItems", {"paths": [[0, 1], [0, 1]]}, "paths"),
        ("range.deleteItems", {"paths": [[0]]}, "paths[0]"),
        ("range.deleteItems", {"paths": "x"}, "paths"),
        ("range.state", {"paths": [[0, 1000]]}, "paths[0]"),
        ("range.batchFetchDone", {"context": "b-999"}, "context"),
        ("range.batchFetchDone", {}, "context"),
        ("range.didScroll", {"offset": 1, "extra": True}, "extra"),
    ]
    for method, params, path in cases:
        assert_refused(rc, method, s, params, path, before)
    # Not dragging: a bad willBeginDragging did not start one.
    assert rc.fail("range.willEndDragging", session=s, velocity=1)[0]["code"] == -32003
    # While dragging, willEndDragging's own members.
    rc.call("range.willBeginDragging", session=s)
    before = snapshot(rc, s)
    for params, path in [({"velocity": "fast"}, "velocity"), ({}, "velocity"),
                         ({"velocity": 1, "targetOffset": 1e12}, "targetOffset")]:
        error, events = rc.fail("range.willEndDragging", session=s, **params)
        assert error["code"] == -32602 and error["data"]["path"] == path, (params, error)
        assert events == [] and snapshot(rc, s) == before, params
    # The offset did not move: scrolling to where it was changes nothing.
    reply, events = rc.call("range.didScroll", session=s, offset=30000)
    assert split(events)[0] is None and reply["direction"] == "down"
    error, _ = rc.fail("range.didScroll", session="r-404", offset=1)
    assert error["code"] == -32002 and error["data"]["path"] == "session"


def test_bad_lengths_while_a_batch_is_in_flight_keep_it_in_flight(rc):
    reply, events = new_session(rc, count=2)
    s = reply["session"]
    [b] = batches_of(events)
    for lengths, path in [([1, -1], "lengths[1]"), ("x", "lengths")]:
        error, events = rc.fail("range.batchFetchDone", session=s, context=b["context"], lengths=lengths)
        assert error["data"]["path"] == path and events == []
    error, _ = rc.fail("range.batchFetchDone", session=s, context="b-12345", lengths=[1])
    assert error["data"]["path"] == "context"
    reply, _ = rc.call("range.batchFetchDone", session=s, context=b["context"], lengths=[100] * 30)
    assert reply["count"] == 32


def test_json_without_nan_or_infinity_is_a_parse_error_and_the_connection_stays(rc):
    s = new_session(rc, count=1000)[0]["session"]
    before = snapshot(rc, s)
    for literal in (b"NaN", b"Infinity", b"-Infinity", b"1e400"):
        rc.c.send_raw(b'{"jsonrpc":"2.0","id":7,"method":"range.didScroll","params":{"session":"' + s.encode()
                      + b'","offset":' + literal + b"}}\n")
        reply = rc.c.read_json()
        assert reply["id"] is None and reply["error"]["code"] == -32700, (literal, reply)
    assert snapshot(rc, s) == before


# --------------------------------------------------------------------------------------------------
# Scale


def test_a_million_items_are_created_and_scrolled(rc):
    """docs/ranges.md: one update is O(log n + changes). Replies come within the usual timeouts (tests never time
    things; the benchmark reports the cost) and events stay the size of the change."""
    n, length, L = 1_000_000, 44.0, 667.0
    content = Content.uniform(n, length)
    reply, events = rc.call("range.create", count=n, itemLength=length, viewport={"width": 375, "height": L},
                            timeout=60)
    s = reply["session"]
    assert reply["count"] == n and reply["contentLength"] == n * length
    rc.call("range.willBeginDragging", session=s, timeout=30)
    rng = random.Random(7)
    offset, forward = 0.0, True
    for i in range(300):
        x = offset + rng.uniform(-300, 500) if i % 50 else rng.uniform(0, content.total - L)
        x = min(max(x, 0.0), content.total - L)
        _, events = rc.call("range.didScroll", session=s, offset=x, timeout=30)
        if x != offset:
            forward = x > offset
        offset = x
        event = split(events)[0]
        if event is not None:
            changed = sum(len(event[p][k]) for p in ("enter", "exit") for k in KINDS)
            assert changed <= 3 * 2 * 125, changed  # at most every row of two windows of 5 screens
    exp = expected_ranges(content, offset, L, "full", forward)
    assert state_paths(rc.state(s)) == {k: content.paths(exp[k]) for k in KINDS}
    reply, _ = rc.call("range.willEndDragging", session=s, velocity=-1e6, timeout=30)
    assert reply["targetOffset"] == 0
    rc.call("range.didEndDecelerating", session=s, offset=0, timeout=30)
    mid = n // 2
    rc.call("range.insertItems", session=s, at=[0, mid], lengths=[44.0] * 10, timeout=30)
    rc.call("range.deleteItems", session=s, paths=[[0, mid + 3], [0, 999_999]], timeout=30)
    reply, events = rc.call("range.didScroll", session=s, offset=mid * length, timeout=30)
    content = Content.uniform(n + 8, length)
    exp = expected_ranges(content, mid * length, L, "full", True)
    assert state_paths(rc.state(s)) == {k: content.paths(exp[k]) for k in KINDS}


# --------------------------------------------------------------------------------------------------
# Where the host contradicts docs/ docs/ranges.md


def test_lazy_fling_keeps_visible_items_in_display_and_preload_only_target_beyond(rc):
    """docs/ranges.md: "a visible item has all three" bits. With `lazy: true` the host marks the fling's target
    region and drops display and preload from the items on screen during the fling: range.state lists
    rows 1-10 visible but display/preload only around the target (rows 85-135)."""
    s = rc.call("range.create", count=1000, itemLength=100, viewport={"width": 400, "height": 1000},
                lazy=True)[0]["session"]
    rc.call("range.willBeginDragging", session=s, offset=0)
    rc.call("range.didScroll", session=s, offset=100)
    rc.call("range.willEndDragging", session=s, velocity=20.0)  # target 10080
    for x in (None, 3000):
        if x is not None:
            rc.call("range.didScroll", session=s, offset=x)
        st = rc.state(s)
        assert st["visible"], st
        missing = [p for p in st["visible"] if p not in st["display"] or p not in st["preload"]]
        assert missing == [], f"visible but not display/preload during a lazy fling: {missing}"


def test_invisible_session_keeps_its_mode_without_a_memory_warning(rc):
    """docs/ranges.md: "Mode is `minimum` until the first `willBeginDragging` while the session is visible"; only
    `host.memoryWarning` puts sessions that are not visible into `lowMemory`. A session created with
    `visible: false` (no memory warning) is reported as `lowMemory` with an empty display range instead
    of `minimum` (Texture's rangeModeForInterfaceState also answers Minimum for a hidden view)."""
    content = Content.uniform(100, 100)
    reply, _ = rc.call("range.create", count=100, itemLength=100, viewport={"width": 400, "height": 1000},
                       visible=False)
    assert reply["mode"] == "minimum", reply
    assert_geometry(rc, reply["session"], content, 0, 1000, "minimum", True, visible=False)


def test_insert_at_the_start_of_a_range_lists_entering_paths_once(rc):
    """docs/ranges.md: "one `range` event lists only the changes". Inserting rows at the first index of a range
    (here row 0, which starts every range at offset 0; a prepend batch does the same) lists each new
    path twice in `enter` and in `prefetchItems`."""
    s = new_session(rc)[0]["session"]
    _, events = rc.call("range.insertItems", session=s, at=[0, 0], lengths=[10])
    event, prefetch, _ = split(events)
    for k in KINDS:
        got = event["enter"][k]
        assert len(got) == len({tuple(p) for p in got}), f"enter.{k} lists a path twice: {got}"
    rc.call("range.didScroll", session=s, offset=2000)
    first = rc.state(s)["preload"][0]
    _, events = rc.call("range.insertItems", session=s, at=first, lengths=[30, 30])
    assert split(events)[0] is None  # above the screen: nothing on it changed, nothing recomputed yet
    _, more = rc.call("range.didScroll", session=s, offset=1500)  # the next update lists the new rows
    event, prefetch, _ = split(more)
    for e in prefetch:
        assert len(e["paths"]) == len({tuple(p) for p in e["paths"]}), f"{e['kind']} lists a path twice: {e}"
    for k in KINDS:
        got = event["enter"][k]
        assert len(got) == len({tuple(p) for p in got}), f"enter.{k} lists a path twice: {got}"
    assert [first[0], first[1]] in event["enter"]["preload"]


def test_dynamic_threshold_uses_the_seeds_content_ratio(rc):
    """docs/ranges.md: `dynamicThreshold` is "the ASDK preloading article's per-page formula": ratio = (offset + L) /
    contentLength
    compared with needRead / totalItem. At offset 350 of 10 rows of 100 with L = 300 the ratio is
    650 / 1000 = 0.65 < 0.7, so no fetch; the host counts the row under the viewport's edge (row 6, 600-700)
    as read (7 of 10 = 0.7) and fetches a row early."""
    s = new_session(rc, count=10, L=300, strategy="dynamicThreshold")[0]["session"]
    assert batches_of(rc.call("range.didScroll", session=s, offset=350)[1]) == []


@pytest.mark.parametrize("how", ["create-lengths", "create-itemLength", "insertItems", "batchFetchDone"])
def test_lengths_that_overflow_the_content_are_invalid_params(rc, how):
    """docs/protocol.md/docs/ranges.md bad input: lengths whose sum is not a finite number must be -32602 with
    data.path, and change
    nothing. The host accepts them: contentLength becomes infinite (encoded as null in the reply) and the
    geometry breaks (row 0 then covers every viewport)."""
    vp = {"width": 400, "height": 1000}
    if how == "create-lengths":
        error, _ = rc.fail("range.create", lengths=[1e308, 1e308], viewport=vp)
    elif how == "create-itemLength":
        error, _ = rc.fail("range.create", count=10, itemLength=1e308, viewport=vp)
    else:
        reply, events = new_session(rc, count=5)  # small: a batch is in flight at once
        s = reply["session"]
        if how == "insertItems":
            error, _ = rc.fail("range.insertItems", session=s, at=[0, 0], lengths=[1e308, 1e308])
        else:
            [b] = batches_of(events)
            error, _ = rc.fail("range.batchFetchDone", session=s, context=b["context"], lengths=[1e308, 1e308])
    assert error["code"] == -32602 and "path" in error["data"], error


def test_will_end_dragging_with_bad_params_changes_nothing(rc):
    """Bad input changes nothing (the brief's rule, and what every other method does). `range.willEndDragging
    {offset, velocity: "fast"}` answers -32602 (velocity) but has already moved the offset to `offset`:
    scrolling back to where the session was then reports the direction `up` and recomputes the ranges."""
    s = new_session(rc)[0]["session"]
    rc.call("range.willBeginDragging", session=s, offset=1000)
    before = rc.state(s)
    error, events = rc.fail("range.willEndDragging", session=s, offset=5000, velocity="fast")
    assert error["code"] == -32602 and error["data"]["path"] == "velocity" and events == []
    reply, events = rc.call("range.didScroll", session=s, offset=1000)
    assert reply["direction"] == "down" and split(events)[0] is None, (reply, events)
    assert rc.state(s) == before


# --------------------------------------------------------------------------------------------------
# The scroll stream's shortcuts (the last session named, event interest as bits) change no answer


def test_a_streamed_session_stays_its_owners_and_dies_with_destroy(start_host):
    host = start_host("--clock", "virtual")
    a, b = RangeConn(host.connect()), RangeConn(host.connect(), topics=())
    vp = {"width": 375, "height": 667}
    s1 = a.call("range.create", count=100, itemLength=44, viewport=vp)[0]["session"]
    s2 = a.call("range.create", count=100, itemLength=44, viewport=vp)[0]["session"]
    a.call("range.willBeginDragging", session=s1, offset=0)
    a.call("range.willBeginDragging", session=s2, offset=0)
    # Alternating sessions: each reply and each event names the session the call named.
    for i in range(1, 40):
        s = s1 if i % 3 else s2
        result, events = a.call("range.didScroll", session=s, offset=7.0 * i)
        assert result["session"] == s, (s, result)
        assert all(e["params"]["session"] == s for e in events), (s, events)
    top = lambda session: a.state(session)["visible"][0][1]  # noqa: E731 (first visible row)
    assert top(s1) == int(7 * 38 // 44) and top(s2) == int(7 * 39 // 44)
    # Right after streaming s1 here, another connection cannot name it.
    a.call("range.didScroll", session=s1, offset=400.0)
    error, _ = b.fail("range.didScroll", session=s1, offset=0.0)
    assert error["code"] == -32002 and error["data"]["kind"] == "unknownObject", error
    assert top(s1) == 9, "the refused call moved nothing"
    # Destroyed right after being streamed: unknown at once.
    a.call("range.didScroll", session=s1, offset=107.0)
    a.call("range.destroy", session=s1)
    error, _ = a.fail("range.didScroll", session=s1, offset=10.0)
    assert error["code"] == -32002, error
    assert a.call("range.didScroll", session=s2, offset=14.0)[0]["session"] == s2


def test_range_events_reach_an_all_scope_observer_while_it_subscribes(start_host):
    """The owner does not listen; an observer with scope "all" gets every range change, and nothing
    once it unsubscribes (event interest is kept as bits that must follow both)."""
    host = start_host("--clock", "virtual")
    owner, watcher = RangeConn(host.connect(), topics=()), host.connect()
    watcher.result("events.subscribe", {"topics": ["range"], "scope": "all"})
    s = owner.call("range.create", count=100, itemLength=44, viewport={"width": 375, "height": 667})[0]["session"]
    owner.call("range.willBeginDragging", session=s, offset=0)
    watcher.ping()  # what create caused has arrived
    watcher.events.clear()
    owner.call("range.didScroll", session=s, offset=440.0)
    watcher.ping()
    got = [e for e in watcher.events if e["method"] == "range"]
    assert len(got) == 1 and got[0]["params"]["session"] == s, watcher.events
    watcher.result("events.unsubscribe", {"topics": ["range"]})
    watcher.events.clear()
    owner.call("range.didScroll", session=s, offset=880.0)
    watcher.ping()
    assert [e for e in watcher.events if e["method"] == "range"] == []
