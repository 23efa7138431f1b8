"""Inserts and deletes (range.insertItems, range.deleteItems) and sections: what enters and leaves each range,
`removed` lists, offsets kept, paths of later items and sections shifted, index paths [section, row] in
events and range.state on both axes.

How the expected values are worked out, and the usual sessions ("setup A", "setup B", `SECTIONS`): rangemodel.py.
"""

from __future__ import annotations

import pytest
from rangemodel import (Content, INFO_KEYS, KINDS, P, PATTERN, RANGE_EVENT_KEYS, Replay, batches, changes,
                        expected_ranges, grown, make, make_sections, new_session, one_range, path_rows, prefetches,
                        range_events, row_range, setup_a, sorted_changes, span, span_in, split, state_paths, tup,
                        with_changes)

pytestmark = pytest.mark.integration


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


SECTION_LENGTHS = [[100.0] * 4, [50.0] * 3, [], [100.0] * 6]


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
    assert st["direction"] == "up" and path_rows(st["preload"]) == row_range(0, 25)


def test_an_update_with_nothing_on_screen_leaves_new_items_unmarked(rc):
    # An item inserted inside the preload range but off screen is not marked until the next update (no cell
    # was displayed). An update with nothing on screen returns early in Texture's
    # _updateVisibleNodeIndexPaths: it only takes the visible bit, so the new item stays unmarked (before:
    # it entered preload there, though no range was computed).
    s, _ = make(rc)  # minimum: preload rows 0..14
    _, events = rc.call("range.insertItems", session=s, at=[0, 12], lengths=[100])
    assert range_events(events) == []
    assert path_rows(rc.state(s)["preload"]) == row_range(0, 12) + [13, 14, 15]
    _, events = rc.call("range.didScroll", session=s, offset=-1000)  # overscrolled: nothing on screen
    (ev,) = range_events(events)
    assert path_rows(ev["exit"]["visible"]) == row_range(0, 10) and ev["enter"]["preload"] == []
    st = rc.state(s)
    assert st["visible"] == [] and path_rows(st["preload"]) == row_range(0, 12) + [13, 14, 15]
    _, events = rc.call("range.didScroll", session=s, offset=0)  # a real update marks it
    (ev,) = range_events(events)
    assert tup(ev["enter"]["preload"]) == [(0, 12)] and tup(ev["exit"]["preload"]) == [(0, 15)]


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
    want = {"visible": span_in(0, 0, 2), "display": span_in(0, 0, 3), "preload": span_in(0, 0, 3) + [(1, 0)]}
    assert rc.lists(s) == want
    ev = one_range(events)
    assert ev["direction"] == fwd and ev["mode"] == "minimum"
    assert sorted_changes(ev) == with_changes(enter_visible=want["visible"], enter_display=want["display"],
                                       enter_preload=want["preload"])
    assert prefetches(events) == {"prefetchItems": [(0, 3), (1, 0)], "cancelPrefetching": []}

    # scroll to 420: viewport [420,720): visible (1,0..2) (3,0) (3,1); display [345,795) adds (0,3) (3,2);
    # preload [345,870) adds (3,3)
    r, events = rc.call("range.didScroll", session=s, offset=420)
    assert r == {"session": s, "mode": "minimum", "direction": fwd}
    vis = span_in(1, 0, 2) + span_in(3, 0, 1)
    want = {"visible": vis, "display": [(0, 3)] + vis + [(3, 2)], "preload": [(0, 3)] + vis + [(3, 2), (3, 3)]}
    assert rc.lists(s) == want
    ev = one_range(events)
    assert sorted_changes(ev) == with_changes(
        enter_visible=vis, exit_visible=span_in(0, 0, 2),
        enter_display=vis + [(3, 2)], exit_display=span_in(0, 0, 2),
        enter_preload=span_in(1, 1, 2) + span_in(3, 0, 3), exit_preload=span_in(0, 0, 2))
    assert_event_order(layout, ev, events, 420, 300)
    assert tup(ev["exit"]["visible"]) == [(0, 2), (0, 1), (0, 0)]  # 120, 220, 320 points away
    # entered preload and not visible: (3,2) [750,850) and (3,3) [850,950), nearest first
    assert prefetches(events) == {"prefetchItems": [(3, 2), (3, 3)], "cancelPrefetching": []}

    # first drag: full, forward at 420: display [270,1020) (0,2)..(3,4); preload [-30,1470): everything
    r, events = rc.call("range.willBeginDragging", session=s)
    assert r["mode"] == "full"
    everything = span_in(0, 0, 3) + span_in(1, 0, 2) + span_in(3, 0, 5)
    want = {"visible": vis, "display": span_in(0, 2, 3) + span_in(1, 0, 2) + span_in(3, 0, 4), "preload": everything}
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
    vis2 = [(0, 3)] + span_in(1, 0, 2) + [(3, 0)]
    assert sorted_changes(ev) == with_changes(enter_visible=[(0, 3)], exit_visible=[(3, 1)],
                                       enter_display=[(0, 0), (0, 1)], exit_display=[(3, 3), (3, 4)])
    assert rc.lists(s) == {"visible": vis2, "display": span_in(0, 0, 3) + span_in(1, 0, 2) + span_in(3, 0, 2),
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
    vis = span_in(1, 0, 3) + span_in(3, 0, 1)
    assert rc.lists(s) == {"visible": vis, "display": [(0, 3)] + vis, "preload": [(0, 3)] + vis + [(3, 2)]}
    # before (new paths): visible (1,1..3) (3,0) (3,1); display + (0,3) (3,2); preload + (3,3)
    ev = one_range(events)
    assert sorted_changes(ev) == with_changes(enter_visible=[(1, 0)], enter_display=[(1, 0)], enter_preload=[(1, 0)],
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
    vis = [(0, 4)] + span_in(1, 0, 3) + [(3, 0)]
    assert rc.lists(s) == {"visible": vis, "display": [(0, 3)] + vis + [(3, 1)],
                           "preload": [(0, 3)] + vis + [(3, 1), (3, 2)]}
    ev = one_range(events)
    assert sorted_changes(ev) == with_changes(enter_visible=[(0, 4)], enter_display=[(0, 4)], enter_preload=[(0, 4)],
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
    vis = span_in(1, 0, 2) + span_in(3, 0, 1)
    assert rc.lists(s) == {"visible": vis, "display": [(0, 3)] + vis + [(3, 2)],
                           "preload": [(0, 3)] + vis + [(3, 2), (3, 3)]}
    # before, in new paths: visible (1,0..2) (3,0) (3,3); display + (0,3) (3,4); preload + (3,5)
    ev = one_range(events)
    assert sorted_changes(ev) == with_changes(enter_visible=[(3, 1)], exit_visible=[(3, 3)],
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
    vis = span_in(1, 0, 1) + span_in(3, 0, 2)
    assert rc.lists(s) == {"visible": vis, "display": [(0, 3)] + vis, "preload": [(0, 3)] + vis + [(3, 3)]}
    ev = one_range(events)
    assert ev["removed"] == [[1, 1]]
    # (3,2) slid into the viewport (it was in display and preload already)
    assert sorted_changes(ev) == with_changes(enter_visible=[(3, 2)])
    assert prefetches(events) == {"prefetchItems": [], "cancelPrefetching": []}


def test_delete_above_the_viewport_in_another_section_slides_everything_up(rc):
    s, _, _ = make_sections(rc)
    rc.call("range.didScroll", session=s, offset=420)
    # delete (0,0), in no range. After: (0,0..2) [0,300); (1,0) [300,350) (1,1) [350,400) (1,2) [400,450);
    # (3,0) [450,550) (3,1) [550,650) (3,2) [650,750) (3,3) [750,850) (3,4) [850,950) (3,5) [950,1050)
    r, events = rc.call("range.deleteItems", session=s, paths=[[0, 0]])
    assert (r["count"], r["contentLength"]) == (12, 1050)
    # viewport [420,720): (1,2) (3,0..2); display [345,795): (1,0) (1,1) .. (3,3); preload [345,870): + (3,4)
    vis = [(1, 2)] + span_in(3, 0, 2)
    assert rc.lists(s) == {"visible": vis, "display": span_in(1, 0, 2) + span_in(3, 0, 3),
                           "preload": span_in(1, 0, 2) + span_in(3, 0, 4)}
    ev = one_range(events)
    assert "removed" not in ev
    # before, in new paths: visible (1,0..2) (3,0) (3,1); display (0,2) (1,0..2) (3,0..2); preload + (3,3)
    assert sorted_changes(ev) == with_changes(enter_visible=[(3, 2)], exit_visible=[(1, 0), (1, 1)],
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
