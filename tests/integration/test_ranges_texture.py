"""Range sessions over the wire against Texture's real source (TextureGroup/Texture be0b74b4, paths under
`Source/`): `Details/ASRangeController.mm` (when ranges are recomputed, modes, invisible sessions),
`Details/ASAbstractLayoutController.mm` (buffers), `Private/ASBatchFetching.mm` and `ASTableView.mm` /
`ASCollectionView.mm` (scroll direction, batch checks).

Each scenario was worked out by hand from that code; the comments give the arithmetic. The usual list:
100 rows of 100 points, a viewport of 1000 (one screen = 10 rows); a batch fires when
contentLength - L - offset <= 2 screens, i.e. offset >= 7000 for 10000 points.
"""

from __future__ import annotations

import pytest
from rangemodel import RC, batches, one_range, prefetches, range_events, tup

pytestmark = pytest.mark.integration

KINDS = ("preload", "display", "visible")


@pytest.fixture
def rc(start_host) -> RC:
    return RC(start_host("--clock", "virtual").connect())


def make(rc, count=100, length=100, L=1000, axis="vertical", **params):
    vp = {"width": 375, "height": L} if axis == "vertical" else {"width": L, "height": 375}
    r, events = rc.call("range.create", count=count, itemLength=length, viewport=vp, axis=axis, **params)
    return r["session"], events


def rows(lst):
    return [p[1] for p in tup(lst)]


def span(a, b):
    return list(range(a, b))


# --------------------------------------------------------------------------------------------------
# Batch fetching


def test_an_exhausted_backend_is_not_asked_again(rc):
    # 3 rows of 100 in a 1000-point viewport: short content fetches at create (hasSmallContent).
    s, events = make(rc, count=3)
    (b,) = batches(events)
    # The backend has nothing more: Texture's _scheduleCheckForBatchFetchingForNumberOfChanges(0) returns
    # at once, so no batch follows (before: another willBeginBatchFetch after every empty answer).
    for _ in range(3):
        r, events = rc.call("range.batchFetchDone", session=s, context=b["context"])
        assert batches(events) == [] and range_events(events) == [], events
        assert r["batchInFlight"] is None
        # The next data change with items checks again (the content still fits the viewport).
        _, events = rc.call("range.insertItems", session=s, at=[0, 3], lengths=[100])
        (b,) = batches(events)
    _, events = rc.call("range.batchFetchDone", session=s, context=b["context"], lengths=[])
    assert batches(events) == []


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


def test_a_zero_velocity_release_near_the_end_fetches(rc):
    s, _ = make(rc)
    rc.call("range.willBeginDragging", session=s, offset=0)
    for x in (3000, 6000, 7300, 7100):  # down, then up a little: the drag points up
        _, events = rc.call("range.didScroll", session=s, offset=x)
        assert batches(events) == [], "no batch check while dragging"
    assert rc.state(s)["direction"] == "up"
    # Released at rest: the target is the offset, the scroll direction none, 1900 left <= 2000.
    r, events = rc.call("range.willEndDragging", session=s, velocity=0)
    assert r["targetOffset"] == 7100
    (b,) = batches(events)
    assert b["prepend"] is False


def test_a_batch_done_near_the_end_after_moving_up_checks_without_direction(rc):
    s, _ = make(rc)
    rc.call("range.willBeginDragging", session=s, offset=0)
    rc.call("range.didScroll", session=s, offset=7500)
    _, events = rc.call("range.willEndDragging", session=s, velocity=0.1, targetOffset=7550)
    (b,) = batches(events)  # toward the target (down), 1450 left
    rc.call("range.didEndDecelerating", session=s, offset=7550)
    # The user moves up a little and lets go; the list comes to rest pointing up.
    rc.call("range.willBeginDragging", session=s, offset=7550)
    rc.call("range.didScroll", session=s, offset=7400)
    _, events = rc.call("range.willEndDragging", session=s, velocity=-0.1, targetOffset=7350)
    assert batches(events) == []  # one in flight
    rc.call("range.didEndDecelerating", session=s, offset=7350)
    assert rc.state(s)["direction"] == "up"
    # The page arrives with one row: 10100 - 1000 - 7350 = 1750 <= 2000. At rest there is no scroll
    # direction, so the check does not refuse for "toward the head" (before: no batch until the user
    # scrolled down again — an infinite feed stalled).
    _, events = rc.call("range.batchFetchDone", session=s, context=b["context"], lengths=[100])
    (b2,) = batches(events)
    assert b2["context"] != b["context"]


def test_a_programmatic_scroll_keeps_the_direction_and_fetches_near_the_end(rc):
    s, _ = make(rc, batch={"leadingScreens": 2.0})
    rc.call("range.willBeginDragging", session=s, offset=0)
    rc.call("range.didScroll", session=s, offset=5000)
    rc.call("range.didScroll", session=s, offset=4900)
    rc.call("range.willEndDragging", session=s, velocity=0, targetOffset=4900)
    rc.call("range.didEndDecelerating", session=s)
    _, events = rc.call("range.didScroll", session=s, offset=8000)  # programmatic: no direction
    (b,) = batches(events)
    assert rc.state(s)["direction"] == "up", "a programmatic scroll does not flip the kept direction"


def test_the_batch_boundary_is_exactly_leading_screens(rc):
    s, _ = make(rc)
    _, events = rc.call("range.didScroll", session=s, offset=6999)  # 2001 left
    assert batches(events) == []
    _, events = rc.call("range.didScroll", session=s, offset=7000)  # 2000 left: fetch
    assert len(batches(events)) == 1
    # Horizontal, 1.5 screens: 40 columns of 50 = 2000, L = 500, fetch when 1500 - x <= 750.
    h, _ = make(rc, count=40, length=50, L=500, axis="horizontal", batch={"leadingScreens": 1.5})
    _, events = rc.call("range.didScroll", session=h, offset=749)
    assert batches(events) == []
    _, events = rc.call("range.didScroll", session=h, offset=750)
    assert len(batches(events)) == 1


def test_a_snap_target_against_the_motion_is_judged_toward_the_target(rc):
    # Snapping back up after a downward drag: toward the head at release, no batch (before: the velocity's
    # direction, down, and 2000 left at 7000 fetched).
    s, _ = make(rc)
    rc.call("range.willBeginDragging", session=s, offset=6900)
    rc.call("range.didScroll", session=s, offset=7100)
    _, events = rc.call("range.willEndDragging", session=s, velocity=0.3, targetOffset=7000)
    assert batches(events) == []
    # Snapping forward after an upward drag: down at release, 1000 left at 8000.
    t, _ = make(rc)
    rc.call("range.willBeginDragging", session=t, offset=7900)
    rc.call("range.didScroll", session=t, offset=7800)
    _, events = rc.call("range.willEndDragging", session=t, velocity=-0.3, targetOffset=8000)
    assert len(batches(events)) == 1


# --------------------------------------------------------------------------------------------------
# Direction and when ranges are recomputed


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
    assert rows(st["display"]) == span(25, 50) and rows(st["preload"]) == span(15, 65)
    # A velocity outside a drag is ignored.
    rc.call("range.didEndDecelerating", session=s)
    r, _ = rc.call("range.didScroll", session=s, offset=2000, velocity=-1)
    assert r["direction"] == "down"


def test_a_jitter_churns_nothing(rc):
    s, _ = make(rc)
    rc.call("range.willBeginDragging", session=s, offset=50)
    rc.call("range.didScroll", session=s, offset=55)
    # Rows 0..10 stay on screen between 50 and 55: no range recompute, so no direction flip, no
    # prefetch/cancel churn (before: 10 rows cancelled and prefetched again at every step).
    for x in [50, 55] * 10:
        _, events = rc.call("range.didScroll", session=s, offset=x)
        assert events == [], (x, events)


def test_overscroll_keeps_the_ranges_and_takes_only_the_visible_bit(rc):
    s, _ = make(rc, count=20, batch={"leadingScreens": 0})
    rc.call("range.willBeginDragging", session=s, offset=0)
    rc.call("range.didScroll", session=s, offset=1000)
    before = rc.state(s)
    _, events = rc.call("range.didScroll", session=s, offset=2000)  # a screen past the tail
    ev = one_range(events)
    assert sorted(rows(ev["exit"]["visible"])) == span(10, 20)
    assert all(ev[part][k] == [] for part in ("enter", "exit") for k in ("preload", "display"))
    assert prefetches(events) == {"prefetchItems": [], "cancelPrefetching": []}
    after = rc.state(s)
    assert after["visible"] == [] and after["display"] == before["display"] and after["preload"] == before["preload"]
    assert after["mode"] == before["mode"]


# --------------------------------------------------------------------------------------------------
# Invisible sessions, independent sets, lowMemory


def test_an_insert_while_nothing_is_on_screen_changes_nothing_on_screen(rc):
    # Overscrolled past the head, nothing is on screen; an insert at the head leaves it so (the content grows
    # below the viewport), so UIKit displays no cell and Texture runs no update: the kept direction stays up.
    # (Before: the empty on-screen interval, shifted by the insert, compared unequal to the empty one and ran
    # an update that took the fling's direction, down, so the ranges leaned down at rest.)
    s, _ = make(rc)
    rc.call("range.willBeginDragging", session=s, offset=3000)
    for x in (2000, 500, -1000):
        rc.call("range.didScroll", session=s, offset=x)
    assert rc.state(s)["direction"] == "up"
    rc.call("range.willEndDragging", session=s, velocity=-1, targetOffset=0)  # bounces back: toward the tail
    _, events = rc.call("range.insertItems", session=s, at=[0, 0], lengths=[100])
    assert range_events(events) == [] and batches(events) == []
    assert rc.state(s)["direction"] == "up"
    rc.call("range.didEndDecelerating", session=s, offset=0)
    st = rc.state(s)
    # At rest, the kept direction (up): full preload = 1.5 screens below and 2.5 above the viewport.
    assert st["direction"] == "up" and rows(st["preload"]) == span(0, 25)


def test_an_update_with_nothing_on_screen_leaves_new_items_unmarked(rc):
    # An item inserted inside the preload range but off screen is not marked until the next update (no cell
    # was displayed). An update with nothing on screen returns early in Texture's
    # _updateVisibleNodeIndexPaths: it only takes the visible bit, so the new item stays unmarked (before:
    # it entered preload there, though no range was computed).
    s, _ = make(rc)  # minimum: preload rows 0..14
    _, events = rc.call("range.insertItems", session=s, at=[0, 12], lengths=[100])
    assert range_events(events) == []
    assert rows(rc.state(s)["preload"]) == span(0, 12) + [13, 14, 15]
    _, events = rc.call("range.didScroll", session=s, offset=-1000)  # overscrolled: nothing on screen
    (ev,) = range_events(events)
    assert rows(ev["exit"]["visible"]) == span(0, 10) and ev["enter"]["preload"] == []
    st = rc.state(s)
    assert st["visible"] == [] and rows(st["preload"]) == span(0, 12) + [13, 14, 15]
    _, events = rc.call("range.didScroll", session=s, offset=0)  # a real update marks it
    (ev,) = range_events(events)
    assert tup(ev["enter"]["preload"]) == [(0, 12)] and tup(ev["exit"]["preload"]) == [(0, 15)]


def test_an_invisible_session_preloads_the_viewport_and_the_display_range(rc):
    s, events = make(rc, visible=False)
    st = rc.state(s)
    # minimum down at 0: display range [-250, 1250) rows 0..12; viewport rows 0..9.
    assert st["visible"] == [] and rows(st["display"]) == span(0, 10) and rows(st["preload"]) == span(0, 13)
    assert prefetches(events)["prefetchItems"] == [(0, i) for i in range(13)]
    r, _ = rc.call("range.willBeginDragging", session=s, offset=0)
    assert r["mode"] == "full", "willBeginDragging sets full, visible or not"
    st = rc.state(s)
    # full down at 0: display range [-500, 2000) rows 0..19 (preload only); the preload range's rows 20..34
    # get nothing.
    assert rows(st["display"]) == span(0, 10) and rows(st["preload"]) == span(0, 20)
    rc.call("host.memoryWarning")
    st = rc.state(s)
    assert st["mode"] == "lowMemory" and st["display"] == [] and rows(st["preload"]) == span(0, 10)


def test_display_and_preload_are_independent_and_low_memory_never_displays(rc):
    tuning = {"minimum": {"display": {"leading": 3, "trailing": 0}, "preload": {"leading": 1, "trailing": 0}},
              "lowMemory": {"preload": {"leading": 0.5}}}
    s, _ = make(rc, tuning=tuning)
    st = rc.state(s)
    assert rows(st["display"]) == span(0, 40) and rows(st["preload"]) == span(0, 20)
    (item,) = rc.state(s, paths=[[0, 30]])["items"]
    assert (item["preload"], item["display"], item["visible"]) == (False, True, False)
    h, _ = make(rc, tuning={**tuning, "lowMemory": {"display": {"leading": 2, "trailing": 2},
                                                     "preload": {"leading": 0.5}}}, visible=False)
    rc.call("host.memoryWarning")
    st = rc.state(h)
    # lowMemory, invisible: display empty whatever its tuning (2 screens each way here); preload = the
    # display range (none) plus the viewport's items.
    assert st["mode"] == "lowMemory" and st["display"] == [] and rows(st["preload"]) == span(0, 10)
    rc.call("range.setVisible", session=h, visible=True)
    st = rc.state(h)
    assert st["mode"] == "lowMemory", "never scrolled: the mode is not managed yet"
    assert rows(st["display"]) == span(0, 10) == rows(st["visible"])
    # visible: the preload range's own buffer (0.5 screens down: rows 0..14) counts.
    assert rows(st["preload"]) == span(0, 15)


def test_low_memory_preload_reuses_the_empty_display_set_when_their_tunings_are_equal(rc):
    # ASRangeController: when the display and preload tunings are equal, preloadElements = displayElements
    # (equalDisplayPreload), and lowMemory's display set is empty (emptyDisplayRange). So a lowMemory
    # preload tuning equal to lowMemory's display tuning preloads only what is on screen (before: rows 0..19,
    # the preload tuning's own screen down and up).
    equal = {"lowMemory": {"display": {"leading": 1, "trailing": 1}, "preload": {"leading": 1, "trailing": 1}}}
    h, _ = make(rc, tuning=equal, visible=False)
    rc.call("host.memoryWarning")
    _, events = rc.call("range.setVisible", session=h, visible=True)
    st = rc.state(h)
    assert st["mode"] == "lowMemory", "never scrolled: the mode is not managed yet"
    assert rows(st["visible"]) == rows(st["display"]) == rows(st["preload"]) == span(0, 10)
    # Unequal tunings: the preload range is the preload tuning's own (one screen down: rows 0..19).
    unequal = {"lowMemory": {"display": {"leading": 1, "trailing": 0.5}, "preload": {"leading": 1, "trailing": 1}}}
    h, _ = make(rc, tuning=unequal, visible=False)
    rc.call("host.memoryWarning")
    rc.call("range.setVisible", session=h, visible=True)
    st = rc.state(h)
    assert rows(st["display"]) == span(0, 10) and rows(st["preload"]) == span(0, 20)


# --------------------------------------------------------------------------------------------------
# Modes and memory warnings


def test_a_memory_warning_after_a_drag_lasts_one_update(rc):
    s, _ = make(rc, batch={"leadingScreens": 0})
    rc.call("range.willBeginDragging", session=s, offset=0)
    rc.call("range.didScroll", session=s, offset=3000)
    rc.call("range.willEndDragging", session=s, velocity=0)
    rc.call("range.didEndDecelerating", session=s)
    _, events = rc.call("host.memoryWarning")
    ev = one_range(events)
    assert ev["mode"] == "visibleOnly"
    st = rc.state(s)
    assert st["preload"] == st["display"] == st["visible"]
    # The next update (row 40 comes on screen) is managed again: visible and scrolled -> full (before: the
    # warning's mode held until the next drag).
    _, events = rc.call("range.didScroll", session=s, offset=3050)
    assert one_range(events)["mode"] == "full"


def test_a_memory_warning_before_any_drag_holds_until_the_drag(rc):
    s, _ = make(rc, batch={"leadingScreens": 0})
    rc.call("host.memoryWarning")
    r, _ = rc.call("range.didScroll", session=s, offset=2000)
    assert r["mode"] == "visibleOnly"
    r, _ = rc.call("range.willBeginDragging", session=s, offset=2000)
    assert r["mode"] == "full"
    # An invisible session's warning: lowMemory; shown again after a drag -> full at once.
    h, _ = make(rc, visible=False, batch={"leadingScreens": 0})
    rc.call("range.willBeginDragging", session=h, offset=0)
    rc.call("host.memoryWarning")
    assert rc.state(h)["mode"] == "lowMemory"
    r, _ = rc.call("range.setVisible", session=h, visible=True)
    assert r["mode"] == "full"


# --------------------------------------------------------------------------------------------------
# Horizontal, sections, reversals


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


def test_a_bad_velocity_is_refused_and_changes_nothing(rc):
    s, _ = make(rc)
    before = rc.snapshot(s)
    for method in ("range.didScroll", "range.willBeginDragging"):
        error, events = rc.fail(method, session=s, offset=500, velocity="fast")
        assert error["code"] == -32602 and error["data"]["path"] == "velocity", error
        assert events == []
        assert rc.snapshot(s) == before
