"""An in-memory transport for testing the sync client's session layer without a socket."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

Responder = Callable[[Any], Iterable[bytes]]


def line(message: Any) -> bytes:
    """One wire line for ``message``."""
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def reply(request: dict[str, Any], result: Any) -> bytes:
    return line({"jsonrpc": "2.0", "id": request["id"], "result": result})


def error_reply(request: dict[str, Any] | None, code: int, message: str = "failed", data: Any = None) -> bytes:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return line({"jsonrpc": "2.0", "id": None if request is None else request["id"], "error": error})


def event(topic: str, seq: int, **params: Any) -> bytes:
    return line({"jsonrpc": "2.0", "method": topic, "params": {"seq": seq, "t": 0.0, **params}})


class ScriptedTransport:
    """Records what the client sends and answers it with ``respond(message)``'s chunks.

    ``receive`` never blocks: with nothing queued it reports a timeout (None),
    or end of stream (b"") once :meth:`hang_up` was called.
    """

    def __init__(self, respond: Responder | None = None) -> None:
        self.respond = respond
        self.sent: list[Any] = []
        self.incoming: deque[bytes] = deque()
        self.hung_up = False
        self.closed = False

    def feed(self, *chunks: bytes) -> None:
        self.incoming.extend(chunks)

    def hang_up(self) -> None:
        self.hung_up = True

    def send(self, data: bytes) -> None:
        assert data.endswith(b"\n") and data.count(b"\n") == 1, data
        message = json.loads(data)
        self.sent.append(message)
        if self.respond is not None:
            self.feed(*self.respond(message))

    def receive(self, timeout: float | None) -> bytes | None:
        if self.incoming:
            return self.incoming.popleft()
        if self.hung_up:
            return b""
        return None

    def close(self) -> None:
        self.closed = True


def bytewise(data: bytes) -> list[bytes]:
    """``data`` cut into one-byte chunks."""
    return [data[i : i + 1] for i in range(len(data))]
