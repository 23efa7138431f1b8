"""Batch fetching: when a `batch` event asks for more content (Texture's ASBatchFetching: the remaining
content within leadingScreens screenfuls, in the scroll direction, prepend toward the head), one batch in
flight at a time, range.batchFetchDone, when the rule is judged (not while dragging; at the target on
willEndDragging; after inserts; short content even when invisible), the threshold and dynamicThreshold
strategies.

How the expected values are worked out, and the usual sessions ("setup A", "setup B", `SECTIONS`): rangemodel.py.
"""

from __future__ import annotations

import re

import pytest
from rangemodel import (Content, INFO_KEYS, Replay, batches, batches_of, flat_lists, make, new_session, one_range,
                        range_events, rows_of, setup_b, span, span_in, split, state_paths, tup)

pytestmark = pytest.mark.integration


BATCH_EVENT_KEYS = {"seq", "t", "cause", "session", "context", "kind", "prepend"}


def test_batch_on_create_when_content_is_shorter_than_the_viewport_even_when_invisible(rc):
    for count in (0, 9):  # 0 and 900 points < 1000
        s, reply, events = setup_b(rc, count=count, visible=False)
        [b] = batches(events)
        assert set(b) == BATCH_EVENT_KEYS, b
        assert (b["session"], b["kind"], b["prepend"]) == (s, "willBeginBatchFetch", False)
        assert re.fullmatch(r"b-[1-9][0-9]*", b["context"]), b
        assert reply["batchInFlight"] == b["context"]


def test_small_content_fetches_on_create_even_when_invisible(rc):
    for count in (0, 3):
        reply, events = new_session(rc, count=count, visible=False)
        [batch] = batches_of(events)
        assert batch["session"] == reply["session"] and batch["kind"] == "willBeginBatchFetch"
        assert batch["prepend"] is False and batch["context"].startswith("b-")
        assert reply["batchInFlight"] == batch["context"]


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


def test_batch_fires_when_the_remaining_content_is_within_leading_screens_inclusive(rc):
    s, _reply, events = setup_b(rc)
    assert batches(events) == []
    assert batches(rc.call("range.didScroll", session=s, offset=6999)[1]) == []  # 2001 left
    [b] = batches(rc.call("range.didScroll", session=s, offset=7000)[1])  # 2000 left <= 2 * 1000
    assert b["prepend"] is False
    s, _, _ = setup_b(rc, batch={"leadingScreens": 0.5})  # <= 500 left: offset >= 8500
    assert batches(rc.call("range.didScroll", session=s, offset=8499.5)[1]) == []
    assert len(batches(rc.call("range.didScroll", session=s, offset=8500)[1])) == 1


def test_batch_fires_when_remaining_content_is_within_leading_screens(rc):
    s = new_session(rc, batch={"leadingScreens": 1.5})[0]["session"]
    # 10000 - 1000 - offset <= 1500  <=>  offset >= 7500
    assert batches_of(rc.call("range.didScroll", session=s, offset=7499)[1]) == []
    assert len(batches_of(rc.call("range.didScroll", session=s, offset=7500)[1])) == 1


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


def test_no_batch_while_not_visible_until_set_visible_judges_again(rc):
    s, _, _ = setup_b(rc, visible=False)
    for x in (7000, 8000, 9000):
        assert batches(rc.call("range.didScroll", session=s, offset=x)[1]) == []
    r, events = rc.call("range.setVisible", session=s, visible=True)
    [b] = batches(events)
    assert r["batchInFlight"] == b["context"]


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
    s, _, _ = setup_b(rc, batch={"leadingScreens": 0.5})
    rc.call("range.willBeginDragging", session=s, offset=9000)
    rc.call("range.didScroll", session=s, offset=8999)
    assert batches(rc.call("range.willEndDragging", session=s, velocity=-0.001)[1]) == []  # up, 1 point left
    assert batches(rc.call("range.didScroll", session=s, offset=8998)[1]) == []
    assert batches(rc.call("range.didEndDecelerating", session=s)[1]) == []
    assert batches(rc.call("range.didScroll", session=s, offset=8999)[1]) != []  # down again: fetch


def test_no_batch_toward_the_head_without_prepend_during_a_fling(rc):
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


def test_prepend_fetch_on_a_fling_toward_the_head_replays_into_the_same_state(rc):
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
    assert rc.lists(s)["visible"] == span_in(0, 10, 14)  # [1000,1500)
    r, events = rc.call("range.batchFetchDone", session=s, context=b["context"], lengths=[50, 50])
    assert (r["count"], r["sections"], r["contentLength"], r["offset"]) == (62, 2, 6100, 1100)
    assert r["batchInFlight"] is None and r["direction"] == "up"  # 1100 > 1000: no batch yet
    assert rc.lists(s)["visible"] == span_in(0, 12, 16)  # the same rows, two further down
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
    assert rc.lists(s)["visible"] == span_in(0, 20, 30)


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


def test_batch_fetch_done_appends_to_a_trailing_empty_section(rc):
    reply, events = rc.call("range.create", sections=[{"count": 2, "itemLength": 100}, {"count": 0}],
                            viewport={"width": 320, "height": 1000})
    s = reply["session"]
    [b] = batches(events)  # 200 < 1000
    r, events = rc.call("range.batchFetchDone", session=s, context=b["context"], lengths=[100, 100])
    assert (r["count"], r["sections"]) == (4, 2)
    assert sorted(tup(one_range(events)["enter"]["visible"])) == [(1, 0), (1, 1)]


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


def test_dynamic_threshold_uses_the_seeds_content_ratio(rc):
    """docs/ranges.md: `dynamicThreshold` is "the ASDK preloading article's per-page formula": ratio = (offset + L) /
    contentLength
    compared with needRead / totalItem. At offset 350 of 10 rows of 100 with L = 300 the ratio is
    650 / 1000 = 0.65 < 0.7, so no fetch; the host counts the row under the viewport's edge (row 6, 600-700)
    as read (7 of 10 = 0.7) and fetches a row early."""
    s = new_session(rc, count=10, L=300, strategy="dynamicThreshold")[0]["session"]
    assert batches_of(rc.call("range.didScroll", session=s, offset=350)[1]) == []


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
