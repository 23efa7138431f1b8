"""docs/security.md: Unix peers must share the host's uid (SO_PEERCRED) unless allowed with --allow-uid."""

from __future__ import annotations

import json
import os
import select
import socket
import time

import pytest

NOBODY = 65534
PING = b'{"jsonrpc":"2.0","id":1,"method":"host.ping"}\n'

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0,
    reason="connecting as a different uid needs root (to setuid a child); the host then runs as root "
           "and the peer as 65534",
)


def open_up(path: str) -> None:
    """Let another uid reach the socket (the host made the directory 0700 and the socket 0600)."""
    os.chmod(os.path.dirname(path), 0o755)
    os.chmod(path, 0o666)


def connect_as(uid: int, path: str, timeout: float = 5.0, payload: bytes = PING) -> dict:
    """Forks a child that drops to `uid`, connects, sends `payload` (a ping) and reads until the host
    closes or the timeout passes. Returns {"uid", "lines", "closed", "reset"} or {"error"}."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: never returns into pytest
        code = 0
        try:
            os.close(r)
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            out = {"uid": os.getuid(), "lines": [], "closed": False, "reset": False}
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(timeout)
            s.connect(path)
            try:
                s.sendall(payload)
            except OSError:
                pass
            buf = b""
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                try:
                    chunk = s.recv(65536)
                except socket.timeout:
                    break
                except ConnectionResetError:
                    out["reset"] = True
                    chunk = b""
                if not chunk:
                    out["closed"] = True
                    break
                buf += chunk
                # Admitted peers get their pong and stay open: stop once it is here.
                if b'"pong"' in buf:
                    break
            out["lines"] = [x.decode(errors="replace") for x in buf.split(b"\n") if x]
            s.close()
            data = json.dumps(out).encode()
        except BaseException as e:  # noqa: BLE001 - report anything to the parent
            data = json.dumps({"error": repr(e)}).encode()
            code = 1
        try:
            os.write(w, data)
        finally:
            os._exit(code)
    os.close(w)
    chunks = []
    deadline = time.monotonic() + timeout + 5
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([r], [], [], max(0.01, deadline - time.monotonic()))
            if not ready:
                continue
            chunk = os.read(r, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(r)
        for _ in range(100):
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            time.sleep(0.05)
        else:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
    return json.loads(b"".join(chunks) or b'{"error":"child said nothing"}')


def test_other_uid_is_refused(start_host):
    host = start_host()
    open_up(host.socket_path)
    me = host.connect()
    out = connect_as(NOBODY, host.socket_path)
    assert "error" not in out, out
    assert out["uid"] == NOBODY
    assert out["closed"], f"the host must close a refused peer: {out}"
    assert len(out["lines"]) == 1, out
    reply = json.loads(out["lines"][0])
    assert reply["id"] is None and reply["error"]["code"] == -32006, reply
    assert reply["error"]["data"]["kind"] == "unauthorized", reply
    s = host.stats(me)
    assert s["connections"]["rejectedPeer"] == 1, s
    assert s["connections"]["open"] == 1, s
    me.ping()


def test_allowed_uid_is_admitted(start_host):
    host = start_host("--allow-uid", str(NOBODY))
    open_up(host.socket_path)
    out = connect_as(NOBODY, host.socket_path)
    assert "error" not in out, out
    assert len(out["lines"]) == 1, out
    assert json.loads(out["lines"][0]) == {"jsonrpc": "2.0", "id": 1, "result": {"pong": True}}
    assert host.stats()["connections"]["rejectedPeer"] == 0


def test_allow_uid_admits_only_that_uid(start_host):
    host = start_host("--allow-uid", "12345")
    open_up(host.socket_path)
    out = connect_as(NOBODY, host.socket_path)
    assert "error" not in out, out
    assert out["closed"] and len(out["lines"]) == 1, out
    assert json.loads(out["lines"][0])["error"]["code"] == -32006
    assert host.stats()["connections"]["rejectedPeer"] == 1


def test_refused_peer_that_writes_first_reads_why(start_host):
    """A refused peer that has already written (here 64 KiB of requests, still unread by the host) gets
    its -32006 line and an orderly close, not a connection reset."""
    host = start_host()
    open_up(host.socket_path)
    tries = 8  # whether the host refuses before or after the peer's write is a race: try several times
    for _ in range(tries):
        out = connect_as(NOBODY, host.socket_path, payload=PING * (65536 // len(PING)))
        assert "error" not in out, out
        assert out["closed"] and not out["reset"], f"the refused peer was reset: {out}"
        assert len(out["lines"]) == 1, out
        assert json.loads(out["lines"][0])["error"]["code"] == -32006
    assert host.stats()["connections"]["rejectedPeer"] == tries
