"""What both greenroomctl test files share: how to run the script, a scripted fake host on a Unix
socket (exact behaviour on demand: events before the reply, slow or missing replies, dropped
connections) and a real `greenroom serve --clock virtual` ($GREENROOM_BIN, else the repo's debug
build; a missing binary fails, never skips)."""

from __future__ import annotations

import json
import os
import select
import shutil
import socket
import socketserver
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
    def __init__(self, behaviour=default_behaviour):
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

    def stderr(self) -> str:
        return self.host.stderr_text()[-2000:]

    def stop(self) -> None:
        try:
            self.host.stop(timeout=15)  # SIGTERM, then SIGKILL after 15 s
        except testing.HostDidNotExit:
            pass
        shutil.rmtree(self.dir, ignore_errors=True)
