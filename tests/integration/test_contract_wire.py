"""docs/protocol.md (wire protocol), rpc-schema/openrpc.json (host, events, clock, tasks, classes methods) and
docs/security.md (running it),
rule by rule, over the real socket.

One focused test per rule; where the contract is silent, a test checks what a user of a serious JSON-RPC
daemon would expect. Everything is bounded: the virtual clock, tasks.drain and bounded reads, no sleeping
and hoping.
"""

from __future__ import annotations

import json
import math
import os
import re
import signal
import socket
import stat
import struct
import time
from pathlib import Path

import pytest
from grhost import LineConn, base_env, encode, nested_ping, note, padded_ping, req

REPO = Path(__file__).resolve().parents[2]
MiB = 1 << 20
TOPICS = ["lifecycle", "pool", "page", "range", "prefetch", "batch", "host"]
KNOWN_CODES = {-32700, -32600, -32601, -32602, -32603, -32001, -32002, -32003, -32004, -32005, -32006, -32007}
SCOPE_METHODS = [
    "rpc.discover", "host.ping", "host.info", "host.stats", "host.memoryWarning", "host.shutdown",
    "events.subscribe", "events.unsubscribe", "clock.now", "clock.advance", "tasks.status", "tasks.drain",
    "classes.list", "classes.define",
]


# ---------------------------------------------------------------------------------------------------
# helpers


def roundtrip(c: LineConn, data: bytes, timeout: float = 5.0):
    """Sends raw bytes (one message line) and returns the next line, parsed."""
    c.send_raw(data)
    return c.read_json(timeout)


def assert_error(msg, code: int, *, id="<any>", kind: str | None = None, path: str | None = None) -> dict:
    assert isinstance(msg, dict), f"expected one error object, got {msg!r}"
    assert msg.get("jsonrpc") == "2.0", msg
    assert "result" not in msg and "error" in msg, msg
    if id != "<any>":
        assert "id" in msg and msg["id"] == id and type(msg["id"]) is type(id), f"id should be {id!r}: {msg}"
    err = msg["error"]
    assert err["code"] == code, f"expected {code}: {msg}"
    assert isinstance(err.get("message"), str) and err["message"], msg
    assert isinstance(err.get("data"), dict) and isinstance(err["data"].get("kind"), str) and err["data"]["kind"], msg
    if kind is not None:
        assert err["data"]["kind"] == kind, msg
    if path is not None:
        assert err["data"].get("path") == path, msg
    return err


def next_is_pong(c: LineConn, rid="mark") -> None:
    """Sends a ping and asserts that the very next line is its reply (nothing was written before it)."""
    c.send(req("host.ping", id=rid))
    line = c.read_json()
    assert line == {"jsonrpc": "2.0", "id": rid, "result": {"pong": True}}, f"unexpected line before the ping reply: {line}"


def ids_pattern(prefix: str):
    return re.compile(rf"^{prefix}-[1-9][0-9]*$")


def whitespace_outside_strings(line: bytes) -> list[int]:
    """Positions of JSON whitespace bytes that are not inside a string."""
    out, in_str, esc = [], False, False
    for i, b in enumerate(line):
        if in_str:
            if esc:
                esc = False
            elif b == 0x5C:
                esc = True
            elif b == 0x22:
                in_str = False
        elif b == 0x22:
            in_str = True
        elif b in (0x20, 0x09, 0x0A, 0x0D):
            out.append(i)
    return out


def lifecycle(events, container=None):
    return [(e["params"]["container"], e["params"]["event"]) for e in events
            if e["method"] == "lifecycle" and (container is None or e["params"]["container"] == container)]


def read_events_until(c: LineConn, pred, timeout: float = 5.0) -> list[dict]:
    """Reads notifications into c.events (bounded) until pred(c.events) holds."""
    deadline = time.monotonic() + timeout
    while not pred(c.events):
        left = deadline - time.monotonic()
        assert left > 0, f"condition not met within {timeout} s; events {c.events}"
        try:
            msg = c.read_json(left)
        except TimeoutError:
            continue
        assert isinstance(msg, dict) and "id" not in msg and "method" in msg, msg
        c.events.append(msg)
    return c.events


# ===================================================================================================
# docs/protocol.md Transport and framing


def test_crlf_and_lf_terminated_requests_in_one_write_are_all_answered(host):
    c = host.connect()
    c.send_raw(encode(req("host.ping", id=1))[:-1] + b"\r\n" + encode(req("host.ping", id=2))
               + encode(req("host.ping", id=3))[:-1] + b"\r\n")
    assert [c.read_json()["id"] for _ in range(3)] == [1, 2, 3]
    c.assert_quiet(0.05)


def test_output_lines_end_with_lf_only_even_when_the_request_used_crlf(host):
    c = host.connect()
    c.send_raw(encode(req("host.ping", id="x"))[:-1] + b"\r\n")
    raw = c.read_line()
    assert raw == b'{"jsonrpc":"2.0","id":"x","result":{"pong":true}}', raw


def test_strings_with_control_characters_are_escaped_one_line_per_message(host):
    c = host.connect()
    tricky = "a\nb\rc\td\x00e\x1ff\x7f\"\\/"
    c.send(req("host.ping", id=tricky))
    line = c.read_line()
    assert b"\n" not in line and b"\r" not in line and b"\x00" not in line and b"\t" not in line, line
    assert json.loads(line)["id"] == tricky
    # A defined class name and hook output with newlines travel escaped too.
    c.result("classes.define", {"name": "Multi\nLine", "hooks": {"configure": {"output": "x\ny\r\n"}}})
    cont = c.result("container.create", {"class": "Multi\nLine"})["container"]
    c.send(req("container.configure", {"container": cont, "data": {"s": "1\n2"}}, id="cfg"))
    line = c.read_line()
    assert b"\r" not in line, line
    assert json.loads(line)["result"]["output"] == "x\ny\r\n"
    next_is_pong(c)


def test_output_escapes_unicode_line_separators(host):
    """docs/protocol.md "Output is compact JSON, never containing a raw newline." U+2028 / U+2029 / U+0085 are Unicode
    line terminators: Python's str.splitlines(), and many editors and log shippers, split a line there.
    The host escapes them (\\u2028 ...), as ensure-ascii or JS-safe JSON encoders do, so a reply whose id
    contains them is still exactly one line and round-trips to the same id."""
    c = host.connect()
    rid = "a\u2028b\u2029c\u0085d"
    c.send(req("host.ping", id=rid))
    line = c.read_line()
    assert json.loads(line)["id"] == rid
    text = line.decode("utf-8")
    assert len(text.splitlines()) == 1, f"the reply splits into {len(text.splitlines())} lines: {line!r}"


def test_output_is_compact_for_results_errors_batches_and_events(vhost):
    c = vhost.connect()
    c.send_raw(b'{ "jsonrpc" : "2.0", "id" : 1, "method" : "events.subscribe", "params" : { "topics" : [ "host" ] } }\n')
    lines = [c.read_line()]
    c.send_raw(b'[ {"jsonrpc":"2.0","id":2,"method":"host.info"} , {"jsonrpc":"2.0","id":3,"method":"nope"} ]\n')
    lines.append(c.read_line())
    c.send_raw(b'{"jsonrpc":"2.0","id":4,"method":"host.memoryWarning"}\n')
    lines += [c.read_line(), c.read_line()]  # the event, then the reply
    c.send_raw(b"{ nope\n")
    lines.append(c.read_line())
    for line in lines:
        assert whitespace_outside_strings(line) == [], f"not compact: {line[:300]!r}"
        json.loads(line)


def test_message_of_exactly_the_default_limit_is_accepted(host):
    c = host.connect()
    assert c.result("host.info")["limits"]["maxMessageBytes"] == MiB
    r = roundtrip(c, padded_ping(MiB, "exact") + b"\n", timeout=10)
    # host.ping rejects the unknown param (-32602): the point is that it was read as a request.
    assert r["id"] == "exact", r
    assert_error(r, -32602, path="pad")


def test_message_one_byte_over_the_default_limit_is_32600_id_null_and_connection_survives(host):
    c, other = host.connect(), host.connect()
    c.send_raw(padded_ping(MiB + 1, "over") + b"\n" + encode(req("host.ping", id="after")))
    assert_error(c.read_json(timeout=10), -32600, id=None, kind="messageTooLarge")
    assert c.read_json() == {"jsonrpc": "2.0", "id": "after", "result": {"pong": True}}
    next_is_pong(c)
    next_is_pong(other)


def test_oversized_batch_line_is_also_32600_id_null(start_host):
    host = start_host("--max-message-bytes", "512")
    c = host.connect()
    batch = json.dumps([req("host.ping", id=i) for i in range(20)]).encode()
    assert len(batch) > 512
    assert_error(roundtrip(c, batch + b"\n"), -32600, id=None, kind="messageTooLarge")
    next_is_pong(c)


def test_blank_and_whitespace_only_lines_get_no_reply(host):
    c = host.connect()
    c.send_raw(b"\n\r\n \t \r\n")
    next_is_pong(c)


def test_multibyte_characters_split_across_writes_are_reassembled(host):
    c = host.connect()
    data = encode(req("host.ping", id="é😀✓"))
    for i in range(len(data)):
        c.send_raw(data[i:i + 1])
    assert c.read_json() == {"jsonrpc": "2.0", "id": "é😀✓", "result": {"pong": True}}


def test_an_endless_line_is_discarded_not_buffered(host):
    """"a longer line ... is discarded up to its newline": 32 MiB with no newline must not grow the host."""
    a, b = host.connect(), host.connect()
    rss0 = b.result("host.stats")["rssBytes"]
    chunk = b"x" * MiB
    for _ in range(32):
        a.send_raw(chunk)
    b.ping()
    a.send_raw(b"\n" + encode(req("host.ping", id="after")))
    assert_error(a.read_json(timeout=10), -32600, id=None, kind="messageTooLarge")
    assert a.read_json()["id"] == "after"
    rss1 = b.result("host.stats")["rssBytes"]
    assert rss1 - rss0 < 16 * MiB, f"RSS grew by {(rss1 - rss0) >> 20} MiB"


def test_tcp_uses_the_same_framing(start_host):
    host = start_host("--listen", "tcp:127.0.0.1:0", "--max-message-bytes", "1024")
    c = host.connect_tcp()
    c.send_raw(encode(req("host.ping", id=1))[:-1] + b"\r\n")
    assert c.read_json()["id"] == 1
    assert_error(roundtrip(c, b"[]\n"), -32600, id=None)
    assert_error(roundtrip(c, b"7\n"), -32600, id=None)
    assert_error(roundtrip(c, b"{\n"), -32700, id=None)
    assert_error(roundtrip(c, padded_ping(1025, "big") + b"\n"), -32600, id=None, kind="messageTooLarge")
    c.send([note("host.ping")])
    next_is_pong(c)


# ===================================================================================================
# docs/protocol.md JSON-RPC 2.0: batches


def test_empty_batch_is_one_error_object_not_an_array(host):
    c = host.connect()
    r = roundtrip(c, b"[]\n")
    assert not isinstance(r, list), r
    assert_error(r, -32600, id=None)
    next_is_pong(c)


def test_empty_batch_with_whitespace_is_one_error_object(host):
    c = host.connect()
    r = roundtrip(c, b"[ \t ]\r\n")
    assert_error(r, -32600, id=None)
    next_is_pong(c)


def test_batch_of_only_notifications_gets_no_reply_at_all(host):
    c = host.connect()
    c.send([note("host.ping"), note("no.such.method"), note("host.ping", {"bad": 1}),
            note("clock.advance", {"ms": 5})])
    next_is_pong(c)


def test_mixed_batch_is_one_array_with_replies_only_for_requests(host):
    c = host.connect()
    c.send([note("host.ping"), req("host.ping", id="a"), note("nope"), req("nope", id="b"),
            req("host.ping", {"x": 1}, id=7), note("host.stats")])
    r = c.read_json()
    assert isinstance(r, list), r
    by_id = {m["id"]: m for m in r}
    assert len(r) == 3 and set(by_id) == {"a", "b", 7}, r
    assert by_id["a"]["result"] == {"pong": True}
    assert_error(by_id["b"], -32601, kind="methodNotFound")
    assert_error(by_id[7], -32602, path="x")
    next_is_pong(c)


def test_batch_of_invalid_entries_gets_an_error_per_entry(host):
    c = host.connect()
    r = roundtrip(c, b'[1, "x", null, [], {"jsonrpc":"2.0","method":5}]\n')
    assert isinstance(r, list) and len(r) == 5, r
    for m in r:
        assert_error(m, -32600, id=None)
    next_is_pong(c)


def test_batch_of_one_request_is_answered_with_a_one_element_array(host):
    c = host.connect()
    r = roundtrip(c, encode([req("host.ping", id="only")]))
    assert r == [{"jsonrpc": "2.0", "id": "only", "result": {"pong": True}}], r


def test_batch_with_duplicate_ids_answers_each(host):
    c = host.connect()
    r = roundtrip(c, encode([req("host.ping", id=1), req("host.ping", id=1)]))
    assert isinstance(r, list) and [m["id"] for m in r] == [1, 1], r


def test_batch_of_256_is_accepted_and_257_is_one_error_object(host):
    c = host.connect()
    r = roundtrip(c, encode([req("host.ping", id=i) for i in range(256)]))
    assert isinstance(r, list) and sorted(m["id"] for m in r) == list(range(256))
    r = roundtrip(c, encode([req("host.ping", id=i) for i in range(257)]))
    err = assert_error(r, -32600, id=None, kind="batchTooLarge")
    assert err["data"].get("max") == 256, err
    # None of the 257 ran: the next line is the reply to the next request.
    next_is_pong(c)


def test_batch_of_257_notifications_is_rejected_without_running_any(vhost):
    c = vhost.connect()
    r = roundtrip(c, encode([note("clock.advance", {"ms": 1}) for _ in range(257)]))
    assert_error(r, -32600, id=None, kind="batchTooLarge")
    assert c.result("clock.now")["ms"] == 0


def test_events_caused_by_batch_entries_come_before_the_batch_reply(vhost):
    c = vhost.connect()
    c.send([req("events.subscribe", {"topics": ["host"]}, id="s"), req("host.memoryWarning", id="m"),
            note("host.memoryWarning", {"level": "critical"})])
    first, second, third = c.read_json(), c.read_json(), c.read_json()
    assert first["method"] == "host" and first["params"]["level"] == "warning", first
    assert second["method"] == "host" and second["params"]["level"] == "critical", second
    assert isinstance(third, list) and [m["id"] for m in third] == ["s", "m"], third
    next_is_pong(c)


# ===================================================================================================
# docs/protocol.md JSON-RPC 2.0: ids, params, request validation


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


@pytest.mark.parametrize("big", [12345678901234567890, -9223372036854775809])
def test_integer_beyond_int64_is_a_parse_error_that_says_so(host, big):
    """docs/protocol.md: ids are string/number/null. Jansson reads integers as signed 64-bit (RFC 8259 §6 lets a parser
    limit
    the range), so a longer one cannot be read at all: -32700 with id null, `data.kind` numberOutOfRange and the
    position, and the connection keeps working. Ids up to the 64-bit limits are echoed exactly."""
    c = host.connect()
    r = roundtrip(c, b'{"jsonrpc":"2.0","id":%d,"method":"host.ping"}\n' % big)
    assert r["id"] is None and r["error"]["code"] == -32700, r
    assert r["error"]["data"]["kind"] == "numberOutOfRange" and "64 bits" in r["error"]["message"], r
    assert isinstance(r["error"]["data"]["position"], int), r
    next_is_pong(c)
    for edge in (2**63 - 1, -2**63):
        assert roundtrip(c, b'{"jsonrpc":"2.0","id":%d,"method":"host.ping"}\n' % edge)["id"] == edge


@pytest.mark.parametrize("bad_id", [b"true", b"false", b"{}", b'{"a":1}', b"[]", b"[1]"])
def test_id_of_a_wrong_type_is_32600_with_id_null(host, bad_id):
    c = host.connect()
    r = roundtrip(c, b'{"jsonrpc":"2.0","id":' + bad_id + b',"method":"host.ping"}\n')
    assert_error(r, -32600, id=None, path="id")
    next_is_pong(c)


def test_params_as_array_and_as_object_are_both_accepted(vhost):
    c = vhost.connect()
    assert c.result("clock.advance", [2.5]) == {"now": 2.5, "ms": 2.5, "fired": 0}
    assert c.result("clock.advance", {"ms": 2.5}) == {"now": 5.0, "ms": 5.0, "fired": 0}
    assert c.result("events.subscribe", [["pool", "host"], "all"]) == {"topics": ["pool", "host"], "scope": "all"}
    assert c.result("host.memoryWarning", ["critical"])["level"] == "critical"
    assert c.result("host.ping", []) == {"pong": True}
    assert c.result("host.ping", {}) == {"pong": True}


@pytest.mark.parametrize("params", [b'"x"', b"5", b"1.5", b"true", b"null"])
def test_params_that_are_not_object_or_array_are_32600_echoing_the_id(host, params):
    c = host.connect()
    r = roundtrip(c, b'{"jsonrpc":"2.0","id":"p","method":"host.ping","params":' + params + b"}\n")
    assert_error(r, -32600, id="p", path="params")
    next_is_pong(c)


@pytest.mark.parametrize("text", [b"1", b"-2.5", b'"x"', b'""', b"null", b"true", b"false"])
def test_top_level_scalar_is_32600_not_a_parse_error(host, text):
    c = host.connect()
    assert_error(roundtrip(c, text + b"\n"), -32600, id=None)
    next_is_pong(c)


@pytest.mark.parametrize("text", [
    b"{", b'{"jsonrpc":"2.0",}', b"[1,]", b"{'jsonrpc':'2.0'}", b"nul", b"{}}", b"[]]", b'{"a":1} x',
    b'{"jsonrpc":"2.0","id":1,"method":"host.ping"}{"a":1}', b"\xff", b'"\xc3\x28"', b"NaN", b"+1", b"01",
])
def test_invalid_json_is_32700_with_id_null(host, text):
    c = host.connect()
    assert_error(roundtrip(c, text + b"\n"), -32700, id=None, kind="parseError")
    next_is_pong(c)


@pytest.mark.parametrize("jsonrpc", [None, '"1.0"', "2.0", '"2"', '"2.00"', "null", '["2.0"]'],
                         ids=["missing", "1.0", "number", "2", "2.00", "null", "array"])
def test_missing_or_wrong_jsonrpc_is_32600_echoing_the_id(host, jsonrpc):
    c = host.connect()
    member = b"" if jsonrpc is None else b'"jsonrpc":' + jsonrpc.encode() + b","
    r = roundtrip(c, b"{" + member + b'"id":"j","method":"host.ping"}\n')
    assert_error(r, -32600, id="j", path="jsonrpc")
    next_is_pong(c)


@pytest.mark.parametrize("method", [None, "5", "null", "[]", '{"a":1}', "true"],
                         ids=["missing", "number", "null", "array", "object", "bool"])
def test_method_missing_or_not_a_string_is_32600_echoing_the_id(host, method):
    c = host.connect()
    member = b"" if method is None else b',"method":' + method.encode()
    r = roundtrip(c, b'{"jsonrpc":"2.0","id":42' + member + b"}\n")
    assert_error(r, -32600, id=42, path="method")
    next_is_pong(c)


def test_invalid_request_without_id_is_still_answered_with_id_null(host):
    """JSON-RPC 2.0: an invalid Request object gets an error Response (id null), even with no id."""
    c = host.connect()
    assert_error(roundtrip(c, b'{"jsonrpc":"2.0","method":5}\n'), -32600, id=None)
    assert_error(roundtrip(c, b'{"method":"host.ping"}\n'), -32600, id=None)


def test_unknown_method_is_32601_with_data_naming_it(host):
    c = host.connect()
    err = assert_error(c.call("no.such.method"), -32601, kind="methodNotFound")
    assert err["data"].get("method") == "no.such.method", err
    # Method names are case-sensitive.
    assert_error(c.call("HOST.PING"), -32601, kind="methodNotFound")
    assert_error(c.call("rpc.nothing"), -32601, kind="methodNotFound")


@pytest.mark.parametrize("method", SCOPE_METHODS[:4] + ["host.shutdown", "clock.now", "tasks.status",
                                                        "tasks.drain", "classes.list"])
def test_methods_without_params_reject_any_member_with_data_path(host, method):
    c = host.connect()
    assert_error(c.call(method, {"bogus": 1}), -32602, kind="invalidParams", path="bogus")
    assert_error(c.call(method, [1]), -32602, kind="invalidParams", path="params[0]")
    assert host.is_running()
    next_is_pong(c)


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


def test_every_error_reply_carries_a_known_code_a_message_and_data_kind(vhost):
    c = vhost.connect()
    probes = [b"{\n", b"7\n", b"[]\n", encode(req("nope")), encode(req("host.ping", {"x": 1})),
              encode(req("container.info", {"container": "c-999"})), encode(req("container.create", {"class": "Nope"})),
              encode(req("classes.define", {"name": "Container"})), b'{"jsonrpc":"2.0","id":1}\n',
              encode(req("events.subscribe", {"topics": ["x"]})), encode([1]), nested_ping(65, "deep") + b"\n"]
    for p in probes:
        r = roundtrip(c, p)
        for m in (r if isinstance(r, list) else [r]):
            err = m["error"]
            assert err["code"] in KNOWN_CODES, m
            assert isinstance(err["message"], str) and err["message"], m
            assert isinstance(err["data"]["kind"], str) and err["data"]["kind"], m
            assert set(m) == {"jsonrpc", "id", "error"}, m


# ===================================================================================================
# docs/protocol.md Limits: depth


def test_depth_64_is_accepted_and_65_is_32600_id_null(host):
    c = host.connect()
    assert c.result("host.info")["limits"]["maxDepth"] == 64
    r = roundtrip(c, nested_ping(64, "d64") + b"\n")
    assert r["id"] == "d64" and r["error"]["code"] == -32602, r  # read as a request
    assert_error(roundtrip(c, nested_ping(65, "d65") + b"\n"), -32600, id=None, kind="tooDeep")
    next_is_pong(c)


def test_depth_counts_the_batch_array(host):
    c = host.connect()
    inner = b"[" * 62 + b"]" * 62   # batch (1) + request (1) + 62 = 64
    r = roundtrip(c, b'[{"jsonrpc":"2.0","id":1,"method":"host.ping","params":' + inner + b"}]\n")
    assert isinstance(r, list) and r[0]["id"] == 1, r
    inner = b"[" * 63 + b"]" * 63   # 65
    assert_error(roundtrip(c, b'[{"jsonrpc":"2.0","id":1,"method":"host.ping","params":' + inner + b"}]\n"),
                 -32600, id=None, kind="tooDeep")


# ===================================================================================================
# docs/protocol.md Events


def test_event_seq_starts_at_1_and_increases_by_one_across_topics(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["lifecycle", "pool", "host"]})
    c.result("classes.define", {"name": "Card"})
    c.result("host.memoryWarning")
    c.result("showRendered", {"class": "Card"})
    c.result("tasks.drain")
    c.result("host.memoryWarning", {"level": "critical"})
    seqs = [e["params"]["seq"] for e in c.events]
    assert len(seqs) > 5 and seqs == list(range(1, len(seqs) + 1)), seqs
    assert {e["method"] for e in c.events} == {"lifecycle", "pool", "host"}


def test_event_t_is_a_float_in_host_clock_ms(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["host", "lifecycle"]})
    c.result("host.memoryWarning")
    c.result("clock.advance", {"ms": 12.5})
    c.result("host.memoryWarning")
    c.result("container.create", {"class": "Container"})
    ts = [e["params"]["t"] for e in c.events]
    assert all(isinstance(t, float) for t in ts), ts
    assert ts == [0.0, 12.5, 12.5], ts


def test_events_have_method_topic_and_no_id(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": TOPICS})
    c.result("container.create", {"class": "Container"})
    c.result("host.memoryWarning")
    assert c.events
    for e in c.events:
        assert set(e) == {"jsonrpc", "method", "params"} and e["jsonrpc"] == "2.0", e
        assert e["method"] in TOPICS and isinstance(e["params"], dict), e


def test_seq_keeps_increasing_after_unsubscribe_and_resubscribe(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["host"]})
    c.result("host.memoryWarning")
    assert c.result("events.unsubscribe", {"topics": ["host"]}) == {"topics": [], "scope": "own"}
    c.result("host.memoryWarning")
    c.result("events.subscribe", {"topics": ["host"]})
    c.result("host.memoryWarning")
    assert [e["params"]["seq"] for e in c.events] == [1, 2], c.events


def test_events_caused_by_a_request_are_written_before_its_reply(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["lifecycle"]})
    stack = c.result("stack.create", {"width": 100, "height": 100})["stack"]
    cont = c.result("container.create", {"class": "Container"})["container"]
    c.send(req("stack.push", {"stack": stack, "container": cont}, id="push"))
    msgs = []
    while True:
        m = c.read_json()
        msgs.append(m)
        if "id" in m:
            break
    assert msgs[-1]["id"] == "push" and "result" in msgs[-1], msgs
    hooks = [m["params"]["event"] for m in msgs[:-1]]
    assert "viewDidAppear" in hooks and "viewWillAppear" in hooks, hooks
    c.assert_quiet(0.05)


def test_events_caused_by_a_notification_come_before_the_next_reply(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["host"]})
    c.send(note("host.memoryWarning", {"level": "critical"}))
    c.send(req("host.ping", id="after"))
    ev = c.read_json()
    assert ev["method"] == "host" and ev["params"]["kind"] == "memoryWarning", ev
    assert c.read_json()["id"] == "after"


def test_timer_events_on_a_real_clock_are_written_when_they_happen(host):
    c = host.connect()
    c.result("events.subscribe", {"topics": ["lifecycle"]})
    stack = c.result("stack.create", {"width": 100, "height": 100})["stack"]
    cont = c.result("container.create", {"class": "Container"})["container"]
    c.result("stack.push", {"stack": stack, "container": cont, "animated": True})
    will = [e for e in c.events if e["params"]["event"] == "viewWillAppear"]
    assert len(will) == 1
    # No further request: the animation end is pushed to us by itself.
    read_events_until(c, lambda evs: any(e["params"]["event"] == "viewDidAppear" for e in evs))
    did = next(e for e in c.events if e["params"]["event"] == "viewDidAppear")
    assert did["params"]["t"] >= will[0]["params"]["t"] + 300 - 1e-6, (will, did)
    seqs = [e["params"]["seq"] for e in c.events]
    assert seqs == list(range(1, len(seqs) + 1))


def test_timer_events_reach_an_idle_observer_without_it_asking(vhost):
    obs, owner = vhost.connect(), vhost.connect()
    obs.result("events.subscribe", {"topics": ["lifecycle"], "scope": "all"})
    s = owner.result("stack.create", {"width": 100, "height": 100})["stack"]
    k = owner.result("container.create", {"class": "Container"})["container"]
    owner.result("stack.push", {"stack": s, "container": k, "animated": True})
    owner.result("clock.advance", {"ms": 300})
    read_events_until(obs, lambda evs: (k, "didMoveToParent") in lifecycle(evs))
    did = [e for e in obs.events if e["params"]["event"] == "viewDidAppear"]
    assert len(did) == 1 and did[0]["params"]["t"] == 300.0, did


def test_observer_seq_is_gapless_with_many_connections_interleaving(vhost):
    obs = vhost.connect()
    obs.result("events.subscribe", {"topics": ["lifecycle", "host"], "scope": "all"})
    others = [vhost.connect() for _ in range(4)]
    for o in others:
        o.send_raw(b"".join(encode(req("container.create", {"class": "Container"}, id=i)) for i in range(25)))
    for o in others:
        for _ in range(25):
            assert "result" in o.read_json()
    # 4 connectionOpened + 100 inits.
    read_events_until(obs, lambda evs: len(evs) >= 104)
    next_is_pong(obs)
    seqs = [e["params"]["seq"] for e in obs.events]
    assert seqs == list(range(1, 105)), seqs[:10]
    ts = [e["params"]["t"] for e in obs.events]
    assert ts == sorted(ts)


def test_own_scope_sees_only_own_objects_and_all_scope_sees_everyones(vhost):
    own, obs, other = vhost.connect(), vhost.connect(), vhost.connect()
    assert own.result("events.subscribe", {"topics": ["lifecycle"]})["scope"] == "own"
    assert obs.result("events.subscribe", {"topics": ["lifecycle"], "scope": "all"})["scope"] == "all"
    cont = other.result("container.create", {"class": "Container"})["container"]
    mine = own.result("container.create", {"class": "Container"})["container"]
    assert lifecycle(own.events) == [(mine, "init")], own.events
    read_events_until(obs, lambda evs: len(evs) >= 2)
    assert lifecycle(obs.events) == [(cont, "init"), (mine, "init")], obs.events
    next_is_pong(own)
    next_is_pong(obs)
    assert other.events == []


def test_subscribe_without_scope_keeps_the_scope_and_own_switches_back(vhost):
    c = vhost.connect()
    assert c.result("events.subscribe", {"topics": ["host"], "scope": "all"}) == {"topics": ["host"], "scope": "all"}
    assert c.result("events.subscribe", {"topics": ["pool"]}) == {"topics": ["pool", "host"], "scope": "all"}
    assert c.result("events.subscribe", {"topics": [], "scope": "own"}) == {"topics": ["pool", "host"], "scope": "own"}
    other = vhost.connect()
    other.result("container.create", {"class": "Container"})
    c.result("events.subscribe", {"topics": ["lifecycle"]})
    other.result("container.create", {"class": "Container"})
    next_is_pong(c)
    assert c.events == []


def test_subscription_topics_are_listed_in_host_info_order_without_duplicates(host):
    c = host.connect()
    r = c.result("events.subscribe", {"topics": ["host", "lifecycle", "host", "batch"]})
    assert r == {"topics": ["lifecycle", "batch", "host"], "scope": "own"}, r
    assert c.result("events.subscribe", {"topics": list(reversed(TOPICS))})["topics"] == TOPICS


def test_subscribe_to_an_unknown_topic_is_32602_naming_it_and_changes_nothing(host):
    c = host.connect()
    err = assert_error(c.call("events.subscribe", {"topics": ["host", "nope"], "scope": "all"}), -32602,
                       kind="invalidParams", path="topics[1]")
    assert "nope" in err["message"] or "nope" in err["data"].get("reason", ""), err
    # The failed call subscribed nothing and left the scope alone.
    assert c.result("events.unsubscribe", {"topics": ["lifecycle"]}) == {"topics": [], "scope": "own"}


@pytest.mark.parametrize("params,path", [
    ({}, "topics"), ({"topics": "host"}, "topics"), ({"topics": [1]}, "topics[0]"),
    ({"topics": ["HOST"]}, "topics[0]"), ({"topics": ["host"], "scope": "everyone"}, "scope"),
    ({"topics": ["host"], "scope": 1}, "scope"), ({"topics": ["host"], "extra": 1}, "extra"),
])
def test_subscribe_bad_params_are_32602_with_path(host, params, path):
    c = host.connect()
    assert_error(c.call("events.subscribe", params), -32602, kind="invalidParams", path=path)


def test_unsubscribe_stops_events_ignores_unsubscribed_topics_and_checks_names(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["host", "pool"], "scope": "all"})
    assert c.result("events.unsubscribe", {"topics": ["host", "lifecycle"]}) == {"topics": ["pool"], "scope": "all"}
    c.result("host.memoryWarning")
    next_is_pong(c)
    assert c.events == []
    assert_error(c.call("events.unsubscribe", {"topics": ["nope"]}), -32602, path="topics[0]")
    assert_error(c.call("events.unsubscribe", {}), -32602, path="topics")


def test_host_connection_events_go_to_all_scope_observers_only(host):
    own, obs = host.connect(), host.connect()
    own.result("events.subscribe", {"topics": ["host"]})
    obs.result("events.subscribe", {"topics": ["host"], "scope": "all"})
    x = host.connect()
    x.ping()
    x.close()
    read_events_until(obs, lambda evs: [e["params"]["kind"] for e in evs] == ["connectionOpened", "connectionClosed"])
    for e in obs.events:
        assert ids_pattern("conn").match(e["params"]["connection"]), e
    next_is_pong(own)
    assert own.events == []


# ===================================================================================================
# docs/protocol.md Object ids and ownership


def test_object_ids_have_their_documented_formats(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["batch"]})
    s = c.result("stack.create", {"width": 100, "height": 100})["stack"]
    k = c.result("container.create", {"class": "Container"})["container"]
    p = c.result("page.create", {"class": "Container", "count": 2, "width": 100, "height": 100})["session"]
    r = c.result("range.create", {"count": 1, "itemLength": 10, "viewport": {"width": 100, "height": 100}})
    assert ids_pattern("s").match(s), s
    assert ids_pattern("c").match(k), k
    assert ids_pattern("p").match(p), p
    assert ids_pattern("r").match(r["session"]), r
    ctx = [e["params"]["context"] for e in c.events if e["method"] == "batch"]
    assert len(ctx) == 1 and ids_pattern("b").match(ctx[0]), c.events


@pytest.mark.parametrize("kind", ["container", "stack", "page", "range"])
def test_another_connections_object_is_32002(vhost, kind):
    a, b = vhost.connect(), vhost.connect()
    if kind == "container":
        oid = a.result("container.create", {"class": "Container"})["container"]
        method, params, path = "container.info", {"container": oid}, "container"
        check = ("container.info", {"container": oid})
    elif kind == "stack":
        oid = a.result("stack.create", {"width": 100, "height": 100})["stack"]
        method, params, path = "stack.destroy", {"stack": oid}, "stack"
        check = ("stack.info", {"stack": oid})
    elif kind == "page":
        oid = a.result("page.create", {"class": "Container", "count": 2, "width": 100, "height": 100})["session"]
        method, params, path = "page.destroy", {"session": oid}, "session"
        check = ("page.info", {"session": oid})
    else:
        oid = a.result("range.create", {"count": 5, "itemLength": 10, "viewport": {"width": 100, "height": 100}})["session"]
        method, params, path = "range.destroy", {"session": oid}, "session"
        check = ("range.state", {"session": oid})
    err = assert_error(b.call(method, params), -32002, kind="unknownObject", path=path)
    assert err["data"].get("id") == oid, err
    assert "result" in a.call(*check), "the owner's object must be untouched"


def test_disconnect_tears_down_only_that_connections_objects(vhost):
    obs = vhost.connect()
    obs.result("events.subscribe", {"topics": ["lifecycle"], "scope": "all"})
    a, b = vhost.connect(), vhost.connect()
    made = {}
    for name, c in (("a", a), ("b", b)):
        s = c.result("stack.create", {"width": 100, "height": 100})["stack"]
        k = c.result("container.create", {"class": "Container"})["container"]
        c.result("stack.push", {"stack": s, "container": k})
        p = c.result("page.create", {"class": "Container", "count": 3, "width": 100, "height": 100})["session"]
        r = c.result("range.create", {"count": 50, "itemLength": 10, "viewport": {"width": 100, "height": 100}})["session"]
        made[name] = (s, k, p, r)
    before = obs.result("host.stats")
    assert before["stacks"] == 2 and before["sessions"]["page"] == 2 and before["sessions"]["range"] == 2, before
    b_stack = b.result("stack.info", {"stack": made["b"][0]})
    b_page = b.result("page.info", {"session": made["b"][2]})
    a_page = a.result("page.info", {"session": made["a"][2]})
    a_child = [ch["container"] for ch in a_page["children"] if ch["state"] == "appeared"]
    assert len(a_child) == 1, a_page
    before_total = before["containers"]["total"]
    next_is_pong(obs)
    obs.events.clear()
    a.close()
    ka = made["a"][1]
    read_events_until(obs, lambda evs: {(ka, "deinit"), (a_child[0], "deinit")} <= set(lifecycle(evs)))
    for cont in (ka, a_child[0]):
        seq = [ev for (cid, ev) in lifecycle(obs.events) if cid == cont]
        # Disappear, then deinit (containment calls may sit in between).
        assert seq[:2] == ["viewWillDisappear", "viewDidDisappear"] and seq[-1] == "deinit", (cont, seq)
        assert seq.count("deinit") == 1, (cont, seq)
    after = vhost.wait_stats(lambda s: s["connections"]["open"] == 2 and s["stacks"] == 1, conn=obs)
    assert after["sessions"]["page"] == 1 and after["sessions"]["range"] == 1, after
    assert b.result("stack.info", {"stack": made["b"][0]}) == b_stack
    assert b.result("page.info", {"session": made["b"][2]}) == b_page
    touched = {cid for cid, _ in lifecycle(obs.events)}
    assert made["b"][1] not in touched, "b's container was disturbed"
    assert not {ch["container"] for ch in b_page["children"]} & touched, "b's page children were disturbed"
    deinited = {cid for cid, ev in lifecycle(obs.events) if ev == "deinit"}
    assert after["containers"]["total"] == before_total - len(deinited), (before_total, deinited, after)
    assert after["unbalancedTransitions"] == 0, after


# ===================================================================================================
# rpc-schema/openrpc.json Host methods


def test_host_ping_is_exactly_pong_true(host):
    c = host.connect()
    assert roundtrip(c, encode(req("host.ping", id="p"))) == {"jsonrpc": "2.0", "id": "p", "result": {"pong": True}}


def test_host_info_reports_version_protocol_clock_classes_plugins_limits(vhost):
    c = vhost.connect()
    info = c.result("host.info")
    assert info["name"] == "greenroom"
    assert re.match(r"^\d+\.\d+\.\d+([-+].*)?$", info["version"]), info["version"]
    assert info["protocol"]["jsonrpc"] == "2.0" and isinstance(info["protocol"]["version"], int)
    assert info["protocol"]["version"] >= 1
    assert info["clock"] == "virtual"
    assert info["pid"] == vhost.pid
    assert info["listen"] == [f"unix:{vhost.socket_path}"]
    assert info["classes"][:1] == ["Container"] and len(set(info["classes"])) == len(info["classes"])
    assert info["plugins"] == []
    assert info["limits"] == {"maxMessageBytes": MiB, "maxBatch": 256, "maxDepth": 64, "maxConnections": 1024,
                              "maxOutboundBytes": 8 * MiB, "slowReaderGraceMs": 5000,
                              "outboundHighWaterBytes": MiB, "outboundLowWaterBytes": MiB // 4,
                              "maxUnauthenticated": 64, "maxUnauthenticatedMessageBytes": 4096,
                              "authTimeoutMs": 10000, "maxAuthFailures": 3, "maxBufferedInputBytes": 64 * MiB}
    assert info["methods"] == sorted(info["methods"]) and set(SCOPE_METHODS) <= set(info["methods"])
    assert info["topics"] == TOPICS


def test_host_info_clock_is_real_by_default(host):
    assert host.connect().result("host.info")["clock"] == "real"


def test_host_info_limits_follow_the_flags(start_host):
    host = start_host("--max-message-bytes", "4096", "--max-batch", "7", "--max-depth", "9",
                      "--max-connections", "11", "--max-outbound-bytes", "65536", "--slow-reader-grace-ms", "700",
                      "--max-unauthenticated", "20", "--auth-timeout-ms", "900", "--max-buffered-input-bytes", "50000")
    c = host.connect()
    assert c.result("host.info")["limits"] == {"maxMessageBytes": 4096, "maxBatch": 7, "maxDepth": 9,
                                               "maxConnections": 11, "maxOutboundBytes": 65536,
                                               "slowReaderGraceMs": 700, "outboundHighWaterBytes": 32768,
                                               "outboundLowWaterBytes": 8192,
                                               "maxUnauthenticated": 5,  # at most half of --max-connections
                                               "maxUnauthenticatedMessageBytes": 4096, "authTimeoutMs": 900,
                                               "maxAuthFailures": 3, "maxBufferedInputBytes": 50000}
    assert_error(roundtrip(c, encode([req("host.ping", id=i) for i in range(8)])), -32600, id=None, kind="batchTooLarge")
    assert_error(roundtrip(c, nested_ping(10, "d") + b"\n"), -32600, id=None, kind="tooDeep")


def test_host_info_methods_match_rpc_discover(host):
    c = host.connect()
    info = c.result("host.info")
    doc = c.result("rpc.discover")
    assert sorted(m["name"] for m in doc["methods"]) == info["methods"]


def test_host_info_lists_scripted_classes_in_registration_order(host):
    c = host.connect()
    before = c.result("host.info")["classes"]
    c.result("classes.define", {"name": "Zeta"})
    c.result("classes.define", {"name": "Alpha"})
    assert c.result("host.info")["classes"] == before + ["Zeta", "Alpha"]


def test_host_stats_reports_every_documented_member(vhost):
    c = vhost.connect()
    s = c.result("host.stats")
    conns = s["connections"]
    for k in ("open", "accepted", "closed", "closedSlowReader", "rejectedLimit", "rejectedPeer"):
        assert isinstance(conns[k], int) and conns[k] >= 0, (k, s)
    assert conns["open"] == 1 and conns["accepted"] == 1 and conns["closed"] == 0
    assert set(s["containers"]["byState"]) == {"fresh", "disappeared", "appearing", "appeared", "disappearing"}
    assert set(s["pools"]) >= {"count", "idle", "pooledBytes", "budgetBytes"}
    assert set(s["sessions"]) >= {"page", "pageTracking", "range", "rangeTracking"}
    assert set(s["tasks"]) >= {"pending", "runnable", "ran"}
    assert isinstance(s["rssBytes"], int) and s["rssBytes"] > MiB, s["rssBytes"]
    for k in ("requests", "notifications", "batches", "errors", "eventsSent", "memoryWarnings", "timers", "stacks",
              "unbalancedTransitions"):
        assert isinstance(s[k], int) and s[k] >= 0, (k, s)


def test_host_stats_counts_connections_opened_and_closed(host):
    c = host.connect()
    extra = [host.connect() for _ in range(3)]
    for e in extra:
        e.ping()
    s = c.result("host.stats")
    assert s["connections"]["open"] == 4 and s["connections"]["accepted"] == 4, s
    for e in extra:
        e.close()
    s = host.wait_stats(lambda s: s["connections"]["open"] == 1, conn=c)
    assert s["connections"]["closed"] == 3 and s["connections"]["accepted"] == 4, s


def test_host_stats_counts_requests_notifications_batches_errors_and_events(vhost):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["host"]})
    s0 = c.result("host.stats")
    c.result("host.ping")
    c.call("nope")
    c.send(note("host.ping"))
    c.send([req("host.ping", id="b1"), note("host.ping")])
    c.read_json()
    c.result("host.memoryWarning")
    s1 = c.result("host.stats")
    d = {k: s1[k] - s0[k] for k in ("requests", "notifications", "batches", "errors", "eventsSent", "memoryWarnings")}
    # requests: ping, nope, b1, memoryWarning, and the second host.stats itself.
    assert d == {"requests": 5, "notifications": 2, "batches": 1, "errors": 1, "eventsSent": 1, "memoryWarnings": 1}, d


def test_stats_errors_count_failed_notifications(vhost):
    """host.stats (rpc-schema/openrpc.json; rpc-schema HostStats.errors: "Error replies (and errors in notifications) so
    far"). A notification to an unknown method or with bad params fails silently on the wire, so the
    counter is the only trace of it: two failed notifications add 2 to errors."""
    c = vhost.connect()
    e0 = c.result("host.stats")["errors"]
    c.send(note("no.such.method"))
    c.send(note("host.ping", {"bad": 1}))
    next_is_pong(c)
    assert c.result("host.stats")["errors"] - e0 == 2


def test_host_stats_counts_containers_by_state_stacks_and_sessions(vhost):
    c = vhost.connect()
    stack = c.result("stack.create", {"width": 100, "height": 100})["stack"]
    fresh = c.result("container.create", {"class": "Container"})["container"]
    shown = c.result("container.create", {"class": "Container"})["container"]
    c.result("stack.push", {"stack": stack, "container": shown})
    c.result("range.create", {"count": 10, "itemLength": 10, "viewport": {"width": 100, "height": 100}})
    s = c.result("host.stats")
    assert s["containers"]["total"] == 2 and s["containers"]["pooled"] == 0, s
    assert s["containers"]["byState"] == {"fresh": 1, "disappeared": 0, "appearing": 0, "appeared": 1, "disappearing": 0}, s
    assert s["stacks"] == 1 and s["sessions"]["range"] == 1 and s["sessions"]["page"] == 0, s
    c.result("container.release", {"container": fresh})
    assert c.result("host.stats")["containers"]["byState"]["fresh"] == 0


def test_memory_warning_defaults_to_warning_and_reports_what_was_purged(vhost):
    c = vhost.connect()
    c.result("classes.define", {"name": "Heavy", "memoryBytes": 4096})
    c.result("pool.warm", {"class": "Heavy"})
    c.result("tasks.drain")
    assert c.result("host.stats")["pools"]["idle"] == 1
    r = c.result("host.memoryWarning")
    assert r["level"] == "warning", r
    assert set(r["purged"]) == {"pooledContainers", "pooledBytes", "notifiedContainers", "pageChildrenReleased",
                                "pageChildrenNotified", "rangeSessions"}, r
    assert r["purged"]["pooledContainers"] == 1 and r["purged"]["pooledBytes"] == 4096, r
    assert c.result("host.stats")["pools"]["idle"] == 0
    assert c.result("host.memoryWarning", {"level": "critical"})["level"] == "critical"


@pytest.mark.parametrize("level", ["severe", "WARNING", "", 1, True, ["warning"]])
def test_memory_warning_with_a_bad_level_is_32602_and_purges_nothing(vhost, level):
    c = vhost.connect()
    c.result("events.subscribe", {"topics": ["host"]})
    before = c.result("host.stats")["memoryWarnings"]
    assert_error(c.call("host.memoryWarning", {"level": level}), -32602, kind="invalidParams", path="level")
    assert c.result("host.stats")["memoryWarnings"] == before
    next_is_pong(c)
    assert c.events == []


def test_host_shutdown_with_bad_params_does_not_shut_down(host):
    c = host.connect()
    assert_error(c.call("host.shutdown", {"now": True}), -32602, path="now")
    assert host.is_running()
    next_is_pong(c)
    host.connect().ping()


def test_host_shutdown_tears_containers_down_with_lifecycle_then_exits_0(start_host):
    host = start_host()
    path = host.socket_path
    obs = host.connect()
    obs.result("events.subscribe", {"topics": ["lifecycle"], "scope": "all"})
    owner = host.connect()
    stack = owner.result("stack.create", {"width": 100, "height": 100})["stack"]
    k = owner.result("container.create", {"class": "Container"})["container"]
    owner.result("stack.push", {"stack": stack, "container": k})
    read_events_until(obs, lambda evs: (k, "didMoveToParent") in lifecycle(evs))
    next_is_pong(obs)
    obs.events.clear()
    assert owner.result("host.shutdown") == {"shuttingDown": True}
    lines = [json.loads(x) for x in obs.read_until_closed(timeout=10)]
    seq = [ev for cid, ev in lifecycle(lines, k)]
    assert seq[:2] == ["viewWillDisappear", "viewDidDisappear"] and seq[-1] == "deinit", seq
    assert host.wait(10) == 0
    assert not os.path.lexists(path)


# ===================================================================================================
# rpc-schema/openrpc.json Clock


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


# ===================================================================================================
# rpc-schema/openrpc.json Tasks


def test_tasks_status_shape_on_a_virtual_clock(vhost):
    c = vhost.connect()
    st = c.result("tasks.status")
    assert st == {"pending": 0, "runnable": 0, "paused": False, "automatic": False, "sliceMs": 4.0, "ran": 0,
                  "passes": 0, "tasks": []}, st


def test_tasks_status_is_automatic_on_a_real_clock_and_honours_the_slice_flag(start_host):
    host = start_host("--task-slice-ms", "2.5")
    st = host.connect().result("tasks.status")
    assert st["automatic"] is True and st["sliceMs"] == 2.5, st


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_task_slice_ms_never_becomes_nan_or_inf(start_host, value):
    """rpc-schema/openrpc.json `tasks.status` (schema TasksStatus.sliceMs: number >= 0) and docs/tasks.md's time slice.
    Like every other
    bad limit flag (exit 64, "must be positive"), `--task-slice-ms nan|inf` is refused at start-up; at the
    very least, a host that starts reports a finite float sliceMs in tasks.status, never `null`."""
    try:
        host = start_host("--task-slice-ms", value)
    except Exception as e:  # noqa: BLE001 - refusing to start is the right outcome
        assert getattr(e, "returncode", None) not in (0, None), e
        return
    st = host.connect().result("tasks.status")
    assert isinstance(st["sliceMs"], float) and math.isfinite(st["sliceMs"]), f"host started; sliceMs = {st['sliceMs']!r}"


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


def test_tasks_drain_runs_every_runnable_task_and_reports_counts(vhost):
    c = vhost.connect()
    c.result("classes.define", {"name": "Card"})
    c.result("pool.configure", {"class": "Card", "depth": 3, "policy": "eager"})
    st = c.result("tasks.status")
    assert st["pending"] >= 1 and st["runnable"] == st["pending"], st
    for t in st["tasks"]:
        assert set(t) == {"key", "mode", "avgCostMs"} and t["mode"] in ("default", "common"), t
    assert st["tasks"][0]["avgCostMs"] is None
    r = c.result("tasks.drain")
    assert r["pending"] == 0 and r["ran"] >= st["pending"], r
    after = c.result("tasks.status")
    assert after["pending"] == 0 and after["tasks"] == [] and after["ran"] == st["ran"] + r["ran"], after
    assert c.result("pool.status", {"class": "Card"})["pools"][0]["idle"] == 3
    assert c.result("tasks.drain") == {"ran": 0, "pending": 0}


def test_tasks_drain_leaves_default_tasks_queued_while_a_session_tracks(vhost):
    c = vhost.connect()
    c.result("classes.define", {"name": "Card"})
    r = c.result("range.create", {"count": 100, "itemLength": 50, "viewport": {"width": 100, "height": 100}})["session"]
    c.result("range.willBeginDragging", {"session": r})
    assert c.result("showRendered", {"class": "Card"})["warm"] is False  # schedules a warm-up
    st = c.result("tasks.status")
    assert st["paused"] is True and st["pending"] == 1 and st["runnable"] == 0, st
    assert c.result("tasks.drain") == {"ran": 0, "pending": 1}
    c.result("range.willEndDragging", {"session": r, "velocity": 0})
    c.call("range.didEndDecelerating", {"session": r})
    assert c.result("host.stats")["sessions"]["rangeTracking"] == 0
    assert c.result("tasks.drain") == {"ran": 1, "pending": 0}


# ===================================================================================================
# rpc-schema/openrpc.json Classes


def test_classes_list_has_the_builtins_with_plugin_null(host):
    classes = host.connect().result("classes.list")["classes"]
    assert classes[0] == {"name": "Container", "plugin": None, "scripted": False}, classes
    for cl in classes:
        assert set(cl) == {"name", "plugin", "scripted"}, cl


def test_classes_define_returns_the_definition_and_lists_it_last(host):
    c = host.connect()
    before = c.result("classes.list")["classes"]
    d = c.result("classes.define", {"name": "Card", "hooks": {"deinit": {}, "viewDidLoad": {"costMs": 0},
                                                              "init": {"output": [1]}}, "memoryBytes": 1024})
    assert d == {"name": "Card", "plugin": None, "scripted": True, "hooks": ["init", "viewDidLoad", "deinit"],
                 "memoryBytes": 1024}, d
    assert c.result("classes.define", {"name": "Plain"}) == {"name": "Plain", "plugin": None, "scripted": True,
                                                              "hooks": [], "memoryBytes": 0}
    after = c.result("classes.list")["classes"]
    assert after == before + [{"name": "Card", "plugin": None, "scripted": True},
                              {"name": "Plain", "plugin": None, "scripted": True}], after


def test_classes_define_accepts_positional_params(host):
    c = host.connect()
    d = c.result("classes.define", ["Pos", {"init": {}}, 8])
    assert d["name"] == "Pos" and d["hooks"] == ["init"] and d["memoryBytes"] == 8, d


def test_classes_define_of_a_taken_name_is_32003_and_keeps_the_first(host):
    c = host.connect()
    c.result("classes.define", {"name": "Card", "memoryBytes": 1})
    for name in ("Card", "Container"):
        assert_error(c.call("classes.define", {"name": name, "memoryBytes": 2}), -32003, kind="invalidState")
    names = [x["name"] for x in c.result("classes.list")["classes"]]
    assert names.count("Card") == 1 and names.count("Container") == 1
    # Another connection sees the same class (names are global to the host).
    other = host.connect()
    assert_error(other.call("classes.define", {"name": "Card"}), -32003)
    k = other.result("container.create", {"class": "Card"})["container"]
    assert other.result("container.info", {"container": k})["memoryBytes"] == 1


@pytest.mark.parametrize("params,path", [
    ({"name": "A", "hooks": {"viewDidExplode": {}}}, "hooks.viewDidExplode"),
    ({"name": "A", "hooks": {"unbalancedAppearanceTransition": {}}}, "hooks.unbalancedAppearanceTransition"),
    ({"name": "A", "hooks": {"viewdidload": {}}}, "hooks.viewdidload"),
    ({"name": "A", "hooks": {"viewDidLoad": {"costMs": -1}}}, "hooks.viewDidLoad.costMs"),
    ({"name": "A", "hooks": {"viewDidLoad": {"costMs": 10001}}}, "hooks.viewDidLoad.costMs"),
    ({"name": "A", "hooks": {"init": []}}, "hooks.init"),
    ({"name": "A", "memoryBytes": (1 << 30) + 1}, "memoryBytes"),
    ({"name": "A", "memoryBytes": "1"}, "memoryBytes"),
    ({"name": "x" * 129}, "name"),
    ({"name": "é" * 65}, "name"),
    ({"name": None}, "name"),
    ({"name": ["A"]}, "name"),
])
def test_classes_define_bad_params_are_32602_with_path_and_define_nothing(host, params, path):
    c = host.connect()
    before = c.result("classes.list")
    assert_error(c.call("classes.define", params), -32602, kind="invalidParams", path=path)
    assert c.result("classes.list") == before


def test_classes_define_name_limit_is_128_bytes_of_utf8(host):
    c = host.connect()
    assert c.result("classes.define", {"name": "x" * 128})["name"] == "x" * 128
    assert c.result("classes.define", {"name": "é" * 64})["name"] == "é" * 64


def test_classes_define_cost_bounds_are_inclusive(host):
    c = host.connect()
    c.result("classes.define", {"name": "Zero", "hooks": {"init": {"costMs": 0}}})
    c.result("classes.define", {"name": "Max", "hooks": {"init": {"costMs": 10000}}, "memoryBytes": 1 << 30})


def test_scripted_hook_output_is_returned_and_fail_is_plugin_failed(vhost):
    c = vhost.connect()
    out = {"x": [1, "a", None, {"y": 2.5}]}
    c.result("classes.define", {"name": "Out", "hooks": {"configure": {"output": out}}})
    k = c.result("container.create", {"class": "Out"})["container"]
    assert c.result("container.configure", {"container": k, "data": {"u": 1}}) == {"container": k, "output": out}
    c.result("classes.define", {"name": "Boom", "hooks": {"configure": {"fail": True}}})
    k = c.result("container.create", {"class": "Boom"})["container"]
    err = assert_error(c.call("container.configure", {"container": k, "data": {}}), -32004, kind="pluginFailed")
    assert err["data"].get("hook") == "configure" and err["data"].get("class") == "Boom", err
    assert_error(c.call("container.info", {"container": k}), -32002)


# ===================================================================================================
# rpc.discover


def test_rpc_discover_returns_the_embedded_openrpc_document(host):
    doc = host.connect().result("rpc.discover", timeout=10)
    assert doc == json.loads((REPO / "rpc-schema" / "openrpc.json").read_text())
    assert doc["openrpc"].startswith("1.3")


# ===================================================================================================
# docs/security.md Running it


def test_default_socket_is_0600_in_a_0700_dir_even_with_umask_0(start_host, tmp_short):
    old = os.umask(0)
    try:
        host = start_host(env=base_env(tmp_short), auto_socket=False)
    finally:
        os.umask(old)
    d = os.path.join(tmp_short, "greenroom")
    assert stat.S_IMODE(os.lstat(d).st_mode) == 0o700
    assert stat.S_IMODE(os.lstat(os.path.join(d, "host.sock")).st_mode) == 0o600
    host.connect().ping()


def test_explicit_socket_is_0600_even_with_umask_0(start_host, tmp_short):
    path = os.path.join(tmp_short, "x.sock")
    old = os.umask(0)
    try:
        host = start_host("--socket", path)
    finally:
        os.umask(old)
    assert stat.S_ISSOCK(os.lstat(path).st_mode)
    assert stat.S_IMODE(os.lstat(path).st_mode) == 0o600
    host.connect().ping()


def test_client_vanishing_before_its_replies_never_kills_the_host(host):
    """SIGPIPE ignored: a peer that resets while the host writes is that connection's problem only."""
    keeper = host.connect()
    for _ in range(5):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(host.socket_path)
        s.sendall(b"".join(encode(req("host.info", id=i)) for i in range(300)))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()
    host.wait_stats(lambda st: st["connections"]["open"] == 1, conn=keeper)
    assert host.is_running()
    next_is_pong(keeper)


def test_an_unknown_clock_mode_is_a_start_up_error(start_host):
    err = start_host.fail("--clock", "fast")
    assert err.returncode not in (0, None), err


def test_sigint_exits_0_and_removes_the_socket_with_a_client_connected(start_host):
    host = start_host("--clock", "virtual")
    path = host.socket_path
    c = host.connect()
    c.result("container.create", {"class": "Container"})
    host.signal(signal.SIGINT)
    assert host.wait(10) == 0, host.stderr_text()
    assert not os.path.lexists(path)
