"""Contract audit of range sessions: rpc-schema/openrpc.json (the Ranges methods) and docs/ranges.md (Texture's
ASRangeController and
batch fetching), with rpc-schema/openrpc.json where docs/ranges.md is terse.

Every expectation here is worked out by hand from the contract (or by the brute-force `grown` helper
below, a direct transcription of docs/ranges.md's sentences), never from `rangemodel.py`. One focused test per rule.

Where a rule is easy to get wrong, the docstring quotes the contract's sentence and states the expected
behaviour.

The usual session ("setup A"): 200 rows of 50 points, viewport height 400 (L = 400, content 10000).
  minimum, down, offset 0:    visible 0..7,   display [-100, 500) 0..9,    preload [-100, 600) 0..11
  minimum, down, offset 2000: visible 40..47, display [1900, 2500) 38..49, preload [1900, 2600) 38..51
  minimum, up,   offset 1990: visible 39..47, display [1890, 2490) 37..49, preload [1790, 2490) 35..49
  full,    down, offset 2000: display [1800, 2800) 36..55, preload [1400, 3400) 28..67
  full,    up,   offset 1990: display [1590, 2590) 31..51, preload [990, 2990) 19..59
"""

from __future__ import annotations

import re

import pytest
from rangemodel import RC, assert_refused, batches, one_range, prefetches, range_events, snapshot, tup

pytestmark = pytest.mark.integration

KINDS = ("preload", "display", "visible")
INFO_KEYS = {"session", "count", "sections", "contentLength", "offset", "mode", "direction", "phase", "visible",
             "batchInFlight"}
RANGE_EVENT_KEYS = {"seq", "t", "session", "mode", "direction", "enter", "exit"}
BATCH_EVENT_KEYS = {"seq", "t", "session", "context", "kind", "prepend"}
PREFETCH_EVENT_KEYS = {"seq", "t", "session", "kind", "paths"}

#: Texture's tuning, (leading, trailing) screenfuls; lowMemory has no display range.
TEXTURE = {
    "full": {"display": (1.0, 0.5), "preload": (2.5, 1.5)},
    "minimum": {"display": (0.25, 0.25), "preload": (0.5, 0.25)},
    "visibleOnly": {"display": (0.0, 0.0), "preload": (0.0, 0.0)},
    "lowMemory": {"display": None, "preload": (0.0, 0.0)},
}


# --------------------------------------------------------------------------------------------------
# Helpers


@pytest.fixture
def host(start_host):
    return start_host("--clock", "virtual")


@pytest.fixture
def rc(host) -> RC:
    return RC(host.connect())


def P(*rows, section=0):
    """Index paths of section `section` (tuples, for comparing with `lists`)."""
    return [(section, r) for r in rows]


def span(a, b, section=0):
    """Rows a..b inclusive as path tuples."""
    return [(section, r) for r in range(a, b + 1)]


def J(paths):
    """Path tuples as JSON lists."""
    return [list(p) for p in paths]


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


def grown(lengths, offset, L, mode, forward, visible=True, tuning=TEXTURE):
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


def gap(lengths, i, offset, L):
    """Points between item i and the viewport [offset, offset + L) (0 when they touch or intersect)."""
    s = sum(lengths[:i])
    e = s + lengths[i]
    if e <= offset:
        return offset - e
    if s >= offset + L:
        return s - (offset + L)
    return 0.0


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


# --------------------------------------------------------------------------------------------------
# rpc-schema/openrpc.json range.create: count + itemLength, lengths, sections


def test_create_from_count_and_item_length_replies_the_session_summary(rc):
    s, reply, _events = setup_a(rc)
    assert set(reply) == INFO_KEYS, reply
    assert re.fullmatch(r"r-[1-9][0-9]*", s), s
    assert reply == {"session": s, "count": 200, "sections": 1, "contentLength": 10000, "offset": 0,
                     "mode": "minimum", "direction": "down", "phase": "idle", "visible": True,
                     "batchInFlight": None}
    assert rc.lists(s) == {"visible": span(0, 7), "display": span(0, 9), "preload": span(0, 11)}


def test_create_item_length_defaults_to_44_points(rc):
    reply, _ = rc.call("range.create", count=10, viewport={"width": 320, "height": 100})
    assert reply["contentLength"] == 440 and reply["count"] == 10
    # [0, 44), [44, 88), [88, 132) intersect [0, 100); [132, 176) does not.
    assert rc.lists(reply["session"])["visible"] == span(0, 2)


def test_create_from_lengths_addresses_section_zero(rc):
    reply, _ = rc.call("range.create", lengths=[30, 70, 100, 25, 500], viewport={"width": 320, "height": 150})
    assert reply["count"] == 5 and reply["sections"] == 1 and reply["contentLength"] == 725
    # [0,30) [30,100) [100,200) intersect [0,150); [200,225) does not.
    assert rc.lists(reply["session"])["visible"] == [(0, 0), (0, 1), (0, 2)]
    items_ = rc.state(reply["session"], paths=[[0, 4], [0, 0]])["items"]
    assert [i["path"] for i in items_] == [[0, 4], [0, 0]]


def test_create_from_sections_addresses_items_by_section_and_row(rc):
    # s0: [0,120) [120,240); s1: [240,300) [300,360); s2 empty; s3 (itemLength 44): [360,404) [404,448)
    # [448,492) [492,536). L = 200, minimum, down.
    reply, _ = rc.call("range.create", sections=[{"lengths": [120, 120]}, {"count": 2, "itemLength": 60},
                                                 {"count": 0}, {"count": 4}],
                       viewport={"width": 320, "height": 200}, batch={"leadingScreens": 0})
    s = reply["session"]
    assert reply["count"] == 8 and reply["sections"] == 4 and reply["contentLength"] == 536
    # visible [0,200); display [-50, 250); preload [-50, 300)
    assert rc.lists(s) == {"visible": [(0, 0), (0, 1)], "display": [(0, 0), (0, 1), (1, 0)],
                           "preload": [(0, 0), (0, 1), (1, 0)]}
    rc.call("range.didScroll", session=s, offset=300)
    # visible [300,500): (1,1) and all of section 3 ([492,536) starts before 500); display [250, 550)
    want_vis = [(1, 1), (3, 0), (3, 1), (3, 2), (3, 3)]
    assert rc.lists(s) == {"visible": want_vis, "display": [(1, 0)] + want_vis, "preload": [(1, 0)] + want_vis}


def test_create_count_must_equal_the_length_of_lengths(rc):
    error, events = rc.fail("range.create", count=3, lengths=[10, 20], viewport={"width": 1, "height": 1})
    assert error["code"] == -32602 and error["data"]["path"] == "count", error
    assert events == []


# --------------------------------------------------------------------------------------------------
# docs/ranges.md geometry: visible, default tunings, direction, axis


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


def test_visible_only_mode_has_no_buffers(rc):
    s, _, _ = setup_a(rc)
    rc.call("range.didScroll", session=s, offset=2000)
    rc.call("host.memoryWarning")
    assert rc.state(s)["mode"] == "visibleOnly"
    assert rc.lists(s) == {"visible": span(40, 47), "display": span(40, 47), "preload": span(40, 47)}
    rc.call("range.didScroll", session=s, offset=1990)
    assert rc.lists(s) == {"visible": span(39, 47), "display": span(39, 47), "preload": span(39, 47)}


def test_low_memory_mode_preloads_the_viewport_and_displays_nothing(rc):
    s, _, _ = setup_a(rc)
    rc.call("range.didScroll", session=s, offset=2000)
    rc.call("range.setVisible", session=s, visible=False)
    rc.call("host.memoryWarning")
    assert rc.state(s)["mode"] == "lowMemory"
    assert rc.lists(s) == {"visible": [], "display": [], "preload": span(40, 47)}
    rc.call("range.didScroll", session=s, offset=1990)
    assert rc.lists(s) == {"visible": [], "display": [], "preload": span(39, 47)}


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


def test_display_and_preload_are_independent_sets(rc):
    """Texture's ASRangeController: display and preload are computed separately; a display range beyond
    the preload range does not widen it (a visible item is in all three)."""
    tuning = {"full": {"display": {"leading": 3}, "preload": {"leading": 1}}}
    s, _, _ = setup_a(rc, tuning=tuning)
    rc.call("range.willBeginDragging", session=s, offset=2000)
    # display [1800, 3600) -> 36..71; preload [1400, 2800) -> 28..55
    assert rc.lists(s) == {"visible": span(40, 47), "display": span(36, 71), "preload": span(28, 55)}


# --------------------------------------------------------------------------------------------------
# docs/ranges.md modes


def test_mode_is_minimum_until_the_first_drag_while_visible_then_full(rc):
    s, reply, events = setup_a(rc, batch={"leadingScreens": 0})
    assert reply["mode"] == "minimum" and one_range(events)["mode"] == "minimum"
    for x in (300, 2000, 0):
        assert rc.call("range.didScroll", session=s, offset=x)[0]["mode"] == "minimum"
    r, events = rc.call("range.willBeginDragging", session=s)
    assert (r["mode"], r["phase"]) == ("full", "dragging")
    assert one_range(events)["mode"] == "full"  # display 0..9 -> 0..15 etc.
    assert rc.call("range.willEndDragging", session=s, velocity=0)[0] == {"session": s, "targetOffset": 0}
    r, _ = rc.call("range.didEndDecelerating", session=s)
    assert (r["mode"], r["phase"]) == ("full", "idle")
    for v in (False, True):
        assert rc.call("range.setVisible", session=s, visible=v)[0]["mode"] == "full"


def test_a_drag_while_invisible_sets_full(rc):
    """Texture's scrollViewWillBeginDragging: sets full whether or not the list is visible."""
    s, reply, _ = setup_a(rc, visible=False, batch={"leadingScreens": 0})
    assert reply["mode"] == "minimum"
    r, _ = rc.call("range.willBeginDragging", session=s)
    assert r["mode"] == "full"
    rc.call("range.didEndDecelerating", session=s)
    r, _ = rc.call("range.setVisible", session=s, visible=True)
    assert r["mode"] == "full"
    assert rc.lists(s) == {"visible": span(0, 7), "display": span(0, 15), "preload": span(0, 27)}


def test_memory_warning_visible_sessions_visible_only_others_low_memory(host, rc):
    shown, _, _ = setup_a(rc, batch={"leadingScreens": 0})
    hidden, _, _ = setup_a(rc, batch={"leadingScreens": 0})
    other = RC(host.connect(), topics=())
    other.call("range.create", count=3, viewport={"width": 1, "height": 1000})
    for s in (shown, hidden):
        rc.call("range.didScroll", session=s, offset=2000)
    rc.call("range.setVisible", session=hidden, visible=False)
    reply, events = rc.call("host.memoryWarning")
    assert reply["purged"]["rangeSessions"] == 3  # every connection's
    by = {e["session"]: e for e in range_events(events)}
    assert by[shown]["mode"] == "visibleOnly" and by[hidden]["mode"] == "lowMemory"
    # shown: preload 38..51 and display 38..49 shrink to 40..47
    ch = changes(by[shown])
    assert sorted(ch["exit"]["preload"]) == P(38, 39, 48, 49, 50, 51)
    assert sorted(ch["exit"]["display"]) == P(38, 39, 48, 49)
    assert ch["exit"]["visible"] == [] and all(v == [] for v in ch["enter"].values())
    cancel = [e["params"] for e in events if e["method"] == "prefetch" and e["params"]["session"] == shown]
    assert [c["kind"] for c in cancel] == ["cancelPrefetching"]
    assert sorted(tup(cancel[0]["paths"])) == P(38, 39, 48, 49, 50, 51)  # none of them was ever visible
    assert rc.state(shown)["mode"] == "visibleOnly" and rc.state(hidden)["mode"] == "lowMemory"


def test_memory_warning_mode_lasts_one_update(rc):
    """Texture's updateCurrentRangeWithMode: the warning's mode holds for one update; after it a visible,
    scrolled list is full again; one never dragged keeps the mode until its first drag."""
    s, _, _ = setup_a(rc, batch={"leadingScreens": 0})
    rc.call("range.willBeginDragging", session=s)
    rc.call("range.didEndDecelerating", session=s)
    rc.call("host.memoryWarning")
    assert rc.state(s)["mode"] == "visibleOnly"
    assert rc.call("range.didScroll", session=s, offset=2000)[0]["mode"] == "full"
    assert rc.lists(s) == {"visible": span(40, 47), "display": span(36, 55), "preload": span(28, 67)}

    h, _, _ = setup_a(rc, visible=False, batch={"leadingScreens": 0})
    rc.call("host.memoryWarning")
    assert rc.state(h)["mode"] == "lowMemory"
    r, _ = rc.call("range.setVisible", session=h, visible=True)
    assert r["mode"] == "lowMemory"  # never dragged: the mode is not managed yet
    # a visible item has all three bits, even in lowMemory
    assert rc.lists(h) == {"visible": span(0, 7), "display": span(0, 7), "preload": span(0, 7)}
    assert rc.call("range.didScroll", session=h, offset=2000)[0]["mode"] == "lowMemory"
    assert rc.call("range.willBeginDragging", session=h)[0]["mode"] == "full"


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


def test_low_memory_display_tuning_is_accepted_and_has_no_effect(rc):
    """Texture's ASRangeController: in lowMemory "Display is not supposed to contain *any* paths -- not even
    the visible bounds", whatever the tuning says (setTuningParameters accepts the buffers; the range
    controller never asks for them). So `{lowMemory: {display: {leading: 1, trailing: 1}}}` is accepted
    and the display set stays empty; the preload override (1 screen ahead) applies: at 2000, L 400, down,
    an invisible session preloads the display range (none) plus the viewport's items 40..47."""
    tuning = {"lowMemory": {"display": {"leading": 1, "trailing": 1}, "preload": {"leading": 1}}}
    reply, _ = rc.call("range.create", count=200, itemLength=50, viewport={"width": 320, "height": 400},
                       visible=False, tuning=tuning, batch={"leadingScreens": 0})
    s = reply["session"]
    rc.call("range.didScroll", session=s, offset=2000)
    rc.call("host.memoryWarning")
    st = rc.lists(s)
    assert rc.state(s)["mode"] == "lowMemory"
    assert st["display"] == [], f"lowMemory display override applied: display {st['display']}"
    assert st["preload"] == span(40, 47)
    # shown (never dragged, so still lowMemory): visible items have all three bits; preload 1 screen ahead
    rc.call("range.setVisible", session=s, visible=True)
    assert rc.lists(s) == {"visible": span(40, 47), "display": span(40, 47), "preload": span(40, 55)}


# --------------------------------------------------------------------------------------------------
# docs/ranges.md range and prefetch events


def test_range_event_lists_only_the_changes_with_its_shape(rc):
    s, _, _ = setup_a(rc, batch={"leadingScreens": 0})
    rc.call("range.didScroll", session=s, offset=2000)
    rc.call("range.didScroll", session=s, offset=2010)
    r, events = rc.call("range.didScroll", session=s, offset=2060)
    assert r == {"session": s, "mode": "minimum", "direction": "down"}
    ev = one_range(events)
    assert set(ev) == RANGE_EVENT_KEYS, ev
    assert set(ev["enter"]) == set(KINDS) and set(ev["exit"]) == set(KINDS)
    assert (ev["session"], ev["mode"], ev["direction"]) == (s, "minimum", "down")
    # visible [2010,2410) 40..48 -> [2060,2460) 41..49; display 38..50 -> 39..51; preload 38..52 -> 39..53
    assert changes(ev) == {"enter": {"preload": P(53), "display": P(51), "visible": P(49)},
                           "exit": {"preload": P(38), "display": P(38), "visible": P(40)}}
    for e in events:
        if e["method"] == "prefetch":
            assert set(e["params"]) == PREFETCH_EVENT_KEYS
    assert prefetches(events) == {"prefetchItems": P(53), "cancelPrefetching": P(38)}
    seqs = [e["params"]["seq"] for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)


def test_no_range_or_prefetch_event_when_nothing_changes(rc):
    s, _, _ = setup_a(rc, batch={"leadingScreens": 0})
    rc.call("range.didScroll", session=s, offset=2010)
    # [2010,2410) -> [2040,2440): visible 40..48, display 38..50 and preload 38..52 at both
    for method, params in [("range.didScroll", {"offset": 2040}), ("range.didScroll", {"offset": 2040}),
                           ("range.setVisible", {"visible": True}),
                           ("range.setViewport", {"viewport": {"width": 999, "height": 400}})]:
        _, events = rc.call(method, session=s, **params)
        assert events == [], (method, events)


def test_event_paths_come_nearest_the_viewport_first(rc):
    s, _, _ = setup_a(rc, batch={"leadingScreens": 0})
    rc.call("range.willBeginDragging", session=s)
    _, events = rc.call("range.didScroll", session=s, offset=5000)
    lengths = [50.0] * 200
    ev = one_range(events)
    # full, down at 5000: visible 100..107, display [4800,5800) 96..115, preload [4400,6400) 88..127;
    # at 0 it was visible 0..7, display 0..15, preload 0..27: everything enters or leaves.
    want = {"enter": {"visible": list(range(100, 108)), "display": list(range(96, 116)),
                      "preload": list(range(88, 128))},
            "exit": {"visible": list(range(8)), "display": list(range(16)), "preload": list(range(28))}}
    for part in ("enter", "exit"):
        for k in KINDS:
            rows = [p[1] for p in ev[part][k]]
            assert sorted(rows) == want[part][k], (part, k, rows)
            gaps = [gap(lengths, i, 5000, 400) for i in rows]
            assert gaps == sorted(gaps), (part, k, rows)
    assert [p[1] for p in ev["exit"]["preload"]] == list(range(27, -1, -1))  # all above: nearest = highest


def test_event_order_is_nearest_in_points_not_in_rows(rc):
    """docs/ranges.md: the range event lists paths "nearest the viewport first" and prefetchItems "nearest first". The
    distance is measured in points, as the ranges themselves are, not in rows: with rows of 10 points above
    the viewport and rows of 100 below, at offset 2000 (L 100; preload 3 screens ahead, 1 behind) row 198
    (10 points away) comes before row 202 (100 points away), and 197 (20 points away) before 203 (200 points
    away). Both lists are in non-decreasing distance in points (ties in any order)."""
    lengths = [10.0] * 200 + [100.0] * 20
    reply, _ = rc.call("range.create", lengths=lengths, viewport={"width": 320, "height": 100},
                       tuning={"minimum": {"preload": {"leading": 3, "trailing": 1}}}, batch={"leadingScreens": 0})
    s = reply["session"]
    _, events = rc.call("range.didScroll", session=s, offset=2000)
    ev = one_range(events)
    rows = [p[1] for p in ev["enter"]["preload"]]
    assert sorted(rows) == list(range(190, 204)), rows  # [1900, 2400)
    gaps = [gap(lengths, i, 2000, 100) for i in rows]
    assert gaps == sorted(gaps), f"enter.preload {rows} has distances {gaps}"
    pre = [p[1] for p in prefetches(events)["prefetchItems"]]
    gaps = [gap(lengths, i, 2000, 100) for i in pre]
    assert gaps == sorted(gaps), f"prefetchItems {pre} has distances {gaps}"


def test_prefetch_items_are_those_entering_preload_that_are_not_visible(rc):
    s, _, events = setup_a(rc, batch={"leadingScreens": 0})
    assert prefetches(events) == {"prefetchItems": P(8, 9, 10, 11), "cancelPrefetching": []}
    _, events = rc.call("range.didScroll", session=s, offset=2000)
    pre = prefetches(events)["prefetchItems"]
    # entered preload 38..51; 40..47 entered visible at the same time
    assert sorted(pre) == P(38, 39, 48, 49, 50, 51)
    assert pre[:2] in ([(0, 48), (0, 39)], [(0, 39), (0, 48)]), pre  # the two touching the viewport first
    assert set(pre[2:4]) == {(0, 49), (0, 38)} and pre[4:] == P(50, 51)


def test_cancel_prefetching_only_for_items_never_visible_since_entering_preload(rc):
    s, _, _ = setup_a(rc, batch={"leadingScreens": 0})
    _, events = rc.call("range.didScroll", session=s, offset=100)
    # [100,500): visible 2..9 (8, 9 now seen); display [0,600) 0..11; preload [0,700) 0..13
    assert prefetches(events) == {"prefetchItems": P(12, 13), "cancelPrefetching": []}
    _, events = rc.call("range.didScroll", session=s, offset=2000)
    ev = one_range(events)
    assert sorted(tup(ev["exit"]["preload"])) == span(0, 13)
    # 0..9 were visible since they entered preload; 10..13 never were
    assert sorted(prefetches(events)["cancelPrefetching"]) == P(10, 11, 12, 13)


def test_events_come_range_then_prefetch_then_batch_before_the_reply(rc):
    reply, events = rc.call("range.create", count=5, itemLength=100, viewport={"width": 320, "height": 1000},
                            tuning={"minimum": {"preload": {"leading": 0, "trailing": 0}}})
    assert [e["method"] for e in events] == ["range", "batch"]
    reply, events = rc.call("range.create", count=8, itemLength=100, viewport={"width": 320, "height": 300})
    assert [e["method"] for e in events] == ["range", "prefetch", "batch"], events  # 800 - 300 - 0 <= 600
    assert reply["batchInFlight"] == batches(events)[0]["context"]


def test_events_go_to_subscribers_and_scope_all_observers_only(host, rc):
    quiet = RC(host.connect(), topics=())
    observer = RC(host.connect(), topics=("range", "prefetch", "batch"), scope="all")
    stranger = RC(host.connect())  # subscribed, but only to its own objects
    reply, events = quiet.call("range.create", count=5, itemLength=100, viewport={"width": 1, "height": 1000})
    assert events == []  # not subscribed: no range, prefetch or batch events
    s = reply["session"]
    _, seen = observer.call("host.ping")
    assert {e["method"] for e in seen} == {"range", "batch"} and all(e["params"]["session"] == s for e in seen)
    _, seen = stranger.call("host.ping")
    assert seen == []
    s2, _, _ = setup_a(rc)
    _, seen = observer.call("host.ping")
    assert {e["params"]["session"] for e in seen} == {s2}


# --------------------------------------------------------------------------------------------------
# docs/ranges.md visibility


def test_an_invisible_session_never_marks_items_visible(rc):
    s, reply, events = setup_a(rc, visible=False, batch={"leadingScreens": 0})
    assert reply["visible"] is False
    ev = one_range(events)
    assert ev["enter"]["visible"] == []
    # Texture's rule for an invisible list: the viewport's items preload and display, the display range's
    # preload only, the preload range's nothing
    assert rc.lists(s) == {"visible": [], "display": span(0, 7), "preload": span(0, 9)}
    assert prefetches(events)["prefetchItems"] == span(0, 9)  # none is visible
    for method, params in [("range.didScroll", {"offset": 2000}), ("range.willBeginDragging", {"offset": 2100}),
                           ("range.didScroll", {"offset": 3000}), ("range.willEndDragging", {"velocity": 1}),
                           ("range.didEndDecelerating", {"offset": 2000}),
                           ("range.insertItems", {"at": [0, 41], "lengths": [10]}),
                           ("range.setViewport", {"viewport": {"width": 320, "height": 800}})]:
        _, events = rc.call(method, session=s, **params)
        for ev in range_events(events):
            assert ev["enter"]["visible"] == [], (method, ev)
        assert rc.state(s)["visible"] == [], method
    r, events = rc.call("range.setVisible", session=s, visible=True)
    assert r["visible"] is True
    # at 2000 with L 800 and row 41 of 10 points: [2000, 2800) holds rows 40..56
    assert sorted(tup(one_range(events)["enter"]["visible"])) == span(40, 56)
    r, events = rc.call("range.setVisible", session=s, visible=False)
    assert r["visible"] is False
    assert sorted(tup(one_range(events)["exit"]["visible"])) == span(40, 56)
    assert rc.state(s)["visible"] == []


# --------------------------------------------------------------------------------------------------
# rpc-schema/openrpc.json range.setViewport


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


# --------------------------------------------------------------------------------------------------
# docs/ranges.md batch fetching


def test_batch_on_create_when_content_is_shorter_than_the_viewport_even_when_invisible(rc):
    for count in (0, 9):  # 0 and 900 points < 1000
        s, reply, events = setup_b(rc, count=count, visible=False)
        [b] = batches(events)
        assert set(b) == BATCH_EVENT_KEYS, b
        assert (b["session"], b["kind"], b["prepend"]) == (s, "willBeginBatchFetch", False)
        assert re.fullmatch(r"b-[1-9][0-9]*", b["context"]), b
        assert reply["batchInFlight"] == b["context"]


def test_batch_on_create_when_the_end_is_within_leading_screens(rc):
    _, reply, events = setup_b(rc, count=30)  # 3000 - 1000 - 0 = 2000 <= 2000
    [b] = batches(events)
    assert reply["batchInFlight"] == b["context"]
    _, reply, events = setup_b(rc, count=31)  # 2100 left
    assert batches(events) == [] and reply["batchInFlight"] is None
    _, reply, events = setup_b(rc, count=30, visible=False)  # not visible, not short: no
    assert batches(events) == [] and reply["batchInFlight"] is None


def test_content_exactly_as_long_as_the_viewport_is_not_short(rc):
    _, reply, events = setup_b(rc, count=10, visible=False)  # 1000 == L: not visible -> no
    assert batches(events) == [] and reply["batchInFlight"] is None
    _, reply, events = setup_b(rc, count=10)  # visible: 10000 - ... 1000 - 1000 - 0 = 0 <= 2000 -> fetch
    assert len(batches(events)) == 1


@pytest.mark.parametrize("leading", [0, -0.5])
def test_no_batch_when_leading_screens_is_not_positive(rc, leading):
    for count in (0, 5, 100):
        s, reply, events = setup_b(rc, count=count, batch={"leadingScreens": leading})
        assert batches(events) == [] and reply["batchInFlight"] is None, count
        if count == 100:
            _, events = rc.call("range.didScroll", session=s, offset=9000)
            assert batches(events) == []


def test_batch_fires_when_the_remaining_content_is_within_leading_screens_inclusive(rc):
    s, _reply, events = setup_b(rc)
    assert batches(events) == []
    assert batches(rc.call("range.didScroll", session=s, offset=6999)[1]) == []  # 2001 left
    [b] = batches(rc.call("range.didScroll", session=s, offset=7000)[1])  # 2000 left <= 2 * 1000
    assert b["prepend"] is False
    s, _, _ = setup_b(rc, batch={"leadingScreens": 0.5})  # <= 500 left: offset >= 8500
    assert batches(rc.call("range.didScroll", session=s, offset=8499.5)[1]) == []
    assert len(batches(rc.call("range.didScroll", session=s, offset=8500)[1])) == 1


def test_no_second_batch_while_one_is_in_flight(rc):
    s, _, events = setup_b(rc, count=5)
    [b] = batches(events)
    for method, params in [("range.insertItems", {"at": [0, 0], "lengths": [1]}),
                           ("range.setViewport", {"viewport": {"width": 400, "height": 2000}}),
                           ("range.setVisible", {"visible": True}), ("range.didScroll", {"offset": 10})]:
        r, events = rc.call(method, session=s, **params)
        assert batches(events) == [], method
        if "batchInFlight" in r:
            assert r["batchInFlight"] == b["context"]


def test_no_batch_while_not_visible_until_set_visible_judges_again(rc):
    s, _, _ = setup_b(rc, visible=False)
    for x in (7000, 8000, 9000):
        assert batches(rc.call("range.didScroll", session=s, offset=x)[1]) == []
    r, events = rc.call("range.setVisible", session=s, visible=True)
    [b] = batches(events)
    assert r["batchInFlight"] == b["context"]


def test_no_batch_toward_the_head_without_prepend(rc):
    s, _, _ = setup_b(rc, batch={"leadingScreens": 0.5})
    rc.call("range.willBeginDragging", session=s, offset=9000)
    rc.call("range.didScroll", session=s, offset=8999)
    assert batches(rc.call("range.willEndDragging", session=s, velocity=-0.001)[1]) == []  # up, 1 point left
    assert batches(rc.call("range.didScroll", session=s, offset=8998)[1]) == []
    assert batches(rc.call("range.didEndDecelerating", session=s)[1]) == []
    assert batches(rc.call("range.didScroll", session=s, offset=8999)[1]) != []  # down again: fetch


def test_prepend_fetches_toward_the_head_and_keeps_what_is_on_screen(rc):
    s, _, _ = setup_b(rc, batch={"prepend": True})
    rc.call("range.didScroll", session=s, offset=3000)
    # Toward the head is a drag or a fling's direction (a programmatic scroll has none).
    rc.call("range.willBeginDragging", session=s, offset=3000)
    rc.call("range.didScroll", session=s, offset=2500)
    assert batches(rc.call("range.willEndDragging", session=s, velocity=-1, targetOffset=2001)[1]) == []
    assert batches(rc.call("range.didScroll", session=s, offset=2001)[1]) == []  # up, 2001 > 2 * 1000
    [b] = batches(rc.call("range.didScroll", session=s, offset=2000)[1])
    assert b["prepend"] is True
    assert rc.lists(s)["visible"] == span(20, 29)
    r, events = rc.call("range.batchFetchDone", session=s, context=b["context"], lengths=[100, 100, 100])
    assert (r["count"], r["contentLength"], r["offset"]) == (103, 10300, 2300)
    assert r["direction"] == "up" and r["batchInFlight"] is None  # 2300 > 2000: no new batch
    assert rc.lists(s)["visible"] == span(23, 32)  # the same items, three rows further down
    for ev in range_events(events):  # what is on screen did not change
        assert ev["enter"]["visible"] == [] and ev["exit"]["visible"] == [], ev


def test_a_prepend_session_moving_toward_the_tail_appends(rc):
    s, _, _ = setup_b(rc, batch={"prepend": True})
    [b] = batches(rc.call("range.didScroll", session=s, offset=7000)[1])
    assert b["prepend"] is False
    r, _ = rc.call("range.batchFetchDone", session=s, context=b["context"], lengths=[100])
    assert r["offset"] == 7000 and r["count"] == 101
    assert rc.lists(s)["visible"] == span(70, 79)


def test_batch_is_not_judged_on_will_begin_dragging_or_did_scroll_while_dragging(rc):
    s, _, _ = setup_b(rc)
    assert batches(rc.call("range.willBeginDragging", session=s, offset=9000)[1]) == []
    for x in (9000, 8500, 9000):
        assert batches(rc.call("range.didScroll", session=s, offset=x)[1]) == [], x


def test_batch_is_judged_at_the_target_offset_on_will_end_dragging(rc):
    s, _, _ = setup_b(rc)
    rc.call("range.willBeginDragging", session=s, offset=1000)
    r, events = rc.call("range.willEndDragging", session=s, velocity=1, targetOffset=6999)
    assert r["targetOffset"] == 6999 and batches(events) == []
    rc.call("range.didEndDecelerating", session=s, offset=1000)
    rc.call("range.willBeginDragging", session=s, offset=1000)
    r, events = rc.call("range.willEndDragging", session=s, velocity=1, targetOffset=7000)
    assert len(batches(events)) == 1  # at the target, although the offset is 1000
    # a target from the velocity: 1001 + 11.9 * 499 = 6939.1 -> no; 1001 + 12.03 * 499 = 7003.97 -> yes
    s, _, _ = setup_b(rc)
    rc.call("range.willBeginDragging", session=s, offset=1001)
    r, events = rc.call("range.willEndDragging", session=s, velocity=11.9)
    assert r["targetOffset"] == pytest.approx(6939.1) and batches(events) == []
    rc.call("range.didEndDecelerating", session=s, offset=1001)
    rc.call("range.willBeginDragging", session=s, offset=1001)
    r, events = rc.call("range.willEndDragging", session=s, velocity=12.03)
    assert r["targetOffset"] == pytest.approx(7003.97) and len(batches(events)) == 1


def test_batch_is_judged_on_did_scroll_while_decelerating(rc):
    s, _, _ = setup_b(rc)
    rc.call("range.willBeginDragging", session=s)
    assert batches(rc.call("range.willEndDragging", session=s, velocity=0.5)[1]) == []  # target 249.5
    [b] = batches(rc.call("range.didScroll", session=s, offset=7000)[1])
    assert rc.call("range.didEndDecelerating", session=s)[0]["batchInFlight"] == b["context"]


def test_batch_is_judged_on_did_end_decelerating(rc):
    s, _, _ = setup_b(rc)
    rc.call("range.willBeginDragging", session=s)
    assert batches(rc.call("range.didScroll", session=s, offset=8000)[1]) == []
    r, events = rc.call("range.didEndDecelerating", session=s)  # a drag that ends without a fling
    [b] = batches(events)
    assert r["phase"] == "idle" and r["batchInFlight"] == b["context"]


def test_batch_is_judged_after_inserts_and_deletes(rc):
    """Texture checks after a data change with changes, unless dragging (the release checks then)."""
    s, _, _ = setup_b(rc)
    rc.call("range.willBeginDragging", session=s, offset=8000)  # dragging: not judged
    _, events = rc.call("range.insertItems", session=s, at=[0, 0], lengths=[50])  # 1050 left
    assert batches(events) == []
    _, events = rc.call("range.willEndDragging", session=s, velocity=0)  # released at 8000
    assert len(batches(events)) == 1
    s, _, _ = setup_b(rc)
    assert batches(rc.call("range.didScroll", session=s, offset=6000)[1]) == []  # 3000 left
    rc.call("range.setViewport", session=s, viewport={"width": 400, "height": 1500})  # not judged
    _, events = rc.call("range.insertItems", session=s, at=[0, 100], lengths=[1])  # 10001 - 1500 - 6000
    assert len(batches(events)) == 1
    s, _, _ = setup_b(rc)
    assert batches(rc.call("range.didScroll", session=s, offset=6000)[1]) == []  # 3000 left
    _, events = rc.call("range.deleteItems", session=s, paths=[[0, i] for i in range(90, 100)])  # 2000 left
    assert len(batches(events)) == 1


def test_batch_is_not_judged_on_set_viewport(rc):
    """Texture checks on scrolls, releases, data changes and visibility, not on a bounds change."""
    s, _, _ = setup_b(rc)
    assert batches(rc.call("range.didScroll", session=s, offset=6000)[1]) == []
    # L 1500: 10000 - 1500 - 6000 = 2500 <= 3000, judged at the next scroll
    assert batches(rc.call("range.setViewport", session=s, viewport={"width": 400, "height": 1500})[1]) == []
    assert len(batches(rc.call("range.didScroll", session=s, offset=6000)[1])) == 1


def test_a_viewport_longer_than_the_content_fetches_at_the_next_check_even_when_invisible(rc):
    s, _, _ = setup_b(rc, visible=False)
    assert batches(rc.call("range.setViewport", session=s, viewport={"width": 400, "height": 10005})[1]) == []
    [b] = batches(rc.call("range.insertItems", session=s, at=[0, 0], lengths=[1])[1])
    assert b["session"] == s


@pytest.mark.parametrize("strategy", ["threshold", "dynamicThreshold", {"name": "threshold", "ratio": 1}])
def test_short_content_fetches_whatever_the_strategy(rc, strategy):
    _, reply, events = setup_b(rc, count=3, visible=False, strategy=strategy)
    [b] = batches(events)
    assert reply["batchInFlight"] == b["context"]


def test_batch_fetch_done_appends_to_the_last_section_and_judges_again(rc):
    reply, events = rc.call("range.create", sections=[{"count": 3, "itemLength": 100}, {"count": 2, "itemLength": 100}],
                            viewport={"width": 400, "height": 1000})
    s = reply["session"]
    [b] = batches(events)  # 500 < 1000
    r, events = rc.call("range.batchFetchDone", session=s, context=b["context"], lengths=[100, 100])
    assert set(r) == INFO_KEYS
    assert (r["count"], r["sections"], r["contentLength"]) == (7, 2, 700)
    assert sorted(tup(one_range(events)["enter"]["visible"])) == [(1, 2), (1, 3)]
    [again] = batches(events)  # still shorter than the viewport
    assert again["context"] != b["context"] and r["batchInFlight"] == again["context"]
    r, events = rc.call("range.batchFetchDone", session=s, context=again["context"], lengths=[1000] * 3)
    assert batches(events) == [] and r["batchInFlight"] is None  # 3700 - 1000 - 0 = 2700 > 2000
    assert rc.state(s, paths=[[1, 6]])["items"][0]["path"] == [1, 6]


def test_batch_fetch_done_with_a_context_not_in_flight_is_invalid_and_changes_nothing(rc):
    s, _, events = setup_b(rc, count=5)
    [b] = batches(events)
    _t, _, events_t = setup_b(rc, count=5)
    [bt] = batches(events_t)
    for ctx in ("b-999", bt["context"]):
        error, events = rc.fail("range.batchFetchDone", session=s, context=ctx, lengths=[100])
        assert error["code"] == -32602 and error["data"]["path"] == "context", error
        assert events == []
    r, _ = rc.call("range.setVisible", session=s, visible=True)
    assert r["batchInFlight"] == b["context"] and r["count"] == 5
    rc.call("range.batchFetchDone", session=s, context=b["context"], lengths=[])
    error, _ = rc.fail("range.batchFetchDone", session=s, context=b["context"])  # already done
    assert error["code"] == -32602 and error["data"]["path"] == "context"


def test_failed_batch_fetch_done_keeps_the_batch_in_flight(rc):
    """Bad input changes nothing (-32602 "with data.path and nothing changed"). `range.batchFetchDone` whose
    lengths would make the content length overflow answers -32602 (lengths) and leaves the batch in flight
    with its context: the next update starts no new batch, and the original context is then accepted."""
    reply, _ = rc.call("range.create", lengths=[1.5e308], viewport={"width": 320, "height": 1000})
    s = reply["session"]
    [b] = batches(rc.call("range.didScroll", session=s, offset=1.5e308)[1])  # 0 points left
    error, events = rc.fail("range.batchFetchDone", session=s, context=b["context"], lengths=[1e308])
    assert error["code"] == -32602 and error["data"]["path"].startswith("lengths") and events == []
    r, events = rc.call("range.setVisible", session=s, visible=True)
    assert batches(events) == [] and r["batchInFlight"] == b["context"], (r, batches(events))
    r, _ = rc.call("range.batchFetchDone", session=s, context=b["context"], lengths=[1])
    assert r["count"] == 2


def test_threshold_strategy_fires_at_ratio_of_all_content(rc):
    # 20 rows of 50 = 1000 points, L 200: (offset + 200) / 1000 >= 0.7  <=>  offset >= 500
    def make(strategy):
        reply, events = rc.call("range.create", count=20, itemLength=50, viewport={"width": 1, "height": 200},
                                strategy=strategy)
        assert batches(events) == []
        return reply["session"]

    s = make("threshold")
    assert batches(rc.call("range.didScroll", session=s, offset=499)[1]) == []
    [b] = batches(rc.call("range.didScroll", session=s, offset=500)[1])
    rc.call("range.batchFetchDone", session=s, context=b["context"], lengths=[50] * 20)  # 2000 points
    assert batches(rc.call("range.didScroll", session=s, offset=1199)[1]) == []
    assert len(batches(rc.call("range.didScroll", session=s, offset=1200)[1])) == 1  # 1400 / 2000
    s = make({"name": "threshold", "ratio": 0.9})  # offset >= 700
    assert batches(rc.call("range.didScroll", session=s, offset=699)[1]) == []
    assert len(batches(rc.call("range.didScroll", session=s, offset=700)[1])) == 1
    s = make({"name": "threshold"})  # ratio defaults to 0.7
    assert batches(rc.call("range.didScroll", session=s, offset=499)[1]) == []
    assert len(batches(rc.call("range.didScroll", session=s, offset=500)[1])) == 1
    # toward the head past the ratio: no
    s = make("threshold")
    rc.call("range.willBeginDragging", session=s, offset=800)
    assert batches(rc.call("range.willEndDragging", session=s, velocity=-0.1)[1]) == []
    assert batches(rc.call("range.didScroll", session=s, offset=700)[1]) == []


def test_dynamic_threshold_strategy_follows_the_seed_formula(rc):
    """The ASDK preloading article: needRead = perPage * ratio + page * perPage, totalItem = perPage * (page + 1); fetch
    when
    (offset + L) / contentLength >= needRead / totalItem. Ratio 0.5: 0.5, then 0.75, then 5/6."""
    reply, _ = rc.call("range.create", count=10, itemLength=100, viewport={"width": 1, "height": 200},
                       strategy={"name": "dynamicThreshold", "ratio": 0.5})
    s = reply["session"]
    assert batches(rc.call("range.didScroll", session=s, offset=299)[1]) == []
    [b] = batches(rc.call("range.didScroll", session=s, offset=300)[1])  # 500 / 1000
    rc.call("range.batchFetchDone", session=s, context=b["context"], lengths=[100] * 10)
    assert batches(rc.call("range.didScroll", session=s, offset=1299)[1]) == []  # 1499 / 2000
    [b] = batches(rc.call("range.didScroll", session=s, offset=1300)[1])  # 1500 / 2000 = 0.75
    rc.call("range.batchFetchDone", session=s, context=b["context"], lengths=[100] * 10)
    assert batches(rc.call("range.didScroll", session=s, offset=2299)[1]) == []  # 2499 / 3000 < 5/6
    assert len(batches(rc.call("range.didScroll", session=s, offset=2300)[1])) == 1  # 2500 / 3000


# --------------------------------------------------------------------------------------------------
# docs/ranges.md willEndDragging: target offset, lazy


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


# --------------------------------------------------------------------------------------------------
# rpc-schema/openrpc.json insertItems / deleteItems


def test_insert_before_everything_keeps_the_offset_and_shifts_the_items(rc):
    s, _, _ = setup_a(rc, batch={"leadingScreens": 0})
    rc.call("range.didScroll", session=s, offset=2000)
    r, events = rc.call("range.insertItems", session=s, at=[0, 0], lengths=[50, 50])
    assert set(r) == INFO_KEYS and (r["offset"], r["count"], r["contentLength"]) == (2000, 202, 10100)
    # Old row i is now row i + 2; the viewport still covers [2000, 2400): rows 40..47 (old 38..45).
    assert rc.lists(s) == {"visible": span(40, 47), "display": span(38, 49), "preload": span(38, 51)}
    assert changes(one_range(events)) == {
        "enter": {"preload": P(39, 38), "display": P(39, 38), "visible": P(40, 41)},
        "exit": {"preload": P(52, 53), "display": P(50, 51), "visible": P(48, 49)}}
    assert prefetches(events) == {"prefetchItems": P(39, 38), "cancelPrefetching": P(52, 53)}


def test_insert_far_away_or_appended_changes_no_range(rc):
    s, _, _ = setup_a(rc, batch={"leadingScreens": 0})
    rc.call("range.didScroll", session=s, offset=2000)
    r, events = rc.call("range.insertItems", session=s, at=[0, 200], lengths=[50, 60])  # row == count: append
    assert (r["count"], r["contentLength"]) == (202, 10110) and events == []
    r, events = rc.call("range.insertItems", session=s, at=[0, 100], lengths=[1])
    assert r["count"] == 203 and events == []
    assert rc.lists(s) == {"visible": span(40, 47), "display": span(38, 49), "preload": span(38, 51)}
    assert rc.state(s, paths=[[0, 202]])["items"][0]["preload"] is False


def test_insert_inside_the_viewport_enters_the_new_item_once(rc):
    s, _, _ = setup_a(rc, batch={"leadingScreens": 0})
    rc.call("range.didScroll", session=s, offset=2000)
    _, events = rc.call("range.insertItems", session=s, at=[0, 44], lengths=[50])
    assert rc.lists(s) == {"visible": span(40, 47), "display": span(38, 49), "preload": span(38, 51)}
    # the new row 44 enters all three; old 47 (now 48) leaves visible, old 49 / 51 leave display / preload
    assert changes(one_range(events)) == {
        "enter": {"preload": P(44), "display": P(44), "visible": P(44)},
        "exit": {"preload": P(52), "display": P(50), "visible": P(48)}}
    assert prefetches(events) == {"prefetchItems": [], "cancelPrefetching": P(52)}
    items_ = rc.state(s, paths=[[0, 44]])["items"]
    assert items_ == [{"path": [0, 44], "preload": True, "display": True, "visible": True}]


def test_insert_into_an_empty_section(rc):
    reply, _ = rc.call("range.create", sections=[{"lengths": [120, 120]}, {"count": 2, "itemLength": 60},
                                                 {"count": 0}, {"count": 4}],
                       viewport={"width": 320, "height": 200}, batch={"leadingScreens": 0})
    s = reply["session"]
    rc.call("range.didScroll", session=s, offset=300)
    r, events = rc.call("range.insertItems", session=s, at=[2, 0], lengths=[10])
    assert (r["count"], r["sections"], r["contentLength"]) == (9, 4, 546)
    # (2,0) is [360, 370); section 3 moves to [370,414) [414,458) [458,502) [502,546); viewport [300, 500)
    assert changes(one_range(events)) == {
        "enter": {"preload": [(2, 0)], "display": [(2, 0)], "visible": [(2, 0)]},
        "exit": {"preload": [], "display": [], "visible": [(3, 3)]}}
    error, _ = rc.fail("range.insertItems", session=s, at=[4, 0], lengths=[1])
    assert error["code"] == -32602 and error["data"]["path"] == "at[0]"
    error, _ = rc.fail("range.insertItems", session=s, at=[2, 2], lengths=[1])
    assert error["code"] == -32602 and error["data"]["path"] == "at[1]"


def test_delete_lists_removed_items_not_exits_and_slides_the_rest_in(rc):
    s, _, _ = setup_a(rc, batch={"leadingScreens": 0})
    rc.call("range.didScroll", session=s, offset=2000)
    r, events = rc.call("range.deleteItems", session=s, paths=[[0, 40], [0, 0]])
    assert set(r) == INFO_KEYS and (r["count"], r["contentLength"], r["offset"]) == (198, 9900, 2000)
    ev = one_range(events)
    assert set(ev) == RANGE_EVENT_KEYS | {"removed"}
    assert ev["removed"] == [[0, 40]]  # row 0 was in no range
    # old i < 40 -> i - 1, old i > 40 -> i - 2; [2000, 2400) holds new 40..47 (old 42..49)
    assert rc.lists(s) == {"visible": span(40, 47), "display": span(38, 49), "preload": span(38, 51)}
    assert changes(ev) == {"enter": {"preload": P(50, 51), "display": P(48, 49), "visible": P(46, 47)},
                           "exit": {"preload": P(37), "display": P(37), "visible": P(39)}}
    assert prefetches(events) == {"prefetchItems": P(50, 51), "cancelPrefetching": P(37)}


def test_delete_removed_is_highest_first_and_absent_when_nothing_in_a_range_goes(rc):
    s, _, _ = setup_a(rc, batch={"leadingScreens": 0})
    rc.call("range.didScroll", session=s, offset=2000)
    _, events = rc.call("range.deleteItems", session=s, paths=[[0, 41], [0, 0], [0, 45]])
    assert one_range(events)["removed"] == [[0, 45], [0, 41]]
    _, events = rc.call("range.deleteItems", session=s, paths=[[0, 150]])  # far below: nothing moves
    assert events == []
    _, events = rc.call("range.deleteItems", session=s, paths=[[0, 1]])  # above: everything slides up
    assert "removed" not in one_range(events)


def test_inserts_and_deletes_keep_events_and_state_equal_to_a_fresh_computation(rc):
    """After every edit: the events, applied to the client's own sets (shifted for its edits), equal
    range.state, and range.state equals docs/ranges.md's ranges for the new lengths at the same offset."""
    lengths = [float(x) for x in [37, 90, 61, 150, 44] * 40]
    L = 500.0
    reply, _ = rc.call("range.create", lengths=lengths, viewport={"width": 320, "height": L},
                       batch={"leadingScreens": 0})
    s = reply["session"]
    rc.call("range.willBeginDragging", session=s, offset=3000)
    sets = {k: {p[1] for p in v} for k, v in rc.lists(s).items()}

    def check(events, what):
        evs = range_events(events)
        assert len(evs) <= 1, what
        for ev in evs:
            for k in KINDS:
                ent = [p[1] for p in ev["enter"][k]]
                ext = [p[1] for p in ev["exit"][k]]
                assert len(set(ent)) == len(ent) and len(set(ext)) == len(ext), (what, k, ev)
                assert not set(ent) & sets[k], (what, k, "enters but already in", sorted(set(ent) & sets[k]))
                assert set(ext) <= sets[k], (what, k, "leaves but not in", sorted(set(ext) - sets[k]))
                sets[k] = (sets[k] - set(ext)) | set(ent)
        got = rc.lists(s)
        assert {k: P(*sorted(v)) for k, v in sets.items()} == got, what
        # Recomputed when the items on screen changed (Texture); otherwise the shifted sets stay.
        if any(ev[part][k] for ev in evs for part in ("enter", "exit") for k in KINDS):
            assert got == grown(lengths, 3000, L, "full", True), what

    def shift(at, k):
        for key in KINDS:
            sets[key] = {i + k if i >= at else i for i in sets[key]}

    for at, new in [(0, [20.0]), (60, [33.0, 33.0]), (66, [10.0]), (45, [300.0]), (80, [5.0] * 6),
                    (71, [1.0]), (len(lengths), [70.0])]:
        rows = rc.lists(s)["preload"]
        _, events = rc.call("range.insertItems", session=s, at=[0, at], lengths=new)
        lengths[at:at] = new
        shift(at, len(new))
        check(events, f"insert {new} at {at} (preload was {rows[0][1]}..{rows[-1][1]})")
    for rows in ([62], [59, 60, 61], [70, 0], [75, 76, 77, 78, 79, 80], [55], [100, 101]):
        _, events = rc.call("range.deleteItems", session=s, paths=[[0, r] for r in rows])
        removed = []
        for r in sorted(rows, reverse=True):
            if any(r in sets[k] for k in KINDS):
                removed.append([0, r])
            for key in KINDS:
                sets[key] = {i - 1 if i > r else i for i in sets[key] if i != r}
            del lengths[r]
        evs = range_events(events)
        assert (evs[0].get("removed", []) if evs else []) == removed, rows
        check(events, f"delete {rows}")


# --------------------------------------------------------------------------------------------------
# rpc-schema/openrpc.json range.state


def test_state_shape_and_the_paths_filter(rc):
    s, _, _ = setup_a(rc, batch={"leadingScreens": 0})
    st = rc.state(s)
    assert set(st) == {"mode", "direction", "visible", "display", "preload"}
    assert (st["mode"], st["direction"]) == ("minimum", "down")
    r = rc.state(s, paths=[[0, 11], [0, 3], [0, 9], [0, 12], [0, 3]])
    assert set(r) == {"mode", "direction", "items"} and (r["mode"], r["direction"]) == ("minimum", "down")
    assert r["items"] == [
        {"path": [0, 11], "preload": True, "display": False, "visible": False},
        {"path": [0, 3], "preload": True, "display": True, "visible": True},
        {"path": [0, 9], "preload": True, "display": True, "visible": False},
        {"path": [0, 12], "preload": False, "display": False, "visible": False},
        {"path": [0, 3], "preload": True, "display": True, "visible": True}]
    for paths, path in [([[0, 200]], "paths[0]"), ([[0, 1], [1, 0]], "paths[1]"), ([[0, -1]], "paths[0]"),
                        ([[0]], "paths[0]"), ("x", "paths")]:
        error, _ = rc.fail("range.state", session=s, paths=paths)
        assert error["code"] == -32602 and error["data"]["path"] == path, (paths, error)


# --------------------------------------------------------------------------------------------------
# Bad input: -32602 / -32002 with data.path, nothing changed


BAD_CREATE = [
    ({"lengths": [10, -1]}, "lengths[1]"),
    ({"lengths": [10, None]}, "lengths[1]"),
    ({"count": -1}, "count"),
    ({"count": 10_000_001}, "count"),
    ({"count": 3, "itemLength": -0.5}, "itemLength"),
    ({"count": 3, "itemLength": "x"}, "itemLength"),
    ({"sections": []}, "sections"),
    ({"sections": [{"count": 1}, {"lengths": [1, -2]}]}, "sections[1].lengths[1]"),
    ({"sections": [{"count": 1, "itemLength": -1}]}, "sections[0].itemLength"),
    ({"sections": [{"count": 1}], "lengths": [1]}, "sections"),
    ({"count": 3, "viewport": {"width": 100, "height": -1}}, "viewport.height"),
    ({"count": 3, "viewport": {"width": 0, "height": 100}}, "viewport.width"),
    ({"count": 3, "axis": "z"}, "axis"),
    ({"count": 3, "tuning": {"medium": {}}}, "tuning.medium"),
    ({"count": 3, "tuning": {"minimum": {"visible": {"leading": 1}}}}, "tuning.minimum.visible"),
    ({"count": 3, "tuning": {"full": {"preload": {"trailing": -0.1}}}}, "tuning.full.preload.trailing"),
    ({"count": 3, "batch": {"leadingScreens": "many"}}, "batch.leadingScreens"),
    ({"count": 3, "batch": {"prepend": "yes"}}, "batch.prepend"),
    ({"count": 3, "strategy": {"name": "threshold", "ratio": 1.5}}, "strategy.ratio"),
    ({"count": 3, "strategy": "sometimes"}, "strategy"),
    ({"count": 3, "visible": "no"}, "visible"),
]


def test_bad_create_params_are_invalid_params_and_create_nothing(rc):
    s, _, _ = setup_a(rc)
    before = snapshot(rc, s)
    for params, path in BAD_CREATE:
        full = {"viewport": {"width": 320, "height": 400}, **params}
        error, events = rc.fail("range.create", **full)
        assert error["code"] == -32602 and error["data"]["path"] == path, (params, error)
        assert events == [], params
    error, _ = rc.fail("range.create", count=3)
    assert error["code"] == -32602 and error["data"]["path"] == "viewport"
    assert snapshot(rc, s) == before


def test_offsets_are_accepted_from_minus_l_to_past_the_end_plus_l(rc):
    s, _, _ = setup_a(rc, batch={"leadingScreens": 0})  # [-400, 9600 + 400]
    for method in ("range.didScroll", "range.willBeginDragging"):
        for ok in (-400, 10000):
            rc.call(method, session=s, offset=ok)
        for bad in (-400.01, 10000.01, 1e300, "x", True):
            error, events = rc.fail(method, session=s, offset=bad)
            assert error["code"] == -32602 and error["data"]["path"] == "offset", (method, bad, error)
            assert events == []
    error, _ = rc.fail("range.willEndDragging", session=s, velocity=1, targetOffset=10000.5)
    assert error["code"] == -32602 and error["data"]["path"] == "targetOffset"
    small, _, _ = setup_b(rc, count=3)  # content 300 < L 1000: [-1000, 0 + 1000]
    rc.call("range.didScroll", session=small, offset=1000)
    error, _ = rc.fail("range.didScroll", session=small, offset=1000.5)
    assert error["code"] == -32602


def test_bad_session_params_are_invalid_params_and_change_nothing(rc):
    s, _, _ = setup_a(rc, batch={"leadingScreens": 0})
    rc.call("range.didScroll", session=s, offset=2000)
    before = snapshot(rc, s)
    cases = [
        ("range.didScroll", {"offset": -5000}, "offset"),
        ("range.didScroll", {}, "offset"),
        ("range.didScroll", {"offset": None}, "offset"),
        ("range.willBeginDragging", {"offset": 20000}, "offset"),
        ("range.didEndDecelerating", {"offset": -5000}, "offset"),
        ("range.setVisible", {"visible": 0}, "visible"),
        ("range.setVisible", {}, "visible"),
        ("range.setViewport", {"viewport": {"width": 10, "height": 0}}, "viewport.height"),
        ("range.setViewport", {"viewport": {"width": "a", "height": 10}}, "viewport.width"),
        ("range.insertItems", {"at": [0, 201], "lengths": [10]}, "at[1]"),
        ("range.insertItems", {"at": [1, 0], "lengths": [10]}, "at[0]"),
        ("range.insertItems", {"at": [0, 0, 0], "lengths": [10]}, "at"),
        ("range.insertItems", {"at": [0, 0], "lengths": [10, -1]}, "lengths[1]"),
        ("range.insertItems", {"at": [0, 0]}, "lengths"),
        ("range.deleteItems", {"paths": [[0, 40], [0, 200]]}, "paths[1]"),
        ("range.deleteItems", {"paths": [[0, 40], [0, 40]]}, "paths"),
        ("range.deleteItems", {}, "paths"),
        ("range.batchFetchDone", {"context": "b-1"}, "context"),
        ("range.batchFetchDone", {"context": 7}, "context"),
    ]
    for method, params, path in cases:
        assert_refused(rc, method, s, params, path, before)
    # a refused willBeginDragging started no drag
    assert rc.fail("range.willEndDragging", session=s, velocity=1)[0]["code"] == -32003
    rc.call("range.willBeginDragging", session=s)
    before = snapshot(rc, s)
    for params, path in [({"velocity": "fast"}, "velocity"), ({}, "velocity"),
                         ({"velocity": 1, "targetOffset": -401}, "targetOffset"),
                         ({"velocity": 1, "offset": 10001}, "offset")]:
        error, events = rc.fail("range.willEndDragging", session=s, **params)
        assert error["code"] == -32602 and error["data"]["path"] == path, (params, error)
        assert events == [] and snapshot(rc, s) == before, params
    assert rc.call("range.didScroll", session=s, offset=2000)[1] == []  # nothing moved


def test_nan_and_infinity_are_not_json_and_change_nothing(rc):
    s, _, _ = setup_a(rc, batch={"leadingScreens": 0})
    before = snapshot(rc, s)
    for literal in (b"NaN", b"-Infinity"):
        rc.c.send_raw(b'{"jsonrpc":"2.0","id":1,"method":"range.insertItems","params":{"session":"' + s.encode()
                      + b'","at":[0,0],"lengths":[' + literal + b"]}}\n")
        reply = rc.c.read_json()
        assert reply["error"]["code"] == -32700, reply
    assert snapshot(rc, s) == before


def test_unknown_or_foreign_sessions_are_unknown_objects(host, rc):
    s, _, _ = setup_a(rc)
    other = RC(host.connect())
    for method, params in [("range.state", {}), ("range.didScroll", {"offset": 0}),
                           ("range.setVisible", {"visible": False}), ("range.destroy", {})]:
        for who, sid in ((rc, "r-999"), (other, s)):
            error, events = who.fail(method, session=sid, **params)
            assert error["code"] == -32002 and error["data"]["kind"] == "unknownObject", (method, sid, error)
            assert events == []
    error, _ = rc.fail("range.state")
    assert error["code"] == -32602 and error["data"]["path"] == "session"
    assert rc.lists(s)["visible"] == span(0, 7)


# --------------------------------------------------------------------------------------------------
# rpc-schema/openrpc.json range.destroy


def test_destroy_forgets_the_session_and_its_batch(rc):
    s, _reply, events = setup_b(rc, count=3)
    [b] = batches(events)
    before = rc.call("host.stats")[0]["sessions"]["range"]
    r, events = rc.call("range.destroy", session=s)
    assert r == {"session": s, "destroyed": True} and events == []
    assert rc.call("host.stats")[0]["sessions"]["range"] == before - 1
    for method, params in [("range.batchFetchDone", {"context": b["context"]}), ("range.state", {}),
                           ("range.destroy", {})]:
        error, _ = rc.fail(method, session=s, **params)
        assert error["code"] == -32002, (method, error)
    _, events = rc.call("host.memoryWarning")
    assert range_events(events) == []
