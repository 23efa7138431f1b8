"""Range sessions: range.create (count + itemLength, lengths, sections), range.state and its paths
filter, range.destroy, ownership by the creating connection, and a million items.

How the expected values are worked out, and the usual sessions ("setup A", "setup B", `SECTIONS`): rangemodel.py.
"""

from __future__ import annotations

import random
import re

import pytest
from rangemodel import (Content, INFO_KEYS, KINDS, RC, RangeConn, batches, expected_ranges, range_events, setup_a,
                        setup_b, span, split, state_paths)

pytestmark = pytest.mark.integration


@pytest.fixture
def host(vhost):
    """These tests' host runs a virtual clock; `rc` (conftest) is a range connection to it."""
    return vhost


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


def test_a_streamed_session_stays_its_owners_and_dies_with_destroy(start_host):
    host = start_host("--clock", "virtual")
    a, b = RangeConn(host.connect()), RangeConn(host.connect(), topics=())
    vp = {"width": 375, "height": 667}
    s1 = a.call("range.create", count=100, itemLength=44, viewport=vp)[0]["session"]
    s2 = a.call("range.create", count=100, itemLength=44, viewport=vp)[0]["session"]
    a.call("range.willBeginDragging", session=s1, offset=0)
    a.call("range.willBeginDragging", session=s2, offset=0)
    # Alternating sessions: each reply and each event names the session the call named.
    for i in range(1, 40):
        s = s1 if i % 3 else s2
        result, events = a.call("range.didScroll", session=s, offset=7.0 * i)
        assert result["session"] == s, (s, result)
        assert all(e["params"]["session"] == s for e in events), (s, events)
    top = lambda session: a.state(session)["visible"][0][1]  # noqa: E731 (first visible row)
    assert top(s1) == int(7 * 38 // 44) and top(s2) == int(7 * 39 // 44)
    # Right after streaming s1 here, another connection cannot name it.
    a.call("range.didScroll", session=s1, offset=400.0)
    error, _ = b.fail("range.didScroll", session=s1, offset=0.0)
    assert error["code"] == -32002 and error["data"]["kind"] == "unknownObject", error
    assert top(s1) == 9, "the refused call moved nothing"
    # Destroyed right after being streamed: unknown at once.
    a.call("range.didScroll", session=s1, offset=107.0)
    a.call("range.destroy", session=s1)
    error, _ = a.fail("range.didScroll", session=s1, offset=10.0)
    assert error["code"] == -32002, error
    assert a.call("range.didScroll", session=s2, offset=14.0)[0]["session"] == s2


def test_a_closed_connections_sessions_are_gone(host, rc):
    other = RC(host.connect())
    theirs = other.call("range.create", count=5, viewport={"width": 1, "height": 100})[0]["session"]
    n = rc.call("host.stats")[0]["sessions"]["range"]
    other.c.close()
    host.wait_stats(lambda st: st["sessions"]["range"] == n - 1, conn=rc.c)
    error, _ = rc.fail("range.state", session=theirs)
    assert error["code"] == -32002


def test_a_million_items_are_created_and_scrolled(rc):
    """docs/ranges.md: one update is O(log n + changes). Replies come within the usual timeouts (tests never time
    things; the benchmark reports the cost) and events stay the size of the change."""
    n, length, L = 1_000_000, 44.0, 667.0
    content = Content.uniform(n, length)
    reply, events = rc.call("range.create", count=n, itemLength=length, viewport={"width": 375, "height": L},
                            timeout=60)
    s = reply["session"]
    assert reply["count"] == n and reply["contentLength"] == n * length
    rc.call("range.willBeginDragging", session=s, timeout=30)
    rng = random.Random(7)
    offset, forward = 0.0, True
    for i in range(300):
        x = offset + rng.uniform(-300, 500) if i % 50 else rng.uniform(0, content.total - L)
        x = min(max(x, 0.0), content.total - L)
        _, events = rc.call("range.didScroll", session=s, offset=x, timeout=30)
        if x != offset:
            forward = x > offset
        offset = x
        event = split(events)[0]
        if event is not None:
            changed = sum(len(event[p][k]) for p in ("enter", "exit") for k in KINDS)
            assert changed <= 3 * 2 * 125, changed  # at most every row of two windows of 5 screens
    exp = expected_ranges(content, offset, L, "full", forward)
    assert state_paths(rc.state(s)) == {k: content.paths(exp[k]) for k in KINDS}
    reply, _ = rc.call("range.willEndDragging", session=s, velocity=-1e6, timeout=30)
    assert reply["targetOffset"] == 0
    rc.call("range.didEndDecelerating", session=s, offset=0, timeout=30)
    mid = n // 2
    rc.call("range.insertItems", session=s, at=[0, mid], lengths=[44.0] * 10, timeout=30)
    rc.call("range.deleteItems", session=s, paths=[[0, mid + 3], [0, 999_999]], timeout=30)
    reply, events = rc.call("range.didScroll", session=s, offset=mid * length, timeout=30)
    content = Content.uniform(n + 8, length)
    exp = expected_ranges(content, mid * length, L, "full", True)
    assert state_paths(rc.state(s)) == {k: content.paths(exp[k]) for k in KINDS}
