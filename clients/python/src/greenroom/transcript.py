"""Transcripts: what one connection sent and received, in order, one JSON object per line.

The format is docs/transcripts.md's: a header naming the format, the wire protocol and the clock, then a
``send`` line for each message the client sent and a ``recv`` line for each it received (replies and
events), and ``comment`` lines for people. ``greenroom replay FILE`` sends the same requests to a fresh
host and checks that every reply and event comes back the same: a recorded transcript is a golden test.

:meth:`greenroom.Client.record` and :meth:`greenroom.aio.AsyncClient.record` write one while a block runs::

    with client.record("golden/swipe.ndjson"):
        client.page.create(375, 667, class_="Container", count=3)

They tap the client at its framing layer, where messages are whole: each message is written as the
client encoded it (``send``) or as the host wrote it (``recv``, the host's own text), so batches,
notifications and events are all in, in the order the client saw them.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Generator, Mapping
from pathlib import Path
from typing import Any

from .errors import GreenroomError, ProtocolError
from .framing import InvalidFrame, encode_message

__all__ = ["FORMAT_VERSION", "AsyncRecording", "Recording", "TranscriptWriter", "header_from_info"]

#: The transcript format this client writes (the header's ``version``).
FORMAT_VERSION = 1


def header_from_info(info: Mapping[str, Any]) -> dict[str, Any]:
    """The header line of a transcript recorded on a host whose ``host.info`` reply is ``info``.

    ``protocol`` is the host's wire protocol version (``protocol.version``), ``clock`` its clock
    (``virtual`` or ``real``), ``uikit`` the UIKit it models (a replay runs its host on the same one);
    ``host`` its version and ``plugins`` (``[{name, path}]``, when it has any)
    are there for a person, or a replay, that needs to know where the transcript was made.
    """
    protocol = info.get("protocol")
    version = protocol.get("version") if isinstance(protocol, Mapping) else None
    clock = info.get("clock")
    if type(version) is not int or not isinstance(clock, str):
        raise ProtocolError(
            "host.info's reply has no protocol.version or clock, so no transcript header can be written: "
            f"{dict(info)!r:.200}")
    header: dict[str, Any] = {"transcript": "greenroom", "version": FORMAT_VERSION, "protocol": version,
                              "clock": clock}
    if type(info.get("uikit")) is int:
        header["uikit"] = info["uikit"]
    if isinstance(info.get("version"), str):
        header["host"] = info["version"]
    plugins = [{"name": p["name"], "path": p["path"]} for p in info.get("plugins") or ()
               if isinstance(p, Mapping) and "name" in p and "path" in p]
    if plugins:
        header["plugins"] = plugins
    return header


class TranscriptWriter:
    """One transcript file being written: the header first, then a line per message, in the order given.

    A write that fails (a full disk) does not break the connection being recorded: the writer stops
    writing and :meth:`close` raises the error, so the recording fails where it ends, not in the middle
    of a call.
    """

    def __init__(self, path: str | os.PathLike[str], header: Mapping[str, Any], comment: str | None = None) -> None:
        self.path = Path(path)
        self.messages = 0  # send and recv lines written so far
        self._error: OSError | None = None
        self._file = open(self.path, "wb")  # noqa: SIM115  (closed by close(), when the recording stops)
        self._write(encode_message(dict(header)))
        if comment is not None:
            self.comment(comment)

    @property
    def closed(self) -> bool:
        """True after :meth:`close`."""
        return self._file.closed

    def sent(self, data: bytes) -> None:
        """A message the client sent, as the line it wrote (one compact JSON text and its newline)."""
        self.messages += 1
        self._write(b'{"send":' + data.rstrip(b"\r\n") + b"}\n")

    def received(self, line: bytes, message: Any) -> None:
        """A line the host sent, as it wrote it (a :class:`~greenroom.framing.LineDecoder` tap).

        A line that is not JSON cannot be a ``recv`` (its text would not be JSON inside the transcript's
        line either): it is kept as a ``comment``, so that a person reading the transcript sees it.
        """
        if isinstance(message, InvalidFrame):
            self.comment(f"the host sent a line that is not JSON ({message.reason}): {line[:200]!r}")
            return
        self.messages += 1
        self._write(b'{"recv":' + line + b"}\n")

    def comment(self, text: str) -> None:
        """A line for people (replay skips it): what the next requests do, the script that made them."""
        self._write(encode_message({"comment": str(text)}))

    def close(self) -> None:
        """Flush and close the file; raises the error of a write that failed. Idempotent."""
        if not self._file.closed:
            try:
                self._file.close()
            except OSError as failed:
                self._error = self._error or failed
        failure, self._error = self._error, None
        if failure is not None:
            raise GreenroomError(f"the transcript {self.path} is incomplete: writing it failed: {failure}") from failure

    def _write(self, line: bytes) -> None:
        if self._error is not None or self._file.closed:
            return
        try:
            self._file.write(line)
        except OSError as error:
            self._error = error


class Recording:
    """A transcript a :class:`greenroom.Client` is writing (:meth:`greenroom.Client.record`).

    It records from the moment ``record`` returns until :meth:`stop`, or the end of the ``with`` block;
    ``path`` is the file, ``header`` its first line, ``messages`` how many send and recv lines it has.
    """

    def __init__(self, writer: TranscriptWriter, header: dict[str, Any], detach: Callable[[TranscriptWriter], None]):
        self._writer = writer
        self._detach = detach
        self.header = header

    @property
    def path(self) -> Path:
        """The transcript's file."""
        return self._writer.path

    @property
    def messages(self) -> int:
        """How many messages (send and recv lines) it holds so far."""
        return self._writer.messages

    @property
    def active(self) -> bool:
        """True until :meth:`stop`."""
        return not self._writer.closed

    def comment(self, text: str) -> None:
        """Add a ``comment`` line at this point of the transcript (replay skips it)."""
        self._writer.comment(text)

    def stop(self) -> None:
        """Stop recording: nothing more is written, and the file is flushed and closed. Idempotent."""
        self._detach(self._writer)
        self._writer.close()

    def __enter__(self) -> Recording:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<greenroom.Recording {str(self.path)!r} {'active' if self.active else 'stopped'}>"


class AsyncRecording:
    """A transcript a :class:`greenroom.aio.AsyncClient` is writing (:meth:`~greenroom.aio.AsyncClient.record`).

    ``async with client.record(path):`` or ``recording = await client.record(path)`` starts it (the
    client asks ``host.info`` for the header first; that request is not in the transcript), and the end of
    the block or :meth:`stop` ends it. The rest is :class:`Recording`'s.
    """

    def __init__(self, start: Callable[[], Awaitable[Recording]]) -> None:
        self._start = start
        self._recording: Recording | None = None

    async def start(self) -> AsyncRecording:
        """Start recording (once); returns itself."""
        if self._recording is None:
            self._recording = await self._start()
        return self

    def _started(self) -> Recording:
        if self._recording is None:
            raise GreenroomError("the recording has not started: use `async with client.record(path)` or await it")
        return self._recording

    @property
    def path(self) -> Path:
        """The transcript's file."""
        return self._started().path

    @property
    def header(self) -> dict[str, Any]:
        """The transcript's first line."""
        return self._started().header

    @property
    def messages(self) -> int:
        """How many messages (send and recv lines) it holds so far."""
        return self._started().messages

    @property
    def active(self) -> bool:
        """True once started, until :meth:`stop`."""
        return self._recording is not None and self._recording.active

    def comment(self, text: str) -> None:
        """Add a ``comment`` line at this point of the transcript (replay skips it)."""
        self._started().comment(text)

    def stop(self) -> None:
        """Stop recording and close the file. Idempotent (and harmless before it started)."""
        if self._recording is not None:
            self._recording.stop()

    def __await__(self) -> Generator[Any, None, AsyncRecording]:
        return self.start().__await__()

    async def __aenter__(self) -> AsyncRecording:
        return await self.start()

    async def __aexit__(self, *exc_info: Any) -> None:
        self.stop()
