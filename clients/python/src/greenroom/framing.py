"""Framing: bytes <-> JSON-RPC messages, one compact JSON text per line.

The bottom layer of the client stack, with no I/O. :class:`LineDecoder` keeps
the unfinished tail between reads so that a caller may feed it any slicing of
the stream (one byte at a time, a whole megabyte at once) and get the same
messages out. ``\\r\\n`` is accepted as a terminator and blank lines
are skipped, as the host does (docs/protocol.md, "Framing").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .errors import ProtocolError

__all__ = ["InvalidFrame", "LineDecoder", "decode_line", "encode_message"]


# What json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False) builds on every
# call, built once: making the encoder cost a third of encoding a small request.
_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode


def encode_message(message: Any) -> bytes:
    """Encode one message (a dict, or a list for a batch) as a compact JSON line.

    The JSON encoder escapes control characters inside strings, so the text never
    holds a raw newline and the trailing ``\\n`` is the only one.
    """
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
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        # Where to resume looking for "\n": bytes before it are known to hold
        # none, so feeding a long line byte by byte stays linear.
        self._scanned = 0

    @property
    def pending(self) -> int:
        """Bytes held back waiting for the end of their line."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[Any]:
        """Add ``data`` and return the messages it completes (possibly none)."""
        if not self._buffer and type(data) is bytes and data.endswith(b"\n"):
            # The common read: whole lines and nothing held back (a reply to one request is one). Cut them
            # from ``data`` itself, without a copy through the buffer.
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
                messages.append(decode_line(line))
            start = scan = end + 1
        if start:
            del self._buffer[:start]
        self._scanned = len(self._buffer)
        return messages
