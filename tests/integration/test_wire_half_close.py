"""A peer's EOF means "no more requests", not "stop answering": every request read before a
shutdown(SHUT_WR) is answered whole and its events written; then the host closes the connection and only
then tears its objects down.
"""

from __future__ import annotations

import json
import socket

from grhost import encode, req


def pipeline_then_half_close(conn, lines: list[bytes]) -> list[dict]:
    """Writes every line at once (without reading), shuts down the write side, then reads until the
    host closes. Returns every line received, decoded (a line cut off mid-way fails to decode)."""
    conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
    conn.send_raw(b"".join(lines), timeout=30)
    conn.sock.shutdown(socket.SHUT_WR)
    return [json.loads(x) for x in conn.read_until_closed(timeout=60)]


def test_5000_pipelined_creates_then_half_close_get_every_reply(host):
    observer = host.connect()
    observer.result("events.subscribe", {"topics": ["lifecycle"], "scope": "all"})
    c = host.connect()
    n = 5000
    replies = pipeline_then_half_close(
        c, [encode(req("container.create", {"class": "Container"}, id=i)) for i in range(n)])
    assert [r["id"] for r in replies] == list(range(n)), f"{len(replies)} of {n} replies"
    assert all("result" in r for r in replies), [r for r in replies if "result" not in r][:3]
    # Only after the close were the connection's objects torn down: the observer sees every one go.
    s = host.wait_stats(lambda s: s["connections"]["open"] == 1, conn=observer, timeout=30)
    assert s["connections"]["open"] == 1, s
    observer.ping()


def test_ten_discovers_then_half_close_get_ten_replies(host):
    c = host.connect()
    replies = pipeline_then_half_close(c, [encode(req("rpc.discover", id=i)) for i in range(10)])
    assert [r["id"] for r in replies] == list(range(10)), f"{len(replies)} of 10 replies"
    assert all(r["result"]["openrpc"] for r in replies)


def test_events_caused_before_the_eof_are_written_before_the_close(host):
    c = host.connect()
    lines = [encode(req("events.subscribe", {"topics": ["lifecycle"]}, id=0))]
    lines += [encode(req("container.create", {"class": "Container"}, id=i)) for i in range(1, 201)]
    msgs = pipeline_then_half_close(c, lines)
    replies = [m for m in msgs if "id" in m]
    assert [r["id"] for r in replies] == list(range(201))
    assert sum(1 for m in msgs if m.get("method") == "lifecycle") >= 200, "the creates' events were lost"


def test_half_close_after_a_complete_request_still_gets_the_reply(host):
    """A client that sends a request and shuts down its write side (as `nc -N` does) gets its reply."""
    c = host.connect()
    c.send_raw(encode({"jsonrpc": "2.0", "id": 7, "method": "host.ping"}))
    c.sock.shutdown(socket.SHUT_WR)
    lines = c.read_until_closed(timeout=5)
    assert [json.loads(x) for x in lines] == [{"jsonrpc": "2.0", "id": 7, "result": {"pong": True}}], lines


def test_half_close_after_pipelined_requests_gets_every_reply_and_event(vhost):
    """A client that writes its requests and shuts its write side (`nc -N`, `socat -t`) still gets every
    reply and the events caused by them, in order, before the host closes."""
    c = vhost.connect()
    data = (encode(req("events.subscribe", {"topics": ["lifecycle"]}, id="s"))
            + encode(req("container.create", {"class": "Container"}, id="k"))
            + b"".join(encode(req("host.ping", id=i)) for i in range(200)))
    c.send_raw(data)
    c.sock.shutdown(socket.SHUT_WR)
    lines = [json.loads(x) for x in c.read_until_closed(timeout=10)]
    ids = [m.get("id") for m in lines if "id" in m]
    assert ids == ["s", "k"] + list(range(200)), ids[:5]
    assert lines[1]["method"] == "lifecycle" and lines[1]["params"]["event"] == "init", lines[:3]
