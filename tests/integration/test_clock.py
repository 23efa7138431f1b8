"""The clock (rpc-schema/openrpc.json Clock, docs/virtual-clock.md): clock.now on a real clock, clock.advance
refused there (-32007); a virtual clock starts at 0 and moves only by clock.advance, which runs due timers in
time order each at its deadline, by zero changes nothing, refuses bad ms with data.path, and keeps the clock a
finite number; an unknown clock mode is a start-up error.

How the expectations are worked out and the hosts started: grhost.py.
"""

from __future__ import annotations

import math
import time

import pytest
from grhost import assert_error, assert_error_reply, next_is_pong, roundtrip


def test_clock_now_on_a_real_clock_is_a_nondecreasing_ms_float(host):
    c = host.connect()
    a = c.result("clock.now")
    b = c.result("clock.now")
    assert a["mode"] == "real" and b["mode"] == "real"
    assert isinstance(a["ms"], float) and 0 <= a["ms"] <= b["ms"], (a, b)


def test_clock_advance_on_a_real_clock_is_32007_virtual_clock_only(host):
    c = host.connect()
    err = assert_error(c.call("clock.advance", {"ms": 10}), -32007, kind="virtualClockOnly")
    assert err["data"].get("method") == "clock.advance", err
    next_is_pong(c)


def test_clock_advance_on_a_real_clock_never_moves_time_backwards_or_fires(host):
    c = host.connect()
    for params in ({"ms": 10}, [10], {"ms": 0}):
        err = assert_error_reply(c.call("clock.advance", params), -32007, kind="virtualClockOnly")
        assert err["data"].get("method") == "clock.advance", err
    assert c.result("clock.now")["mode"] == "real"


def test_virtual_clock_starts_at_0_and_moves_only_by_advance(vhost):
    c = vhost.connect()
    assert c.result("clock.now") == {"ms": 0.0, "mode": "virtual"}
    stack = c.result("stack.create", {"width": 100, "height": 100})["stack"]
    k = c.result("container.create", {"class": "Container"})["container"]
    c.result("stack.push", {"stack": stack, "container": k, "animated": True})
    for _ in range(50):
        c.ping()
    time.sleep(0.35)  # longer than the animation in real time: on a virtual clock nothing may happen
    assert c.result("clock.now")["ms"] == 0.0
    assert c.result("stack.info", {"stack": stack})["animating"] is True
    assert c.result("clock.advance", {"ms": 300}) == {"now": 300.0, "ms": 300.0, "fired": 1}
    assert c.result("stack.info", {"stack": stack})["animating"] is False


def test_clock_advance_runs_due_timers_in_time_order_each_at_its_deadline(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["lifecycle"]})
    pushed = []
    for at in (0, 100, 250):
        if at:
            c.result("clock.advance", {"ms": at - c.result("clock.now")["ms"]})
        s = c.result("stack.create", {"width": 100, "height": 100})["stack"]
        k = c.result("container.create", {"class": "Container"})["container"]
        c.result("stack.push", {"stack": s, "container": k, "animated": True})
        pushed.append(k)
    c.events.clear()
    r = c.result("clock.advance", {"ms": 1000})
    assert r == {"now": 1250.0, "ms": 1250.0, "fired": 3}, r
    did = [(e["params"]["container"], e["params"]["t"]) for e in c.events if e["params"]["event"] == "viewDidAppear"]
    assert did == [(pushed[0], 300.0), (pushed[1], 400.0), (pushed[2], 550.0)], did
    ts = [e["params"]["t"] for e in c.events]
    assert ts == sorted(ts), ts


def test_clock_advance_fires_a_timer_due_exactly_at_the_new_time(vhost):
    c = vhost.connect()
    s = c.result("stack.create", {"width": 100, "height": 100})["stack"]
    k = c.result("container.create", {"class": "Container"})["container"]
    c.result("stack.push", {"stack": s, "container": k, "animated": True})
    assert c.result("clock.advance", {"ms": 299.5})["fired"] == 0
    assert c.result("container.info", {"container": k})["appearance"] == "appearing"
    assert c.result("clock.advance", {"ms": 0.5}) == {"now": 300.0, "ms": 300.0, "fired": 1}
    assert c.result("container.info", {"container": k})["appearance"] == "appeared"


def test_clock_advance_by_zero_changes_nothing(vhost):
    c = vhost.connect()
    c.result("clock.advance", {"ms": 10})
    assert c.result("clock.advance", {"ms": 0}) == {"now": 10.0, "ms": 10.0, "fired": 0}


@pytest.mark.parametrize("params,path", [
    ({"ms": -1}, "ms"), ({"ms": -0.001}, "ms"), ({"ms": "5"}, "ms"), ({"ms": True}, "ms"), ({"ms": [5]}, "ms"),
    ({"ms": {"v": 5}}, "ms"), ({}, "ms"), ({"ms": 5, "extra": 1}, "extra"), (["x"], None),
])
def test_clock_advance_with_bad_ms_is_32602_and_time_does_not_move(vhost, params, path):
    c = vhost.connect()
    err = assert_error(c.call("clock.advance", params), -32602, kind="invalidParams")
    if path:
        assert err["data"]["path"] == path, err
    else:
        assert err["data"]["path"] in ("ms", "params[0]"), err
    assert c.result("clock.now")["ms"] == 0.0


def test_clock_advance_with_nan_literal_is_a_parse_error(vhost):
    c = vhost.connect()
    for lit in (b"NaN", b"Infinity", b"-Infinity"):
        r = roundtrip(c, b'{"jsonrpc":"2.0","id":1,"method":"clock.advance","params":{"ms":' + lit + b"}}\n")
        assert_error(r, -32700, id=None)
    assert c.result("clock.now")["ms"] == 0.0


def test_clock_advance_keeps_the_clock_a_finite_number(vhost):
    """rpc-schema/openrpc.json `clock.advance {ms}` and the schema: `clock.now` -> `{ms: number >= 0}`, events carry `t`
    (host clock, float). JSON cannot carry +infinity, so the clock always stays a finite number: an advance
    whose result would not be finite is refused with -32602 (path `ms`), and after two advances of 1e308 ms
    clock.now still answers a finite float."""
    c = vhost.connect()
    c.call("clock.advance", {"ms": 1e308})
    c.call("clock.advance", {"ms": 1e308})
    now = c.result("clock.now")["ms"]
    assert isinstance(now, float) and math.isfinite(now), f"clock.now ms is {now!r}"


def test_an_unknown_clock_mode_is_a_start_up_error(start_host):
    err = start_host.fail("--clock", "fast")
    assert err.returncode not in (0, None), err
