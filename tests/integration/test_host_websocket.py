"""The `ws:` listener: RFC 6455 at ws://HOST:PORT/rpc with the line protocol's whole contract, HTTP for a
few static files beside it, and the browser-safety rules (Origin, Host, token). Driven by a real
WebSocket client from PyPI (`websockets`) and, for what no well-behaved client sends, raw frames."""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import time

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect as ws_connect

from grhost import REPO, Closed, write_token

UNAUTHORIZED = -32006


def ws_open(host, path="/rpc", **kwargs):
    """A `websockets` client on the host's ws: listener (no proxy, no compression offered)."""
    kwargs.setdefault("proxy", None)
    kwargs.setdefault("compression", None)
    kwargs.setdefault("open_timeout", 10)
    kwargs.setdefault("close_timeout", 5)
    kwargs.setdefault("max_size", None)
    return ws_connect(host.ws_url(path), **kwargs)


def call(ws, method, params=None, id=1):
    msg = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        msg["params"] = params
    ws.send(json.dumps(msg))
    while True:
        reply = json.loads(ws.recv(timeout=10))
        if isinstance(reply, dict) and "method" in reply:
            continue  # an event
        return reply


def closed_with(ws) -> int:
    """Reads until the host closes; returns the close code it sent."""
    with pytest.raises(ConnectionClosed) as info:
        for _ in range(1000):
            ws.recv(timeout=10)
    return info.value.rcvd.code if info.value.rcvd else None


def raw_frame(opcode: int, payload: bytes, fin: bool = True, masked: bool = True, rsv: int = 0) -> bytes:
    head = bytes([(0x80 if fin else 0) | (rsv << 4) | opcode])
    mask_bit = 0x80 if masked else 0
    n = len(payload)
    if n < 126:
        head += bytes([mask_bit | n])
    elif n <= 0xFFFF:
        head += bytes([mask_bit | 126]) + struct.pack("!H", n)
    else:
        head += bytes([mask_bit | 127]) + struct.pack("!Q", n)
    if not masked:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def raw_upgrade(host, headers: str = "", path: str = "/rpc") -> socket.socket:
    """A raw TCP socket that did the opening handshake; returns it past the 101 response."""
    h, p = host.ws_address
    s = socket.create_connection((h, p), timeout=10)
    s.sendall((f"GET {path} HTTP/1.1\r\nHost: {h}:{p}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n{headers}\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        assert chunk, head
        head += chunk
    assert head.startswith(b"HTTP/1.1 101 "), head
    return s


def read_frames_until_close(s: socket.socket) -> list[tuple[int, bytes]]:
    """Server frames (opcode, payload) until a close frame or EOF."""
    buf = b""
    frames = []
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        while len(buf) >= 2:
            n = buf[1] & 0x7F
            off = 2
            if n == 126:
                if len(buf) < 4:
                    break
                n = struct.unpack("!H", buf[2:4])[0]
                off = 4
            elif n == 127:
                if len(buf) < 10:
                    break
                n = struct.unpack("!Q", buf[2:10])[0]
                off = 10
            if len(buf) < off + n:
                break
            frames.append((buf[0] & 0x0F, buf[off:off + n]))
            buf = buf[off + n:]
            if frames[-1][0] == 8:
                return frames
        chunk = s.recv(65536)
        if not chunk:
            return frames
        buf += chunk
    raise AssertionError(f"no close within 10 s: {frames}")


def http_get(host, request: bytes) -> bytes:
    """Sends raw HTTP bytes to the ws: port; returns everything until the host closes."""
    h, p = host.ws_address
    with socket.create_connection((h, p), timeout=10) as s:
        s.sendall(request)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return data
            data += chunk


# -- listening ---------------------------------------------------------------------------------------


def test_ws_listener_reports_its_port_beside_the_others(start_host):
    host = start_host("--listen", "ws:127.0.0.1:0", "--listen", "tcp:127.0.0.1:0")
    assert [a.split(":", 1)[0] for a in host.listen] == ["unix", "ws", "tcp"], host.listen
    h, port = host.ws_address
    assert h == "127.0.0.1" and 0 < port < 65536
    with ws_open(host) as ws:
        assert call(ws, "host.ping")["result"] == {"pong": True}
        assert call(ws, "host.info")["result"]["listen"] == host.listen
    assert host.stats()["connections"]["webSocketUpgrades"] == 1


# -- the line protocol's contract, one message per text frame -----------------------------------------


def test_batches_notifications_errors_and_events_before_the_reply(start_host):
    host = start_host("--listen", "ws:127.0.0.1:0")
    with ws_open(host) as ws:
        ws.send(json.dumps([{"jsonrpc": "2.0", "id": 1, "method": "host.ping"},
                            {"jsonrpc": "2.0", "method": "host.ping"},
                            {"jsonrpc": "2.0", "id": 2, "method": "no.such"}]))
        replies = json.loads(ws.recv(timeout=10))
        assert [r["id"] for r in replies] == [1, 2] and replies[1]["error"]["code"] == -32601, replies
        ws.send(json.dumps({"jsonrpc": "2.0", "method": "host.ping"}))  # a notification: no reply
        ws.send("{not json")
        assert json.loads(ws.recv(timeout=10))["error"]["code"] == -32700
        ws.send("[]")
        assert json.loads(ws.recv(timeout=10))["error"]["code"] == -32600
        bad = call(ws, "container.create", {"class": 7}, id=3)
        assert bad["error"]["code"] == -32602 and bad["error"]["data"]["path"], bad
        # Events: text frames, with seq, written before the reply of the request that caused them.
        call(ws, "events.subscribe", {"topics": ["lifecycle"]}, id=4)
        ws.send(json.dumps({"jsonrpc": "2.0", "id": 5, "method": "container.create", "params": {"class": "Container"}}))
        frames = []
        while True:
            frames.append(json.loads(ws.recv(timeout=10)))
            if frames[-1].get("id") == 5:
                break
        events = frames[:-1]
        assert events and all(e["method"] == "lifecycle" for e in events), frames
        assert [e["params"]["seq"] for e in events] == list(range(1, len(events) + 1)), events
        assert "result" in frames[-1], frames
        assert host.stats()["containers"]["total"] == 1
    # Teardown on close: the connection's objects go with it.
    host.wait_stats(lambda s: s["containers"]["total"] == 0 and s["connections"]["open"] == 1)


def test_fragmented_message_is_reassembled_and_ping_answered(start_host):
    host = start_host("--listen", "ws:127.0.0.1:0")
    with ws_open(host) as ws:
        text = json.dumps({"jsonrpc": "2.0", "id": 9, "method": "host.ping"})
        ws.send([text[:5], text[5:20], text[20:]])  # three frames: text, continuation, continuation
        assert json.loads(ws.recv(timeout=10))["id"] == 9
        assert ws.ping(b"are you there").wait(timeout=10)


def test_an_empty_text_frame_is_a_parse_error_and_the_host_lives_on(start_host):
    """An empty message (what `socket.send("")` sends from any page) used to stop the host."""
    host = start_host("--listen", "ws:127.0.0.1:0")
    with ws_open(host) as ws:
        for message in ["", ["", ""]]:  # one empty frame, then an empty message in two fragments
            ws.send(message)
            reply = json.loads(ws.recv(timeout=10))
            assert reply["id"] is None and reply["error"]["code"] == -32700, reply
        assert call(ws, "host.ping")["result"] == {"pong": True}
    host.wait_stats(lambda s: s["connections"]["open"] == 1)


# -- close codes, each counted -------------------------------------------------------------------------


def test_close_codes_are_sent_and_counted(start_host):
    host = start_host("--listen", "ws:127.0.0.1:0", "--max-message-bytes", "4096")
    with ws_open(host) as ws:  # the client closes: 1000 answered
        call(ws, "host.ping")
    with ws_open(host) as ws:
        ws.send(b"\x01\x02")
        assert closed_with(ws) == 1003
    with ws_open(host) as ws:
        ws.send("[" + " " * 5000 + "]")
        assert closed_with(ws) == 1009
    for frame in [raw_frame(0x1, b"{}", masked=False), raw_frame(0x9, b"", fin=False), raw_frame(0x3, b"")]:
        s = raw_upgrade(host)
        s.sendall(frame)
        frames = read_frames_until_close(s)
        assert frames and frames[-1][0] == 8 and struct.unpack("!H", frames[-1][1][:2])[0] == 1002, frames
        s.close()
    s = raw_upgrade(host)
    s.sendall(raw_frame(0x1, b'"\xc3\x28"'))
    assert struct.unpack("!H", read_frames_until_close(s)[-1][1][:2])[0] == 1007
    s.close()
    stats = host.wait_stats(lambda s: s["connections"]["webSocketCloses"].get("1002") == 3)
    closes = stats["connections"]["webSocketCloses"]
    assert closes["1000"] >= 1 and closes["1003"] == 1 and closes["1009"] == 1 and closes["1007"] == 1, closes


# -- HTTP beside the upgrade ---------------------------------------------------------------------------


def test_static_files_and_http_errors_never_json_rpc(start_host):
    host = start_host("--listen", "ws:127.0.0.1:0")
    h, p = host.ws_address
    page = http_get(host, f"GET / HTTP/1.1\r\nHost: {h}:{p}\r\n\r\n".encode())
    assert page.startswith(b"HTTP/1.1 200 OK\r\n") and b"/greenroom.js" in page, page[:300]
    js = http_get(host, f"GET /greenroom.js HTTP/1.1\r\nHost: localhost:{p}\r\n\r\n".encode())
    assert b"Content-Type: text/javascript" in js and b"export function connect" in js
    schema = http_get(host, f"GET /openrpc.json HTTP/1.1\r\nHost: {h}\r\n\r\n".encode())
    body = schema.split(b"\r\n\r\n", 1)[1]
    assert json.loads(body)["openrpc"], schema[:200]
    assert body == (REPO / "rpc-schema" / "openrpc.json").read_bytes(), "the checked-in document, byte for byte"
    dts = http_get(host, f"GET /greenroom.d.ts HTTP/1.1\r\nHost: {h}\r\n\r\n".encode())
    assert b"Content-Type: application/typescript" in dts, dts[:300]
    assert dts.split(b"\r\n\r\n", 1)[1] == (REPO / "clients" / "js" / "greenroom.d.ts").read_bytes()
    for request, status in [(b"GET /nope HTTP/1.1\r\nHost: localhost\r\n\r\n", 404),
                            (b"DELETE / HTTP/1.1\r\nHost: localhost\r\n\r\n", 405),
                            (b"GET /rpc HTTP/1.1\r\nHost: localhost\r\n\r\n", 426),
                            (b'{"jsonrpc":"2.0","id":1,"method":"host.ping"}\n', 400)]:
        reply = http_get(host, request)
        assert reply.startswith(b"HTTP/1.1 %d " % status), reply
        assert b"jsonrpc" not in reply, reply
    answers = host.stats()["connections"]["httpAnswers"]
    assert answers == {"200": 4, "path": 1, "method": 1, "upgrade": 1, "request": 1}, answers


def test_http_on_the_raw_tcp_listener_gets_one_400(start_host):
    host = start_host("--listen", "tcp:127.0.0.1:0")
    c = host.connect_tcp()
    c.send_raw(b"GET / HTTP/1.1\r\nHost: localhost\r\nUser-Agent: curl\r\nAccept: */*\r\n\r\n")
    data = b"".join(c.read_until_closed(timeout=10))
    assert data.startswith(b"HTTP/1.1 400 Bad Request"), data
    assert b"--listen ws:" in data and b"jsonrpc" not in data, data
    # A JSON-RPC client on the same listener is unaffected.
    host.connect_tcp().ping()


# -- browser safety ------------------------------------------------------------------------------------


def test_origins(start_host):
    host = start_host("--listen", "ws:127.0.0.1:0", "--allow-origin", "http://dev.example:3000")
    h, p = host.ws_address
    for origin in [None, f"http://{h}:{p}", f"http://localhost:{p}", "http://dev.example:3000"]:
        with ws_open(host, origin=origin) as ws:
            assert "result" in call(ws, "host.ping"), origin
    with pytest.raises(InvalidStatus) as info:
        ws_open(host, origin="https://evil.example")
    assert info.value.response.status_code == 403
    assert b"--allow-origin https://evil.example" in info.value.response.body
    assert host.stats()["connections"]["httpAnswers"] == {"origin": 1}


def test_any_origin_warns(start_host):
    host = start_host("--listen", "ws:127.0.0.1:0", "--allow-origin", "*")
    with ws_open(host, origin="https://anywhere.example") as ws:
        assert "result" in call(ws, "host.ping")
    assert "--allow-origin *" in host.stderr_text()


def test_host_header_must_be_loopback(start_host):
    host = start_host("--listen", "ws:127.0.0.1:0")
    h, p = host.ws_address
    upgrade = ("GET /rpc HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    refused = http_get(host, upgrade.format(f"rebound.example:{p}").encode())
    assert refused.startswith(b"HTTP/1.1 403 ") and b"--bind-any" in refused, refused
    for name in [f"localhost:{p}", f"127.0.0.1:{p}", f"app.localhost:{p}"]:
        s = socket.create_connection((h, p), timeout=10)
        s.sendall(upgrade.format(name).encode())
        assert s.recv(12) == b"HTTP/1.1 101", name
        s.close()
    two = http_get(host, upgrade.replace("\r\n\r\n", "\r\nHost: evil.example\r\n\r\n").format(f"localhost:{p}").encode())
    assert two.startswith(b"HTTP/1.1 400 "), two
    assert host.stats()["connections"]["httpAnswers"] == {"host": 2}


def test_token_on_bind_any(start_host, tmp_short):
    token = write_token(tmp_short, "s3cret-token-0123456789", 0o600)
    host = start_host("--listen", "ws:0.0.0.0:0", "--bind-any", "--token-file", token)
    _, p = host.ws_address
    url = f"ws://127.0.0.1:{p}/rpc"
    opts = dict(proxy=None, compression=None, open_timeout=10)
    # Any Host is accepted; without a token only host.auth is allowed.
    s = socket.create_connection(("127.0.0.1", p), timeout=10)
    s.sendall((f"GET /rpc HTTP/1.1\r\nHost: my-machine.lan:{p}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    assert s.recv(12) == b"HTTP/1.1 101"
    s.close()
    with ws_connect(url, **opts) as ws:
        assert call(ws, "host.ping")["error"]["code"] == UNAUTHORIZED
        assert call(ws, "host.auth", {"token": "s3cret-token-0123456789"}, id=2)["result"] == {"authenticated": True}
        assert "result" in call(ws, "host.ping", id=3)
    with ws_connect(url + "?token=s3cret-token-0123456789", **opts) as ws:
        assert "result" in call(ws, "host.ping")
    with ws_connect(url, subprotocols=["greenroom", "greenroom.token.s3cret-token-0123456789"], **opts) as ws:
        assert ws.subprotocol == "greenroom"
        assert "result" in call(ws, "host.ping")
    with pytest.raises(InvalidStatus) as info:
        ws_connect(url + "?token=wrong", **opts)
    assert info.value.response.status_code == 401
    assert "s3cret" not in host.stderr_text() and "wrong" not in host.stderr_text()


# -- limits --------------------------------------------------------------------------------------------


def test_a_peer_that_stops_reading_is_closed_at_the_outbound_limit(start_host):
    host = start_host("--listen", "ws:127.0.0.1:0", "--max-outbound-bytes", "65536", "--slow-reader-grace-ms", "200")
    monitor = host.connect()
    s = raw_upgrade(host)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    request = raw_frame(0x1, json.dumps({"jsonrpc": "2.0", "id": 1, "method": "rpc.discover"}).encode())
    s.setblocking(False)
    deadline = time.monotonic() + 20
    closed = False
    while time.monotonic() < deadline and not closed:
        try:
            s.send(request)
        except BlockingIOError:
            time.sleep(0.01)
        except OSError:
            closed = True
        if host.stats(monitor)["connections"]["closedSlowReader"] >= 1:
            break
    stats = host.wait_stats(lambda st: st["connections"]["closedSlowReader"] >= 1, conn=monitor)
    assert stats["connections"]["open"] == 1, stats  # the monitor alone
    s.close()


def test_a_thousand_websocket_connections(start_host):
    host = start_host("--listen", "ws:127.0.0.1:0")
    monitor = host.connect()
    conns = []
    try:
        for _ in range(1000):
            conns.append(ws_open(host, ping_interval=None, legacy=True))
        for i, ws in enumerate(conns[::50]):
            assert "result" in call(ws, "host.ping", id=i)
        assert host.stats(monitor)["connections"]["open"] == 1001
    finally:
        for ws in conns:
            ws.close()
    host.wait_stats(lambda s: s["connections"]["open"] == 1, conn=monitor, timeout=30)


def test_connection_limit_applies_to_websocket_peers(start_host):
    host = start_host("--listen", "ws:127.0.0.1:0", "--max-connections", "2")
    h, p = host.ws_address
    with ws_open(host) as a, ws_open(host) as b:
        refused = http_get(host, (f"GET /rpc HTTP/1.1\r\nHost: {h}:{p}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                  "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        assert refused.startswith(b"HTTP/1.1 503 ") and b"Too many connections" in refused, refused
        assert "result" in call(a, "host.ping") and "result" in call(b, "host.ping")



def test_shutdown_closes_websocket_peers_with_1001_after_their_teardown_events(start_host):
    host = start_host("--listen", "ws:127.0.0.1:0")
    with ws_open(host) as ws:
        call(ws, "events.subscribe", {"topics": ["lifecycle"]})
        assert "result" in call(ws, "container.create", {"class": "Container"}, id=2)
        host.signal(signal.SIGTERM)
        events = []
        with pytest.raises(ConnectionClosed) as info:
            while True:
                events.append(json.loads(ws.recv(timeout=10)))
        assert info.value.rcvd is not None and info.value.rcvd.code == 1001, info.value
        assert any(e.get("method") == "lifecycle" for e in events), events
    assert host.wait(10) == 0
