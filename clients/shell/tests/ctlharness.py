"""What the greenroomctl test files share: how to run the script, a scripted fake host on a Unix
socket or TCP (exact behaviour on demand: events before the reply, slow or missing replies, dropped
connections), a fake WebSocket host (the same behaviours behind an RFC 6455 upgrade, with the frames
it received) and a real `greenroom serve --clock virtual` ($GREENROOM_BIN, else the repo's debug
build; a missing binary fails, never skips)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import select
import shutil
import socket
import socketserver
import struct
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest
from greenroom import testing


HERE = Path(__file__).resolve().parent
SCRIPT = HERE.parent / "greenroomctl"
REPO = HERE.parent.parent.parent
SHELL = os.environ.get("GREENROOM_TEST_SHELL") or shutil.which("dash") or "/bin/sh"
HAVE_JQ = shutil.which("jq") is not None

JQ_MODES = [
    pytest.param(False, id="awk"),
    pytest.param(
        True, id="jq", marks=pytest.mark.skipif(not HAVE_JQ, reason="jq not installed")
    ),
]


def clean_env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("GREENROOM_SOCKET", "GREENROOM_TIMEOUT", "GREENROOM_NO_JQ")
    }
    env.update(extra)
    return env


def run(
    *args: str,
    env: dict[str, str] | None = None,
    input: str | None = None,
    jq: bool = True,
    timeout: float = 30,
) -> subprocess.CompletedProcess[str]:
    env = clean_env() if env is None else env
    if not jq:
        env = dict(env, GREENROOM_NO_JQ="1")
    return subprocess.run(
        [SHELL, str(SCRIPT), *args],
        env=env,
        input=input if input is not None else "",
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def short_tmpdir() -> str:
    # sun_path is 108 bytes: keep socket paths short.
    return tempfile.mkdtemp(prefix="grc-", dir="/tmp")


# --------------------------------------------------------------------------
# fake host


class Close(Exception):
    """Raised by a behaviour to drop the connection."""


class Conn:
    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.lock = threading.Lock()

    def send(self, obj: object) -> None:
        line = obj if isinstance(obj, str) else json.dumps(obj, separators=(",", ":"))
        with self.lock:
            self.sock.sendall(line.encode() + b"\n")

    def event(self, topic: str, **params: object) -> None:
        self.send({"jsonrpc": "2.0", "method": topic, "params": params})

    def result(self, req: dict, result: object) -> None:
        self.send({"jsonrpc": "2.0", "id": req["id"], "result": result})

    def error(self, req: dict | None, code: int, message: str, data: object = None) -> None:
        err: dict[str, object] = {"code": code, "message": message}
        if data is not None:
            err["data"] = data
        rid = None if req is None else req.get("id")
        self.send({"jsonrpc": "2.0", "id": rid, "error": err})


def default_behaviour(req: dict, conn: Conn) -> None:
    method = req.get("method")
    if method == "host.ping":
        conn.result(req, {"pong": True})
    elif method == "echo":
        conn.result(req, req.get("params"))
    elif method == "events.subscribe":
        conn.result(req, {"topics": req["params"]["topics"]})
    else:
        conn.error(req, -32601, "Method not found", {"method": method})


class FakeHost:
    """The fake on a Unix socket (`path`), or with `tcp=True` on 127.0.0.1 (`address`, HOST:PORT)."""

    def __init__(self, behaviour=default_behaviour, tcp: bool = False):
        self.dir = short_tmpdir()
        self.path = os.path.join(self.dir, "h.sock")
        self.behaviour = behaviour
        self.received: list[str] = []
        self.opened = 0
        self.closed = threading.Semaphore(0)
        fake = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                fake.opened += 1
                conn = Conn(self.request)
                try:
                    for raw in self.rfile:
                        line = raw.decode().rstrip("\r\n")
                        fake.received.append(line)
                        try:
                            req = json.loads(line)
                        except ValueError:
                            conn.error(None, -32700, "Parse error")
                            continue
                        fake.behaviour(req, conn)
                except (Close, BrokenPipeError, ConnectionResetError):
                    pass
                finally:
                    fake.closed.release()

        class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
            daemon_threads = True

        class TCPServer(socketserver.ThreadingMixIn, socketserver.TCPServer):
            daemon_threads = True

        if tcp:
            self.server = TCPServer(("127.0.0.1", 0), Handler)
            self.address = "127.0.0.1:%d" % self.server.server_address[1]
        else:
            self.server = Server(self.path, Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def requests(self) -> list[dict]:
        return [json.loads(line) for line in self.received]

    def wait_closed(self, timeout: float = 5) -> bool:
        return self.closed.acquire(timeout=timeout)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        shutil.rmtree(self.dir, ignore_errors=True)


class WSConn(Conn):
    """A fake WebSocket host's connection: each message a text frame (or `pieces` fragments, with a ping
    between them when `ping` is set), as a server sends them: unmasked."""

    def __init__(self, sock: socket.socket, pieces: int = 1, ping: bool = False):
        super().__init__(sock)
        self.pieces, self.ping = pieces, ping

    def send(self, obj: object) -> None:
        data = (obj if isinstance(obj, str) else json.dumps(obj, separators=(",", ":"))).encode()
        cut = [data[len(data) * i // self.pieces: len(data) * (i + 1) // self.pieces] for i in range(self.pieces)]
        with self.lock:
            for i, piece in enumerate(cut):
                opcode = 0x1 if i == 0 else 0x0
                self.sock.sendall(server_frame(piece, opcode, fin=i == len(cut) - 1))
                if self.ping and i == 0:
                    self.sock.sendall(server_frame(b"are you there", 0x9))

    def close(self, code: int = 1000) -> None:
        with self.lock:
            self.sock.sendall(server_frame(struct.pack("!H", code), 0x8))


def server_frame(payload: bytes, opcode: int = 0x1, fin: bool = True) -> bytes:
    n = len(payload)
    head = bytes([(0x80 if fin else 0) | opcode])
    if n < 126:
        head += bytes([n])
    elif n < 1 << 16:
        head += bytes([126]) + struct.pack("!H", n)
    else:
        head += bytes([127]) + struct.pack("!Q", n)
    return head + payload


def read_client_frame(rfile) -> tuple[int, bool, bytes] | None:
    """(opcode, masked, payload) of the next frame from the client, None at EOF."""
    head = rfile.read(2)
    if len(head) < 2:
        return None
    opcode, masked, n = head[0] & 0x0F, bool(head[1] & 0x80), head[1] & 0x7F
    if n == 126:
        (n,) = struct.unpack("!H", rfile.read(2))
    elif n == 127:
        (n,) = struct.unpack("!Q", rfile.read(8))
    key = rfile.read(4) if masked else b"\0\0\0\0"
    data = rfile.read(n)
    return opcode, masked, bytes(b ^ key[i % 4] for i, b in enumerate(data))


class FakeWSHost:
    """The fake host behind a WebSocket upgrade on 127.0.0.1 (`url`). It keeps the upgrade's headers
    (`headers`), every frame's (opcode, masked) (`frames`), the text messages (`received`) and the close
    codes it got (`closes`). `refuse=(status, body)` answers the upgrade with an HTTP error instead;
    `pieces` and `ping` shape its messages (WSConn)."""

    def __init__(self, behaviour=default_behaviour, refuse: tuple[str, str] | None = None, pieces: int = 1,
                 ping: bool = False):
        self.behaviour = behaviour
        self.headers: list[dict[str, str]] = []
        self.frames: list[tuple[int, bool]] = []
        self.received: list[str] = []
        self.closes: list[int] = []
        self.closed = threading.Semaphore(0)
        fake = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                try:
                    request = self.rfile.readline().decode("latin-1").strip()
                    headers = {"request": request}
                    while (line := self.rfile.readline().decode("latin-1").strip()):
                        name, _, value = line.partition(":")
                        headers[name.strip().lower()] = value.strip()
                    fake.headers.append(headers)
                    if refuse is not None:
                        status, body = refuse
                        self.wfile.write(f"HTTP/1.1 {status}\r\nContent-Length: {len(body)}\r\n"
                                         f"Connection: close\r\n\r\n{body}".encode())
                        return
                    accept = base64.b64encode(hashlib.sha1(headers["sec-websocket-key"].encode()
                                                           + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
                    self.wfile.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                                     b"Connection: Upgrade\r\nSec-WebSocket-Accept: " + accept + b"\r\n\r\n")
                    conn = WSConn(self.request, pieces, ping)
                    while (frame := read_client_frame(self.rfile)) is not None:
                        opcode, masked, payload = frame
                        fake.frames.append((opcode, masked))
                        if opcode == 0x8:
                            fake.closes.append(struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005)
                            conn.close(fake.closes[-1])
                            return
                        if opcode != 0x1:
                            continue
                        text = payload.decode()
                        fake.received.append(text)
                        fake.behaviour(json.loads(text), conn)
                except (Close, BrokenPipeError, ConnectionResetError):
                    pass
                finally:
                    fake.closed.release()

        class Server(socketserver.ThreadingMixIn, socketserver.TCPServer):
            daemon_threads = True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.url = "ws://127.0.0.1:%d/rpc" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def requests(self) -> list[dict]:
        return [json.loads(text) for text in self.received]

    def wait_closed(self, timeout: float = 5) -> bool:
        return self.closed.acquire(timeout=timeout)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def read_line(p: subprocess.Popen, timeout: float) -> str:
    """One line from p.stdout, waiting at most `timeout` seconds."""
    deadline = time.monotonic() + timeout
    fd = p.stdout.fileno()
    buf = b""
    while b"\n" not in buf:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"no line within {timeout}s (got {buf!r})")
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        chunk = os.read(fd, 1)  # byte at a time: leave the rest in the pipe
        if not chunk:
            raise EOFError(f"EOF before a full line (got {buf!r})")
        buf += chunk
    return buf.decode()


def wait_for(cond, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.02)


def greenroom_bin() -> Path:
    env = os.environ.get("GREENROOM_BIN")
    path = Path(env) if env else REPO / ".build" / "debug" / "greenroom"
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(
            f"greenroom binary not found at {path}: build it (swift build) or set GREENROOM_BIN",
            pytrace=False,
        )
    return path


class RealHost:
    """A real `greenroom serve --clock virtual` on `path`, started by the shipped harness
    (greenroom.testing.HostProcess, what the pytest plugin's greenroom_host uses), its stderr in a file."""

    def __init__(self, binary: Path, *args: str):
        self.dir = short_tmpdir()
        self.args = args
        self.path = os.path.join(self.dir, "host.sock")
        try:
            self.host = testing.HostProcess.start(
                list(args), binary=str(binary), clock="virtual", socket=self.path, directory=self.dir,
                stderr=os.path.join(self.dir, "stderr.log"), ready_timeout=60)
        except testing.HostStartError as e:
            shutil.rmtree(self.dir, ignore_errors=True)
            pytest.fail(f"host did not print its ready line: {e}", pytrace=False)
        self.proc = self.host.process
        ready = self.host.ready
        assert ready.get("event") == "ready", ready
        assert f"unix:{self.path}" in ready.get("listen", []), ready
        assert ready.get("pid") == self.proc.pid, ready
        self.listen = ready["listen"]

    def address(self, scheme: str) -> str:
        """The ready line's `tcp:HOST:PORT` or `ws:HOST:PORT` listener."""
        return next(a for a in self.listen if a.startswith(scheme + ":"))

    def stderr(self) -> str:
        return self.host.stderr_text()[-2000:]

    def stop(self) -> None:
        try:
            self.host.stop(timeout=15)  # SIGTERM, then SIGKILL after 15 s
        except testing.HostDidNotExit:
            pass
        shutil.rmtree(self.dir, ignore_errors=True)
