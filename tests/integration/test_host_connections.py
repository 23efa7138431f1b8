"""Many connections at once, and hostile input that must never disturb anybody else."""

from __future__ import annotations

import json
import socket
import struct
import time

import selectors
from grhost import LineConn, encode, next_is_pong, req


def expect_error(conn: LineConn, code: int) -> dict:
    r = conn.read_json()
    assert isinstance(r, dict) and r.get("id") is None and r["error"]["code"] == code, r
    return r


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
