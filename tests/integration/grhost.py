"""Helpers for the host's integration tests: start the real `greenroom serve`, talk raw lines to it.

Hosts are started by the shipped harness, `greenroom.testing.HostProcess` (the one the pytest plugin's
`greenroom_host` fixture and users' tests use): `Host` is a `HostProcess` with raw line connections and the
host-level checks beside it, `HostFactory` starts them with the options these tests need (no --clock unless
given, the socket and stderr in a private temp dir, a session of their own, another user).

Everything here is bounded: every wait has a deadline, every loop an end. Nothing sleeps and hopes;
start-up waits for the host's ready line, shutdown waits for the process to exit.

The wire, event and host test files (test_wire_*.py, test_host_*.py, test_ownership.py, test_clock.py,
test_classes.py), whose shared helpers are at the end of this file: every expectation is worked out from
docs/protocol.md, docs/security.md and rpc-schema/openrpc.json (the JSON-RPC 2.0 specification where they defer to
it), never from what the host prints. Each test starts its own `greenroom serve` on a temporary socket (a virtual
clock where the test takes `vhost`) and talks raw lines to it; every read is bounded.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from greenroom import testing

REPO = Path(__file__).resolve().parents[2]
DEFAULT_BIN = REPO / ".build" / "debug" / "greenroom"

#: How long a host may take to print its ready line (a debug build on 2 busy cores).
START_TIMEOUT = 15.0
#: How long a host may take to exit after SIGTERM at teardown before it is killed.
STOP_TIMEOUT = 10.0


def find_bin(wait_s: float = 30.0) -> str:
    """GREENROOM_BIN, else the repo's debug build. Waits a little for a rebuild to finish."""
    explicit = os.environ.get("GREENROOM_BIN")
    path = Path(explicit) if explicit else DEFAULT_BIN
    deadline = time.monotonic() + wait_s
    while True:
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
        if time.monotonic() >= deadline:
            raise FileNotFoundError(
                f"greenroom binary not found or not executable at {path} "
                f"({'from GREENROOM_BIN' if explicit else 'set GREENROOM_BIN or build with `swift build`'})"
            )
        time.sleep(0.5)


def short_tmpdir(prefix: str = "gri-") -> str:
    """A short directory under /tmp (sun_path is 108 bytes), mode 0700."""
    return tempfile.mkdtemp(prefix=prefix, dir="/tmp")


def base_env(tmpdir: str | None = None) -> dict:
    """The test process's environment, made safe: no GREENROOM_SOCKET, and XDG_RUNTIME_DIR pointing at
    a private temp dir so that no host started here ever touches a real user's default socket."""
    env = dict(os.environ)
    env.pop("GREENROOM_SOCKET", None)
    if tmpdir is not None:
        env["XDG_RUNTIME_DIR"] = tmpdir
    return env


#: The shipped harness's start-up error: `returncode`, `stdout` and `stderr` (the host's, from its file).
HostStartError = testing.HostStartError


class Host(testing.HostProcess):
    """A running `greenroom serve`: the shipped harness's `HostProcess` (greenroom.testing) with what the host's
    own tests need beside it: raw line connections (`connect`, `connect_tcp`), the TCP and WebSocket
    addresses, host.stats polling, signals, and a stop that never raises."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._conns: list[LineConn] = []

    # The names these tests have always used.

    @property
    def proc(self) -> subprocess.Popen:
        return self.process

    @property
    def argv(self) -> list:
        return self.command

    @property
    def tmpdir(self) -> str:
        return self.directory

    # Addresses

    @property
    def socket_path(self) -> str:
        for a in self.listen:
            if a.startswith("unix:"):
                return a[len("unix:"):]
        raise AssertionError(f"no unix listener in {self.listen}")

    @property
    def tcp_address(self) -> tuple[str, int]:
        for a in self.listen:
            if a.startswith("tcp:"):
                hostport = a[len("tcp:"):]
                h, _, p = hostport.rpartition(":")
                return h.strip("[]"), int(p)
        raise AssertionError(f"no tcp listener in {self.listen}")

    @property
    def ws_address(self) -> tuple[str, int]:
        for a in self.listen:
            if a.startswith("ws:"):
                h, _, p = a[len("ws:"):].rpartition(":")
                return h.strip("[]"), int(p)
        raise AssertionError(f"no ws listener in {self.listen}")

    def ws_url(self, path: str = "/rpc") -> str:
        h, p = self.ws_address
        return f"ws://{h}:{p}{path}"

    # Clients

    def connect(self, timeout: float = 5.0) -> "LineConn":
        c = LineConn.unix(self.socket_path, timeout=timeout)
        self._conns.append(c)
        return c

    def connect_tcp(self, timeout: float = 5.0) -> "LineConn":
        h, p = self.tcp_address
        if h in ("0.0.0.0", "::"):
            h = "127.0.0.1"
        c = LineConn.tcp(h, p, timeout=timeout)
        self._conns.append(c)
        return c

    def call(self, method: str, params=None, timeout: float = 5.0) -> dict:
        """One request on a fresh connection; returns the whole reply object."""
        c = self.connect()
        try:
            return c.call(method, params, timeout=timeout)
        finally:
            c.close()

    def stats(self, conn: "LineConn | None" = None) -> dict:
        reply = (conn.call("host.stats") if conn else self.call("host.stats"))
        assert "result" in reply, reply
        return reply["result"]

    def wait_stats(self, predicate, conn: "LineConn | None" = None, timeout: float = 10.0) -> dict:
        """Polls host.stats (bounded) until predicate(stats) holds; returns those stats."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            last = self.stats(conn)
            if predicate(last):
                return last
            time.sleep(0.02)
        raise AssertionError(f"host.stats never satisfied the condition within {timeout} s; last: {last}")

    # Process

    def is_running(self) -> bool:
        return self.process.poll() is None

    def wait(self, timeout: float) -> int:
        """Waits for the host to exit; raises AssertionError (with stderr) if it does not in time."""
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(
                f"host pid {self.process.pid} still running after {timeout} s; stderr: {self.stderr_text()!r}"
            ) from None

    def signal(self, sig: int) -> None:
        if self.process.poll() is None:
            self.process.send_signal(sig)

    def stop(self, timeout: float = STOP_TIMEOUT) -> int | None:
        """Closes the raw connections, then SIGTERM, wait, SIGKILL if needed. Returns the exit code."""
        for c in self._conns:
            c.close()
        try:
            return super().stop(timeout)
        except testing.HostDidNotExit:
            return self.process.returncode


class HostFactory:
    """Starts hosts (through the shipped harness) and guarantees every one is stopped at teardown."""

    def __init__(self, bin_path: str):
        self.bin = bin_path
        self.hosts: list[Host] = []
        self.dirs: list[str] = []

    def tmpdir(self, prefix: str = "gri-") -> str:
        d = short_tmpdir(prefix)
        self.dirs.append(d)
        return d

    def start(self, *args, env=None, auto_socket=True, user=None, timeout=START_TIMEOUT) -> Host:
        """Runs `BIN serve ARGS` and waits for `{"event":"ready",...}`; raises HostStartError if the
        host exits first or says nothing in time. Unless --socket is given (or auto_socket=False), the
        socket goes into a fresh short temp dir. The host runs in that dir with stderr in its stderr.txt,
        in a session of its own, with base_env(dir) unless `env` is given."""
        tmpdir = self.tmpdir()
        args = [str(a) for a in args]
        socket_path = os.path.join(tmpdir, "h.sock") if auto_socket and "--socket" not in args else False
        if env is None:
            env = base_env(tmpdir)
        binary = self.bin
        if user is not None:
            os.chmod(tmpdir, 0o755)
            binary = self.reachable_by_others(tmpdir)
        host = Host.start(
            args, binary=binary, clock=None, socket=socket_path, directory=tmpdir, env=env,
            stderr=os.path.join(tmpdir, "stderr.txt"), user=user, new_session=True, ready_timeout=timeout,
        )
        self.hosts.append(host)
        assert isinstance(host.ready.get("listen"), list) and host.ready["listen"], host.ready
        assert host.ready.get("pid") == host.process.pid, (host.ready, host.process.pid)
        return host

    def reachable_by_others(self, tmpdir: str) -> str:
        """The binary, where another user can run it: the checkout may live under a directory only its owner
        can enter (root's 0700 home), so a copy goes into the host's own 0755 directory when needed."""
        path = os.path.abspath(self.bin)
        folders = [os.path.dirname(path)]
        while folders[-1] != os.path.dirname(folders[-1]):
            folders.append(os.path.dirname(folders[-1]))
        if all(os.stat(f).st_mode & 0o001 for f in folders) and os.stat(path).st_mode & 0o001:
            return path
        copy = os.path.join(tmpdir, "greenroom")
        shutil.copy2(path, copy)
        os.chmod(copy, 0o755)
        # The executable `serve` runs the host in, when it is built beside the binary.
        host = os.path.join(os.path.dirname(path), "greenroom-host")
        if os.path.exists(host):
            shutil.copy2(host, os.path.join(tmpdir, "greenroom-host"))
            os.chmod(os.path.join(tmpdir, "greenroom-host"), 0o755)
        return copy

    def fail(self, *args, env=None, auto_socket=True, user=None, timeout=START_TIMEOUT) -> HostStartError:
        """Runs `BIN serve ARGS` expecting it to refuse to start; returns the HostStartError (exit code
        and stderr). Fails the test if the host comes up instead."""
        try:
            host = self.start(*args, env=env, auto_socket=auto_socket, user=user, timeout=timeout)
        except HostStartError as e:
            return e
        rc = host.stop()
        raise AssertionError(f"host started (listen {host.listen}) but should have refused; stopped it (rc {rc})")

    def teardown(self) -> None:
        """Stops every host still running and insists each exits cleanly (status 0: no handle left open,
        no crash); hosts a test ended itself are judged by that test."""
        unclean = []
        for h in self.hosts:
            if h.process.poll() is not None:
                continue
            try:
                rc = h.stop()
            except Exception as error:  # noqa: BLE001 - teardown must reach every process
                unclean.append(f"pid {h.pid}: {error}")
                continue
            if rc != 0:
                unclean.append(f"pid {h.pid} exited with status {rc}")
        for d in self.dirs:
            shutil.rmtree(d, ignore_errors=True)
        if unclean:
            raise AssertionError("hosts did not exit cleanly at teardown: " + "; ".join(unclean))


# ---------------------------------------------------------------------------------------------------
# A raw newline-delimited client


class Closed(Exception):
    """The peer closed the connection."""


class LineConn:
    """A raw line client over a Unix or TCP socket. Reads are bounded by a timeout."""

    _next_id = 0

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.buf = b""
        self.events: list[dict] = []
        self.closed = False
        self.eof = False

    @classmethod
    def unix(cls, path: str, timeout: float = 5.0) -> "LineConn":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        s.connect(path)
        return cls(s)

    @classmethod
    def tcp(cls, host: str, port: int, timeout: float = 5.0) -> "LineConn":
        s = socket.create_connection((host, port), timeout=timeout)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return cls(s)

    def fileno(self) -> int:
        return self.sock.fileno()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            try:
                self.sock.close()
            except OSError:
                pass

    # Writing

    def send_raw(self, data: bytes, timeout: float = 10.0) -> None:
        self.sock.settimeout(timeout)
        self.sock.sendall(data)

    def send(self, obj) -> None:
        self.send_raw(encode(obj))

    @classmethod
    def new_id(cls) -> int:
        cls._next_id += 1
        return cls._next_id

    def request(self, method: str, params=None, id=None) -> int:
        rid = self.new_id() if id is None else id
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return rid

    # Reading

    def read_line(self, timeout: float = 5.0) -> bytes:
        """The next line (without its newline). Raises Closed at end of stream, TimeoutError if nothing
        complete arrives in time."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            if self.eof:
                raise Closed(f"connection closed (unterminated tail: {self.buf[:200]!r})")
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no complete line within {timeout} s (buffered {len(self.buf)} bytes)")
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(1 << 16)
            except socket.timeout:
                continue
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                self.eof = True
                continue
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def read_json(self, timeout: float = 5.0):
        line = self.read_line(timeout)
        assert b"\r" not in line, f"raw CR in output line: {line[:200]!r}"
        return json.loads(line)

    def read_reply(self, rid, timeout: float = 5.0) -> dict:
        """Reads until the reply with id `rid` (or an id-null error); notifications are kept in events."""
        deadline = time.monotonic() + timeout
        while True:
            msg = self.read_json(max(0.01, deadline - time.monotonic()))
            if isinstance(msg, dict) and "method" in msg and "id" not in msg:
                self.events.append(msg)
                continue
            if isinstance(msg, dict) and (msg.get("id") == rid or (msg.get("id") is None and "error" in msg)):
                return msg
            raise AssertionError(f"unexpected message while waiting for id {rid}: {msg}")

    def call(self, method: str, params=None, timeout: float = 5.0) -> dict:
        rid = self.request(method, params)
        return self.read_reply(rid, timeout)

    def result(self, method: str, params=None, timeout: float = 5.0):
        reply = self.call(method, params, timeout)
        assert "result" in reply, f"{method} failed: {reply}"
        return reply["result"]

    def ping(self, timeout: float = 5.0) -> None:
        assert self.result("host.ping", timeout=timeout) == {"pong": True}

    def read_until_closed(self, timeout: float = 5.0, max_lines: int = 1_000_000) -> list[bytes]:
        """Every remaining line until the peer closes; fails if it stays open past the timeout."""
        lines = []
        deadline = time.monotonic() + timeout
        for _ in range(max_lines):
            try:
                lines.append(self.read_line(max(0.01, deadline - time.monotonic())))
            except Closed:
                return lines
            except TimeoutError:
                raise AssertionError(
                    f"connection still open after {timeout} s; got {len(lines)} lines, last {lines[-1:]!r}"
                ) from None
        raise AssertionError(f"more than {max_lines} lines before close")

    def assert_quiet(self, seconds: float = 0.2) -> None:
        """Nothing more arrives for `seconds` (the connection may stay open)."""
        try:
            line = self.read_line(seconds)
        except TimeoutError:
            return
        except Closed:
            raise AssertionError("connection closed unexpectedly") from None
        raise AssertionError(f"unexpected extra line: {line[:300]!r}")


def encode(obj) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


def is_closed_error(e: BaseException) -> bool:
    return isinstance(e, (BrokenPipeError, ConnectionResetError)) or (
        isinstance(e, OSError) and e.errno in (errno.EPIPE, errno.ECONNRESET)
    )


class EventCursor:
    """A connection with a cursor over the events it received: `events()` / `tags()` return those since the
    last look (`tags` through the subclass's `tag`), `skip()` moves the cursor to the end. Calls go through
    `__call__` (the result, asserting success) and `error` (the error, asserting failure); `received()` runs
    after each reply, for subclasses that watch every event."""

    def __init__(self, conn: LineConn):
        self.conn = conn
        self.mark = 0

    @staticmethod
    def tag(e: dict) -> str:
        return f"{e['method']}:{e['params'].get('kind')}"

    def received(self) -> None:
        pass

    def subscribe(self, topics, scope=None):
        """events.subscribe to `topics` (`scope` "all" to observe every connection's objects); returns self."""
        params = {"topics": list(topics)}
        if scope:
            params["scope"] = scope
        self("events.subscribe", params)
        return self

    def __call__(self, method: str, params=None):
        reply = self.conn.call(method, params)
        self.received()
        assert "result" in reply, f"{method} {params} failed: {reply}"
        return reply["result"]

    def error(self, method: str, params=None) -> dict:
        reply = self.conn.call(method, params)
        self.received()
        assert "error" in reply, f"{method} {params} succeeded: {reply}"
        return reply["error"]

    def events(self) -> list[dict]:
        new = self.conn.events[self.mark:]
        self.mark = len(self.conn.events)
        return new

    def tags(self) -> list[str]:
        return [self.tag(e) for e in self.events()]

    def skip(self) -> None:
        self.mark = len(self.conn.events)

    def stats(self) -> dict:
        return self("host.stats")

    def pool(self, cls: str) -> dict:
        pools = self("pool.status", {"class": cls})["pools"]
        assert len(pools) == 1, pools
        return pools[0]


def tag(e: dict) -> str:
    """One event as a short tag for comparing sequences: `c-3:viewWillAppear` (`~` offscreen, `!` the hook
    failed), `pool:hit:c-3`, `page:didTransition:1->2:True`, else `topic:kind`."""
    p = e["params"]
    if e["method"] == "lifecycle":
        return f"{p['container']}:{p['event']}" + ("~" if p["offscreen"] else "") + ("!" if p.get("failed") else "")
    if e["method"] == "pool":
        return f"pool:{p['kind']}" + (f":{p['container']}" if "container" in p else "")
    if e["method"] == "page":
        return f"page:{p['kind']}:{p['from']}->{p['to']}" + (f":{p['completed']}" if "completed" in p else "")
    return f"{e['method']}:{p.get('kind')}"


def req(method: str, params=None, id=1) -> dict:
    """A JSON-RPC request object."""
    m = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        m["params"] = params
    return m


def note(method: str, params=None) -> dict:
    """A JSON-RPC notification object (no id)."""
    m = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        m["params"] = params
    return m


def padded_ping(total: int, rid: str) -> bytes:
    """A host.ping request line (no newline) of exactly `total` bytes."""
    head = b'{"jsonrpc":"2.0","id":"%s","method":"host.ping","params":{"pad":"' % rid.encode()
    tail = b'"}}'
    line = head + b"x" * (total - len(head) - len(tail)) + tail
    assert len(line) == total
    return line


def nested_ping(depth: int, rid: str) -> bytes:
    """A host.ping request whose nesting (containers counted) is exactly `depth`."""
    inner = "{}"
    for _ in range(depth - 2):
        inner = f'{{"a":{inner}}}'
    return f'{{"jsonrpc":"2.0","id":"{rid}","method":"host.ping","params":{inner}}}'.encode()


def write_token(d: str, token: str, mode: int = 0o600) -> str:
    """A token file `d/token` holding `token` (and a newline), with `mode`; returns its path."""
    path = os.path.join(d, "token")
    with open(path, "w") as f:
        f.write(token + "\n")
    os.chmod(path, mode)
    return path



# ---------------------------------------------------------------------------------------------------
# Helpers shared by the wire, event and host test files


MiB = 1 << 20


TOPICS = ["lifecycle", "pool", "page", "range", "prefetch", "batch", "host", "task", "viewable", "presentation"]


SCOPE_METHODS = [
    "rpc.discover", "host.ping", "host.info", "host.stats", "host.memoryWarning", "host.shutdown",
    "events.subscribe", "events.unsubscribe", "clock.now", "clock.advance", "tasks.status", "tasks.drain",
    "classes.list", "classes.define",
]


def roundtrip(c: LineConn, data: bytes, timeout: float = 5.0):
    """Sends raw bytes (one message line) and returns the next line, parsed."""
    c.send_raw(data)
    return c.read_json(timeout)


def assert_error(msg, code: int, *, id="<any>", kind: str | None = None, path: str | None = None) -> dict:
    assert isinstance(msg, dict), f"expected one error object, got {msg!r}"
    assert msg.get("jsonrpc") == "2.0", msg
    assert "result" not in msg and "error" in msg, msg
    if id != "<any>":
        assert "id" in msg and msg["id"] == id and type(msg["id"]) is type(id), f"id should be {id!r}: {msg}"
    err = msg["error"]
    assert err["code"] == code, f"expected {code}: {msg}"
    assert isinstance(err.get("message"), str) and err["message"], msg
    assert isinstance(err.get("data"), dict) and isinstance(err["data"].get("kind"), str) and err["data"]["kind"], msg
    if kind is not None:
        assert err["data"]["kind"] == kind, msg
    if path is not None:
        assert err["data"].get("path") == path, msg
    return err


def next_is_pong(c: LineConn, rid="mark") -> None:
    """Sends a ping and asserts that the very next line is its reply (nothing was written before it)."""
    c.send(req("host.ping", id=rid))
    line = c.read_json()
    assert line == {"jsonrpc": "2.0", "id": rid, "result": {"pong": True}}, f"unexpected line before the ping reply: {line}"


def ids_pattern(prefix: str):
    return re.compile(rf"^{prefix}-[1-9][0-9]*$")


def lifecycle_pairs(events, container=None):
    return [(e["params"]["container"], e["params"]["event"]) for e in events
            if e["method"] == "lifecycle" and (container is None or e["params"]["container"] == container)]


def read_events_until(c: LineConn, pred, timeout: float = 5.0) -> list[dict]:
    """Reads notifications into c.events (bounded) until pred(c.events) holds."""
    deadline = time.monotonic() + timeout
    while not pred(c.events):
        left = deadline - time.monotonic()
        assert left > 0, f"condition not met within {timeout} s; events {c.events}"
        try:
            msg = c.read_json(left)
        except TimeoutError:
            continue
        assert isinstance(msg, dict) and "id" not in msg and "method" in msg, msg
        c.events.append(msg)
    return c.events


KNOWN_CODES = {-32700, -32600, -32601, -32602, -32603, -32001, -32002, -32003, -32004, -32005, -32006, -32007}


def assert_response_shape(m) -> None:
    """JSON-RPC 2.0 §5: jsonrpc "2.0", an id, exactly one of result / error; an error has an integer code
    and a string message (Greenroom adds data.kind to every one)."""
    assert isinstance(m, dict), m
    assert m.get("jsonrpc") == "2.0", m
    assert "id" in m, m
    assert ("result" in m) != ("error" in m), f"exactly one of result and error: {m}"
    if "error" in m:
        err = m["error"]
        assert type(err["code"]) is int and err["code"] in KNOWN_CODES, m
        assert isinstance(err["message"], str) and err["message"], m
        assert isinstance(err["data"], dict) and isinstance(err["data"].get("kind"), str), m
        assert set(m) == {"jsonrpc", "id", "error"}, m
    else:
        assert set(m) == {"jsonrpc", "id", "result"}, m


def assert_error_reply(m, code, id="<any>", kind=None, path=None) -> dict:
    assert_response_shape(m)
    assert "error" in m and m["error"]["code"] == code, m
    if id != "<any>":
        assert m["id"] == id and type(m["id"]) is type(id), m
    if kind is not None:
        assert m["error"]["data"]["kind"] == kind, m
    if path is not None:
        assert m["error"]["data"].get("path") == path, m
    return m["error"]


def assert_next_is_pong(c: LineConn, rid="mark") -> None:
    c.send(req("host.ping", id=rid))
    line = c.read_json()
    assert line == {"jsonrpc": "2.0", "id": rid, "result": {"pong": True}}, f"unexpected line before the pong: {line}"
