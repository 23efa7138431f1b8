"""docs/protocol.md limits over the real socket: message size (the line without its CR/LF; one error with id
null past it, the connection staying usable; an endless line discarded, not buffered), batch size, JSON depth
(the batch array counted), connection count; each flag at and past its value.

How the expectations are worked out and the hosts started: grhost.py.
"""

from __future__ import annotations

import json

import pytest
from grhost import (Closed, LineConn, MiB, assert_error, assert_error_reply, assert_next_is_pong, encode,
                    nested_ping, next_is_pong, note, padded_ping, req, roundtrip)


def ping_line(rid) -> bytes:
    return encode({"jsonrpc": "2.0", "id": rid, "method": "host.ping"})


def padded_ping_checked(total: int, rid="big") -> bytes:
    """A valid host.ping request whose line (without the newline) is exactly `total` bytes."""
    head = b'{"jsonrpc":"2.0","id":"%s","method":"host.ping","params":{"pad":"' % rid.encode()
    tail = b'"}}'
    n = total - len(head) - len(tail)
    assert n >= 0
    line = head + b"x" * n + tail
    assert len(line) == total
    json.loads(line)
    return line


def assert_too_large(msg: dict, max_bytes: int) -> None:
    assert msg.get("jsonrpc") == "2.0", msg
    assert "id" in msg and msg["id"] is None, msg
    err = msg["error"]
    assert err["code"] == -32600, msg
    assert err["data"]["kind"] == "messageTooLarge", msg


def nested(depth: int) -> str:
    """A host.ping request whose JSON nesting (containers counted, `[]` = 1) is exactly `depth`."""
    inner = "{}"
    for _ in range(depth - 2):  # request object (1) + params (1) + (depth - 2) levels inside
        inner = '{"a":%s}' % inner
    # params is the innermost of the chain: request{ params{ a{ ... {} } } }
    text = '{"jsonrpc":"2.0","id":"d%d","method":"host.ping","params":%s}' % (depth, inner)
    assert _depth(json.loads(text)) == depth, (_depth(json.loads(text)), depth)
    return text


def _depth(v) -> int:
    if isinstance(v, dict):
        return 1 + max((_depth(x) for x in v.values()), default=0)
    if isinstance(v, list):
        return 1 + max((_depth(x) for x in v), default=0)
    return 0


def test_oversized_line_gets_one_error_and_connection_stays_usable(start_host):
    host = start_host("--max-message-bytes", "1024")
    a, b = host.connect(), host.connect()
    b.ping()

    # 2000 bytes of a well-formed request, written in pieces with the bystander pinging in between.
    line = padded_ping_checked(2000)
    for i in range(0, len(line), 500):
        a.send_raw(line[i:i + 500])
        b.ping()
    a.send_raw(b"\n" + ping_line("after"))

    first = a.read_json()
    assert_too_large(first, 1024)
    # Exactly one error: the very next line is the reply to the following request.
    nxt = a.read_json()
    assert nxt == {"jsonrpc": "2.0", "id": "after", "result": {"pong": True}}, nxt
    a.assert_quiet(0.2)
    a.ping()
    b.ping()
    b.assert_quiet(0.1)


def test_oversized_line_in_one_write_with_requests_around_it(start_host):
    host = start_host("--max-message-bytes", "1024")
    a, b = host.connect(), host.connect()
    a.send_raw(ping_line(1) + padded_ping_checked(5000) + b"\n" + ping_line(2))
    replies = [a.read_json() for _ in range(3)]
    assert replies[0]["id"] == 1 and replies[0]["result"] == {"pong": True}
    assert_too_large(replies[1], 1024)
    assert replies[2]["id"] == 2 and replies[2]["result"] == {"pong": True}
    a.assert_quiet(0.2)
    b.ping()


def test_line_exactly_at_the_limit_is_accepted(start_host):
    """`a longer line gets -32600`: a line of exactly max bytes is not longer (nor with \\r\\n)."""
    host = start_host("--max-message-bytes", "1024")
    a = host.connect()
    a.send_raw(padded_ping_checked(1024, "exact") + b"\n")
    r = a.read_json()
    # host.ping takes no params: -32602 names the field; what matters is that it was not "too large".
    assert r["id"] == "exact", r
    assert r.get("error", {}).get("code") != -32600, r
    a.send_raw(padded_ping_checked(1024, "crlf") + b"\r\n")
    r = a.read_json()
    assert r["id"] == "crlf" and r.get("error", {}).get("code") != -32600, r
    a.send_raw(padded_ping_checked(1025, "over") + b"\n")
    assert_too_large(a.read_json(), 1024)
    a.ping()


def test_oversized_default_limit_1mib_with_1_5mib_line(host):
    a, b = host.connect(), host.connect()
    info = a.result("host.info")
    assert info["limits"]["maxMessageBytes"] == 1 << 20
    line = padded_ping_checked(3 * (1 << 19))  # 1.5 MiB
    chunk = 256 * 1024
    for i in range(0, len(line), chunk):
        a.send_raw(line[i:i + chunk])
        b.ping()
    a.send_raw(b"\n" + ping_line("after"))
    assert_too_large(a.read_json(timeout=10), 1 << 20)
    nxt = a.read_json(timeout=10)
    assert nxt == {"jsonrpc": "2.0", "id": "after", "result": {"pong": True}}, nxt
    a.assert_quiet(0.2)
    b.ping()
    b.assert_quiet(0.1)


def test_batch_limit(start_host):
    host = start_host("--max-batch", "4")
    c = host.connect()
    batch = [{"jsonrpc": "2.0", "id": i, "method": "host.ping"} for i in range(4)]
    c.send(batch)
    replies = c.read_json()
    assert isinstance(replies, list) and len(replies) == 4, replies
    assert sorted(r["id"] for r in replies) == [0, 1, 2, 3]
    assert all(r["result"] == {"pong": True} for r in replies)

    c.send(batch + [{"jsonrpc": "2.0", "id": 4, "method": "host.ping"}])
    r = c.read_json()
    assert isinstance(r, dict), f"an over-limit batch gets one error object, not an array: {r}"
    assert r["id"] is None and r["error"]["code"] == -32600, r
    assert r["error"]["data"]["kind"] == "batchTooLarge", r
    assert r["error"]["data"]["max"] == 4, r

    # A batch of notifications at the limit gets no reply; the next request is answered first.
    c.send([{"jsonrpc": "2.0", "method": "host.ping"} for _ in range(4)])
    c.ping()
    c.assert_quiet(0.1)
    # The empty batch is one -32600 error object.
    c.send_raw(b"[]\n")
    r = c.read_json()
    assert isinstance(r, dict) and r["id"] is None and r["error"]["code"] == -32600, r
    c.ping()
    assert host.call("host.info")["result"]["limits"]["maxBatch"] == 4


def test_depth_limit(start_host):
    host = start_host("--max-depth", "5")
    c = host.connect()
    c.send_raw(nested(5).encode() + b"\n")
    r = c.read_json()
    # Within the limit: answered for its id (host.ping rejects the unknown param, which is fine).
    assert r["id"] == "d5", r
    assert r.get("error", {}).get("code") != -32600, r

    c.send_raw(nested(6).encode() + b"\n")
    r = c.read_json()
    assert r["id"] is None and r["error"]["code"] == -32600, r
    assert r["error"]["data"]["kind"] == "tooDeep", r
    c.ping()

    # Far deeper than anything (a stack-exhaustion attempt): an error, and the connection lives on.
    c.send_raw(b"[" * 100_000 + b"]" * 100_000 + b"\n")
    r = c.read_json(timeout=10)
    assert r["id"] is None and r["error"]["code"] in (-32600, -32700), r
    c.ping()
    assert host.call("host.info")["result"]["limits"]["maxDepth"] == 5


def test_connection_limit(start_host):
    host = start_host("--max-connections", "3")
    conns = [host.connect() for _ in range(3)]
    for c in conns:
        c.ping()

    fourth = host.connect()
    lines = fourth.read_until_closed(timeout=5)
    assert len(lines) == 1, lines
    r = json.loads(lines[0])
    assert r["id"] is None and r["error"]["code"] == -32005, r
    assert r["error"]["data"]["limit"] == "connections", r
    assert r["error"]["data"]["kind"] == "limitExceeded", r
    for c in conns:
        c.ping()

    conns[0].close()
    host.wait_stats(lambda s: s["connections"]["open"] == 2, conn=conns[1])
    fifth = host.connect()
    fifth.ping()
    s = host.stats(conns[1])
    assert s["connections"]["open"] == 3, s
    assert s["connections"]["rejectedLimit"] == 1, s

    # Full again: refused again, counted again.
    sixth = host.connect()
    lines = sixth.read_until_closed(timeout=5)
    assert len(lines) == 1 and json.loads(lines[0])["error"]["code"] == -32005, lines
    assert host.stats(conns[1])["connections"]["rejectedLimit"] == 2
    for c in (conns[1], conns[2], fifth):
        c.ping()


def test_refused_connection_that_sends_first_still_gets_one_line(start_host):
    host = start_host("--max-connections", "1")
    keeper = host.connect()
    keeper.ping()
    extra = LineConn.unix(host.socket_path)
    try:
        try:
            extra.send_raw(encode({"jsonrpc": "2.0", "id": 1, "method": "host.ping"}))
        except OSError:
            pass  # the host may already have closed it
        lines = extra.read_until_closed(timeout=5)
        assert len(lines) == 1 and json.loads(lines[0])["error"]["code"] == -32005, lines
        try:
            extra.read_line(0.1)
            raise AssertionError("data after close")
        except Closed:
            pass
    finally:
        extra.close()
    keeper.ping()


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


@pytest.mark.parametrize("split", [False, True], ids=["one-write", "byte-by-byte"])
def test_message_limit_counts_the_line_without_its_crlf(start_host, split):
    """docs/protocol.md: "message 1 MiB" (here --max-message-bytes 200): a line of exactly the limit is read whether it
    ends in \\n or \\r\\n; one byte more is -32600 messageTooLarge with id null; the connection goes on."""
    host = start_host("--max-message-bytes", "200")
    c = host.connect()
    for data, ok in ((padded_ping(200, "at") + b"\r\n", True), (padded_ping(201, "over") + b"\r\n", False),
                     (padded_ping(200, "lf") + b"\n", True), (padded_ping(201, "lf-over") + b"\n", False)):
        if split:
            for i in range(len(data)):
                c.send_raw(data[i:i + 1])
        else:
            c.send_raw(data)
        r = c.read_json()
        if ok:
            assert r["id"] in ("at", "lf") and r["error"]["code"] == -32602, r  # read as a request
        else:
            assert_error_reply(r, -32600, id=None, kind="messageTooLarge")
        assert_next_is_pong(c)


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


def test_max_batch_flag_at_and_past_the_limit_keeps_the_connection(start_host):
    host = start_host("--max-batch", "3")
    c = host.connect()
    c.send([req("host.ping", id=i) for i in range(3)])
    r = c.read_json()
    assert [m["id"] for m in r] == [0, 1, 2], r
    c.send([note("host.ping")] * 4)
    err = assert_error_reply(c.read_json(), -32600, id=None, kind="batchTooLarge")
    assert err["data"].get("max") == 3, err
    assert_next_is_pong(c)


def test_max_depth_flag_at_and_past_the_limit_keeps_the_connection(start_host):
    host = start_host("--max-depth", "5")
    c = host.connect()
    c.send_raw(nested_ping(5, "d5") + b"\n")
    r = c.read_json()
    assert r["id"] == "d5" and r["error"]["code"] == -32602, r
    c.send_raw(nested_ping(6, "d6") + b"\n")
    assert_error_reply(c.read_json(), -32600, id=None, kind="tooDeep")
    assert_next_is_pong(c)


def test_max_connections_frees_a_slot_when_a_client_leaves(start_host):
    host = start_host("--max-connections", "2")
    a, b = host.connect(), host.connect()
    a.ping()
    b.ping()
    refused = host.connect()
    lines = refused.read_until_closed(timeout=5)
    assert len(lines) == 1, lines
    err = assert_error_reply(json.loads(lines[0]), -32005, id=None, kind="limitExceeded")
    assert err["data"].get("max") == 2, err
    b.close()
    host.wait_stats(lambda s: s["connections"]["open"] == 1, conn=a)
    c = host.connect()
    c.ping()
    st = c.result("host.stats")["connections"]
    assert st["rejectedLimit"] == 1 and st["open"] == 2, st
