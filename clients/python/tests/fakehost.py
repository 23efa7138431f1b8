"""A small in-process stand-in for the Greenroom host, for the client's unit tests.

It speaks the wire protocol of docs/protocol.md on a Unix socket (one thread per
connection): batches, null-id errors, per-connection ``seq``, events written
before the reply of the request that caused them, ``scope: "all"`` host
events. It implements only what the client tests need, plus ``test.*``
methods to script events and errors. ``python fakehost.py serve --socket P``
runs it as a fake ``greenroom`` binary for the pytest-plugin tests.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

MethodImpl = Callable[["FakeConnection", Any], Any]


class FakeRPCError(Exception):
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data

    def to_json(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


class NoReply(Exception):
    """Raised by a scripting method that wrote (or refused) its own answer."""


def encode(message: Any) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


class FakeConnection:
    def __init__(self, host: FakeHost, sock: socket.socket, name: str) -> None:
        self.host, self.sock, self.name = host, sock, name
        self.seq = 0
        self.topics: set[str] = set()
        self.scope = "own"
        self.lock = threading.Lock()
        self.requests: list[Any] = []  # every decoded message received, for assertions

    def send(self, message: Any) -> None:
        self.send_bytes(encode(message))

    def send_bytes(self, data: bytes) -> None:
        with self.lock:
            try:
                self.sock.sendall(data)
            except OSError:
                pass

    def emit(self, topic: str, params: dict[str, Any] | None = None, *, observer: bool = False) -> None:
        """Send an event if this connection subscribed to ``topic`` (with scope all when ``observer``)."""
        if topic not in self.topics or (observer and self.scope != "all"):
            return
        with self.lock:
            self.seq += 1
            event = {"seq": self.seq, "t": self.host.clock_ms, **(params or {})}
            try:
                self.sock.sendall(encode({"jsonrpc": "2.0", "method": topic, "params": event}))
            except OSError:
                pass

    def serve(self) -> None:
        buffer = b""
        try:
            while True:
                data = self.sock.recv(65536)
                if not data:
                    break
                buffer += data
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    line = line.rstrip(b"\r")
                    if line.strip():
                        self.handle_line(line)
        except OSError:
            pass
        finally:
            self.host.connection_closed(self)

    def handle_line(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            self.send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}})
            return
        self.requests.append(message)
        if isinstance(message, list):
            if not message:
                self.send({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "empty batch"}})
                return
            if len(message) > self.host.max_batch:
                self.send(
                    {
                        "jsonrpc": "2.0",
                        "id": None,
                        "error": {"code": -32005, "message": "batch too long", "data": {"kind": "limitExceeded"}},
                    }
                )
                return
            replies = [reply for reply in map(self.handle_request, message) if reply is not None]
            if replies:
                self.send(replies)
            return
        reply = self.handle_request(message)
        if reply is not None:
            self.send(reply)

    def handle_request(self, message: Any) -> dict[str, Any] | None:
        if (
            not isinstance(message, dict)
            or message.get("jsonrpc") != "2.0"
            or not isinstance(message.get("method"), str)
        ):
            return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "invalid request"}}
        method = message["method"]
        impl = self.host.methods.get(method)
        try:
            if impl is None:
                raise FakeRPCError(-32601, "method not found", {"kind": "methodNotFound", "method": method})
            result = impl(self, message.get("params"))
        except NoReply:
            return None
        except FakeRPCError as error:
            reply = {"jsonrpc": "2.0", "id": message.get("id"), "error": error.to_json()}
        else:
            reply = {"jsonrpc": "2.0", "id": message.get("id"), "result": result}
        return reply if "id" in message else None


class FakeHost:
    """The fake host; ``with FakeHost(path) as host:`` serves until the block ends."""

    def __init__(self, path: str, *, max_batch: int = 256) -> None:
        self.path = path
        self.max_batch = max_batch
        self.clock_ms = 0.0
        self.connections: list[FakeConnection] = []
        self.count = 0
        self.lock = threading.Lock()
        self.methods: dict[str, MethodImpl] = {
            "host.ping": lambda conn, params: {"pong": True},
            "host.info": lambda conn, params: {"name": "greenroom", "version": "0.0.0-fake",
                                               "protocol": {"jsonrpc": "2.0", "version": 1}, "clock": "virtual",
                                               "pid": os.getpid(), "plugins": []},
            "clock.now": lambda conn, params: {"ms": self.clock_ms, "mode": "virtual"},
            "clock.advance": self._advance,
            "events.subscribe": self._subscribe,
            "events.unsubscribe": self._unsubscribe,
            "host.memoryWarning": self._memory_warning,
            "host.shutdown": self._shutdown,
            "test.emit": self._emit,
            "test.fail": self._fail,
            "test.echo": lambda conn, params: params,
            "test.sleep": lambda conn, params: time.sleep(params["s"]) or {},
            "test.raw": self._raw,
            "test.hangUp": self._hang_up,
        }
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(16)
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.stopped = threading.Event()

    def start(self) -> FakeHost:
        self.thread.start()
        return self

    def close(self) -> None:
        self.stopped.set()
        try:
            self.listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.listener.close()
        with self.lock:
            connections = list(self.connections)
        for conn in connections:
            try:
                conn.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.sock.close()
        try:  # a host.shutdown timer and the fixture's teardown may both get here
            os.unlink(self.path)
        except FileNotFoundError:
            pass

    def __enter__(self) -> FakeHost:
        return self.start()

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def broadcast(self, topic: str, params: dict[str, Any], *, observers_only: bool = False) -> None:
        with self.lock:
            connections = list(self.connections)
        for conn in connections:
            conn.emit(topic, params, observer=observers_only)

    def connection_closed(self, conn: FakeConnection) -> None:
        with self.lock:
            if conn in self.connections:
                self.connections.remove(conn)
        self.broadcast("host", {"kind": "connectionClosed", "connection": conn.name}, observers_only=True)

    def _accept(self) -> None:
        while not self.stopped.is_set():
            try:
                sock, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                self.count += 1
                conn = FakeConnection(self, sock, f"conn-{self.count}")
            self.broadcast("host", {"kind": "connectionOpened", "connection": conn.name}, observers_only=True)
            with self.lock:
                self.connections.append(conn)
            threading.Thread(target=conn.serve, daemon=True).start()

    # -- methods -------------------------------------------------------------

    def _advance(self, conn: FakeConnection, params: Any) -> Any:
        if not isinstance(params, dict) or not isinstance(params.get("ms"), (int, float)):
            raise FakeRPCError(-32602, "invalid params", {"kind": "invalidParams", "path": "ms"})
        self.clock_ms += params["ms"]
        return {"ms": self.clock_ms, "fired": 0}

    def _subscribe(self, conn: FakeConnection, params: Any) -> Any:
        conn.topics.update(params["topics"])
        conn.scope = params.get("scope", conn.scope)
        return {"topics": sorted(conn.topics), "scope": conn.scope}

    def _unsubscribe(self, conn: FakeConnection, params: Any) -> Any:
        conn.topics.difference_update(params["topics"])
        return {"topics": sorted(conn.topics)}

    def _memory_warning(self, conn: FakeConnection, params: Any) -> Any:
        level = (params or {}).get("level", "warning")
        self.broadcast("host", {"kind": "memoryWarning", "level": level})
        return {"level": level, "purged": []}

    def _shutdown(self, conn: FakeConnection, params: Any) -> Any:
        threading.Timer(0.05, self.close).start()
        return {"shuttingDown": True}

    def _emit(self, conn: FakeConnection, params: Any) -> Any:
        """Emit ``count`` events of ``topic`` to this connection, before the reply."""
        for index in range(params.get("count", 1)):
            conn.emit(params["topic"], {"index": index, **params.get("params", {})})
        return {"emitted": params.get("count", 1)}

    def _fail(self, conn: FakeConnection, params: Any) -> Any:
        raise FakeRPCError(params["code"], params.get("message", "failed"), params.get("data"))

    def _raw(self, conn: FakeConnection, params: Any) -> Any:
        """After ``sleep`` seconds, write ``bytes`` as they are instead of a reply (a late or broken line)."""
        time.sleep(params.get("sleep", 0))
        conn.send_bytes(params["bytes"].encode())
        raise NoReply

    def _hang_up(self, conn: FakeConnection, params: Any) -> Any:
        """Close the connection without answering."""
        try:
            conn.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        raise NoReply


def transcript_diff(recorded: str, replayed: str) -> int:
    """``fakehost.py transcript diff RECORDED REPLAYED``: the real command's contract in small (exit 0 the
    same, 1 a difference on stdout naming the message and the request it comes under, 2 one sentence on
    stderr for a file that is not a transcript), comparing what was received exactly, for the plugin tests."""

    def load(path: str) -> tuple[list[Any], list[Any]] | None:
        try:
            lines = open(path, encoding="utf-8").read().splitlines()
            entries = [json.loads(text) for text in lines if text.strip()]
        except (OSError, ValueError) as error:
            print(f"greenroom transcript diff: {path} is not a transcript: {error}", file=sys.stderr)
            return None
        if not entries or entries[0].get("transcript") != "greenroom":
            print(f"greenroom transcript diff: {path} has no transcript header", file=sys.stderr)
            return None
        sent = [e["send"] for e in entries[1:] if "send" in e]
        return sent, [e["recv"] for e in entries[1:] if "recv" in e]

    a, b = load(recorded), load(replayed)
    if a is None or b is None:
        return 2
    (sent, want), (_, got) = a, b
    for i in range(max(len(want), len(got))):
        w = want[i] if i < len(want) else None
        g = got[i] if i < len(got) else None
        if w != g:
            anchor = w if w is not None else g
            request = next((m for m in sent if isinstance(anchor, dict) and m.get("id") == anchor.get("id")), None)
            under = f", under request {request['id']} ({request['method']})" if request else ""
            print(f"transcripts differ at message {i + 1}{under}:\n  recorded: {json.dumps(w)}\n"
                  f"  replayed: {json.dumps(g)}")
            return 1
    return 0


def main(argv: list[str]) -> int:
    """``fakehost.py serve --socket PATH --clock virtual [...]``: a fake greenroom binary.

    ``FAKE_GREENROOM`` selects misbehaviour for the plugin tests: ``never-ready``,
    ``exit-early``, ``ignore-sigterm``, ``crash-on-sigterm``. ``fakehost.py transcript diff A B`` compares
    two transcripts (:func:`transcript_diff`).
    """
    mode = os.environ.get("FAKE_GREENROOM", "")
    args = argv[1:]
    if args[:2] == ["transcript", "diff"] and len(args) == 4:
        return transcript_diff(args[2], args[3])
    if not args or args[0] != "serve":
        print("usage: fakehost.py serve --socket PATH [--clock virtual|real] ...", file=sys.stderr)
        return 2
    path = args[args.index("--socket") + 1]
    if mode == "exit-early":
        print("fake greenroom: failing on purpose", file=sys.stderr)
        return 3
    host = FakeHost(path).start()
    if os.environ.get("FAKE_GREENROOM_ARGS_FILE"):
        with open(os.environ["FAKE_GREENROOM_ARGS_FILE"], "w") as out:
            json.dump(args, out)
    stop = threading.Event()
    if mode == "ignore-sigterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    elif mode == "crash-on-sigterm":
        signal.signal(signal.SIGTERM, lambda *_: os._exit(7))
    else:
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
    if mode != "never-ready":
        print("starting", flush=True)  # not the ready line: the waiter must skip it
        print(json.dumps({"event": "ready", "listen": [f"unix:{path}"], "pid": os.getpid()}), flush=True)
    stop.wait()
    host.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
