"""The asyncio client: :class:`AsyncClient`, with the method names of :class:`greenroom.Client`.

It shares the framing, endpoint and event-routing layers with the sync
client and adds two tasks: a reader that decodes everything the host sends
(settling replies, queueing events) and a dispatcher that runs handlers one
at a time, in arrival order. A handler may be a plain function or a
coroutine function, and may itself ``await client.call(...)``.

As in the sync client, when ``await call(...)`` returns, the handlers of the
events that arrived before its reply have run (except inside a handler,
which must not wait for itself).
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
import os
import socket as socketlib
from collections.abc import AsyncIterator, Iterable
from typing import Any

from .aio_api import AsyncMethods
from .endpoint import (
    Call,
    Completed,
    Endpoint,
    Malformed,
    Notification,
    NotificationRejected,
    ServerRequest,
    Ticket,
    Unmatched,
    null_id_error,
)
from .errors import ConnectError, ConnectionClosed, GreenroomError, RequestTimeout, RPCError, connection_closed_error
from .events import Event, EventRouter, Handler, normalize_topics, topic_list
from .framing import InvalidFrame, LineDecoder, encode_message
from .transcript import AsyncRecording, Recording, TranscriptWriter, header_from_info
from .transport import Address, TCPSpec, resolve_address

__all__ = ["AsyncClient"]

_DEFAULT: Any = object()
_READ_SIZE = 256 * 1024
#: ``call`` waits while more than this many bytes wait to be written (backpressure).
_HIGH_WATER = 1 << 20

# True inside the dispatcher task (and tasks its handlers start): a call made
# there must not wait for the dispatcher, which is busy running that handler.
_in_handler: contextvars.ContextVar[bool] = contextvars.ContextVar("greenroom_in_handler", default=False)


async def _connect(address: Address) -> socketlib.socket:
    """A connected non-blocking socket to ``address``."""
    loop = asyncio.get_running_loop()
    # (family, type, proto, address): a Unix socket's path, or the (host, port, ...) getaddrinfo gives.
    targets: list[tuple[int, int, int, str | tuple[Any, ...]]]
    if address.kind == "unix":
        if address.path is None:
            raise ConnectError(f"cannot connect to {address}: a unix address needs a path")
        targets = [(socketlib.AF_UNIX, socketlib.SOCK_STREAM, 0, address.path)]
    else:
        infos = await loop.getaddrinfo(address.host, address.port, type=socketlib.SOCK_STREAM)
        targets = [(family, kind, proto, sockaddr) for family, kind, proto, _, sockaddr in infos]
    failure: OSError = OSError(f"no address for {address}")
    for family, kind, proto, sockaddr in targets:
        sock = socketlib.socket(family, kind, proto)
        try:
            sock.setblocking(False)
            await loop.sock_connect(sock, sockaddr)
        except OSError as error:
            sock.close()
            failure = error
            continue
        except BaseException:
            sock.close()
            raise
        if family != socketlib.AF_UNIX:
            sock.setsockopt(socketlib.IPPROTO_TCP, socketlib.TCP_NODELAY, 1)
        return sock
    raise failure


class _Signal:
    """Wakes every coroutine waiting on it; a level-free asyncio.Event."""

    def __init__(self) -> None:
        self._waiters: set[asyncio.Future[None]] = set()

    def fire(self) -> None:
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._waiters.clear()

    async def wait(self) -> None:
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.add(waiter)
        try:
            await waiter
        finally:
            self._waiters.discard(waiter)


class AsyncClient(AsyncMethods):
    """An asyncio connection to a Greenroom host.

    ``client = await AsyncClient.connect(...)`` or ``async with
    AsyncClient(...) as client``; the arguments are those of
    :class:`greenroom.Client`. The typed API comes from
    :class:`~greenroom.aio_api.AsyncMethods`: ``await client.host.ping()``,
    ``await client.page.create(...)`` returning an
    :class:`~greenroom.aio_api.AsyncPageSession`.
    """

    def __init__(
        self,
        socket: str | os.PathLike[str] | None = None,
        *,
        tcp: TCPSpec | None = None,
        token: str | None = None,
        timeout: float | None = 30.0,
        logger: logging.Logger | None = None,
    ) -> None:
        self.address: Address = resolve_address(socket, tcp)
        self.timeout = timeout
        self._token = token
        self._log = logger or logging.getLogger("greenroom")
        self._decoder = LineDecoder()
        self._endpoint = Endpoint()
        self._router = EventRouter()
        # The client owns its socket rather than an asyncio transport: a
        # transport closes the socket on a write error, and what the host wrote
        # before it hung up (its -32005 "too many connections" line, say) would
        # be lost unread in the kernel. Here reads go on to EOF whatever happens.
        self._sock: socketlib.socket | None = None
        self._out = bytearray()  # written whole by _write, in order; sent as the socket takes it
        self._write_error: OSError | None = None
        self._drained = _Signal()
        self._tasks: list[asyncio.Task[None]] = []
        self._waiting: dict[int, asyncio.Future[int]] = {}  # id(ticket) -> settles with a dispatch mark
        self._dispatch_queue: asyncio.Queue[tuple[int, Event, list[Handler]]] = asyncio.Queue()
        self._enqueued = 0  # events handed to the dispatcher so far
        self._dispatched = 0  # of which the dispatcher has finished
        self._received_events = 0  # notifications read so far
        self._polled_events = 0  # of which poll_events has counted
        self._arrival = _Signal()  # an event arrived, or the connection ended
        self._progress = _Signal()  # the dispatcher finished an event, or the client closed
        self._eof = False
        self._closed = False
        self._parting: RPCError | None = None  # as in greenroom.Client: why the host hung up
        self._recorder: TranscriptWriter | None = None  # record(): the transcript being written

    @classmethod
    async def connect(
        cls,
        socket: str | os.PathLike[str] | None = None,
        **options: Any,
    ) -> AsyncClient:
        """Create a client and open its connection (and ``host.auth`` when given a token)."""
        client = cls(socket, **options)
        await client.open()
        return client

    async def open(self) -> None:
        """Connect; called by :meth:`connect` and ``async with``."""
        if self._sock is not None:
            return
        address = self.address
        try:
            sock = await asyncio.wait_for(_connect(address), self.timeout)
        except (FileNotFoundError, ConnectionRefusedError) as error:
            raise ConnectError(
                f"cannot connect to the Greenroom host at {address}: {error.strerror or error}"
                " (is `greenroom serve` running? set GREENROOM_SOCKET or pass socket=)"
            ) from error
        except (TimeoutError, OSError) as error:
            raise ConnectError(f"cannot connect to the Greenroom host at {address}: {error!r}") from error
        self._sock = sock
        self._tasks = [
            asyncio.create_task(self._read_loop(), name="greenroom-reader"),
            asyncio.create_task(self._dispatch_loop(), name="greenroom-dispatcher"),
        ]
        if self._token is not None:
            try:
                await self.call("host.auth", {"token": self._token})
            except BaseException:
                await self.close()
                raise

    # -- requests ------------------------------------------------------------

    async def call(self, method: str, params: Any = None, *, timeout: float | None = _DEFAULT) -> Any:
        """Send a request and return its result; raises like :meth:`greenroom.Client.call`."""
        ticket, message = self._endpoint.request(method, params)
        return await self._send_and_wait(ticket, message, timeout)

    async def start(self, method: str, params: Any = None, *, timeout: float | None = _DEFAULT) -> asyncio.Task[Any]:
        """Send a request now and return a task for its result (the sync :meth:`greenroom.Client.start`).

        Returns once the request is written, so a call made afterwards reaches the host after it: a
        ``showRendered {reply: "afterAppear"}`` started here is answered by the ``clock.advance`` that
        follows. Awaiting the task raises as :meth:`call` does."""
        ticket, message = self._endpoint.request(method, params)
        loop = asyncio.get_running_loop()
        written: asyncio.Future[None] = loop.create_future()
        task = asyncio.ensure_future(self._send_and_wait(ticket, message, timeout, written))
        await asyncio.wait([written, task], return_when=asyncio.FIRST_COMPLETED)
        return task

    async def notify(self, method: str, params: Any = None) -> None:
        """Send a notification: no id, no reply, no error.

        A notification the host cannot read (an integer past 64 bits, too
        deep, too long) still gets an ``id: null`` error from it: that error is
        logged (logger ``greenroom``), never taken for a later call's reply.
        """
        await self._send(self._endpoint.notification(method, params))

    async def batch(self, calls: Iterable[Call], *, timeout: float | None = _DEFAULT) -> list[Any]:
        """Send a batch; the outcomes in order, as :meth:`greenroom.Client.batch`."""
        ticket, messages = self._endpoint.batch(calls)
        outcomes: list[Any] = await self._send_and_wait(ticket, messages, timeout)
        return outcomes

    async def ping(self) -> bool:
        """``host.ping``: True when the host answers ``{"pong": true}``."""
        result = await self.call("host.ping")
        return isinstance(result, dict) and result.get("pong") is True

    async def subscribe(self, topics: str | Iterable[str], scope: str | None = None) -> Any:
        """``events.subscribe`` (``scope="all"``: every connection's objects)."""
        params: dict[str, Any] = {"topics": topic_list(topics)}
        if scope is not None:
            params["scope"] = scope
        return await self.call("events.subscribe", params)

    async def unsubscribe(self, topics: str | Iterable[str]) -> Any:
        """``events.unsubscribe``."""
        return await self.call("events.unsubscribe", {"topics": topic_list(topics)})

    # -- transcripts ---------------------------------------------------------

    def record(self, path: str | os.PathLike[str], *, comment: str | None = None) -> AsyncRecording:
        """Write a transcript of this connection to ``path``, as :meth:`greenroom.Client.record` does.

        ``async with client.record(path):`` (or ``recording = await client.record(path)``, then
        ``recording.stop()``): the header comes from a ``host.info`` asked first (not in the transcript),
        then every message sent and received until the block ends, in the order the client saw them.
        """

        async def start() -> Recording:
            if self._recorder is not None:
                raise GreenroomError(f"this client is already recording a transcript, to {self._recorder.path}")
            header = header_from_info(await self.call("host.info"))
            if self._recorder is not None:  # another record() started while host.info was on its way
                raise GreenroomError(f"this client is already recording a transcript, to {self._recorder.path}")
            writer = TranscriptWriter(path, header, comment)
            self._recorder = writer
            self._decoder.tap = writer.received
            return Recording(writer, header, self._stop_recording)

        return AsyncRecording(start)

    def _stop_recording(self, writer: TranscriptWriter) -> None:
        if self._recorder is writer:
            self._recorder = None
            self._decoder.tap = None

    # -- events --------------------------------------------------------------

    def _on(self, topic: str, handler: Handler | None = None) -> Any:
        """``on``, whose typed signatures are generated in :class:`~greenroom.aio_api.AsyncMethods`.

        Calls ``handler(params)`` (awaited if it is a coroutine function) per
        event of ``topic``. Handlers run one at a time in arrival order;
        an exception in one is logged. Events of a topic with handlers do not
        go to the ``events()`` queue.
        """
        if handler is None:

            def decorator(function: Handler) -> Handler:
                self._router.on(topic, function)
                return function

            return decorator
        self._router.on(topic, handler)
        return handler

    def off(self, topic: str, handler: Handler | None = None) -> None:
        """Remove a handler registered with :meth:`on` (all of ``topic``'s when None)."""
        self._router.off(topic, handler)

    async def poll_events(self, timeout: float | None = 0.0) -> int:
        """Wait for events; returns how many arrived since the previous ``poll_events``.

        Events are read in the background all the time. When none arrived
        since the previous call, this waits up to ``timeout`` seconds (None:
        no limit) for one; in any case it returns after the handlers of
        everything received so far have run (except when called from a
        handler: those run after the handler returns, in order). Raises
        :class:`~greenroom.errors.ConnectionClosed` once the host is gone and
        no event is left to count.
        """
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        await asyncio.sleep(0)
        while self._received_events == self._polled_events and not self._eof and not self._closed:
            remaining = None if deadline is None else deadline - loop.time()
            if remaining is not None and remaining <= 0:
                break
            try:
                await asyncio.wait_for(self._arrival.wait(), remaining)
            except TimeoutError:
                break
        if not _in_handler.get():
            # Inside a handler the dispatcher is busy running it: waiting for
            # it would never end (the later handlers run after this one returns).
            await self._wait_dispatched(self._enqueued)
        count = self._received_events - self._polled_events
        self._polled_events += count
        if count == 0 and (self._eof or self._closed):
            raise ConnectionClosed("the connection is closed")
        return count

    async def _events(
        self, topics: str | Iterable[str] | None = None, timeout: float | None = None
    ) -> AsyncIterator[Event]:
        """``events()``: ``async for`` over queued and arriving events, as in :class:`greenroom.Client`.

        ``client.events`` is also the wire's ``events.*`` group; calling it calls this.
        """
        wanted = normalize_topics(topics)
        loop = asyncio.get_running_loop()
        while True:
            deadline = None if timeout is None else loop.time() + timeout
            event = self._router.take(wanted)
            while event is None:
                if self._eof or self._closed:
                    return
                remaining = None if deadline is None else deadline - loop.time()
                if remaining is not None and remaining <= 0:
                    return
                try:
                    await asyncio.wait_for(self._arrival.wait(), remaining)
                except TimeoutError:
                    return
                event = self._router.take(wanted)
            yield event

    # -- lifetime ------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """True after :meth:`close` or once the host closed the connection."""
        return self._closed or self._eof

    async def close(self) -> None:
        """Close the connection and stop the reader and dispatcher. Idempotent."""
        if self._closed:
            return
        self._closed = True
        for ticket in self._endpoint.fail_all(ConnectionClosed("the client is closed")):
            self._settle(ticket)
        current = asyncio.current_task()
        for task in self._tasks:
            task.cancel()  # the reader's pending recv is withdrawn from the loop
        # (a handler may close the client: it must not wait for its own task)
        await asyncio.gather(*(t for t in self._tasks if t is not current), return_exceptions=True)
        if self._sock is not None:
            self._stop_writing(ConnectionAbortedError("the client is closed"))
            try:
                self._sock.shutdown(socketlib.SHUT_RDWR)
            except OSError:
                pass
            self._sock.close()
        self._arrival.fire()
        self._progress.fire()

    async def __aenter__(self) -> AsyncClient:
        await self.open()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else ("open" if self._sock else "not connected")
        return f"<greenroom.aio.AsyncClient {self.address} {state}>"

    # -- internals -----------------------------------------------------------

    async def _send(self, message: Any) -> None:
        if self._closed:
            raise ConnectionClosed("the client is closed")
        if self._eof:
            raise connection_closed_error(self._parting)
        if self._sock is None:
            raise GreenroomError("not connected: use `await AsyncClient.connect(...)` or `async with`")
        # Queued whole and at once, so messages keep the order they were made
        # in (the endpoint's null-id matching relies on it) and never interleave.
        self._write(encode_message(message))
        while len(self._out) > _HIGH_WATER and self._write_error is None and not self._closed:
            await self._drained.wait()
        if self._write_error is not None:
            if self._closed:
                raise ConnectionClosed("the client is closed")
            # The host is gone. What it said before hanging up (say, the
            # -32005 line of a host at --max-connections) may answer this
            # request: the reader reads it to the end, then fails what is left.
            await asyncio.wait(self._tasks[:1], timeout=1.0)
            if not self._eof:
                raise ConnectionClosed(f"cannot send to the host: {self._write_error}")

    def _write(self, data: bytes) -> None:
        """Queue ``data`` after what is already waiting and send what the socket takes now."""
        if self._write_error is not None or self._sock is None:
            return
        if self._recorder is not None:
            # Here every message is whole and in the order it goes out (requests, notifications, batches,
            # and the refusals of requests from the host, which do not pass through _send).
            self._recorder.sent(data)
        was_empty = not self._out
        self._out += data
        if was_empty:
            self._flush()
            if self._out and self._write_error is None:
                asyncio.get_running_loop().add_writer(self._sock.fileno(), self._flush)

    def _flush(self) -> None:
        assert self._sock is not None
        try:
            sent = self._sock.send(self._out)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as error:
            self._stop_writing(error)
            return
        del self._out[:sent]
        if not self._out:
            asyncio.get_running_loop().remove_writer(self._sock.fileno())
            self._drained.fire()

    def _stop_writing(self, error: OSError) -> None:
        if self._write_error is None:
            self._write_error = error
        self._out.clear()
        if self._sock is not None and self._sock.fileno() >= 0:
            asyncio.get_running_loop().remove_writer(self._sock.fileno())
        self._drained.fire()

    async def _send_and_wait(self, ticket: Ticket, message: Any, timeout: float | None,
                             written: asyncio.Future[None] | None = None) -> Any:
        if timeout is _DEFAULT:
            timeout = self.timeout
        settled: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._waiting[id(ticket)] = settled
        sent = False
        try:
            await self._send(message)
            sent = True
            if written is not None and not written.done():
                written.set_result(None)
            mark = await asyncio.wait_for(settled, timeout)
        except TimeoutError:
            raise RequestTimeout(f"no reply from the host within {timeout} s") from None
        finally:
            if not ticket.done:
                self._endpoint.abandon(ticket, sent=sent)
            self._waiting.pop(id(ticket), None)
        if not _in_handler.get():
            await self._wait_dispatched(mark)
        return ticket.outcome()

    async def _wait_dispatched(self, mark: int) -> None:
        while self._dispatched < mark and not self._closed:
            await self._progress.wait()

    def _settle(self, ticket: Ticket) -> None:
        settled = self._waiting.pop(id(ticket), None)
        if settled is not None and not settled.done():
            settled.set_result(self._enqueued)

    async def _read_loop(self) -> None:
        loop = asyncio.get_running_loop()
        assert self._sock is not None
        try:
            while True:
                try:
                    data = await loop.sock_recv(self._sock, _READ_SIZE)
                except ConnectionResetError:
                    break  # after the bytes that came before it: the kernel hands those over first
                if not data:
                    break
                for message in self._decoder.feed(data):
                    self._handle(message)
        except OSError as error:
            self._log.debug("greenroom: read failed: %s", error)
        finally:
            self._eof = True
            if self._decoder.pending and not self._closed:
                self._log.warning("greenroom: the host closed the connection inside a message")
            for ticket in self._endpoint.fail_all(connection_closed_error(self._parting)):
                self._settle(ticket)
            self._arrival.fire()

    def _handle(self, message: Any) -> None:
        self._parting = None
        if isinstance(message, InvalidFrame):
            for ticket in self._endpoint.fail_all(message.to_error()):
                self._settle(ticket)
            self._log.error(
                "greenroom: the host sent a line that is not JSON (%s): %r", message.reason, message.line[:200]
            )
            return
        for item in self._endpoint.receive(message):
            if isinstance(item, NotificationRejected):
                self._parting = item.error
                self._log.warning("greenroom: the host rejected a notification: %s", item.error)
            elif isinstance(item, Notification):
                self._received_events += 1
                handlers = self._router.route(item.event)
                if handlers:
                    self._enqueued += 1
                    self._dispatch_queue.put_nowait((self._enqueued, item.event, handlers))
                self._arrival.fire()
            elif isinstance(item, Completed):
                self._settle(item.ticket)
            elif isinstance(item, ServerRequest):
                self._log.warning("greenroom: the host sent a request (%s); answering -32601", item.method)
                if not self._closed:
                    self._write(encode_message(item.reply))
            elif isinstance(item, Unmatched):
                self._parting = null_id_error(item.message)
                self._log.debug("greenroom: dropped a reply to no waiting request: %r", item.message)
            elif isinstance(item, Malformed):
                self._log.error("greenroom: the host sent invalid JSON-RPC (%s): %r", item.reason, item.message)

    async def _dispatch_loop(self) -> None:
        _in_handler.set(True)
        while True:
            mark, event, handlers = await self._dispatch_queue.get()
            for handler in handlers:
                try:
                    outcome = handler(event.params)
                    if inspect.isawaitable(outcome):
                        await outcome
                except Exception:
                    self._log.exception("greenroom: the handler %r for %r events failed", handler, event.topic)
            self._dispatched = mark
            self._progress.fire()
