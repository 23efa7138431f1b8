"""Range modes and visibility: minimum until the first drag while visible, then full; visibleOnly and
lowMemory; host.memoryWarning (visible sessions go visibleOnly, others lowMemory, for one update);
invisible sessions (range.setVisible, `visible: false`) never mark an item visible.

How the expected values are worked out, and the usual sessions ("setup A", "setup B", `SECTIONS`): rangemodel.py.
"""

from __future__ import annotations

import pytest
from openrpcdoc import Conn, VP
from rangemodel import (Content, P, PATTERN, RC, assert_geometry, changes, make, make_sections, one_range, path_rows,
                        prefetches, range_events, row_range, setup_a, sorted_changes, span, span_in, split, tup,
                        with_changes)

pytestmark = pytest.mark.integration


@pytest.fixture
def host(vhost):
    """These tests' host runs a virtual clock; `rc` (conftest) is a range connection to it."""
    return vhost


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


def test_mode_is_minimum_on_did_scroll_and_full_from_will_begin_dragging(rc):
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
    """Texture's scrollViewWillBeginDragging: sets full whether or not the list is visible."""
    s, reply, _ = setup_a(rc, visible=False, batch={"leadingScreens": 0})
    assert reply["mode"] == "minimum"
    r, _ = rc.call("range.willBeginDragging", session=s)
    assert r["mode"] == "full"
    rc.call("range.didEndDecelerating", session=s)
    r, _ = rc.call("range.setVisible", session=s, visible=True)
    assert r["mode"] == "full"
    assert rc.lists(s) == {"visible": span(0, 7), "display": span(0, 15), "preload": span(0, 27)}


def test_a_drag_while_invisible_sets_full_and_the_geometry_follows(rc):
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


def test_display_and_preload_are_independent_and_low_memory_never_displays(rc):
    tuning = {"minimum": {"display": {"leading": 3, "trailing": 0}, "preload": {"leading": 1, "trailing": 0}},
              "lowMemory": {"preload": {"leading": 0.5}}}
    s, _ = make(rc, tuning=tuning)
    st = rc.state(s)
    assert path_rows(st["display"]) == row_range(0, 40) and path_rows(st["preload"]) == row_range(0, 20)
    (item,) = rc.state(s, paths=[[0, 30]])["items"]
    assert (item["preload"], item["display"], item["visible"]) == (False, True, False)
    h, _ = make(rc, tuning={**tuning, "lowMemory": {"display": {"leading": 2, "trailing": 2},
                                                     "preload": {"leading": 0.5}}}, visible=False)
    rc.call("host.memoryWarning")
    st = rc.state(h)
    # lowMemory, invisible: display empty whatever its tuning (2 screens each way here); preload = the
    # display range (none) plus the viewport's items.
    assert st["mode"] == "lowMemory" and st["display"] == [] and path_rows(st["preload"]) == row_range(0, 10)
    rc.call("range.setVisible", session=h, visible=True)
    st = rc.state(h)
    assert st["mode"] == "lowMemory", "never scrolled: the mode is not managed yet"
    assert path_rows(st["display"]) == row_range(0, 10) == path_rows(st["visible"])
    # visible: the preload range's own buffer (0.5 screens down: rows 0..14) counts.
    assert path_rows(st["preload"]) == row_range(0, 15)


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
    assert path_rows(st["visible"]) == path_rows(st["display"]) == path_rows(st["preload"]) == row_range(0, 10)
    # Unequal tunings: the preload range is the preload tuning's own (one screen down: rows 0..19).
    unequal = {"lowMemory": {"display": {"leading": 1, "trailing": 0.5}, "preload": {"leading": 1, "trailing": 1}}}
    h, _ = make(rc, tuning=unequal, visible=False)
    rc.call("host.memoryWarning")
    rc.call("range.setVisible", session=h, visible=True)
    st = rc.state(h)
    assert path_rows(st["display"]) == row_range(0, 10) and path_rows(st["preload"]) == row_range(0, 20)


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


def test_memory_warning_and_back_on_a_sectioned_horizontal_session(rc):
    s, _, _ = make_sections(rc, "horizontal")
    rc.call("range.willBeginDragging", session=s, offset=420)
    _, events = rc.call("host.memoryWarning")
    ev = one_range(events)
    assert (ev["session"], ev["mode"], ev["direction"]) == (s, "visibleOnly", "right")
    vis = span_in(1, 0, 2) + span_in(3, 0, 1)
    assert rc.lists(s) == {"visible": vis, "display": vis, "preload": vis}
    # full, right at 420 was display (0,2)..(3,4), preload everything
    assert sorted_changes(ev) == with_changes(exit_display=span_in(0, 2, 3) + span_in(3, 2, 4),
                                       exit_preload=span_in(0, 0, 3) + span_in(3, 2, 5))
    # (0,0..2) were visible at create; (0,3) and (3,2..5) never were
    assert sorted(prefetches(events)["cancelPrefetching"]) == [(0, 3)] + span_in(3, 2, 5)
    # the next drag while visible: full again
    _, events = rc.call("range.willBeginDragging", session=s)
    ev = one_range(events)
    assert ev["mode"] == "full"
    assert sorted_changes(ev) == with_changes(enter_display=span_in(0, 2, 3) + span_in(3, 2, 4),
                                       enter_preload=span_in(0, 0, 3) + span_in(3, 2, 5))


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


def test_an_invisible_session_never_marks_items_visible_whatever_the_call(rc):
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


def test_an_invisible_session_preloads_the_viewport_and_the_display_range(rc):
    s, events = make(rc, visible=False)
    st = rc.state(s)
    # minimum down at 0: display range [-250, 1250) rows 0..12; viewport rows 0..9.
    assert st["visible"] == [] and path_rows(st["display"]) == row_range(0, 10) and path_rows(st["preload"]) == row_range(0, 13)
    assert prefetches(events)["prefetchItems"] == [(0, i) for i in range(13)]
    r, _ = rc.call("range.willBeginDragging", session=s, offset=0)
    assert r["mode"] == "full", "willBeginDragging sets full, visible or not"
    st = rc.state(s)
    # full down at 0: display range [-500, 2000) rows 0..19 (preload only); the preload range's rows 20..34
    # get nothing.
    assert path_rows(st["display"]) == row_range(0, 10) and path_rows(st["preload"]) == row_range(0, 20)
    rc.call("host.memoryWarning")
    st = rc.state(s)
    assert st["mode"] == "lowMemory" and st["display"] == [] and path_rows(st["preload"]) == row_range(0, 10)


def test_invisible_session_starts_in_minimum_mode(conn: Conn) -> None:
    """docs/ranges.md: the mode is `minimum` until the first `willBeginDragging` while the session is visible, `full`
    after; `lowMemory` is what `host.memoryWarning` gives a session that is not visible (Texture likewise:
    ASRangeController gives `minimum` to a range controller that is not visible; `lowMemory` comes only from its
    memory-warning handler). A session created with `visible: false` reports `lowMemory`, with an empty display
    range, although no memory warning came."""
    created = conn.call("range.create", {"count": 100, "itemLength": 50, "viewport": VP, "visible": False})
    assert created["batchInFlight"] is None, created
    assert created["mode"] == "minimum", f"a session created invisible is in {created['mode']} mode"


def test_hiding_a_session_is_not_a_memory_warning(conn: Conn) -> None:
    """docs/ranges.md (see test_violation_invisible_session_starts_in_minimum_mode): a session dragged while visible is
    in
    `full` mode; `range.setVisible false` turns it to `lowMemory` (display emptied), which docs/ranges.md reserves for
    memory warnings. docs/ranges.md's rule keeps `full` (Texture's would give `minimum`); either, not `lowMemory`."""
    s = conn.call("range.create", {"count": 100, "itemLength": 50, "viewport": VP})["session"]
    assert conn.call("range.willBeginDragging", {"session": s, "offset": 0})["mode"] == "full"
    conn.call("range.didEndDecelerating", {"session": s, "offset": 500})
    hidden = conn.call("range.setVisible", {"session": s, "visible": False})
    assert hidden["mode"] in ("full", "minimum"), f"hidden without a memory warning, the session is {hidden['mode']}"
