"""JSON-RPC 2.0 error replies: parse errors (-32700, id null), invalid requests (-32600: top-level scalars,
wrong jsonrpc, a missing or non-string method, params that are neither object nor array, ids of a wrong type),
unknown and reserved methods (-32601 naming them), members a method does not take (-32602 with data.path);
every error carries a known code, a message and data.kind; notifications that fail leave no trace.

How the expectations are worked out and the hosts started: grhost.py.
"""

from __future__ import annotations

import json

import pytest
from grhost import (KNOWN_CODES, SCOPE_METHODS, assert_error, assert_error_reply, assert_next_is_pong,
                    assert_response_shape, encode, nested_ping, next_is_pong, note, req, roundtrip)


@pytest.mark.parametrize("text", [
    b"{", b'{"jsonrpc":"2.0",}', b"[1,]", b"{'jsonrpc':'2.0'}", b"nul", b"{}}", b"[]]", b'{"a":1} x',
    b'{"jsonrpc":"2.0","id":1,"method":"host.ping"}{"a":1}', b"\xff", b'"\xc3\x28"', b"NaN", b"+1", b"01",
])
def test_invalid_json_is_32700_with_id_null(host, text):
    c = host.connect()
    assert_error(roundtrip(c, text + b"\n"), -32700, id=None, kind="parseError")
    next_is_pong(c)


def test_a_parse_error_names_the_connections_line_and_the_column_in_it(start_host):
    """data.line is the line's number on the connection (the 1st, 4th, 7th line here, among pipelined
    and separately sent lines, an oversized one included), data.column where in that line."""
    c = start_host("--max-message-bytes", "256").connect()
    ping = b'{"jsonrpc":"2.0","id":1,"method":"host.ping"}\n'
    c.send_raw(b'{"jsonrpc" 2}\n' + ping + ping)
    first = [json.loads(c.read_line()) for _ in range(3)]
    assert first[0]["error"]["code"] == -32700 and first[0]["error"]["data"]["line"] == 1, first
    assert first[0]["error"]["data"]["column"] == 12, first
    c.send_raw(b"[1,\n")
    assert json.loads(c.read_line())["error"]["data"]["line"] == 4
    c.send_raw(b'{"x": "' + b"y" * 400 + b'"}\n' + ping)
    assert json.loads(c.read_line())["error"]["data"]["kind"] == "messageTooLarge"
    assert "result" in json.loads(c.read_line())
    c.send_raw(b"  nul\n")
    err = json.loads(c.read_line())["error"]
    assert (err["code"], err["data"]["line"]) == (-32700, 7), err


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


@pytest.mark.parametrize("text", [b"1", b"-2.5", b'"x"', b'""', b"null", b"true", b"false"])
def test_top_level_scalar_is_32600_not_a_parse_error(host, text):
    c = host.connect()
    assert_error(roundtrip(c, text + b"\n"), -32600, id=None)
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


@pytest.mark.parametrize("params", [b'"x"', b"5", b"1.5", b"true", b"null"])
def test_params_that_are_not_object_or_array_are_32600_echoing_the_id(host, params):
    c = host.connect()
    r = roundtrip(c, b'{"jsonrpc":"2.0","id":"p","method":"host.ping","params":' + params + b"}\n")
    assert_error(r, -32600, id="p", path="params")
    next_is_pong(c)


def test_params_null_is_an_invalid_request_and_a_notification_with_it_is_answered(host):
    """JSON-RPC §4.2: params "MUST be" a structured value (object or array); null is neither. An invalid
    Request is answered even without an id (id null)."""
    c = host.connect()
    c.send_raw(b'{"jsonrpc":"2.0","id":"n","method":"host.ping","params":null}\n')
    assert_error_reply(c.read_json(), -32600, id="n", path="params")
    c.send_raw(b'{"jsonrpc":"2.0","method":"host.ping","params":null}\n')
    assert_error_reply(c.read_json(), -32600, id=None, path="params")
    assert_next_is_pong(c)


@pytest.mark.parametrize("bad_id", [b"true", b"false", b"{}", b'{"a":1}', b"[]", b"[1]"])
def test_id_of_a_wrong_type_is_32600_with_id_null(host, bad_id):
    c = host.connect()
    r = roundtrip(c, b'{"jsonrpc":"2.0","id":' + bad_id + b',"method":"host.ping"}\n')
    assert_error(r, -32600, id=None, path="id")
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


@pytest.mark.parametrize("method", ["rpc.ping", "rpc.", "rpc.discover.x", "rpc.Discover", "RPC.discover"])
def test_reserved_rpc_names_other_than_discover_are_method_not_found(host, method):
    """JSON-RPC §4: names starting with "rpc." are reserved for rpc-internal methods; only rpc.discover
    (OpenRPC service discovery) exists."""
    c = host.connect()
    assert_error_reply(c.call(method), -32601, kind="methodNotFound")
    assert_next_is_pong(c)


@pytest.mark.parametrize("method", SCOPE_METHODS[:4] + ["host.shutdown", "clock.now", "tasks.status",
                                                        "tasks.drain", "classes.list"])
def test_methods_without_params_reject_any_member_with_data_path(host, method):
    c = host.connect()
    assert_error(c.call(method, {"bogus": 1}), -32602, kind="invalidParams", path="bogus")
    assert_error(c.call(method, [1]), -32602, kind="invalidParams", path="params[0]")
    assert host.is_running()
    next_is_pong(c)


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


def test_every_reply_to_a_sweep_of_probes_is_a_well_formed_response(vhost):
    """No reply ever carries both result and error, every error has an integer code, a string message and
    data.kind, and an unparseable or unidentifiable message is answered with id null."""
    c = vhost.connect()
    probes = [
        b"{", b"[", b"]", b"nul", b'"', b"[[]]", b"[{}]", b"{}", b'{"jsonrpc":"2.0"}', b'{"id":1}',
        b'{"jsonrpc":"2.0","id":1,"method":"host.ping","params":[]}',
        b'{"jsonrpc":"2.0","id":1.5,"method":"host.info"}',
        b'{"jsonrpc":"2.0","id":null,"method":"host.ping"}',
        b'{"jsonrpc":"2.0","id":"s","method":"clock.advance","params":{"ms":"x"}}',
        b'{"jsonrpc":"2.0","id":"s","method":"container.info","params":{"container":"c-1"}}',
        b'{"jsonrpc":"2.0","id":"s","method":"container.create","params":{"class":"Nope"}}',
        b'{"jsonrpc":"2.0","id":"s","method":"events.subscribe","params":[["lifecycle"],"own",3]}',
        b'[{"jsonrpc":"2.0","id":1,"method":"host.ping"},{"jsonrpc":"2.0","id":2}]',
        b'{"jsonrpc":"2.0","id":"\\ud800","method":"host.ping"}',
        b'{"jsonrpc":"2.0","id":1e400,"method":"host.ping"}',
    ]
    for p in probes:
        c.send_raw(p + b"\n")
        r = c.read_json()
        for m in (r if isinstance(r, list) else [r]):
            assert_response_shape(m)
            if "error" in m and m["error"]["code"] in (-32700,):
                assert m["id"] is None, (p, m)
    assert_next_is_pong(c)


def test_notifications_with_every_kind_of_failure_leave_no_trace_on_the_wire(vhost):
    c = vhost.connect()
    for m in (note("container.info", {"container": "c-9"}), note("container.create", {"class": "Nope"}),
              note("classes.define", {"name": "Container"}), note("host.shutdown", {"bad": 1}),
              note("clock.advance", [1, 2]), note("events.unsubscribe", {"topics": ["x"]})):
        c.send(m)
    assert_next_is_pong(c)
    assert vhost.is_running()
