"""Many connections at once, and hostile input that must never disturb anybody else."""

from __future__ import annotations

import json
import selectors
import socket
import time

from grhost import LineConn, encode


def test_200_concurrent_connections(host):
    monitor = host.connect()
    n = 200
    conns = [LineConn.unix(host.socket_path) for _ in range(n)]
    try:
        for i, c in enumerate(conns):
            c.send({"jsonrpc": "2.0", "id": i, "method": "host.ping"})
        # Read all replies concurrently (bounded by a deadline).
        sel = selectors.DefaultSelector()
        for i, c in enumerate(conns):
            c.sock.setblocking(False)
            sel.register(c.sock, selectors.EVENT_READ, i)
        got: dict[int, dict] = {}
        bufs = {i: b"" for i in range(n)}
        deadline = time.monotonic() + 15
        while len(got) < n and time.monotonic() < deadline:
            for key, _ in sel.select(timeout=0.5):
                i = key.data
                chunk = key.fileobj.recv(65536)
                assert chunk, f"connection {i} closed before its reply"
                bufs[i] += chunk
                if b"\n" in bufs[i]:
                    got[i] = json.loads(bufs[i].split(b"\n", 1)[0])
                    sel.unregister(key.fileobj)
        sel.close()
        assert len(got) == n, f"{n - len(got)} connections got no reply"
        assert all(got[i] == {"jsonrpc": "2.0", "id": i, "result": {"pong": True}} for i in range(n))
        s = host.stats(monitor)
        assert s["connections"]["open"] == n + 1, s
    finally:
        for c in conns:
            c.close()
    s = host.wait_stats(lambda s: s["connections"]["open"] == 1, conn=monitor)
    assert s["connections"]["closed"] >= n, s
    assert s["connections"]["accepted"] >= n + 1, s
    monitor.ping()


def expect_error(conn: LineConn, code: int) -> dict:
    r = conn.read_json()
    assert isinstance(r, dict) and r.get("id") is None and r["error"]["code"] == code, r
    return r


def test_garbage_on_one_connection_never_disturbs_another(host):
    bad, good = host.connect(), host.connect()
    good.ping()

    cases = [
        (b"\xff\xfe\xfd not utf-8 \xc3\x28\n", -32700),
        (b'{"jsonrpc":"2.0","id":1,"method":"host.ping","params":{"x":"\xc3\x28"}}\n', -32700),
        (b'{"jsonrpc":"2.0","id":1,"method":"host\x00.ping"}\n', -32700),
        (b"\x00\x00\x00\x00\n", -32700),
        (b"{{{{\n", -32700),
        (b'"just a string"\n', -32600),
        (b"42\n", -32600),
        (b"null\n", -32600),
    ]
    for payload, code in cases:
        bad.send_raw(payload)
        good.ping()
        expect_error(bad, code)
        bad.ping()  # the bad connection itself is still usable
        good.ping()

    # Random binary junk with embedded newlines: every line gets at most one error, nothing crashes.
    junk = bytes((i * 131 + 7) % 256 for i in range(64 * 1024))
    bad.send_raw(junk + b"\n")
    good.ping()
    # Replies to the junk lines come first: drain them up to a marker request's reply.
    rid = bad.request("host.ping", id="marker")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        msg = bad.read_json(timeout=5)
        if msg.get("id") == "marker":
            assert msg["result"] == {"pong": True}
            break
        assert msg["id"] is None and msg["error"]["code"] in (-32700, -32600), msg
    else:
        raise AssertionError("marker reply never came")
    assert rid == "marker"

    # A request cut off by a close: nothing happens to anyone.
    bad.send_raw(b'{"jsonrpc":"2.0"')
    bad.close()
    for _ in range(5):
        good.ping()
    s = host.wait_stats(lambda s: s["connections"]["open"] == 1, conn=good)
    assert s["connections"]["open"] == 1
    good.ping()


def test_half_close_after_a_complete_request_still_gets_the_reply(host):
    """A client that sends a request and shuts down its write side (as `nc -N` does) gets its reply."""
    c = host.connect()
    c.send_raw(encode({"jsonrpc": "2.0", "id": 7, "method": "host.ping"}))
    c.sock.shutdown(socket.SHUT_WR)
    lines = c.read_until_closed(timeout=5)
    assert [json.loads(x) for x in lines] == [{"jsonrpc": "2.0", "id": 7, "result": {"pong": True}}], lines


def test_crlf_and_split_writes(host):
    c = host.connect()
    req = b'{"jsonrpc":"2.0","id":"crlf","method":"host.ping"}\r\n'
    for b in req:  # one byte per write
        c.send_raw(bytes([b]))
    assert c.read_json() == {"jsonrpc": "2.0", "id": "crlf", "result": {"pong": True}}
    c.send_raw(b"\n\n   \n")  # blank lines carry no message
    c.ping()
    c.assert_quiet(0.1)


def test_output_never_contains_a_raw_newline(host):
    c = host.connect()
    c.send({"jsonrpc": "2.0", "id": "a\nb\r\u2028", "method": "no.such\nmethod"})
    line = c.read_line()
    r = json.loads(line)
    assert r["id"] == "a\nb\r\u2028" and r["error"]["code"] == -32601, r
    assert b"\r" not in line


def test_output_is_compact_json(host):
    c = host.connect()
    c.send_raw(b'{ "jsonrpc" : "2.0" , "id" : 1 , "method" : "host.ping" }\n')
    assert c.read_line() == b'{"jsonrpc":"2.0","id":1,"result":{"pong":true}}'
