"""docs/protocol.md transport and framing: one compact JSON text per line, LF or CRLF in, LF only out, control
characters and U+2028/U+2029 escaped, blank lines ignored, bytes split anywhere across writes reassembled,
non-UTF-8 lines answered with a parse error, the same framing over TCP.

How the expectations are worked out and the hosts started: grhost.py.
"""

from __future__ import annotations

import json

import pytest
from grhost import (assert_error, assert_error_reply, assert_next_is_pong, encode, next_is_pong, note, padded_ping,
                    req, roundtrip)


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


def test_crlf_and_lf_terminated_requests_in_one_write_are_all_answered(host):
    c = host.connect()
    c.send_raw(encode(req("host.ping", id=1))[:-1] + b"\r\n" + encode(req("host.ping", id=2))
               + encode(req("host.ping", id=3))[:-1] + b"\r\n")
    assert [c.read_json()["id"] for _ in range(3)] == [1, 2, 3]
    c.assert_quiet(0.05)


def test_crlf_and_split_writes(host):
    c = host.connect()
    req = b'{"jsonrpc":"2.0","id":"crlf","method":"host.ping"}\r\n'
    for b in req:  # one byte per write
        c.send_raw(bytes([b]))
    assert c.read_json() == {"jsonrpc": "2.0", "id": "crlf", "result": {"pong": True}}
    c.send_raw(b"\n\n   \n")  # blank lines carry no message
    c.ping()
    c.assert_quiet(0.1)


def test_requests_written_byte_by_byte_with_crlf_and_blank_lines_between_them(host):
    c = host.connect()
    data = (encode(req("host.ping", id=1))[:-1] + b"\r\n" + b"\n \t\n\r\n"
            + encode(req("host.ping", id=2)) + encode([req("host.ping", id=3)]))
    for i in range(len(data)):
        c.send_raw(data[i:i + 1])
    assert c.read_json()["id"] == 1
    assert c.read_json()["id"] == 2
    assert c.read_json() == [{"jsonrpc": "2.0", "id": 3, "result": {"pong": True}}]
    c.assert_quiet(0.05)


def test_many_requests_and_a_partial_one_in_one_write(host):
    c = host.connect()
    whole = b"".join(encode(req("host.ping", id=i)) for i in range(50))
    tail = encode(req("host.ping", id=50))
    c.send_raw(whole + tail[:10])
    assert [c.read_json()["id"] for _ in range(50)] == list(range(50))
    c.assert_quiet(0.05)
    c.send_raw(tail[10:])
    assert c.read_json()["id"] == 50


def test_output_lines_end_with_lf_only_even_when_the_request_used_crlf(host):
    c = host.connect()
    c.send_raw(encode(req("host.ping", id="x"))[:-1] + b"\r\n")
    raw = c.read_line()
    assert raw == b'{"jsonrpc":"2.0","id":"x","result":{"pong":true}}', raw


def test_output_never_contains_a_raw_newline(host):
    c = host.connect()
    c.send({"jsonrpc": "2.0", "id": "a\nb\r\u2028", "method": "no.such\nmethod"})
    line = c.read_line()
    r = json.loads(line)
    assert r["id"] == "a\nb\r\u2028" and r["error"]["code"] == -32601, r
    assert b"\r" not in line


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


def test_output_is_compact_json(host):
    c = host.connect()
    c.send_raw(b'{ "jsonrpc" : "2.0" , "id" : 1 , "method" : "host.ping" }\n')
    assert c.read_line() == b'{"jsonrpc":"2.0","id":1,"result":{"pong":true}}'


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


@pytest.mark.parametrize("line", [
    b'{"jsonrpc":"2.0","id":"\xc3","method":"host.ping"}', b'{"jsonrpc":"2.0","id":"\xed\xa0\x80","method":"host.ping"}',
    b'{"jsonrpc":"2.0","id":"\xc0\xaf","method":"host.ping"}', b'{"jsonrpc":"2.0","id":1,"method":"host.ping\xfe"}',
    b"\x80\x81\x82",
], ids=["truncated", "surrogate", "overlong", "bad-byte-in-method", "continuation-bytes"])
def test_non_utf8_lines_are_parse_errors_the_reply_is_valid_utf8_and_the_connection_goes_on(host, line):
    c = host.connect()
    c.send_raw(line + b"\n")
    raw = c.read_line()
    raw.decode("utf-8")  # the reply itself is UTF-8
    assert_error_reply(json.loads(raw), -32700, id=None)
    assert_next_is_pong(c)


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
