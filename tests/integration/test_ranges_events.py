"""Range events: the `range` event lists only what entered and left each range, nearest the viewport first;
`prefetch` (prefetchItems for items entering preload that are not visible, cancelPrefetching for items
never visible since); the order range, prefetch, batch, all before the reply; who receives them
(subscribers, scope "all" observers).

How the expected values are worked out, and the usual sessions ("setup A", "setup B", `SECTIONS`): rangemodel.py.
"""

from __future__ import annotations

import pytest
from openrpcdoc import Conn, RANGE_TYPES, VP
from rangemodel import (KINDS, NO_BATCH, P, RANGE_EVENT_KEYS, RC, RangeConn, batches, changes, iv_rows, one_range,
                        prefetches, setup_a, sorted_changes, span, span_in, split, tup, with_changes)

pytestmark = pytest.mark.integration


PREFETCH_EVENT_KEYS = {"seq", "t", "cause", "session", "kind", "paths"}


def gap(lengths, i, offset, L):
    """Points between item i and the viewport [offset, offset + L) (0 when they touch or intersect)."""
    s = sum(lengths[:i])
    e = s + lengths[i]
    if e <= offset:
        return offset - e
    if s >= offset + L:
        return s - (offset + L)
    return 0.0


def PS(section, *rows):
    return [(section, r) for r in rows]


@pytest.fixture
def host(vhost):
    """These tests' host runs a virtual clock; `rc` (conftest) is a range connection to it."""
    return vhost


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
    assert [p[1] for p in event["enter"]["visible"]] == iv_rows((50, 60))
    assert [p[1] for p in event["exit"]["visible"]] == [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]
    # Preload was [0, 35) at offset 0 (full, down); now [35, 85): 35..84 enter, 0..34 leave.
    assert sorted(p[1] for p in event["enter"]["preload"]) == iv_rows((35, 85))
    # prefetchItems: what entered preload and is not visible, nearest first; nothing left preload
    # unseen except 10..34 (0..9 were visible).
    kinds = {p["kind"]: [q[1] for q in p["paths"]] for p in prefetch}
    assert kinds["prefetchItems"] == [i for i in (p[1] for p in event["enter"]["preload"]) if not 50 <= i < 60]
    assert sorted(kinds["cancelPrefetching"]) == iv_rows((10, 35))


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
    assert sorted_changes(one_range(events)) == with_changes(exit_visible=span_in(0, 0, 7), exit_display=PS(0, 8, 9),
                                                      exit_preload=PS(0, 10, 11))
    assert prefetches(events) == {"prefetchItems": [], "cancelPrefetching": PS(0, 10, 11)}
    # [100,500) while hidden: viewport rows 2..9 display; display range [0,600) rows 0..11 preload
    _, events = rc.call("range.didScroll", session=s, offset=100)
    assert sorted_changes(one_range(events)) == with_changes(enter_display=PS(0, 8, 9), exit_display=PS(0, 0, 1),
                                                      enter_preload=PS(0, 10, 11))
    assert prefetches(events) == {"prefetchItems": PS(0, 10, 11), "cancelPrefetching": []}
    # [2000,2400): viewport 40..47 display; display range [1900,2500) 38..49 preload; nothing visible
    _, events = rc.call("range.didScroll", session=s, offset=2000)
    ev = one_range(events)
    assert sorted_changes(ev) == with_changes(enter_display=span_in(0, 40, 47), exit_display=span_in(0, 2, 9),
                                       enter_preload=span_in(0, 38, 49), exit_preload=span_in(0, 0, 11))
    pre = prefetches(events)
    assert sorted(pre["prefetchItems"]) == span_in(0, 38, 49)  # none is visible
    # 8..11 were never visible (8 and 9 only in the viewport while hidden): cancelled; 0..7 were seen
    assert pre["cancelPrefetching"] == PS(0, 11, 10, 9, 8)
    # Shown again: minimum (never dragged), down: display [1900,2500) 38..49, preload [1900,2600) 38..51
    r, events = rc.call("range.setVisible", session=s, visible=True)
    assert sorted_changes(one_range(events)) == with_changes(enter_visible=span_in(0, 40, 47), enter_display=PS(0, 38, 39, 48, 49),
                                                      enter_preload=PS(0, 50, 51))
    assert prefetches(events) == {"prefetchItems": PS(0, 50, 51), "cancelPrefetching": []}
    # back to 0 (programmatic: the direction stays down): display [-100,500) 0..9, preload [-100,600) 0..11
    _, events = rc.call("range.didScroll", session=s, offset=0)
    assert rc.lists(s) == {"visible": span_in(0, 0, 7), "display": span_in(0, 0, 9), "preload": span_in(0, 0, 11)}
    assert sorted(prefetches(events)["cancelPrefetching"]) == PS(0, 38, 39, 48, 49, 50, 51)
    assert prefetches(events)["prefetchItems"] == PS(0, 8, 9, 10, 11)


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


def test_range_events_list_each_path_once(conn: Conn) -> None:
    """docs/ranges.md: after each update one `range` event lists only the changes (and `RangeChanges` / `PrefetchEvent`
    say each path at most once). New items that land at the edge of a range are listed twice: the items a
    `range.batchFetchDone` appends to a short list come as `enter.visible [[0,3],[0,3]]`, `enter.preload
    [[0,3],[0,3],[0,4],[0,4]]` and `prefetchItems [[0,4],[0,4]]`; an item inserted before the first visible one comes
    twice in every `enter` list. (The inserted block is counted once as the interval difference and once more as
    "fresh".) test_range_events_match_x_notifications inserts and appends away from range edges; this test does
    not."""
    conn.call("events.subscribe", {"topics": ["range", "prefetch"]})
    short = conn.call("range.create", {"count": 3, "itemLength": 100, "viewport": VP})  # shorter than L: a batch
    assert short["batchInFlight"] is not None, short
    long = conn.call("range.create", {"count": 100, "itemLength": 50, "viewport": VP})
    mark = len(conn.notifications)
    conn.call("range.batchFetchDone", {"session": short["session"], "context": short["batchInFlight"],
                                       "lengths": [100, 100]})
    conn.call("range.insertItems", {"session": long["session"], "at": [0, 0], "lengths": [20]})
    duplicated = []
    for n in conn.notifications[mark:]:
        p = n["params"]
        lists = {"paths": p["paths"]} if n["method"] == "prefetch" else \
            {f"{side}.{t}": p[side][t] for side in ("enter", "exit") for t in RANGE_TYPES}
        for name, paths in lists.items():
            if len({tuple(x) for x in paths}) != len(paths):
                duplicated.append(f"{n['method']} {p['session']} {p.get('kind', '')} {name}: {paths}")
    assert not duplicated, "paths listed more than once in one event:\n" + "\n".join(duplicated)


def test_invisible_session_lists_paths_nearest_the_viewport(conn: Conn) -> None:
    """docs/ranges.md: a `range` event lists paths "nearest the viewport first", by distance in points from the
    viewport,
    visible or not: hiding a session at rest on [1000, 1480) (items 20..29 under it) lists what leaves nearest first,
    the items under the viewport (distance 0) before those 1, 2, ... items away on either side."""
    conn.call("events.subscribe", {"topics": ["range"]})
    s = conn.call("range.create", {"count": 100, "itemLength": 50, "viewport": {"width": 375, "height": 480}})["session"]
    conn.call("range.willBeginDragging", {"session": s, "offset": 0})
    conn.call("range.didScroll", {"session": s, "offset": 1000})
    conn.call("range.didEndDecelerating", {"session": s, "offset": 1000})
    mark = len(conn.notifications)
    conn.call("range.setVisible", {"session": s, "visible": False})
    events = [n["params"] for n in conn.notifications[mark:] if n["method"] == "range"]
    assert len(events) == 1, events
    lo, hi = 20, 30  # the items under the viewport [1000, 1480)

    def distance(path: list[int]) -> int:
        return path[1] - hi + 1 if path[1] >= hi else lo - path[1] if path[1] < lo else 0

    for side in ("enter", "exit"):
        for t in RANGE_TYPES:
            ds = [distance(p) for p in events[0][side][t]]
            assert ds == sorted(ds), f"{side}.{t} of the hidden session, in items from the viewport: {ds}"
