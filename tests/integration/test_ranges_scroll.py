"""The scroll stream: willBeginDragging, didScroll, willEndDragging (the predicted and clamped target
offset), didEndDecelerating; the scroll direction (from drags, velocities and targets, kept otherwise);
lazy flings that mark only the target region; calls outside the stream.

How the expected values are worked out, and the usual sessions ("setup A", "setup B", `SECTIONS`): rangemodel.py.
"""

from __future__ import annotations

import pytest
from openrpcdoc import Conn, VP
from rangemodel import (INFO_KEYS, KINDS, NO_BATCH, batches, make, new_session, one_range, path_rows, range_events,
                        row_range, rows_of, setup_a, setup_b, sorted_changes, span, span_in, tup, with_changes)

pytestmark = pytest.mark.integration


def test_direction_starts_down_comes_from_drags_and_is_kept_otherwise(rc):
    """Texture: the direction is the drag's (offset deltas here), toward the target while decelerating,
    none otherwise, and the ranges keep the last one; it is taken when the items on screen change."""
    s, _, _ = setup_a(rc, batch={"leadingScreens": 0})
    steps = [("range.didScroll", {"offset": 0}, "down"),
             ("range.didScroll", {"offset": 500}, "down"),
             ("range.didScroll", {"offset": 500}, "down"),
             ("range.didScroll", {"offset": 400}, "down"),  # programmatic: no direction
             ("range.willBeginDragging", {"offset": 400}, "down"),
             ("range.didScroll", {"offset": 400}, "down"),
             ("range.didScroll", {"offset": 300}, "up"),  # dragging up, new rows on screen
             ("range.willEndDragging", {"velocity": 0}, "up"),
             ("range.didEndDecelerating", {"offset": 300}, "up"),
             ("range.didScroll", {"offset": 401}, "up"),  # programmatic again
             ("range.willBeginDragging", {"offset": 300}, "up")]
    for method, params, want in steps:
        r, _ = rc.call(method, session=s, **params)
        if "direction" in r:
            assert r["direction"] == want, (method, params, r)
        assert rc.state(s)["direction"] == want, (method, params)


def test_direction_from_velocity_while_dragging_then_toward_the_target(rc):
    s, _ = make(rc)
    rc.call("range.willBeginDragging", session=s, offset=3000)
    # Offsets going up but the client's velocity says down: the velocity wins while dragging.
    r, _ = rc.call("range.didScroll", session=s, offset=2900, velocity=0.4)
    assert r["direction"] == "down"
    r, _ = rc.call("range.didScroll", session=s, offset=2800)  # offsets only: the delta
    assert r["direction"] == "up"
    rc.call("range.willEndDragging", session=s, velocity=-0.5, targetOffset=4000)
    r, _ = rc.call("range.didScroll", session=s, offset=3000)  # decelerating toward 4000
    assert r["direction"] == "down"
    # full down at 3000: display [2500, 5000) rows 25..49, preload [1500, 6500) rows 15..64.
    st = rc.state(s)
    assert path_rows(st["display"]) == row_range(25, 50) and path_rows(st["preload"]) == row_range(15, 65)
    # A velocity outside a drag is ignored.
    rc.call("range.didEndDecelerating", session=s)
    r, _ = rc.call("range.didScroll", session=s, offset=2000, velocity=-1)
    assert r["direction"] == "down"


def test_horizontal_sections_reverse_with_the_drag(rc):
    # Sections: 10 columns of 100, none, 20 of 50 (flat 10..29 at 1000..2000); L = 500.
    r, _ = rc.call("range.create", sections=[{"count": 10, "itemLength": 100}, {"count": 0},
                                             {"count": 20, "itemLength": 50}],
                   viewport={"width": 500, "height": 300}, axis="horizontal", batch={"leadingScreens": 0})
    s = r["session"]
    rc.call("range.willBeginDragging", session=s, offset=0)
    r, _ = rc.call("range.didScroll", session=s, offset=900)
    assert r["direction"] == "right"
    st = rc.state(s)
    # full right at 900: display [650, 1900): (0,6)..(0,9) and (2,0)..(2,17); preload [150, 2150): from (0,1).
    assert tup(st["display"]) == [(0, i) for i in range(6, 10)] + [(2, i) for i in range(18)]
    assert tup(st["preload"]) == [(0, i) for i in range(1, 10)] + [(2, i) for i in range(20)]
    r, _ = rc.call("range.didScroll", session=s, offset=850)
    assert r["direction"] == "left"
    st = rc.state(s)
    # full left at 850: display [350, 1600): (0,3)..(0,9), (2,0)..(2,11).
    assert tup(st["display"]) == [(0, i) for i in range(3, 10)] + [(2, i) for i in range(12)]
    rc.call("range.willEndDragging", session=s, velocity=0)
    rc.call("range.didEndDecelerating", session=s)
    r, _ = rc.call("range.didScroll", session=s, offset=1200)  # programmatic, to the right
    assert r["direction"] == "left"


def test_every_did_scroll_is_a_scroll_even_at_the_same_offset(rc):
    # A deliberate difference (docs/ranges.md): UIKit sends no scrollViewDidScroll: when the offset does not
    # move, but a range.didScroll (or a range.didEndDecelerating with an offset) is the client's word that the
    # list scrolled, so at rest near the end an exhausted backend is asked again.
    s, _ = make(rc)
    _, events = rc.call("range.didScroll", session=s, offset=7200)
    (b,) = batches(events)  # at rest, 1800 left
    _, events = rc.call("range.batchFetchDone", session=s, context=b["context"])
    assert batches(events) == []
    _, events = rc.call("range.didScroll", session=s, offset=7200)
    assert len(batches(events)) == 1


def test_a_jitter_churns_nothing(rc):
    s, _ = make(rc)
    rc.call("range.willBeginDragging", session=s, offset=50)
    rc.call("range.didScroll", session=s, offset=55)
    # Rows 0..10 stay on screen between 50 and 55: no range recompute, so no direction flip, no
    # prefetch/cancel churn (before: 10 rows cancelled and prefetched again at every step).
    for x in [50, 55] * 10:
        _, events = rc.call("range.didScroll", session=s, offset=x)
        assert events == [], (x, events)


def test_will_end_dragging_predicts_and_clamps_the_target_offset(rc):
    s, _, _ = setup_b(rc, batch={"leadingScreens": 0})
    cases = [({"velocity": 2}, 3998), ({"velocity": -1}, 2501), ({"velocity": -100}, 0),
             ({"velocity": 100}, 9000), ({"velocity": 0}, 3000), ({"velocity": 0.1}, 3049.9),
             ({"velocity": 1, "targetOffset": 8000}, 8000), ({"velocity": 1, "targetOffset": 9500}, 9000),
             ({"velocity": -1, "targetOffset": -500}, 0)]
    for params, want in cases:
        rc.call("range.willBeginDragging", session=s, offset=3000)
        r, _ = rc.call("range.willEndDragging", session=s, **params)
        assert set(r) == {"session", "targetOffset"} and r["targetOffset"] == pytest.approx(want), (params, r)
        rc.call("range.didEndDecelerating", session=s, offset=3000)
    small, _, _ = setup_b(rc, count=3, batch={"leadingScreens": 0})  # 300 < L: the only rest is 0
    rc.call("range.willBeginDragging", session=small, offset=100)
    assert rc.call("range.willEndDragging", session=small, velocity=5)[0]["targetOffset"] == 0


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


def test_will_end_dragging_records_its_offset_before_predicting(rc):
    reply, _ = rc.call("range.create", count=100, itemLength=100, viewport={"width": 320, "height": 1000},
                       batch=NO_BATCH)
    s = reply["session"]
    rc.call("range.willBeginDragging", session=s, offset=500)
    r, _ = rc.call("range.willEndDragging", session=s, offset=1000, velocity=2)
    assert r["targetOffset"] == pytest.approx(1998)  # from 1000, not 500
    assert rc.call("range.didEndDecelerating", session=s)[0]["offset"] == 1000


def test_huge_velocities_clamp_and_huge_targets_are_refused(rc):
    reply, _ = rc.call("range.create", count=100, itemLength=100, viewport={"width": 320, "height": 1000},
                       batch=NO_BATCH)
    s = reply["session"]
    for v, want in ((1e308, 9000), (-1e308, 0), (1e-300, 3000)):
        rc.call("range.willBeginDragging", session=s, offset=3000)
        r, _ = rc.call("range.willEndDragging", session=s, velocity=v)
        assert r["targetOffset"] == pytest.approx(want), (v, r)
        rc.call("range.didEndDecelerating", session=s, offset=3000)
    rc.call("range.willBeginDragging", session=s, offset=3000)
    before = rc.snapshot(s)
    for t in (1e308, -1e308, 10000.001):
        error, events = rc.fail("range.willEndDragging", session=s, velocity=1, targetOffset=t)
        assert error["code"] == -32602 and error["data"]["path"] == "targetOffset" and events == []
    assert rc.snapshot(s) == before
    assert rc.call("range.willEndDragging", session=s, velocity=0)[0]["targetOffset"] == 3000


def test_horizontal_fling_clamps_to_the_width_and_set_viewport_recomputes(rc):
    reply, _ = rc.call("range.create", count=100, itemLength=100, axis="horizontal",
                       viewport={"width": 1000, "height": 50}, batch=NO_BATCH)
    s = reply["session"]
    rc.call("range.willBeginDragging", session=s, offset=3000)
    r, _ = rc.call("range.willEndDragging", session=s, velocity=2)
    assert r["targetOffset"] == pytest.approx(3998)  # 3000 + 2 * 0.998 / 0.002
    rc.call("range.didEndDecelerating", session=s, offset=4000)
    st = rc.state(s)
    assert (st["mode"], st["direction"]) == ("full", "right")
    # L 1000, full, right at 4000: visible 40..49, display [3500,6000) 35..59, preload [2500,7500) 25..74
    assert rc.lists(s) == {"visible": span_in(0, 40, 49), "display": span_in(0, 35, 59), "preload": span_in(0, 25, 74)}
    r, events = rc.call("range.setViewport", session=s, viewport={"width": 500, "height": 5000})
    assert set(r) == INFO_KEYS and r["direction"] == "right"
    # L 500 (the width): visible [4000,4500) 40..44, display [3750,5000) 37..49, preload [3250,5750) 32..57
    assert rc.lists(s) == {"visible": span_in(0, 40, 44), "display": span_in(0, 37, 49), "preload": span_in(0, 32, 57)}
    ev = one_range(events)
    assert sorted_changes(ev) == with_changes(exit_visible=span_in(0, 45, 49),
                                       exit_display=span_in(0, 35, 36) + span_in(0, 50, 59),
                                       exit_preload=span_in(0, 25, 31) + span_in(0, 58, 74))
    # the clamp and the offset bounds follow the new width: max rest 9500, bounce to 10000
    rc.call("range.willBeginDragging", session=s, offset=4000)
    assert rc.call("range.willEndDragging", session=s, velocity=20)[0]["targetOffset"] == 9500
    rc.call("range.didEndDecelerating", session=s)
    rc.call("range.didScroll", session=s, offset=10000)
    error, _ = rc.fail("range.didScroll", session=s, offset=10000.5)
    assert error["code"] == -32602 and error["data"]["path"] == "offset"
    rc.call("range.willBeginDragging", session=s, offset=300)
    r, events = rc.call("range.willEndDragging", session=s, velocity=-20)
    assert r["targetOffset"] == 0
    assert rc.state(s)["direction"] == "right", "the release recomputes nothing"
    rc.call("range.didScroll", session=s, offset=150)  # decelerating toward 0: new columns on screen
    assert rc.state(s)["direction"] == "left"


def test_will_end_dragging_and_did_end_decelerating_outside_the_stream_are_invalid_state(rc):
    s, _, _ = setup_b(rc, batch={"leadingScreens": 0})
    error, events = rc.fail("range.willEndDragging", session=s, velocity=1)
    assert error["code"] == -32003 and error["data"]["kind"] == "invalidState"
    assert (error["data"]["call"], error["data"]["phase"]) == ("range.willEndDragging", "idle") and events == []
    error, _ = rc.fail("range.didEndDecelerating", session=s)
    assert error["code"] == -32003 and error["data"]["call"] == "range.didEndDecelerating"
    rc.call("range.willBeginDragging", session=s)
    rc.call("range.willEndDragging", session=s, velocity=1)
    error, _ = rc.fail("range.willEndDragging", session=s, velocity=1)
    assert error["code"] == -32003 and error["data"]["phase"] == "decelerating"


def test_did_end_decelerating_while_idle_does_not_move_the_offset(rc):
    """Bad input changes nothing. `range.didEndDecelerating {offset}` on an idle session answers -32003
    (invalidState) and does not record the offset: at the next update (here setVisible) the summary still
    says offset 0 and the visible rows are 0..7, as before the refused call."""
    s, _, _ = setup_a(rc, batch={"leadingScreens": 0})
    error, events = rc.fail("range.didEndDecelerating", session=s, offset=500)
    assert error["code"] == -32003 and events == []
    r, _ = rc.call("range.setVisible", session=s, visible=True)
    assert r["offset"] == 0, r
    assert rc.lists(s)["visible"] == span(0, 7)


def test_lazy_fling_marks_only_the_target_region(rc):
    s, _, _ = setup_b(rc, count=1000, lazy=True, batch={"leadingScreens": 0})
    rc.call("range.willBeginDragging", session=s, offset=0)
    r, _ = rc.call("range.willEndDragging", session=s, velocity=20)
    assert r["targetOffset"] == pytest.approx(9980)  # target viewport [9980, 10980): rows 99..109
    for x in (None, 3000):
        if x is not None:
            rc.call("range.didScroll", session=s, offset=x)
        st = rc.lists(s)
        vis = st["visible"]
        assert vis == (span(0, 9) if x is None else span(30, 39))
        for k in ("display", "preload"):
            assert set(vis) <= set(st[k]), k  # a visible item has all three
            assert set(span(99, 109)) <= set(st[k]), k  # the target region is marked
            flown = [p for p in st[k] if vis[-1][1] + 5 < p[1] < 80]
            assert flown == [], f"{k} marks rows flown over during a lazy fling: {flown}"
    rc.call("range.didEndDecelerating", session=s, offset=9980)
    # at rest: full, down at 9980: display [9480, 11980) 94..119, preload [8480, 13480) 84..134
    assert rc.lists(s) == {"visible": span(99, 109), "display": span(94, 119), "preload": span(84, 134)}


def test_without_lazy_a_fling_keeps_the_ranges_at_the_offset(rc):
    s, _, _ = setup_b(rc, count=1000, batch={"leadingScreens": 0})
    rc.call("range.willBeginDragging", session=s, offset=0)
    _, events = rc.call("range.willEndDragging", session=s, velocity=20)
    assert range_events(events) == []
    # full, down at 0: display [-500, 2000) 0..19, preload [-1500, 3500) 0..34
    assert rc.lists(s) == {"visible": span(0, 9), "display": span(0, 19), "preload": span(0, 34)}


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


def test_lazy_fling_toward_the_head_marks_the_target_not_the_rows_flown_over(rc):
    """docs/ranges.md / schema willEndDragging: with `lazy: true` the ranges mark only the target region until
    range.didEndDecelerating; a visible item keeps all three bits. 1000 rows of 100, L 1000: a fling up
    from 50000 at -40 points/ms stops at 50000 - 40 * 0.998 / 0.002 = 30040 (rows 300..310 on screen)."""
    reply, _ = rc.call("range.create", count=1000, itemLength=100, viewport={"width": 320, "height": 1000},
                       lazy=True, batch=NO_BATCH)
    s = reply["session"]
    rc.call("range.willBeginDragging", session=s, offset=50000)
    # full, down at 50000: visible 500..509, display [49500,52000) 495..519, preload [48500,53500) 485..534
    assert rc.lists(s) == {"visible": span_in(0, 500, 509), "display": span_in(0, 495, 519),
                           "preload": span_in(0, 485, 534)}
    r, events = rc.call("range.willEndDragging", session=s, velocity=-40)
    assert r["targetOffset"] == pytest.approx(30040)
    st = rc.lists(s)
    assert rc.state(s)["direction"] == "up"
    target, on_screen = set(range(300, 311)), set(range(500, 510))
    assert rows_of(st["visible"]) == on_screen
    for k in ("display", "preload"):
        marked = rows_of(st[k])
        assert on_screen <= marked, (k, "a visible item has all three bits")
        assert target <= marked, (k, "the target region is marked")
        flown = sorted(marked & set(range(331, 470)))
        assert not flown, (k, "rows flown over are marked", flown)
    ev = one_range(events)
    for k in KINDS:
        assert not rows_of(ev["exit"][k]) & on_screen, (k, ev["exit"][k])
    assert target <= rows_of(ev["enter"]["display"]) and target <= rows_of(ev["enter"]["preload"])
    # still decelerating, further up: what is on screen has all three bits, the target stays marked
    rc.call("range.didScroll", session=s, offset=40000)
    st = rc.lists(s)
    assert rows_of(st["visible"]) == set(range(400, 410))
    for k in ("display", "preload"):
        marked = rows_of(st[k])
        assert set(range(400, 410)) <= marked and target <= marked, k
        assert not marked & set(range(331, 361)), (k, sorted(marked & set(range(331, 361))))
        assert not marked & on_screen, (k, "rows left behind stay marked")
    # at rest: the usual ranges, full, up at 30040: display [29040,31540) 290..315,
    # preload [27540,32540) 275..325
    r, _ = rc.call("range.didEndDecelerating", session=s, offset=30040)
    assert (r["phase"], r["direction"]) == ("idle", "up")
    assert rc.lists(s) == {"visible": span_in(0, 300, 310), "display": span_in(0, 290, 315),
                           "preload": span_in(0, 275, 325)}


def test_lazy_fling_of_a_hidden_session_marks_only_the_target(rc):
    reply, _ = rc.call("range.create", count=1000, itemLength=100, viewport={"width": 320, "height": 1000},
                       lazy=True, visible=False, batch=NO_BATCH)
    s = reply["session"]
    rc.call("range.willBeginDragging", session=s, offset=0)
    r, _ = rc.call("range.willEndDragging", session=s, velocity=40)
    assert r["targetOffset"] == pytest.approx(19960)  # rows 199..209 at rest
    st = rc.lists(s)
    assert st["visible"] == []
    # Invisible: the items on the viewport (rows 0..9) get display; the target's display range preload.
    assert rows_of(st["display"]) == set(range(10))
    marked = rows_of(st["preload"])
    assert set(range(200, 209)) <= marked
    assert not marked & set(range(40, 170)), sorted(marked & set(range(40, 170)))


def test_lazy_fling_keeps_visible_items_in_display_and_preload(conn: Conn) -> None:
    """docs/ranges.md: "a visible item has all three" states; `lazy: true` marks only the target region during a fling —
    rather than everything between here and there, not instead of what is on screen. On `range.willEndDragging` a
    lazy session's visible items leave display and preload (the `range` event lists them in `exit.display` /
    `exit.preload` while they stay visible), and items that scroll into view during the fling are visible without
    being in display or preload (`range.state {paths}` gives `visible: true, display: false, preload: false`)."""
    s = conn.call("range.create", {"count": 200, "itemLength": 100, "viewport": VP, "lazy": True})["session"]
    conn.call("range.willBeginDragging", {"session": s, "offset": 0})
    conn.call("range.didScroll", {"session": s, "offset": 100})
    target = conn.call("range.willEndDragging", {"session": s, "velocity": 10})["targetOffset"]
    assert target > 3000, target
    for offset in (None, 600):
        if offset is not None:
            conn.call("range.didScroll", {"session": s, "offset": offset})
        state = conn.call("range.state", {"session": s})
        outside = [p for p in state["visible"] if p not in state["display"] or p not in state["preload"]]
        assert not outside, f"during the fling (offset {offset or 100}, target {target}) visible items lack " \
                            f"display / preload: {outside}"
