"""Bad input to range sessions: every bad param of every method is -32602 with data.path naming it, causes
no event and changes nothing; unknown, destroyed and foreign sessions are -32002 for every method; NaN and
Infinity are not JSON; huge values stay finite; the connection keeps working.

How the expected values are worked out, and the usual sessions ("setup A", "setup B", `SECTIONS`): rangemodel.py.
"""

from __future__ import annotations

import pytest
from openrpcdoc import Conn, VP, check_error, check_params
from rangemodel import (RC, assert_refused, batches, batches_of, make, make_sections, new_session, setup_a, setup_b,
                        snapshot, span, span_in, split)
from typing import Any

pytestmark = pytest.mark.integration


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


BAD_CREATE_PATHS = [
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


BAD_CREATE_PARAMS = [
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


@pytest.fixture
def host(vhost):
    """These tests' host runs a virtual clock; `rc` (conftest) is a range connection to it."""
    return vhost


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


def test_bad_create_params_name_their_path_and_create_nothing(rc):
    s = new_session(rc, count=1000, L=800)[0]["session"]
    before = snapshot(rc, s)
    for params, path in BAD_CREATE_PATHS:
        full = {"viewport": {"width": 400, "height": 800}, **params}
        if full["viewport"] is None:
            del full["viewport"]
        error, events = rc.fail("range.create", **full)
        assert error["code"] == -32602 and error["data"]["path"] == path, (params, error)
        assert events == [], (params, events)
    assert snapshot(rc, s) == before


@pytest.mark.parametrize("params,path", BAD_CREATE_PARAMS, ids=[p for _, p in BAD_CREATE_PARAMS])
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


def test_a_refused_create_does_not_use_up_a_session_id(rc):
    """Nothing changed: a refused range.create leaves no trace, not even a skipped id (ids are opaque,
    but the next session is the one the refused call would have been)."""
    first = rc.call("range.create", count=1, viewport={"width": 1, "height": 1})[0]["session"]
    n = int(first.split("-")[1])
    for bad in ({"lazy": "x"}, {"visible": 2}, {"templates": "x"}, {"strategy": "x"}):
        rc.fail("range.create", count=1, viewport={"width": 1, "height": 1}, **bad)
    nxt = rc.call("range.create", count=1, viewport={"width": 1, "height": 1})[0]["session"]
    assert nxt == f"r-{n + 1}", (first, nxt)


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


@pytest.mark.parametrize("method,params,path", UNKNOWN_MEMBER_CALLS, ids=[m for m, _, _ in UNKNOWN_MEMBER_CALLS])
def test_unknown_members_are_invalid_params_and_change_nothing(rc, method, params, path):
    s, _, _ = make_sections(rc)
    before = rc.snapshot(s)
    full = dict(params) if method == "range.create" else {"session": s, **params}
    error, events = rc.fail(method, **full)
    assert error["code"] == -32602 and error["data"]["path"] == path, (method, error)
    assert events == [] and rc.snapshot(s) == before


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


def test_a_bad_velocity_is_refused_and_changes_nothing(rc):
    s, _ = make(rc)
    before = rc.snapshot(s)
    for method in ("range.didScroll", "range.willBeginDragging"):
        error, events = rc.fail(method, session=s, offset=500, velocity="fast")
        assert error["code"] == -32602 and error["data"]["path"] == "velocity", error
        assert events == []
        assert rc.snapshot(s) == before


def test_huge_viewport_and_leading_screens_are_finite_arithmetic(rc):
    reply, events = rc.call("range.create", count=10, itemLength=100, viewport={"width": 320, "height": 1e300},
                            batch={"leadingScreens": 1e300})
    s = reply["session"]
    assert len(batches(events)) == 1  # 1000 < 1e300: short content
    assert rc.lists(s) == {"visible": span_in(0, 0, 9), "display": span_in(0, 0, 9), "preload": span_in(0, 0, 9)}
    reply, events = rc.call("range.create", count=100, itemLength=100, viewport={"width": 320, "height": 100},
                            batch={"leadingScreens": 1e300})
    assert len(batches(events)) == 1  # 9900 <= 1e302


def test_nan_and_infinity_are_not_json_and_change_nothing(rc):
    s, _, _ = setup_a(rc, batch={"leadingScreens": 0})
    before = snapshot(rc, s)
    for literal in (b"NaN", b"-Infinity"):
        rc.c.send_raw(b'{"jsonrpc":"2.0","id":1,"method":"range.insertItems","params":{"session":"' + s.encode()
                      + b'","at":[0,0],"lengths":[' + literal + b"]}}\n")
        reply = rc.c.read_json()
        assert reply["error"]["code"] == -32700, reply
    assert snapshot(rc, s) == before


def test_json_without_nan_or_infinity_is_a_parse_error_and_the_connection_stays(rc):
    s = new_session(rc, count=1000)[0]["session"]
    before = snapshot(rc, s)
    for literal in (b"NaN", b"Infinity", b"-Infinity", b"1e400"):
        rc.c.send_raw(b'{"jsonrpc":"2.0","id":7,"method":"range.didScroll","params":{"session":"' + s.encode()
                      + b'","offset":' + literal + b"}}\n")
        reply = rc.c.read_json()
        assert reply["id"] is None and reply["error"]["code"] == -32700, (literal, reply)
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


@pytest.mark.parametrize("member", ["leading", "trailing"])
def test_negative_tuning_buffer_names_the_member(conn: Conn, member: str) -> None:
    """docs/protocol.md: -32602's `data.path` names the bad field. A negative tuning buffer is reported at the buffer
    object, `tuning.full.display`, instead of `tuning.full.display.leading` / `.trailing` (a non-number there is
    named right, see BAD_PARAMS in tests/schema/test_openrpc.py)."""
    params = {"count": 3, "viewport": VP, "tuning": {"full": {"display": {member: -1}}}}
    assert check_params("range.create", params), "the document rejects the buffer"
    error = check_error(conn.request("range.create", params), "range.create", -32602, f"negative {member}")
    assert error["data"]["path"] == f"tuning.full.display.{member}", error


@pytest.mark.parametrize("params,path", [
    ({"count": 3, "viewport": {"width": 375, "height": 667, "depth": 1}}, "viewport.depth"),
    ({"count": 3, "viewport": VP, "strategy": {"name": "threshold", "ration": 0.5}}, "strategy.ration"),
], ids=["viewport", "strategy"])
def test_unknown_members_of_range_create_are_rejected(conn: Conn, params: dict[str, Any], path: str) -> None:
    """docs/protocol.md: invalid params are -32602 naming the field. range.create rejects unknown members of
    `sections[i]`,
    `tuning`, `batch` (and every method rejects unknown params), but silently ignores them in `viewport` and in a
    `strategy` object: a misspelt `ration` leaves the threshold at its default 0.7 without a word."""
    assert check_params("range.create", params), "the document rejects the member"
    reply = conn.request("range.create", params)
    assert "error" in reply, f"range.create accepted {path}: {reply['result']}"
    error = check_error(reply, "range.create", -32602, path)
    assert error["data"]["path"] == path, error
