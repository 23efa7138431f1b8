"""Range geometry: which items are visible, in the display range and in the preload range for an offset,
a viewport, an axis and a tuning (Texture's working ranges: the viewport grown by leading and trailing
screenfuls in the scroll direction; display and preload independent sets), setViewport, bounces.

How the expected values are worked out, and the usual sessions ("setup A", "setup B", `SECTIONS`): rangemodel.py.
"""

from __future__ import annotations

import pytest
from rangemodel import (Content, INFO_KEYS, KINDS, NO_BATCH, PATTERN, SECTIONS, TEXTURE, assert_geometry,
                        expected_ranges, flat_lists, grown, items, iv_rows, make, one_range, path_rows, prefetches,
                        row_range, setup_a, span, span_in, state_paths, viewport)

pytestmark = pytest.mark.integration


def test_visible_is_the_items_intersecting_the_half_open_viewport(rc):
    reply, _ = rc.call("range.create", count=20, itemLength=100, viewport={"width": 320, "height": 250},
                       batch={"leadingScreens": 0})
    s = reply["session"]
    cases = [(100, span(1, 3)),   # row 0 ends exactly at the offset: not visible
             (150, span(1, 3)),   # row 4 starts exactly at offset + L = 400: not visible
             (99, span(0, 3)),    # row 0 [0,100) intersects [99, 349)
             (151, span(1, 4))]   # row 4 [400,500) intersects [151, 401)
    for offset, want in cases:
        rc.call("range.didScroll", session=s, offset=offset)
        assert rc.lists(s)["visible"] == want, offset


def test_zero_length_item_at_the_viewport_end_is_not_visible(rc):
    """docs/ranges.md: "the viewport covers [offset, offset + L). An item is visible when it intersects the viewport"
    (so an item starting at offset + L is not visible). Lengths may be 0 (schema RangeLength: >= 0). With
    lengths [0, 100, 0, 100, ...] and L 100 at offset 0, row 2 is the empty span [100, 100): it starts at
    offset + L and intersects nothing, so it is not visible (row 1 is, row 3 is not)."""
    reply, _ = rc.call("range.create", lengths=[0, 100, 0, 100, 0, 100, 100, 100], batch={"leadingScreens": 0},
                       viewport={"width": 320, "height": 100})
    vis = rc.lists(reply["session"])["visible"]
    assert (0, 1) in vis and (0, 3) not in vis
    assert (0, 2) not in vis, f"row 2 starts at offset + L = 100 but is visible: {vis}"


def test_minimum_mode_default_tuning_and_a_programmatic_scroll_keeps_down(rc):
    s, _, _ = setup_a(rc)
    assert rc.state(s)["mode"] == "minimum"
    rc.call("range.didScroll", session=s, offset=2000)
    st = rc.state(s)
    assert (st["mode"], st["direction"]) == ("minimum", "down")
    assert rc.lists(s) == {"visible": span(40, 47), "display": span(38, 49), "preload": span(38, 51)}
    # A programmatic scroll has no direction (Texture: none outside a drag): the ranges keep pointing down.
    # minimum, down, 1990: display [1890, 2490) 37..49, preload [1890, 2590) 37..51
    rc.call("range.didScroll", session=s, offset=1990)
    assert rc.state(s)["direction"] == "down"
    assert rc.lists(s) == {"visible": span(39, 47), "display": span(37, 49), "preload": span(37, 51)}


def test_full_mode_default_tuning_down_and_up(rc):
    s, _, _ = setup_a(rc)
    rc.call("range.willBeginDragging", session=s)
    # full, down, offset 0: display [-200, 800), preload [-600, 1400)
    assert rc.lists(s) == {"visible": span(0, 7), "display": span(0, 15), "preload": span(0, 27)}
    rc.call("range.didScroll", session=s, offset=2000)
    assert rc.lists(s) == {"visible": span(40, 47), "display": span(36, 55), "preload": span(28, 67)}
    rc.call("range.didScroll", session=s, offset=1990)
    st = rc.state(s)
    assert (st["mode"], st["direction"]) == ("full", "up")
    assert rc.lists(s) == {"visible": span(39, 47), "display": span(31, 51), "preload": span(19, 59)}


@pytest.mark.parametrize("axis", ["vertical", "horizontal"])
def test_full_mode_geometry_with_uneven_rows_at_many_offsets(rc, axis):
    lengths = [37.0, 90.0, 61.0, 150.0, 44.0] * 50  # 19100 points
    L = 500.0
    vp = {"width": 320, "height": L} if axis == "vertical" else {"width": L, "height": 320}
    names = ("down", "up") if axis == "vertical" else ("right", "left")
    reply, _ = rc.call("range.create", lengths=lengths, viewport=vp, axis=axis, batch={"leadingScreens": 0})
    s = reply["session"]
    assert rc.lists(s) == grown(lengths, 0, L, "minimum", True)
    rc.call("range.willBeginDragging", session=s)
    # While dragging the direction is the offsets' delta, but the ranges (and the direction they keep) are
    # recomputed only when the items on screen change; with nothing on screen they stay, visible emptied.
    offset, forward = 0.0, True
    on_screen = items(lengths, 0, L)
    want = grown(lengths, 0, L, "full", True)
    for x in [1000.0, 4321.5, 4000.0, 4000.0, 9000.25, 18600.0, 19100.0, 100.0, -200.0, 7777.0, 7776.0, 37.0]:
        sign = (x > offset) - (x < offset)
        offset = x
        now = items(lengths, x, x + L)
        if now != on_screen:
            on_screen = now
            if sign:
                forward = sign > 0
            want = grown(lengths, x, L, "full", forward) if now else {**want, "visible": []}
        r, _ = rc.call("range.didScroll", session=s, offset=x)
        assert r == {"session": s, "mode": "full", "direction": names[0 if forward else 1]}, (x, r)
        assert rc.lists(s) == want, x


def test_hand_computed_intervals_of_the_default_tuning(rc):
    """100-point rows, a 1000-point viewport: Texture's buffers worked out by hand."""
    s = rc.call("range.create", count=100, itemLength=100, viewport={"width": 400, "height": 1000})[0]["session"]
    # minimum: display 0.25/0.25 -> [-250, 1250); preload 0.5 ahead / 0.25 behind -> [-250, 1500)
    assert flat_lists(rc.state(s)) == {"visible": iv_rows((0, 10)), "display": iv_rows((0, 13)), "preload": iv_rows((0, 15))}
    rc.call("range.willBeginDragging", session=s)
    rc.call("range.didScroll", session=s, offset=5000)
    # full, down: display [4500, 7000), preload [3500, 8500)
    assert flat_lists(rc.state(s)) == {"visible": iv_rows((50, 60)), "display": iv_rows((45, 70)), "preload": iv_rows((35, 85))}
    rc.call("range.didScroll", session=s, offset=4950)
    # full, up: display [3950, 6450), preload [2450, 7450)
    st = rc.state(s)
    assert st["direction"] == "up"
    assert flat_lists(st) == {"visible": iv_rows((49, 60)), "display": iv_rows((39, 65)), "preload": iv_rows((24, 75))}


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


def test_horizontal_axis_uses_the_width_and_left_right(rc):
    reply, events = rc.call("range.create", count=200, itemLength=50, axis="horizontal",
                            viewport={"width": 400, "height": 5000})
    s = reply["session"]
    assert reply["direction"] == "right" and one_range(events)["direction"] == "right"
    assert rc.lists(s) == {"visible": span(0, 7), "display": span(0, 9), "preload": span(0, 11)}
    r, events = rc.call("range.didScroll", session=s, offset=2000)
    assert r["direction"] == "right"
    assert rc.lists(s) == {"visible": span(40, 47), "display": span(38, 49), "preload": span(38, 51)}
    # Left is a drag's direction: full, left, 1990: display [1590, 2590) 31..51, preload [990, 2990) 19..59
    rc.call("range.willBeginDragging", session=s)
    r, events = rc.call("range.didScroll", session=s, offset=1990)
    assert r["direction"] == "left" and one_range(events)["direction"] == "left"
    assert rc.state(s)["direction"] == "left"
    assert rc.lists(s) == {"visible": span(39, 47), "display": span(31, 51), "preload": span(19, 59)}


def test_bounce_offsets_outside_the_content(rc):
    reply, _ = rc.call("range.create", count=20, itemLength=100, viewport={"width": 320, "height": 300},
                       batch={"leadingScreens": 0})
    s = reply["session"]
    # at 0, minimum, down: visible 0..2, display [-75, 375) 0..3, preload [-75, 450) 0..4
    rc.call("range.didScroll", session=s, offset=-300)  # viewport [-300, 0): nothing on screen
    # Texture keeps the ranges when nothing is on screen; only the visible bit goes
    assert rc.lists(s) == {"visible": [], "display": span(0, 3), "preload": span(0, 4)}
    rc.call("range.didScroll", session=s, offset=1900)  # viewport [1900, 2200): row 19
    # minimum, down at 1900: display [1825, 2275) 18..19, preload [1825, 2350) 18..19
    assert rc.lists(s) == {"visible": [(0, 19)], "display": span(18, 19), "preload": span(18, 19)}
    rc.call("range.didScroll", session=s, offset=2000)  # viewport [2000, 2300): past the last row
    assert rc.lists(s) == {"visible": [], "display": span(18, 19), "preload": span(18, 19)}


def test_overscroll_keeps_the_ranges_and_takes_only_the_visible_bit(rc):
    s, _ = make(rc, count=20, batch={"leadingScreens": 0})
    rc.call("range.willBeginDragging", session=s, offset=0)
    rc.call("range.didScroll", session=s, offset=1000)
    before = rc.state(s)
    _, events = rc.call("range.didScroll", session=s, offset=2000)  # a screen past the tail
    ev = one_range(events)
    assert sorted(path_rows(ev["exit"]["visible"])) == row_range(10, 20)
    assert all(ev[part][k] == [] for part in ("enter", "exit") for k in ("preload", "display"))
    assert prefetches(events) == {"prefetchItems": [], "cancelPrefetching": []}
    after = rc.state(s)
    assert after["visible"] == [] and after["display"] == before["display"] and after["preload"] == before["preload"]
    assert after["mode"] == before["mode"]


def test_display_and_preload_are_independent_sets(rc):
    """Texture's ASRangeController: display and preload are computed separately; a display range beyond
    the preload range does not widen it (a visible item is in all three)."""
    tuning = {"full": {"display": {"leading": 3}, "preload": {"leading": 1}}}
    s, _, _ = setup_a(rc, tuning=tuning)
    rc.call("range.willBeginDragging", session=s, offset=2000)
    # display [1800, 3600) -> 36..71; preload [1400, 2800) -> 28..55
    assert rc.lists(s) == {"visible": span(40, 47), "display": span(36, 71), "preload": span(28, 55)}


def test_visible_items_are_in_display_and_preload_even_with_zero_buffers(rc):
    tuning = {m: {"display": {"leading": 0, "trailing": 0}, "preload": {"leading": 0, "trailing": 0}}
              for m in ("full", "minimum")}
    reply, _ = rc.call("range.create", sections=SECTIONS, viewport={"width": 320, "height": 300}, tuning=tuning,
                       batch=NO_BATCH)
    s = reply["session"]
    rc.call("range.didScroll", session=s, offset=420)
    vis = span_in(1, 0, 2) + span_in(3, 0, 1)
    assert rc.lists(s) == {"visible": vis, "display": vis, "preload": vis}
    rc.call("range.willBeginDragging", session=s, offset=421)
    assert rc.lists(s) == {"visible": vis, "display": vis, "preload": vis}


def test_tuning_overrides_replace_only_the_given_members(rc):
    tuning = {"full": {"display": {"leading": 2}}, "minimum": {"preload": {"leading": 2}}}
    s, _, _ = setup_a(rc, tuning=tuning, batch={"leadingScreens": 0})
    rc.call("range.didScroll", session=s, offset=2000)
    # minimum: display default [1900, 2500); preload 2.0 / 0.25: [1900, 3200) -> 38..63
    assert rc.lists(s) == {"visible": span(40, 47), "display": span(38, 49), "preload": span(38, 63)}
    rc.call("range.willBeginDragging", session=s)
    # full: display 2.0 / 0.5 (trailing kept): [1800, 3200) -> 36..63; preload default [1400, 3400)
    assert rc.lists(s) == {"visible": span(40, 47), "display": span(36, 63), "preload": span(28, 67)}


def test_tuning_override_of_the_visible_only_mode(rc):
    s, _, _ = setup_a(rc, tuning={"visibleOnly": {"preload": {"leading": 1}}}, batch={"leadingScreens": 0})
    rc.call("range.didScroll", session=s, offset=2000)
    rc.call("host.memoryWarning")
    # visibleOnly preload 1.0 / 0: [2000, 2800) -> 40..55
    assert rc.lists(s) == {"visible": span(40, 47), "display": span(40, 47), "preload": span(40, 55)}


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


def test_set_viewport_gives_the_new_screenful(rc):
    s, _, _ = setup_a(rc, batch={"leadingScreens": 0})
    rc.call("range.didScroll", session=s, offset=2000)
    r, _ = rc.call("range.setViewport", session=s, viewport={"width": 320, "height": 800})
    assert set(r) == INFO_KEYS
    # L 800: visible [2000,2800) 40..55; display [1800, 3000) 36..59; preload [1800, 3200) 36..63
    assert rc.lists(s) == {"visible": span(40, 55), "display": span(36, 59), "preload": span(36, 63)}
    rc.call("range.setViewport", session=s, width=320, height=200)
    # L 200: visible [2000,2200) 40..43; display [1950, 2250) 39..44; preload [1950, 2300) 39..45
    assert rc.lists(s) == {"visible": span(40, 43), "display": span(39, 44), "preload": span(39, 45)}


def test_set_viewport_on_a_horizontal_session_uses_the_width(rc):
    reply, _ = rc.call("range.create", count=200, itemLength=50, axis="horizontal",
                       viewport={"width": 400, "height": 320}, batch={"leadingScreens": 0})
    s = reply["session"]
    rc.call("range.setViewport", session=s, viewport={"width": 100, "height": 9000})
    assert rc.lists(s)["visible"] == span(0, 1)


def test_set_viewport_moves_the_offset_bounds(rc):
    s, _, _ = setup_a(rc, batch={"leadingScreens": 0})
    rc.call("range.setViewport", session=s, viewport={"width": 320, "height": 800})
    rc.call("range.didScroll", session=s, offset=-800)
    rc.call("range.didScroll", session=s, offset=10000)  # max(10000 - 800, 0) + 800
    for bad in (-800.5, 10000.5):
        error, _ = rc.fail("range.didScroll", session=s, offset=bad)
        assert error["code"] == -32602 and error["data"]["path"] == "offset"
