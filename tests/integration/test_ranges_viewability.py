"""Viewability (docs/ranges.md, "Viewability"): `range.create {viewability: [{name, minPercent?, minMs?}]}` and the
`viewable` topic. An item is viewable for a threshold once at least `minPercent` of its length has been inside the
viewport [offset, offset + L) at every call since one that found it so, for `minMs` of host clock; a host timer
announces it at that deadline (under the virtual clock on `clock.advance` / `clock.settle`). `ended` follows only for
items announced viewable: `scrolledOut`, `hidden`, `removed`.

Every expected value is worked out by hand from the docs: the usual session is "setup B" of rangemodel.py (rows of
100 points, L = 1000), so at offset x the viewport holds rows x/100 ... x/100 + 9 whole, and at offset 50 row 0 and
row 10 are half inside. Batches are off (`leadingScreens: 0`) so that no `batch` event comes between. Every event
is checked against its `x-notifications` schema.
"""

from __future__ import annotations

import jsonschema
import pytest
from openrpcdoc import DOC, DOC_URI, REGISTRY
from rangemodel import RC, range_events

pytestmark = pytest.mark.integration

VIEWABLE = jsonschema.Draft7Validator({"$ref": DOC_URI + next(n["params"]["$ref"] for n in DOC["x-notifications"]
                                                           if n["name"] == "viewable")}, registry=REGISTRY)
NO_BATCH = {"leadingScreens": 0}


@pytest.fixture
def vc(vhost) -> RC:
    """A range connection on a virtual-clock host, subscribed to range and viewable events."""
    return RC(vhost.connect(), topics=("range", "viewable"))


def create(vc: RC, viewability, count=100, **params):
    """Setup B with `viewability`: (session, the create's events)."""
    params.setdefault("batch", NO_BATCH)
    reply, events = vc.call("range.create", count=count, itemLength=100, viewport={"width": 400, "height": 1000},
                            viewability=viewability, **params)
    return reply["session"], events


def views(events) -> list[tuple]:
    """The `viewable` events as (name, kind or kind:reason, row, percent), each checked against the schema."""
    out = []
    for e in events:
        if e["method"] != "viewable":
            continue
        p = e["params"]
        errors = list(VIEWABLE.iter_errors(p))
        assert not errors, (p, [x.message for x in errors])
        assert p["path"][0] == 0, p
        kind = p["kind"] + (":" + p["reason"] if p["kind"] == "ended" else "")
        out.append((p["name"], kind, p["path"][1], p["percent"]))
    return out


def rows(name, kind, rows_, percent=100.0) -> list[tuple]:
    return [(name, kind, r, percent) for r in rows_]


def now(vc: RC) -> float:
    return vc.call("clock.now")[0]["ms"]


def advance(vc: RC, ms: float):
    return vc.call("clock.advance", ms=ms)


def viewable_state(vc: RC, s: str) -> dict:
    return {name: [tuple(p) for p in paths] for name, paths in vc.state(s)["viewable"].items()}


def test_min_ms_zero_counts_at_once_after_the_range_event(vc):
    s, events = create(vc, [{"name": "half"}])
    # Rows 0..9 fill [0, 1000): each 100% inside, viewable at once (minMs 0) in the create's own call.
    assert views(events) == rows("half", "viewable", range(10))
    methods = [e["method"] for e in events]
    assert methods.index("range") < methods.index("viewable"), methods
    create_cause = range_events(events)[0]["cause"]
    assert all(e["params"]["cause"] == create_cause for e in events), events
    assert viewable_state(vc, s) == {"half": [(0, r) for r in range(10)]}
    # Offset 50: row 0 is [0, 100) with [50, 100) inside, row 10 [1000, 1100) with [1000, 1050): both exactly 50%,
    # which meets minPercent 50 (at least). Nothing ends, row 10 is new.
    _, events = vc.call("range.didScroll", session=s, offset=50)
    assert views(events) == [("half", "viewable", 10, 50.0)]
    # Offset 60: row 0 has 40% inside, row 10 60%.
    _, events = vc.call("range.didScroll", session=s, offset=60)
    assert views(events) == [("half", "ended:scrolledOut", 0, 40.0)]
    assert viewable_state(vc, s) == {"half": [(0, r) for r in range(1, 11)]}


def test_a_higher_threshold_is_not_met_by_half_an_item(vc):
    s, _ = create(vc, [{"name": "most", "minPercent": 51}])
    _, events = vc.call("range.didScroll", session=s, offset=50)
    # Row 0 (50%) ends; row 10 (50%) does not count.
    assert views(events) == [("most", "ended:scrolledOut", 0, 50.0)]
    assert viewable_state(vc, s) == {"most": [(0, r) for r in range(1, 10)]}


def test_held_for_min_ms_it_is_viewable_at_exactly_its_deadline(vc):
    t0 = now(vc)
    s, events = create(vc, [{"name": "seen", "minPercent": 50, "minMs": 1000}])
    assert views(events) == []
    create_cause = range_events(events)[0]["cause"]
    assert viewable_state(vc, s) == {"seen": []}
    reply, events = advance(vc, 999)
    assert views(events) == [] and reply["fired"] == 0
    reply, events = advance(vc, 1)
    assert reply["fired"] == 1, reply
    assert views(events) == rows("seen", "viewable", range(10))
    for e in events:
        assert e["params"]["t"] == t0 + 1000, e
        assert e["params"]["cause"] == {"timer": f"{s} viewability", "scheduledBy": create_cause}, e
    assert viewable_state(vc, s) == {"seen": [(0, r) for r in range(10)]}
    # Nothing is pending any more: the host is at rest.
    settled, events = vc.call("clock.settle")
    assert settled["settled"] and settled["fired"] == 0 and views(events) == []


def test_a_jitter_within_the_same_rows_keeps_the_time_already_held(vc):
    s, _ = create(vc, [{"name": "seen", "minMs": 300}])
    advance(vc, 100)
    # An observation at 100 ms: row 0 has 90% inside, row 10 10%; rows 0..9 still meet 50 since the create.
    _, events = vc.call("range.didScroll", session=s, offset=10)
    assert views(events) == []
    _, events = advance(vc, 199)
    assert views(events) == []
    # Announced at the create's time + 300 ms, row 0 at the percent of its last observation.
    _, events = advance(vc, 1)
    assert views(events) == [("seen", "viewable", 0, 90.0)] + rows("seen", "viewable", range(1, 10))


def test_dropping_below_before_min_ms_never_counts(vc):
    s, _ = create(vc, [{"name": "seen", "minMs": 1000}])
    advance(vc, 500)
    # Rows 0..9 leave after 500 ms: forgotten without a word; rows 20..29 are pending from now.
    _, events = vc.call("range.didScroll", session=s, offset=2000)
    assert views(events) == []
    _, events = advance(vc, 500)
    assert views(events) == []
    _, events = advance(vc, 500)
    assert views(events) == rows("seen", "viewable", range(20, 30))
    assert viewable_state(vc, s) == {"seen": [(0, r) for r in range(20, 30)]}


def test_a_fling_past_an_item_never_counts_it(vc):
    s, _ = create(vc, [{"name": "now", "minPercent": 100}, {"name": "dwell", "minMs": 100}])
    seen_now = set(range(10))
    vc.call("range.willBeginDragging", session=s)
    # Samples 3000 and 6000 at the same virtual time: rows 10..29 and 40..59 are jumped over.
    collected = []
    for x in (3000, 6000):
        _, events = vc.call("range.didScroll", session=s, offset=x)
        collected += views(events)
    vc.call("range.willEndDragging", session=s, velocity=0)
    _, events = vc.call("range.didEndDecelerating", session=s, offset=6000)
    collected += views(events)
    _, events = vc.call("clock.settle")
    collected += views(events)
    became = [(n, r) for n, k, r, _ in collected if k == "viewable"]
    # `now` (minMs 0) counts exactly the sampled screens; `dwell` only where the list came to rest.
    assert [r for n, r in became if n == "now"] == list(range(30, 40)) + list(range(60, 70))
    assert [r for n, r in became if n == "dwell"] == list(range(60, 70))
    ended = [(n, r) for n, k, r, _ in collected if k == "ended:scrolledOut"]
    assert ended == [("now", r) for r in sorted(seen_now)] + [("now", r) for r in range(30, 40)]
    assert viewable_state(vc, s) == {"now": [(0, r) for r in range(60, 70)], "dwell": [(0, r) for r in range(60, 70)]}


def test_two_thresholds_are_independent(vc):
    s, events = create(vc, [{"name": "any", "minPercent": 1}, {"name": "half", "minPercent": 50, "minMs": 200}])
    assert views(events) == rows("any", "viewable", range(10))
    # Offset 50: row 10 is 50% inside: `any` at once, `half` pending from now (rows 0..9 stay pending from 0).
    _, events = vc.call("range.didScroll", session=s, offset=50)
    assert views(events) == [("any", "viewable", 10, 50.0)]
    _, events = advance(vc, 200)
    assert views(events) == [("half", "viewable", 0, 50.0)] + rows("half", "viewable", range(1, 10)) + \
        [("half", "viewable", 10, 50.0)]
    # Offset 60: row 0 at 40% leaves `half` only.
    _, events = vc.call("range.didScroll", session=s, offset=60)
    assert views(events) == [("half", "ended:scrolledOut", 0, 40.0)]
    st = viewable_state(vc, s)
    assert st["any"] == [(0, r) for r in range(11)] and st["half"] == [(0, r) for r in range(1, 11)]


def test_set_visible_false_ends_everything_hidden_and_true_starts_over(vc):
    s, _ = create(vc, [{"name": "a"}, {"name": "b", "minMs": 100}])
    _, events = advance(vc, 100)
    assert views(events) == rows("b", "viewable", range(10))
    _, events = vc.call("range.setVisible", session=s, visible=False)
    assert views(events) == rows("a", "ended:hidden", range(10), 0.0) + rows("b", "ended:hidden", range(10), 0.0)
    assert viewable_state(vc, s) == {"a": [], "b": []}
    # An invisible list shows nothing: scrolling it counts nothing, and no timer waits.
    _, events = vc.call("range.didScroll", session=s, offset=500)
    assert views(events) == []
    settled, events = vc.call("clock.settle")
    assert settled["fired"] == 0 and views(events) == []
    _, events = vc.call("range.setVisible", session=s, visible=True)
    assert views(events) == rows("a", "viewable", range(5, 15))
    _, events = advance(vc, 100)
    assert views(events) == rows("b", "viewable", range(5, 15))


def test_deleting_a_viewable_item_ends_it_removed_and_the_next_one_slides_in(vc):
    s, _ = create(vc, [{"name": "a"}])
    _, events = vc.call("range.deleteItems", session=s, paths=[[0, 3]])
    # Row 3 ends `removed` (its path before the deletion), before the update's range event; old row 10, now
    # row 9, slides into [900, 1000) and becomes viewable after it.
    assert views(events) == [("a", "ended:removed", 3, 0.0), ("a", "viewable", 9, 100.0)]
    methods = [e["method"] for e in events]
    assert methods == ["viewable", "range", "viewable"], methods
    assert viewable_state(vc, s) == {"a": [(0, r) for r in range(10)]}


def test_deleting_a_pending_item_says_nothing(vc):
    s, _ = create(vc, [{"name": "a", "minMs": 100}])
    advance(vc, 50)
    _, events = vc.call("range.deleteItems", session=s, paths=[[0, 0], [0, 50]])
    assert views(events) == []
    # Old rows 1..9 are rows 0..8 now, pending since the create; old row 10 (now 9) slid in at 50 ms.
    _, events = advance(vc, 50)
    assert views(events) == rows("a", "viewable", range(9))
    _, events = advance(vc, 50)
    assert views(events) == [("a", "viewable", 9, 100.0)]
    assert viewable_state(vc, s) == {"a": [(0, r) for r in range(10)]}


def test_an_insert_before_viewable_items_shifts_their_paths_in_later_events(vc):
    s, _ = create(vc, [{"name": "a"}])
    vc.call("range.didScroll", session=s, offset=2000)
    # Two empty rows before row 0: nothing on screen moves (they have no length), rows 20..29 are 22..31 now.
    _, events = vc.call("range.insertItems", session=s, at=[0, 0], lengths=[0, 0])
    assert views(events) == []
    assert viewable_state(vc, s) == {"a": [(0, r) for r in range(22, 32)]}
    # One row down: old row 20 (path 22) leaves, old row 30 (path 32) comes.
    _, events = vc.call("range.didScroll", session=s, offset=2100)
    assert views(events) == [("a", "ended:scrolledOut", 22, 0.0), ("a", "viewable", 32, 100.0)]


def test_a_prepending_batch_moves_the_viewable_paths_and_nothing_else(vc):
    vc.call("events.subscribe", topics=["batch"])
    s, _ = create(vc, [{"name": "a"}], batch={"prepend": True})
    vc.call("range.didScroll", session=s, offset=3000)
    vc.call("range.willBeginDragging", session=s, offset=3000)
    vc.call("range.didScroll", session=s, offset=2500)
    # Released toward the head: the batch is judged at the target, 2000 <= 2 screens (rangemodel.py, setup B).
    _, events = vc.call("range.willEndDragging", session=s, velocity=-1, targetOffset=2000)
    [b] = [e["params"] for e in events if e["method"] == "batch"]
    assert b["prepend"] is True
    vc.call("range.didScroll", session=s, offset=2000)
    assert viewable_state(vc, s) == {"a": [(0, r) for r in range(20, 30)]}
    # Three rows before row 0 and the offset moved by 300: the same items on screen, three paths further on.
    _, events = vc.call("range.batchFetchDone", session=s, context=b["context"], lengths=[100, 100, 100])
    assert views(events) == []
    assert viewable_state(vc, s) == {"a": [(0, r) for r in range(23, 33)]}
    _, events = vc.call("range.didScroll", session=s, offset=2400)
    assert views(events) == [("a", "ended:scrolledOut", 23, 0.0), ("a", "viewable", 33, 100.0)]


def test_an_appended_batch_that_fills_the_screen_counts_its_rows(vc):
    # 5 rows of 100 in a viewport of 1000: a batch begins at once (short content).
    reply, events = vc.call("range.create", count=5, itemLength=100, viewport={"width": 400, "height": 1000},
                            viewability=[{"name": "a"}])
    s = reply["session"]
    assert views(events) == rows("a", "viewable", range(5))
    _, events = vc.call("range.batchFetchDone", session=s, context=reply["batchInFlight"], lengths=[100] * 10)
    assert views(events) == rows("a", "viewable", range(5, 10))


def test_a_session_without_viewability_sends_none_and_reports_none(vc):
    reply, events = vc.call("range.create", count=100, itemLength=100, viewport={"width": 400, "height": 1000})
    s = reply["session"]
    assert views(events) == []
    assert "viewable" not in vc.state(s)
    settled, _ = vc.call("clock.settle")
    assert settled["settled"]


def test_destroying_the_session_cancels_its_timer_and_sends_nothing(vc, vhost):
    s, _ = create(vc, [{"name": "a", "minMs": 100}])
    _, events = vc.call("range.destroy", session=s)
    assert views(events) == []
    settled, events = vc.call("clock.settle")
    assert settled["fired"] == 0 and settled["pending"]["timers"] == 0 and views(events) == []
    # A connection that closes with a pending session leaves no timer either (an observer sees no event).
    watcher = RC(vhost.connect(), topics=("viewable",), scope="all")
    other = RC(vhost.connect(), topics=("viewable",))
    create(other, [{"name": "a", "minMs": 100}])
    other.c.close()
    vhost.wait_stats(lambda st: st["sessions"]["range"] == 0, watcher.c)
    settled, _ = watcher.call("clock.settle")
    assert settled["fired"] == 0 and settled["pending"]["timers"] == 0, settled
    assert views(watcher.c.events) == []


def test_observers_see_the_events_and_unsubscribed_owners_do_not(vhost):
    owner = RC(vhost.connect(), topics=("range",))
    watcher = RC(vhost.connect(), topics=("viewable",), scope="all")
    _, owned = create(owner, [{"name": "a"}])
    assert [e for e in owned if e["method"] == "viewable"] == []
    # The owner's reply came after its events were queued for the observer: a ping of its own reads them.
    _, seen = watcher.call("host.ping")
    assert views(seen) == rows("a", "viewable", range(10))


BAD = [
    ([], "viewability"),
    ([{"name": f"t{i}"} for i in range(9)], "viewability"),
    ({"name": "a"}, "viewability"),
    (["a"], "viewability[0]"),
    ([{"minPercent": 50}], "viewability[0].name"),
    ([{"name": ""}], "viewability[0].name"),
    ([{"name": 5}], "viewability[0].name"),
    ([{"name": "a"}, {"name": "a"}], "viewability[1].name"),
    ([{"name": "a"}, {"name": "b", "minPercent": 0}], "viewability[1].minPercent"),
    ([{"name": "a", "minPercent": 100.5}], "viewability[0].minPercent"),
    ([{"name": "a", "minPercent": "50"}], "viewability[0].minPercent"),
    ([{"name": "a", "minMs": -1}], "viewability[0].minMs"),
    ([{"name": "a", "minMs": None}], "viewability[0].minMs"),
    ([{"name": "a", "threshold": 0.5}], "viewability[0].threshold"),
]


@pytest.mark.parametrize("viewability,path", BAD, ids=[p + ":" + str(i) for i, (_, p) in enumerate(BAD)])
def test_bad_viewability_is_refused_naming_the_field_and_creates_nothing(vc, viewability, path):
    before = vc.call("host.stats")[0]["sessions"]["range"]
    error, events = vc.fail("range.create", count=100, itemLength=100, viewport={"width": 400, "height": 1000},
                            viewability=viewability)
    assert error["code"] == -32602 and error["data"]["path"] == path, error
    assert events == []
    assert vc.call("host.stats")[0]["sessions"]["range"] == before
    settled, _ = vc.call("clock.settle")
    assert settled["settled"]
    # No id was used up.
    s, _ = create(vc, [{"name": "ok"}])
    assert s == "r-1"


def test_on_a_real_clock_the_timer_fires_by_itself(host):
    c = host.connect()
    c.result("events.subscribe", {"topics": ["viewable"]})
    t0 = c.result("clock.now")["ms"]
    created = c.result("range.create", {"count": 20, "itemLength": 100, "viewport": {"width": 400, "height": 1000},
                                        "batch": NO_BATCH, "viewability": [{"name": "seen", "minMs": 50}]})
    assert [e for e in c.events if e["method"] == "viewable"] == []
    got = [e for e in c.events if e["method"] == "viewable"]
    while len(got) < 10:  # each read is bounded; the timer is due 50 ms after the create
        msg = c.read_json(timeout=5.0)
        assert msg.get("method") == "viewable", msg
        got.append(msg)
    assert [tuple(e["params"]["path"]) for e in got] == [(0, r) for r in range(10)]
    for e in got:
        assert e["params"]["session"] == created["session"] and e["params"]["kind"] == "viewable", e
        assert e["params"]["t"] >= t0 + 50, e
        assert e["params"]["cause"]["timer"] == f"{created['session']} viewability", e
