"""JSON-RPC 2.0 requests and notifications that are valid: ids echoed exactly (strings, integers, floats, long
strings), params by name or by position, notifications never answered but still taking effect, pipelined
requests answered in order whatever --read-ahead says.

How the expectations are worked out and the hosts started: grhost.py.
"""

from __future__ import annotations

import json

import pytest
from grhost import assert_next_is_pong, assert_response_shape, encode, next_is_pong, note, req, roundtrip


@pytest.mark.parametrize("rid", [
    "abc", "", "ünïcødé ✓ 😀", "1", 0, 7, -3, 1.5, -2.25, 1e-7, 2 ** 53 + 1, 2 ** 63 - 1, -(2 ** 63), None,
], ids=lambda v: repr(v))
def test_id_is_echoed_exactly(host, rid):
    c = host.connect()
    r = roundtrip(c, encode(req("host.ping", id=rid)))
    assert r["result"] == {"pong": True}, r
    assert r["id"] == rid and type(r["id"]) is type(rid), f"sent id {rid!r}, got {r['id']!r}"


def test_float_ids_keep_their_value(host):
    c = host.connect()
    for text, value in [(b"0.1", 0.1), (b"1e3", 1000.0), (b"-0.5", -0.5), (b"1.0", 1.0)]:
        r = roundtrip(c, b'{"jsonrpc":"2.0","id":' + text + b',"method":"host.ping"}\n')
        assert r["result"] == {"pong": True} and r["id"] == value and isinstance(r["id"], float), (text, r)


@pytest.mark.parametrize("text,value", [
    (b"-0", 0), (b"1e2", 100.0), (b"1E2", 100.0), (b"1e308", 1e308), (b"-1.7976931348623157e308", -1.7976931348623157e308),
    (b"5e-324", 5e-324), (b"0.1", 0.1), (b"-0.0", -0.0),
])
def test_numeric_ids_come_back_with_the_same_value(host, text, value):
    """JSON-RPC §5: the Response id "MUST be the same as the value of the id member in the Request"."""
    c = host.connect()
    c.send_raw(b'{"jsonrpc":"2.0","id":' + text + b',"method":"host.ping"}\n')
    r = c.read_json()
    assert r["result"] == {"pong": True}, r
    assert r["id"] == value, (text, r)
    assert isinstance(r["id"], type(value)), (text, r)


def test_a_very_long_string_id_is_echoed_exactly(host):
    c = host.connect()
    rid = "é" * 100_000 + "\u2028\"\\end"
    c.send(req("host.ping", id=rid))
    r = c.read_json(timeout=10)
    assert r["id"] == rid and r["result"] == {"pong": True}


def test_an_id_with_duplicate_members_does_not_break_the_reply(host):
    """A request with a duplicate key still gets exactly one well-formed reply."""
    c = host.connect()
    c.send_raw(b'{"jsonrpc":"2.0","id":1,"id":2,"method":"host.ping"}\n')
    r = c.read_json()
    assert_response_shape(r)
    assert_next_is_pong(c)


def test_params_as_array_and_as_object_are_both_accepted(vhost):
    c = vhost.connect()
    assert c.result("clock.advance", [2.5]) == {"now": 2.5, "ms": 2.5, "fired": 0}
    assert c.result("clock.advance", {"ms": 2.5}) == {"now": 5.0, "ms": 5.0, "fired": 0}
    assert c.result("events.subscribe", [["pool", "host"], "all"]) == {"topics": ["pool", "host"], "scope": "all"}
    assert c.result("host.memoryWarning", ["critical"])["level"] == "critical"
    assert c.result("host.ping", []) == {"pong": True}
    assert c.result("host.ping", {}) == {"pong": True}


def test_notifications_are_never_answered_whatever_happens(host):
    c = host.connect()
    for m in (note("host.ping"), note("nope"), note("host.ping", {"bad": 1}), note("clock.advance", {"ms": 5}),
              note("events.subscribe", {"topics": ["nope"]}), note("host.info", [1, 2])):
        c.send(m)
    next_is_pong(c)


def test_a_notification_still_takes_effect(host):
    c = host.connect()
    c.send(note("classes.define", {"name": "ByNotification"}))
    names = [x["name"] for x in c.result("classes.list")["classes"]]
    assert "ByNotification" in names, names


def test_pipelined_requests_are_answered_in_order(host):
    c = host.connect()
    c.send_raw(b"".join(encode(req("host.ping", id=i)) for i in range(300)))
    assert [c.read_json()["id"] for _ in range(300)] == list(range(300))


def test_read_ahead_flag_is_checked_and_every_setting_answers_pipelined_lines_in_order(start_host):
    """`serve --read-ahead auto|on|off` (parsing pipelined lines on a second thread): a bad value is refused at
    start-up with a message naming the flag; with each setting, a burst of requests, notifications and bad lines
    written at once is answered in order, byte for byte the same."""
    err = start_host.fail("--read-ahead", "sometimes")
    assert err.returncode not in (0, None) and "--read-ahead" in err.stderr, err
    burst = b"".join(
        b'{"jsonrpc":"2.0","id":%d,"method":"host.ping"}\n' % i if i % 4 else
        (b'{"jsonrpc":"2.0","method":"host.ping"}\n' if i % 8 else b'{"jsonrpc":"2.0","id":%d,"method"\n' % i)
        for i in range(600))
    outputs = []
    for setting in ("on", "off", "auto"):
        c = start_host("--read-ahead", setting).connect()
        c.send_raw(burst)
        lines = [c.read_line() for _ in range(525)]  # 600 lines minus 75 notifications
        next_is_pong(c)
        outputs.append(lines)
        ids = [json.loads(l).get("id") for l in lines]
        assert [i for i in ids if i is not None] == [i for i in range(600) if i % 4], setting
    assert outputs[0] == outputs[1] == outputs[2]
