"""Audit of range sessions against the contract: docs/protocol.md (errors, events), rpc-schema/openrpc.json (the Ranges
methods), docs/ranges.md
(range sessions) and rpc-schema/openrpc.json where docs/ranges.md is silent.

These cover what the other range test files leave out: several sections addressed by [section, row] in
events and range.state, the horizontal axis with left/right, setViewport, inserts and deletes in other
sections (paths of later items), prepend batches into sections, the seed's threshold tables, prefetch and
cancel across setVisible, -32002 for every method, -32602 with data.path for every param (nothing changed,
no event), unknown members, huge values; and a random walk checked against a brute-force model written
from docs/ranges.md's sentences.

Every expected value is worked out by hand (in the comments) or by the brute-force model below, never by
reading what the host prints.

The usual multi-section layout ("SECTIONS", L = 300 along the axis):
  (0,0) [0,100)  (0,1) [100,200)  (0,2) [200,300)  (0,3) [300,400)
  (1,0) [400,450)  (1,1) [450,500)  (1,2) [500,550)
  section 2 empty
  (3,0) [550,650)  (3,1) [650,750)  (3,2) [750,850)  (3,3) [850,950)  (3,4) [950,1050)  (3,5) [1050,1150)
"""

from __future__ import annotations

import collections
import random

import pytest
from rangemodel import RC, TextureModel, batches, one_range, prefetches, range_events, tup

pytestmark = pytest.mark.integration

KINDS = ("preload", "display", "visible")
INFO_KEYS = {"session", "count", "sections", "contentLength", "offset", "mode", "direction", "phase", "visible",
             "batchInFlight"}

#: Texture's buffers, (leading, trailing) screenfuls; lowMemory has no display range (docs/ranges.md).
TEXTURE = {
    "full": {"display": (1.0, 0.5), "preload": (2.5, 1.5)},
    "minimum": {"display": (0.25, 0.25), "preload": (0.5, 0.25)},
    "visibleOnly": {"display": (0.0, 0.0), "preload": (0.0, 0.0)},
    "lowMemory": {"display": None, "preload": (0.0, 0.0)},
}

SECTIONS = [{"count": 4, "itemLength": 100}, {"count": 3, "itemLength": 50}, {"count": 0},
            {"count": 6, "itemLength": 100}]
SECTION_LENGTHS = [[100.0] * 4, [50.0] * 3, [], [100.0] * 6]
NO_BATCH = {"leadingScreens": 0}


# --------------------------------------------------------------------------------------------------
# Helpers


@pytest.fixture
def host(start_host):
    return start_host("--clock", "virtual")


@pytest.fixture
def rc(host) -> RC:
    return RC(host.connect())


def changes(event):
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


def P(section, *rows):
    return [(section, r) for r in rows]


def span(section, a, b):
    return [(section, r) for r in range(a, b + 1)]


class Layout:
    """Item lengths per section: index path <-> extent along the axis (brute force)."""

    def __init__(self, sections):
        self.sections = [list(s) for s in sections]

    def flat(self):
        out, pos = [], 0.0
        for s, rows in enumerate(self.sections):
            for r, length in enumerate(rows):
                out.append(((s, r), pos, pos + length))
                pos += length
        return out

    @property
    def total(self):
        return sum(sum(s) for s in self.sections)

    def extent(self, path):
        for p, a, b in self.flat():
            if p == tuple(path):
                return a, b
        raise KeyError(path)

    def gap(self, path, offset, L):
        a, b = self.extent(path)
        if b <= offset:
            return offset - b
        if a >= offset + L:
            return a - (offset + L)
        return 0.0


def assert_nearest_first(layout, paths, offset, L, what):
    gaps = [layout.gap(p, offset, L) for p in paths]
    assert gaps == sorted(gaps), f"{what}: {paths} are not nearest the viewport first (gaps {gaps})"


def assert_event_order(layout, event, events, offset, L):
    for part in ("enter", "exit"):
        for k in KINDS:
            paths = tup(event[part][k])
            assert len(set(paths)) == len(paths), f"{part}.{k} lists a path twice: {paths}"
            if part == "enter":
                assert_nearest_first(layout, paths, offset, L, f"{part}.{k}")
    pre = prefetches(events)["prefetchItems"]
    assert_nearest_first(layout, pre, offset, L, "prefetchItems")


def make_sections(rc, axis="vertical", L=300, **params):
    vp = {"width": 320, "height": L} if axis == "vertical" else {"width": L, "height": 320}
    params.setdefault("batch", NO_BATCH)
    reply, events = rc.call("range.create", sections=SECTIONS, viewport=vp, axis=axis, **params)
    return reply["session"], reply, events


# --------------------------------------------------------------------------------------------------
# Sections, index paths, both axes


@pytest.mark.parametrize("axis", ["vertical", "horizontal"])
def test_sections_ranges_and_events_by_index_path_on_both_axes(rc, axis):
    """rpc-schema/openrpc.json: items are addressed by [section, row]; docs/ranges.md's geometry runs across section
    boundaries (the empty
    section holds nothing); on the horizontal axis the width is L and the directions are left/right."""
    fwd, back = ("down", "up") if axis == "vertical" else ("right", "left")
    layout = Layout(SECTION_LENGTHS)
    s, reply, events = make_sections(rc, axis)
    assert (reply["count"], reply["sections"], reply["contentLength"]) == (13, 4, 1150)
    assert reply["direction"] == fwd
    # minimum, forward, 0: visible [0,300) 0,0..0,2; display [-75,375) 0,0..0,3; preload [-75,450) + (1,0)
    want = {"visible": span(0, 0, 2), "display": span(0, 0, 3), "preload": span(0, 0, 3) + [(1, 0)]}
    assert rc.lists(s) == want
    ev = one_range(events)
    assert ev["direction"] == fwd and ev["mode"] == "minimum"
    assert changes(ev) == with_changes(enter_visible=want["visible"], enter_display=want["display"],
                                       enter_preload=want["preload"])
    assert prefetches(events) == {"prefetchItems": [(0, 3), (1, 0)], "cancelPrefetching": []}

    # scroll to 420: viewport [420,720): visible (1,0..2) (3,0) (3,1); display [345,795) adds (0,3) (3,2);
    # preload [345,870) adds (3,3)
    r, events = rc.call("range.didScroll", session=s, offset=420)
    assert r == {"session": s, "mode": "minimum", "direction": fwd}
    vis = span(1, 0, 2) + span(3, 0, 1)
    want = {"visible": vis, "display": [(0, 3)] + vis + [(3, 2)], "preload": [(0, 3)] + vis + [(3, 2), (3, 3)]}
    assert rc.lists(s) == want
    ev = one_range(events)
    assert changes(ev) == with_changes(
        enter_visible=vis, exit_visible=span(0, 0, 2),
        enter_display=vis + [(3, 2)], exit_display=span(0, 0, 2),
        enter_preload=span(1, 1, 2) + span(3, 0, 3), exit_preload=span(0, 0, 2))
    assert_event_order(layout, ev, events, 420, 300)
    assert tup(ev["exit"]["visible"]) == [(0, 2), (0, 1), (0, 0)]  # 120, 220, 320 points away
    # entered preload and not visible: (3,2) [750,850) and (3,3) [850,950), nearest first
    assert prefetches(events) == {"prefetchItems": [(3, 2), (3, 3)], "cancelPrefetching": []}

    # first drag: full, forward at 420: display [270,1020) (0,2)..(3,4); preload [-30,1470): everything
    r, events = rc.call("range.willBeginDragging", session=s)
    assert r["mode"] == "full"
    everything = span(0, 0, 3) + span(1, 0, 2) + span(3, 0, 5)
    want = {"visible": vis, "display": span(0, 2, 3) + span(1, 0, 2) + span(3, 0, 4), "preload": everything}
    assert rc.lists(s) == want
    # back to 400 while dragging: the same items on screen ([400,700) as [420,720)), so nothing is
    # recomputed and the direction stays (Texture recomputes when the items on screen change)
    r, events = rc.call("range.didScroll", session=s, offset=400)
    assert r["direction"] == fwd and range_events(events) == []
    # back to 340: (0,3) comes on screen, (3,1) leaves: full, backward: display [40,790) (0,0)..(3,2);
    # preload [-410,1090): everything
    r, events = rc.call("range.didScroll", session=s, offset=340)
    assert r["direction"] == back
    ev = one_range(events)
    assert ev["direction"] == back
    vis2 = [(0, 3)] + span(1, 0, 2) + [(3, 0)]
    assert changes(ev) == with_changes(enter_visible=[(0, 3)], exit_visible=[(3, 1)],
                                       enter_display=[(0, 0), (0, 1)], exit_display=[(3, 3), (3, 4)])
    assert rc.lists(s) == {"visible": vis2, "display": span(0, 0, 3) + span(1, 0, 2) + span(3, 0, 2),
                           "preload": everything}
    st = rc.state(s, paths=[[3, 3], [1, 2], [0, 0]])
    assert st["direction"] == back and st["mode"] == "full"
    assert st["items"] == [{"path": [3, 3], "preload": True, "display": False, "visible": False},
                           {"path": [1, 2], "preload": True, "display": True, "visible": True},
                           {"path": [0, 0], "preload": True, "display": True, "visible": False}]


def test_insert_into_a_middle_section_shifts_only_that_sections_rows(rc):
    """rpc-schema/openrpc.json insertItems: items go before `at`; the offset does not move, so what follows shifts along
    the
    axis. Rows of later sections keep their paths (they are per section) but move down in points."""
    s, _, _ = make_sections(rc)
    rc.call("range.didScroll", session=s, offset=420)
    # insert 50 points before (1,0): (1,0) [400,450) new; old (1,0..2) -> (1,1..3) [450,600);
    # section 3 moves 50 down: (3,0) [600,700) (3,1) [700,800) (3,2) [800,900) (3,3) [900,1000) ...
    r, events = rc.call("range.insertItems", session=s, at=[1, 0], lengths=[50])
    assert (r["count"], r["sections"], r["contentLength"], r["offset"]) == (14, 4, 1200, 420)
    # viewport [420,720): visible (1,0..3) (3,0) (3,1); display [345,795) + (0,3); preload [345,870) + (3,2)
    vis = span(1, 0, 3) + span(3, 0, 1)
    assert rc.lists(s) == {"visible": vis, "display": [(0, 3)] + vis, "preload": [(0, 3)] + vis + [(3, 2)]}
    # before (new paths): visible (1,1..3) (3,0) (3,1); display + (0,3) (3,2); preload + (3,3)
    ev = one_range(events)
    assert changes(ev) == with_changes(enter_visible=[(1, 0)], enter_display=[(1, 0)], enter_preload=[(1, 0)],
                                       exit_display=[(3, 2)], exit_preload=[(3, 3)])
    assert "removed" not in ev
    # (1,0) entered preload but is visible: no prefetch; (3,3) was never visible: cancelled
    assert prefetches(events) == {"prefetchItems": [], "cancelPrefetching": [(3, 3)]}

    # append to section 0 (row == its count) although it is not the last section: (0,4) [400,430);
    # section 1 moves 30 down: (1,0) [430,480) .. (1,3) [580,630); (3,0) [630,730) (3,1) [730,830)
    # (3,2) [830,930)
    r, events = rc.call("range.insertItems", session=s, at=[0, 4], lengths=[30])
    assert (r["count"], r["contentLength"]) == (15, 1230)
    # viewport [420,720): (0,4) (1,0..3) (3,0); display [345,795): + (0,3) (3,1); preload [345,870): + (3,2)
    vis = [(0, 4)] + span(1, 0, 3) + [(3, 0)]
    assert rc.lists(s) == {"visible": vis, "display": [(0, 3)] + vis + [(3, 1)],
                           "preload": [(0, 3)] + vis + [(3, 1), (3, 2)]}
    ev = one_range(events)
    assert changes(ev) == with_changes(enter_visible=[(0, 4)], enter_display=[(0, 4)], enter_preload=[(0, 4)],
                                       exit_visible=[(3, 1)])
    assert prefetches(events) == {"prefetchItems": [], "cancelPrefetching": []}
    items = rc.state(s, paths=[[0, 4], [3, 1], [3, 3]])["items"]
    assert [(i["preload"], i["display"], i["visible"]) for i in items] == [
        (True, True, True), (True, True, False), (False, False, False)]


def test_insert_into_a_later_section_leaves_earlier_paths_alone(rc):
    s, _, _ = make_sections(rc)
    rc.call("range.didScroll", session=s, offset=420)
    # insert two rows of 100 before (3,1): (3,1) [650,750) and (3,2) [750,850) new, old (3,1..5) -> (3,3..7)
    # viewport [420,720): visible (1,0..2) (3,0) (3,1); display [345,795): + (0,3) (3,2);
    # preload [345,870): + (3,3) (old (3,1), [850,950))
    _, events = rc.call("range.insertItems", session=s, at=[3, 1], lengths=[100, 100])
    vis = span(1, 0, 2) + span(3, 0, 1)
    assert rc.lists(s) == {"visible": vis, "display": [(0, 3)] + vis + [(3, 2)],
                           "preload": [(0, 3)] + vis + [(3, 2), (3, 3)]}
    # before, in new paths: visible (1,0..2) (3,0) (3,3); display + (0,3) (3,4); preload + (3,5)
    ev = one_range(events)
    assert changes(ev) == with_changes(enter_visible=[(3, 1)], exit_visible=[(3, 3)],
                                       enter_display=[(3, 1), (3, 2)], exit_display=[(3, 3), (3, 4)],
                                       enter_preload=[(3, 1), (3, 2)], exit_preload=[(3, 4), (3, 5)])
    assert tup(ev["enter"]["display"]) == [(3, 1), (3, 2)]  # nearest first
    # (3,2) entered preload and is not visible; (3,4) had been visible? no: old (3,2) never was; nor (3,5)
    assert prefetches(events) == {"prefetchItems": [(3, 2)], "cancelPrefetching": [(3, 4), (3, 5)]}


def test_delete_visible_items_and_items_of_other_sections(rc):
    """rpc-schema/openrpc.json deleteItems: paths address items before the deletion; `removed` lists those that were in
    a range
    (highest first, they do not exit); items that slide into a range enter it."""
    s, _, _ = make_sections(rc)
    rc.call("range.didScroll", session=s, offset=420)
    # delete (1,1) (visible) and (3,4) (in no range: preload ends at (3,3)).
    # after: (1,0) [400,450) (1,1) [450,500) (old 1,2); (3,0) [500,600) (3,1) [600,700) (3,2) [700,800)
    # (3,3) [800,900) (3,4) [900,1000) (old 3,5)
    r, events = rc.call("range.deleteItems", session=s, paths=[[3, 4], [1, 1]])
    assert (r["count"], r["contentLength"], r["offset"]) == (11, 1000, 420)
    # viewport [420,720): (1,0) (1,1) (3,0..2); display [345,795) + (0,3); preload [345,870) + (3,3)
    vis = span(1, 0, 1) + span(3, 0, 2)
    assert rc.lists(s) == {"visible": vis, "display": [(0, 3)] + vis, "preload": [(0, 3)] + vis + [(3, 3)]}
    ev = one_range(events)
    assert ev["removed"] == [[1, 1]]
    # (3,2) slid into the viewport (it was in display and preload already)
    assert changes(ev) == with_changes(enter_visible=[(3, 2)])
    assert prefetches(events) == {"prefetchItems": [], "cancelPrefetching": []}


def test_delete_above_the_viewport_in_another_section_slides_everything_up(rc):
    s, _, _ = make_sections(rc)
    rc.call("range.didScroll", session=s, offset=420)
    # delete (0,0), in no range. After: (0,0..2) [0,300); (1,0) [300,350) (1,1) [350,400) (1,2) [400,450);
    # (3,0) [450,550) (3,1) [550,650) (3,2) [650,750) (3,3) [750,850) (3,4) [850,950) (3,5) [950,1050)
    r, events = rc.call("range.deleteItems", session=s, paths=[[0, 0]])
    assert (r["count"], r["contentLength"]) == (12, 1050)
    # viewport [420,720): (1,2) (3,0..2); display [345,795): (1,0) (1,1) .. (3,3); preload [345,870): + (3,4)
    vis = [(1, 2)] + span(3, 0, 2)
    assert rc.lists(s) == {"visible": vis, "display": span(1, 0, 2) + span(3, 0, 3),
                           "preload": span(1, 0, 2) + span(3, 0, 4)}
    ev = one_range(events)
    assert "removed" not in ev
    # before, in new paths: visible (1,0..2) (3,0) (3,1); display (0,2) (1,0..2) (3,0..2); preload + (3,3)
    assert changes(ev) == with_changes(enter_visible=[(3, 2)], exit_visible=[(1, 0), (1, 1)],
                                       enter_display=[(3, 3)], exit_display=[(0, 2)],
                                       enter_preload=[(3, 4)], exit_preload=[(0, 2)])
    assert tup(ev["exit"]["visible"]) == [(1, 1), (1, 0)]  # 20 and 70 points above the viewport
    # (0,2) is the old (0,3): in preload since create, never visible
    assert prefetches(events) == {"prefetchItems": [(3, 4)], "cancelPrefetching": [(0, 2)]}


def test_delete_across_sections_lists_removed_highest_first(rc):
    s, _, _ = make_sections(rc)
    rc.call("range.didScroll", session=s, offset=420)
    # all of (0,3) (1,0) (1,2) (3,1) (3,3) are in a range; (0,0) is not
    _, events = rc.call("range.deleteItems", session=s, paths=[[1, 0], [3, 3], [0, 0], [0, 3], [3, 1], [1, 2]])
    assert one_range(events)["removed"] == [[3, 3], [3, 1], [1, 2], [1, 0], [0, 3]]


def test_prepend_batch_goes_into_section_zero_and_keeps_the_screen(rc):
    """docs/ranges.md / schema batchFetchDone: a prepending batch's items go before the first item of section 0 and the
    offset moves by their total, so that what is on screen stays; other sections keep their paths."""
    # two sections of 30 rows of 100: content 6000, L 500; leadingScreens 2: 1000 points
    reply, events = rc.call("range.create", sections=[{"count": 30, "itemLength": 100}] * 2,
                            viewport={"width": 320, "height": 500}, batch={"prepend": True})
    s = reply["session"]
    assert batches(events) == []  # 6000 - 500 - 0 = 5500 > 1000
    assert batches(rc.call("range.didScroll", session=s, offset=3000)[1]) == []  # 2500 > 1000
    # Moving toward the head is a drag or a fling (a programmatic scroll has no direction).
    rc.call("range.willBeginDragging", session=s, offset=3000)
    rc.call("range.didScroll", session=s, offset=1500)
    _, events = rc.call("range.willEndDragging", session=s, velocity=-1, targetOffset=1001)
    assert batches(events) == []  # toward the head at 1001 > 1000
    assert batches(rc.call("range.didScroll", session=s, offset=1001)[1]) == []  # decelerating up, 1001 > 1000
    [b] = batches(rc.call("range.didScroll", session=s, offset=1000)[1])
    assert b["prepend"] is True
    assert rc.lists(s)["visible"] == span(0, 10, 14)  # [1000,1500)
    r, events = rc.call("range.batchFetchDone", session=s, context=b["context"], lengths=[50, 50])
    assert (r["count"], r["sections"], r["contentLength"], r["offset"]) == (62, 2, 6100, 1100)
    assert r["batchInFlight"] is None and r["direction"] == "up"  # 1100 > 1000: no batch yet
    assert rc.lists(s)["visible"] == span(0, 12, 16)  # the same rows, two further down
    for ev in range_events(events):
        assert ev["enter"]["visible"] == [] and ev["exit"]["visible"] == [], ev
    items = rc.state(s, paths=[[0, 0], [0, 1], [1, 0]])["items"]
    assert [i["preload"] for i in items] == [False, False, False]
    # (1,0) now starts at 3100: scroll there and it is the first visible row
    rc.call("range.didScroll", session=s, offset=3100)
    assert rc.lists(s)["visible"][0] == (1, 0)


def test_prepend_during_a_lazy_fling_keeps_the_target_on_the_same_rows(rc):
    """A prepending batch moves the offset by the new items' total "so that what is on screen stays"; during
    a lazy fling the target region is the rows the motion is heading for, so it moves with them. 100 rows
    of 100, L 1000: a fling up from 5000 at -10 points/ms stops at 10 (rows 0..10); the batch prepends 20
    rows of 100, so those rows are now 20..30, at 2010."""
    reply, _ = rc.call("range.create", count=100, itemLength=100, viewport={"width": 320, "height": 1000},
                       lazy=True, batch={"prepend": True})
    s = reply["session"]
    rc.call("range.willBeginDragging", session=s, offset=5000)
    r, events = rc.call("range.willEndDragging", session=s, velocity=-10)
    assert r["targetOffset"] == pytest.approx(10)
    [b] = batches(events)  # judged at the target: toward the head, 10 <= 2 * 1000
    assert b["prepend"] is True
    before = rows_of(rc.lists(s)["display"])
    assert set(range(0, 11)) <= before
    r, events = rc.call("range.batchFetchDone", session=s, context=b["context"], lengths=[100] * 20)
    assert (r["offset"], r["phase"], r["count"]) == (7000, "decelerating", 120)
    st = rc.lists(s)
    assert rows_of(st["visible"]) == set(range(70, 80))
    for k in ("display", "preload"):
        marked = rows_of(st[k])
        assert set(range(20, 31)) <= marked, (k, "the target rows moved to 20..30", sorted(marked))
    # The rows on screen are the same ones: nothing is recomputed (as an insert elsewhere), so the region
    # marked at the target (full, up at 10: display [-990, 1510) rows 0..15) is now rows 20..35; the new rows
    # 0..19 stay unmarked until the next update.
    assert rows_of(st["display"]) == set(range(20, 36)) | set(range(70, 80))
    r, _ = rc.call("range.didEndDecelerating", session=s, offset=2010)
    assert rc.lists(s)["visible"] == span(0, 20, 30)


def test_batch_fetch_done_appends_to_a_trailing_empty_section(rc):
    reply, events = rc.call("range.create", sections=[{"count": 2, "itemLength": 100}, {"count": 0}],
                            viewport={"width": 320, "height": 1000})
    s = reply["session"]
    [b] = batches(events)  # 200 < 1000
    r, events = rc.call("range.batchFetchDone", session=s, context=b["context"], lengths=[100, 100])
    assert (r["count"], r["sections"]) == (4, 2)
    assert sorted(tup(one_range(events)["enter"]["visible"])) == [(1, 0), (1, 1)]


# --------------------------------------------------------------------------------------------------
# Horizontal axis, setViewport, willEndDragging


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
    assert rc.lists(s) == {"visible": span(0, 40, 49), "display": span(0, 35, 59), "preload": span(0, 25, 74)}
    r, events = rc.call("range.setViewport", session=s, viewport={"width": 500, "height": 5000})
    assert set(r) == INFO_KEYS and r["direction"] == "right"
    # L 500 (the width): visible [4000,4500) 40..44, display [3750,5000) 37..49, preload [3250,5750) 32..57
    assert rc.lists(s) == {"visible": span(0, 40, 44), "display": span(0, 37, 49), "preload": span(0, 32, 57)}
    ev = one_range(events)
    assert changes(ev) == with_changes(exit_visible=span(0, 45, 49),
                                       exit_display=span(0, 35, 36) + span(0, 50, 59),
                                       exit_preload=span(0, 25, 31) + span(0, 58, 74))
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


def test_huge_viewport_and_leading_screens_are_finite_arithmetic(rc):
    reply, events = rc.call("range.create", count=10, itemLength=100, viewport={"width": 320, "height": 1e300},
                            batch={"leadingScreens": 1e300})
    s = reply["session"]
    assert len(batches(events)) == 1  # 1000 < 1e300: short content
    assert rc.lists(s) == {"visible": span(0, 0, 9), "display": span(0, 0, 9), "preload": span(0, 0, 9)}
    reply, events = rc.call("range.create", count=100, itemLength=100, viewport={"width": 320, "height": 100},
                            batch={"leadingScreens": 1e300})
    assert len(batches(events)) == 1  # 9900 <= 1e302


def rows_of(paths):
    return {p[1] for p in paths}


def test_lazy_fling_toward_the_head_marks_the_target_not_the_rows_flown_over(rc):
    """docs/ranges.md / schema willEndDragging: with `lazy: true` the ranges mark only the target region until
    range.didEndDecelerating; a visible item keeps all three bits. 1000 rows of 100, L 1000: a fling up
    from 50000 at -40 points/ms stops at 50000 - 40 * 0.998 / 0.002 = 30040 (rows 300..310 on screen)."""
    reply, _ = rc.call("range.create", count=1000, itemLength=100, viewport={"width": 320, "height": 1000},
                       lazy=True, batch=NO_BATCH)
    s = reply["session"]
    rc.call("range.willBeginDragging", session=s, offset=50000)
    # full, down at 50000: visible 500..509, display [49500,52000) 495..519, preload [48500,53500) 485..534
    assert rc.lists(s) == {"visible": span(0, 500, 509), "display": span(0, 495, 519),
                           "preload": span(0, 485, 534)}
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
    assert rc.lists(s) == {"visible": span(0, 300, 310), "display": span(0, 290, 315),
                           "preload": span(0, 275, 325)}


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


# --------------------------------------------------------------------------------------------------
# Visibility and prefetch


def test_hidden_session_prefetches_and_cancels_what_was_never_visible(rc):
    """docs/ranges.md: an invisible session never marks items visible; prefetchItems are the items entering preload that
    are not visible; cancelPrefetching those leaving preload without having become visible."""
    reply, _ = rc.call("range.create", count=200, itemLength=50, viewport={"width": 320, "height": 400},
                       batch=NO_BATCH)
    s = reply["session"]  # visible 0..7, display 0..9, preload 0..11; 0..7 have been visible
    # Hidden (Texture's rule for an invisible list): the viewport's rows 0..7 keep preload and display, the
    # display range's 8..9 keep preload only, the preload range's 10..11 nothing.
    r, events = rc.call("range.setVisible", session=s, visible=False)
    assert r["visible"] is False
    assert changes(one_range(events)) == with_changes(exit_visible=span(0, 0, 7), exit_display=P(0, 8, 9),
                                                      exit_preload=P(0, 10, 11))
    assert prefetches(events) == {"prefetchItems": [], "cancelPrefetching": P(0, 10, 11)}
    # [100,500) while hidden: viewport rows 2..9 display; display range [0,600) rows 0..11 preload
    _, events = rc.call("range.didScroll", session=s, offset=100)
    assert changes(one_range(events)) == with_changes(enter_display=P(0, 8, 9), exit_display=P(0, 0, 1),
                                                      enter_preload=P(0, 10, 11))
    assert prefetches(events) == {"prefetchItems": P(0, 10, 11), "cancelPrefetching": []}
    # [2000,2400): viewport 40..47 display; display range [1900,2500) 38..49 preload; nothing visible
    _, events = rc.call("range.didScroll", session=s, offset=2000)
    ev = one_range(events)
    assert changes(ev) == with_changes(enter_display=span(0, 40, 47), exit_display=span(0, 2, 9),
                                       enter_preload=span(0, 38, 49), exit_preload=span(0, 0, 11))
    pre = prefetches(events)
    assert sorted(pre["prefetchItems"]) == span(0, 38, 49)  # none is visible
    # 8..11 were never visible (8 and 9 only in the viewport while hidden): cancelled; 0..7 were seen
    assert pre["cancelPrefetching"] == P(0, 11, 10, 9, 8)
    # Shown again: minimum (never dragged), down: display [1900,2500) 38..49, preload [1900,2600) 38..51
    r, events = rc.call("range.setVisible", session=s, visible=True)
    assert changes(one_range(events)) == with_changes(enter_visible=span(0, 40, 47), enter_display=P(0, 38, 39, 48, 49),
                                                      enter_preload=P(0, 50, 51))
    assert prefetches(events) == {"prefetchItems": P(0, 50, 51), "cancelPrefetching": []}
    # back to 0 (programmatic: the direction stays down): display [-100,500) 0..9, preload [-100,600) 0..11
    _, events = rc.call("range.didScroll", session=s, offset=0)
    assert rc.lists(s) == {"visible": span(0, 0, 7), "display": span(0, 0, 9), "preload": span(0, 0, 11)}
    assert sorted(prefetches(events)["cancelPrefetching"]) == P(0, 38, 39, 48, 49, 50, 51)
    assert prefetches(events)["prefetchItems"] == P(0, 8, 9, 10, 11)


def test_visible_items_are_in_display_and_preload_even_with_zero_buffers(rc):
    tuning = {m: {"display": {"leading": 0, "trailing": 0}, "preload": {"leading": 0, "trailing": 0}}
              for m in ("full", "minimum")}
    reply, _ = rc.call("range.create", sections=SECTIONS, viewport={"width": 320, "height": 300}, tuning=tuning,
                       batch=NO_BATCH)
    s = reply["session"]
    rc.call("range.didScroll", session=s, offset=420)
    vis = span(1, 0, 2) + span(3, 0, 1)
    assert rc.lists(s) == {"visible": vis, "display": vis, "preload": vis}
    rc.call("range.willBeginDragging", session=s, offset=421)
    assert rc.lists(s) == {"visible": vis, "display": vis, "preload": vis}


def test_memory_warning_and_back_on_a_sectioned_horizontal_session(rc):
    s, _, _ = make_sections(rc, "horizontal")
    rc.call("range.willBeginDragging", session=s, offset=420)
    _, events = rc.call("host.memoryWarning")
    ev = one_range(events)
    assert (ev["session"], ev["mode"], ev["direction"]) == (s, "visibleOnly", "right")
    vis = span(1, 0, 2) + span(3, 0, 1)
    assert rc.lists(s) == {"visible": vis, "display": vis, "preload": vis}
    # full, right at 420 was display (0,2)..(3,4), preload everything
    assert changes(ev) == with_changes(exit_display=span(0, 2, 3) + span(3, 2, 4),
                                       exit_preload=span(0, 0, 3) + span(3, 2, 5))
    # (0,0..2) were visible at create; (0,3) and (3,2..5) never were
    assert sorted(prefetches(events)["cancelPrefetching"]) == [(0, 3)] + span(3, 2, 5)
    # the next drag while visible: full again
    _, events = rc.call("range.willBeginDragging", session=s)
    ev = one_range(events)
    assert ev["mode"] == "full"
    assert changes(ev) == with_changes(enter_display=span(0, 2, 3) + span(3, 2, 4),
                                       enter_preload=span(0, 0, 3) + span(3, 2, 5))


# --------------------------------------------------------------------------------------------------
# The ASDK preloading article's thresholds


def test_dynamic_threshold_reproduces_the_seed_table(rc):
    """The ASDK preloading article: itemPerPage 10, threshold 0.7: needRead = 10 * 0.7 + page * 10, totalItem = 10 *
    (page + 1):
    the ratio (offset + L) / contentLength must reach 0.7, then 17/20, then 27/30 — always 7 rows into the
    newest page (the static threshold's "Diff" column drifts instead)."""
    reply, events = rc.call("range.create", count=10, itemLength=100, viewport={"width": 320, "height": 100},
                            strategy="dynamicThreshold")
    s = reply["session"]
    assert batches(events) == []
    for page, (no, yes) in enumerate([(599, 600), (1599, 1600), (2599, 2600)]):
        assert batches(rc.call("range.didScroll", session=s, offset=no)[1]) == [], page
        [b] = batches(rc.call("range.didScroll", session=s, offset=yes)[1])
        r, events = rc.call("range.batchFetchDone", session=s, context=b["context"], lengths=[100] * 10)
        assert batches(events) == [] and r["count"] == 10 * (page + 2)
    # toward the head, past the ratio: no batch (judged at the fling's target, then while decelerating)
    reply, _ = rc.call("range.create", count=10, itemLength=100, viewport={"width": 320, "height": 100},
                       strategy="dynamicThreshold")
    s = reply["session"]
    rc.call("range.willBeginDragging", session=s, offset=800)
    r, events = rc.call("range.willEndDragging", session=s, velocity=-0.1, targetOffset=650)  # 750 / 1000
    assert batches(events) == [] and r["targetOffset"] == 650
    assert batches(rc.call("range.didScroll", session=s, offset=640)[1]) == []


def test_static_threshold_drifts_as_in_the_seed_table(rc):
    """The ASDK preloading article's static threshold fires at 70% of all content: with 10 rows per page and L one row
    it fires
    at rows 7, 14, 21, 28 of 10, 20, 30, 40 (the "Threshold" column), so that after page 4 it fires
    before the newest page is reached."""
    reply, _ = rc.call("range.create", count=10, itemLength=100, viewport={"width": 320, "height": 100},
                       strategy="threshold")
    s = reply["session"]
    for page, total in enumerate([1000, 2000, 3000, 4000]):
        at = 0.7 * total - 100  # (offset + 100) / total >= 0.7
        assert batches(rc.call("range.didScroll", session=s, offset=at - 1)[1]) == [], page
        [b] = batches(rc.call("range.didScroll", session=s, offset=at)[1])
        rc.call("range.batchFetchDone", session=s, context=b["context"], lengths=[100] * 10)


def test_threshold_is_judged_at_the_target_offset_on_will_end_dragging(rc):
    # 20 rows of 50, L 200: (offset + 200) / 1000 >= 0.7 <=> offset >= 500
    reply, _ = rc.call("range.create", count=20, itemLength=50, viewport={"width": 320, "height": 200},
                       strategy="threshold")
    s = reply["session"]
    rc.call("range.willBeginDragging", session=s, offset=0)
    r, events = rc.call("range.willEndDragging", session=s, velocity=1, targetOffset=499)
    assert batches(events) == []
    rc.call("range.didEndDecelerating", session=s, offset=0)
    rc.call("range.willBeginDragging", session=s, offset=0)
    r, events = rc.call("range.willEndDragging", session=s, velocity=1, targetOffset=500)
    [b] = batches(events)
    assert r["targetOffset"] == 500 and b["prepend"] is False


def test_strategies_do_not_fetch_while_hidden_unless_the_content_is_short(rc):
    for strategy in ("threshold", "dynamicThreshold"):
        reply, _ = rc.call("range.create", count=20, itemLength=50, viewport={"width": 320, "height": 200},
                           strategy=strategy, visible=False)
        s = reply["session"]
        assert batches(rc.call("range.didScroll", session=s, offset=800)[1]) == [], strategy
        [b] = batches(rc.call("range.setVisible", session=s, visible=True)[1])
        assert b["session"] == s


# --------------------------------------------------------------------------------------------------
# -32002: unknown, destroyed, another connection's


SESSION_CALLS = [
    ("range.willBeginDragging", {}),
    ("range.didScroll", {"offset": 0}),
    ("range.willEndDragging", {"velocity": 0}),
    ("range.didEndDecelerating", {}),
    ("range.setVisible", {"visible": True}),
    ("range.setViewport", {"viewport": {"width": 10, "height": 10}}),
    ("range.insertItems", {"at": [0, 0], "lengths": [1]}),
    ("range.deleteItems", {"paths": [[0, 0]]}),
    ("range.batchFetchDone", {"context": "b-1"}),
    ("range.state", {}),
    ("range.destroy", {}),
]


@pytest.mark.parametrize("method,params", SESSION_CALLS, ids=[m for m, _ in SESSION_CALLS])
def test_every_method_answers_unknown_object_for_destroyed_foreign_or_unknown_sessions(host, rc, method, params):
    mine, _, _ = make_sections(rc)
    gone, _, _ = make_sections(rc)
    rc.call("range.destroy", session=gone)
    other = RC(host.connect())
    theirs = other.call("range.create", count=5, viewport={"width": 1, "height": 100})[0]["session"]
    before_theirs = other.snapshot(theirs)[0]
    before_mine = rc.snapshot(mine)[0]
    for sid in (gone, theirs, "r-999999", "c-1"):
        error, events = rc.fail(method, session=sid, **params)
        assert error["code"] == -32002 and error["data"]["kind"] == "unknownObject", (sid, error)
        assert events == [], (sid, events)
    # and the other connection cannot use mine either
    error, events = other.fail(method, session=mine, **params)
    assert error["code"] == -32002 and events == []
    assert other.snapshot(theirs)[0] == before_theirs and rc.snapshot(mine)[0] == before_mine


def test_a_closed_connections_sessions_are_gone(host, rc):
    other = RC(host.connect())
    theirs = other.call("range.create", count=5, viewport={"width": 1, "height": 100})[0]["session"]
    n = rc.call("host.stats")[0]["sessions"]["range"]
    other.c.close()
    host.wait_stats(lambda st: st["sessions"]["range"] == n - 1, conn=rc.c)
    error, _ = rc.fail("range.state", session=theirs)
    assert error["code"] == -32002


# --------------------------------------------------------------------------------------------------
# -32602: every param's type, data.path naming it, nothing changed, no event


BAD_CREATE = [
    ({"count": "3"}, "count"),
    ({"count": 1e20}, "count"),
    ({"count": True}, "count"),
    ({"itemLength": [1], "count": 2}, "itemLength"),
    ({"itemLength": 1e308, "count": 2}, "itemLength"),
    ({"lengths": {"a": 1}}, "lengths"),
    ({"lengths": [1, True]}, "lengths[1]"),
    ({"lengths": [1, 1e308, 1e308]}, "lengths"),
    ({"sections": "x"}, "sections"),
    ({"sections": {"count": 1}}, "sections"),
    ({"sections": [{"count": 1}, 7]}, "sections[1]"),
    ({"sections": [{"count": "1"}]}, "sections[0].count"),
    ({"sections": [{"lengths": "x"}]}, "sections[0].lengths"),
    ({"sections": [{"lengths": [1, 2], "count": 3}]}, "sections[0].count"),
    ({"sections": [{"itemLength": "x", "count": 1}]}, "sections[0].itemLength"),
    ({"sections": [{"count": 1, "reuseIdentifier": 5}]}, "sections[0].reuseIdentifier"),
    ({"sections": [{"count": 1, "header": 5}]}, "sections[0].header"),
    ({"sections": [{"count": 1}], "lengths": [1]}, "sections"),
    ({"viewport": "big"}, "viewport"),
    ({"viewport": {"width": 100}}, "viewport.height"),
    ({"viewport": {"width": "1", "height": 100}}, "viewport.width"),
    ({"viewport": {"width": 100, "height": 100, "depth": 1}}, "viewport.depth"),
    ({"axis": 1}, "axis"),
    ({"axis": "Vertical"}, "axis"),
    ({"tuning": "x"}, "tuning"),
    ({"tuning": {"full": 1}}, "tuning.full"),
    ({"tuning": {"full": {"display": 1}}}, "tuning.full.display"),
    ({"tuning": {"full": {"display": {"leading": "1"}}}}, "tuning.full.display.leading"),
    ({"tuning": {"minimum": {"preload": {"trailing": -1}}}}, "tuning.minimum.preload.trailing"),
    ({"tuning": {"full": {"preload": {"lead": 1}}}}, "tuning.full.preload.lead"),
    ({"batch": "x"}, "batch"),
    ({"batch": {"leadingScreens": "2"}}, "batch.leadingScreens"),
    ({"batch": {"prepend": 1}}, "batch.prepend"),
    ({"batch": {"trailingScreens": 1}}, "batch.trailingScreens"),
    ({"strategy": 1}, "strategy"),
    ({"strategy": "Threshold"}, "strategy"),
    ({"strategy": {}}, "strategy.name"),
    ({"strategy": {"name": 1}}, "strategy.name"),
    ({"strategy": {"name": "threshold", "ratio": "0.5"}}, "strategy.ratio"),
    ({"strategy": {"name": "threshold", "ratio": 0}}, "strategy.ratio"),
    ({"strategy": {"name": "threshold", "ratio": -0.5}}, "strategy.ratio"),
    ({"strategy": {"name": "threshold", "cap": 1}}, "strategy.cap"),
    ({"lazy": "true"}, "lazy"),
    ({"lazy": 1}, "lazy"),
    ({"visible": "false"}, "visible"),
    ({"templates": "yes"}, "templates"),
    ({"templates": 1}, "templates"),
    ({"session": "r-1"}, "session"),
]


@pytest.mark.parametrize("params,path", BAD_CREATE, ids=[p for _, p in BAD_CREATE])
def test_bad_create_param_is_refused_and_creates_nothing(rc, params, path):
    s, _, _ = make_sections(rc)
    before = rc.snapshot(s)
    full = {"count": 5, "viewport": {"width": 320, "height": 400}}
    if "sections" in params or "lengths" in params:
        del full["count"]
    full.update(params)
    error, events = rc.fail("range.create", **full)
    assert error["code"] == -32602 and error["data"]["path"] == path, (params, error)
    assert events == [], (params, events)
    assert rc.snapshot(s) == before, params


BAD_SESSION_CALLS = [
    ("range.willBeginDragging", {"offset": "0"}, "offset"),
    ("range.willBeginDragging", {"offset": [0]}, "offset"),
    ("range.didScroll", {"offset": {"y": 0}}, "offset"),
    ("range.didScroll", {"offset": False}, "offset"),
    ("range.didScroll", {"offset": 1e308}, "offset"),
    ("range.didScroll", {"offset": -1e308}, "offset"),
    ("range.didEndDecelerating", {"offset": "0"}, "offset"),
    ("range.setVisible", {"visible": "true"}, "visible"),
    ("range.setVisible", {"visible": None}, "visible"),
    ("range.setViewport", {"viewport": "x"}, "viewport"),
    ("range.setViewport", {"viewport": {"width": 10}}, "viewport.height"),
    ("range.setViewport", {"viewport": {"width": 10, "height": 10, "x": 0}}, "viewport.x"),
    ("range.setViewport", {"width": "10", "height": 10}, "width"),
    ("range.setViewport", {"width": 10}, "height"),
    ("range.setViewport", {"height": 10}, "width"),
    ("range.setViewport", {"width": 0, "height": 10}, "width"),
    ("range.setViewport", {}, "width"),
    ("range.insertItems", {"at": "0,0", "lengths": [1]}, "at"),
    ("range.insertItems", {"at": [], "lengths": [1]}, "at"),
    ("range.insertItems", {"at": ["0", 0], "lengths": [1]}, "at[0]"),
    ("range.insertItems", {"at": [-1, 0], "lengths": [1]}, "at[0]"),
    ("range.insertItems", {"at": [2, 1], "lengths": [1]}, "at[1]"),
    ("range.insertItems", {"at": [0, 0], "lengths": {"0": 1}}, "lengths"),
    ("range.insertItems", {"at": [0, 0], "lengths": [1, "2"]}, "lengths[1]"),
    ("range.insertItems", {"at": [0, 0], "lengths": [1e308, 1e308]}, "lengths"),
    ("range.insertItems", {"lengths": [1]}, "at"),
    ("range.deleteItems", {"paths": [0, 0]}, "paths[0]"),
    ("range.deleteItems", {"paths": [[2, 0]]}, "paths[0]"),
    ("range.deleteItems", {"paths": [[0, 0], [0, 1, 2]]}, "paths[1]"),
    ("range.deleteItems", {"paths": [[1, 2], [1, 2]]}, "paths"),
    ("range.deleteItems", {"paths": None}, "paths"),
    ("range.batchFetchDone", {"context": None}, "context"),
    ("range.batchFetchDone", {"context": ["b-1"]}, "context"),
    ("range.state", {"paths": {"0": [0, 0]}}, "paths"),
    ("range.state", {"paths": [[0, 0], 5]}, "paths[1]"),
    ("range.state", {"paths": [[2, 0]]}, "paths[0]"),
    ("range.destroy", {"session": 1}, "session"),
    ("range.state", {"session": None}, "session"),
]


@pytest.mark.parametrize("method,params,path", BAD_SESSION_CALLS,
                         ids=[f"{m}-{p}" for m, _, p in BAD_SESSION_CALLS])
def test_bad_session_param_is_refused_names_the_field_and_changes_nothing(rc, method, params, path):
    s, _, _ = make_sections(rc)
    rc.call("range.didScroll", session=s, offset=420)
    before = rc.snapshot(s)
    full = {"session": s, **params}
    error, events = rc.fail(method, **full)
    assert error["code"] == -32602 and error["data"]["path"] == path, (method, params, error)
    assert events == [], (method, params, events)
    assert rc.snapshot(s) == before, (method, params)
    # nothing moved: scrolling to where the session was changes nothing, in the same direction
    r, events = rc.call("range.didScroll", session=s, offset=420)
    assert events == [] and r["direction"] == "down"


def test_bad_will_end_dragging_params_change_nothing_while_dragging(rc):
    s, _, _ = make_sections(rc)
    rc.call("range.willBeginDragging", session=s, offset=420)
    before = rc.snapshot(s)
    for params, path in [({"velocity": "1"}, "velocity"), ({"velocity": None}, "velocity"),
                         ({"velocity": [1]}, "velocity"), ({"velocity": 1, "targetOffset": "9"}, "targetOffset"),
                         ({"velocity": 1, "targetOffset": 1e308}, "targetOffset"),
                         ({"velocity": 1, "offset": "9"}, "offset"), ({"velocity": 1, "offset": 5000}, "offset"),
                         ({"velocity": -1, "offset": 0, "targetOffset": -301}, "targetOffset")]:
        error, events = rc.fail("range.willEndDragging", session=s, **params)
        assert error["code"] == -32602 and error["data"]["path"] == path, (params, error)
        assert events == [] and rc.snapshot(s) == before, params
    assert rc.state(s)["direction"] == "down"
    r, events = rc.call("range.willEndDragging", session=s, velocity=0)
    assert r["targetOffset"] == 420 and events == []


def test_bad_batch_fetch_done_lengths_keep_the_batch_in_flight(rc):
    reply, events = rc.call("range.create", sections=[{"count": 2}, {"count": 1}],
                            viewport={"width": 320, "height": 1000})
    s = reply["session"]
    [b] = batches(events)
    before = rc.snapshot(s)
    for lengths, path in [("x", "lengths"), ([1, None], "lengths[1]"), ([1, -1], "lengths[1]"),
                          ([1e308, 1e308], "lengths")]:
        error, events = rc.fail("range.batchFetchDone", session=s, context=b["context"], lengths=lengths)
        assert error["code"] == -32602 and error["data"]["path"] == path, (lengths, error)
        assert events == [] and rc.snapshot(s) == before
    r, _ = rc.call("range.batchFetchDone", session=s, context=b["context"], lengths=[44])
    assert r["count"] == 4


UNKNOWN_MEMBER_CALLS = [
    ("range.create", {"count": 1, "viewport": {"width": 1, "height": 1}, "rows": 1}, "rows"),
    ("range.willBeginDragging", {"speed": 1}, "speed"),
    ("range.didScroll", {"offset": 0, "animated": True}, "animated"),
    ("range.willEndDragging", {"velocity": 0, "target": 5}, "target"),
    ("range.didEndDecelerating", {"velocity": 0}, "velocity"),
    ("range.setVisible", {"visible": True, "animated": False}, "animated"),
    ("range.setViewport", {"viewport": {"width": 1, "height": 1}, "scale": 2}, "scale"),
    ("range.insertItems", {"at": [0, 0], "lengths": [1], "animated": True}, "animated"),
    ("range.deleteItems", {"paths": [[0, 0]], "animated": True}, "animated"),
    ("range.batchFetchDone", {"context": "b-1", "more": False}, "more"),
    ("range.state", {"path": [0, 0]}, "path"),
    ("range.destroy", {"force": True}, "force"),
]


@pytest.mark.parametrize("method,params,path", UNKNOWN_MEMBER_CALLS, ids=[m for m, _, _ in UNKNOWN_MEMBER_CALLS])
def test_unknown_members_are_invalid_params_and_change_nothing(rc, method, params, path):
    s, _, _ = make_sections(rc)
    before = rc.snapshot(s)
    full = dict(params) if method == "range.create" else {"session": s, **params}
    error, events = rc.fail(method, **full)
    assert error["code"] == -32602 and error["data"]["path"] == path, (method, error)
    assert events == [] and rc.snapshot(s) == before


def test_a_refused_create_does_not_use_up_a_session_id(rc):
    """Nothing changed: a refused range.create leaves no trace, not even a skipped id (ids are opaque,
    but the next session is the one the refused call would have been)."""
    first = rc.call("range.create", count=1, viewport={"width": 1, "height": 1})[0]["session"]
    n = int(first.split("-")[1])
    for bad in ({"lazy": "x"}, {"visible": 2}, {"templates": "x"}, {"strategy": "x"}):
        rc.fail("range.create", count=1, viewport={"width": 1, "height": 1}, **bad)
    nxt = rc.call("range.create", count=1, viewport={"width": 1, "height": 1})[0]["session"]
    assert nxt == f"r-{n + 1}", (first, nxt)


# --------------------------------------------------------------------------------------------------
# A random walk against a brute-force model of docs/ranges.md


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
