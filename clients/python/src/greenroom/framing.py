"""Framing: bytes <-> JSON-RPC messages, one compact JSON text per line.

The bottom layer of the client stack, with no I/O. :class:`LineDecoder` keeps
the unfinished tail between reads so that a caller may feed it any slicing of
the stream (one byte at a time, a whole megabyte at once) and get the same
messages out. ``\\r\\n`` is accepted as a terminator and blank lines
are skipped, as the host does (docs/protocol.md, "Framing").
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import ProtocolError

__all__ = ["InvalidFrame", "LineDecoder", "LineTap", "decode_line", "encode_message"]

#: Called with each whole line a :class:`LineDecoder` cuts (without its terminator) and what it decoded to.
LineTap = Callable[[bytes, Any], None]


# What json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False) builds on every
# call, built once: making the encoder cost a third of encoding a small request.
_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode
# The string encoder that encoder uses for ensure_ascii=False (the C one when there is one).
_encode_string = json.encoder.encode_basestring

# The members of the requests and notifications the endpoint builds, in its order.
_REQUEST = ("jsonrpc", "id", "method")
_REQUEST_WITH_PARAMS = ("jsonrpc", "id", "method", "params")
_NOTIFICATION = ("jsonrpc", "method")
_NOTIFICATION_WITH_PARAMS = ("jsonrpc", "method", "params")


def encode_message(message: Any) -> bytes:
    """Encode one message (a dict, or a list for a batch) as a compact JSON line.

    The JSON encoder escapes control characters inside strings, so the text never
    holds a raw newline and the trailing ``\\n`` is the only one.
    """
    if type(message) is dict and message.get("jsonrpc") == "2.0" and type(message["jsonrpc"]) is str:
        # A request or notification as the endpoint makes one: its envelope written directly, only the params
        # through the encoder. The same bytes as encoding the whole dict (tests/test_framing.py compares
        # them), in a third of the time, which a client sending one request per round trip pays each time.
        keys = tuple(message)
        method = message.get("method")
        if type(method) is str:
            request_id = message.get("id")
            if keys == _REQUEST and type(request_id) is int:
                text = f'{{"jsonrpc":"2.0","id":{request_id},"method":{_encode_string(method)}}}\n'
                return text.encode("utf-8")
            if keys == _REQUEST_WITH_PARAMS and type(request_id) is int:
                text = (f'{{"jsonrpc":"2.0","id":{request_id},"method":{_encode_string(method)},'
                        f'"params":{_encode(message["params"])}}}\n')
                return text.encode("utf-8")
            if keys == _NOTIFICATION:
                return f'{{"jsonrpc":"2.0","method":{_encode_string(method)}}}\n'.encode("utf-8")
            if keys == _NOTIFICATION_WITH_PARAMS:
                text = f'{{"jsonrpc":"2.0","method":{_encode_string(method)},"params":{_encode(message["params"])}}}\n'
                return text.encode("utf-8")
    return (_encode(message) + "\n").encode("utf-8")


@dataclass(frozen=True)
class InvalidFrame:
    """A line that is not valid UTF-8 JSON; kept in the stream so nothing shifts."""

    line: bytes
    reason: str

    def to_error(self) -> ProtocolError:
        """The exception for requests that were waiting when this line arrived."""
        return ProtocolError(f"the host sent a line that is not JSON ({self.reason}): {self.line[:200]!r}")


def decode_line(line: bytes) -> Any:
    """Decode one line to a JSON value, or an :class:`InvalidFrame` saying why not."""
    try:
        return json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        return InvalidFrame(line, str(error))


class LineDecoder:
    """Turns a byte stream, fed in arbitrary pieces, into decoded messages.

    ``feed`` returns every message completed by the new bytes, in order. A line
    that is not JSON comes out as an :class:`InvalidFrame` in its place.

    ``tap``, when set, is called with each line and its message as they are
    cut, in order: a transcript (``Client.record``) keeps the host's own text
    of every message this way. None (the default) costs one test per ``feed``.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        # Where to resume looking for "\n": bytes before it are known to hold
        # none, so feeding a long line byte by byte stays linear.
        self._scanned = 0
        self.tap: LineTap | None = None

    @property
    def pending(self) -> int:
        """Bytes held back waiting for the end of their line."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[Any]:
        """Add ``data`` and return the messages it completes (possibly none)."""
        tap = self.tap
        if tap is None and not self._buffer and type(data) is bytes and data.endswith(b"\n"):
            # The common read: whole lines and nothing held back (a reply to one request is one line). Cut
            # them from ``data`` itself, without a copy through the buffer.
            if data.count(b"\n") == 1:
                line = data[:-2] if data.endswith(b"\r\n") else data[:-1]
                return [decode_line(line)] if line.strip() else []
            return [decode_line(line[:-1] if line.endswith(b"\r") else line)
                    for line in data.split(b"\n")[:-1] if line.strip()]
        self._buffer += data
        messages: list[Any] = []
        start = 0
        scan = self._scanned
        while True:
            end = self._buffer.find(b"\n", scan)
            if end < 0:
                break
            line = bytes(self._buffer[start:end])
            if line.endswith(b"\r"):
                line = line[:-1]
            if line.strip():
                message = decode_line(line)
                if tap is not None:
                    tap(line, message)
                messages.append(message)
            start = scan = end + 1
        if start:
            del self._buffer[:start]
        self._scanned = len(self._buffer)
        return messages
