"""The blocking client: :class:`Client`.

The top layer of the sync stack. It owns a transport, a
:class:`~greenroom.framing.LineDecoder`, an :class:`~greenroom.endpoint.Endpoint`
and an :class:`~greenroom.events.EventRouter`, and reads from the host only
while it waits: for a reply (``call``, ``batch``), in ``poll_events`` and in
``events()``. Notifications read along the way go to their handlers at once,
or to the queue, in the order they arrived.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

from .api import Methods
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
from .errors import ConnectionClosed, GreenroomError, RequestTimeout, RPCError, connection_closed_error
from .events import Event, EventRouter, Handler, normalize_topics, topic_list
from .framing import InvalidFrame, LineDecoder, encode_message
from .transcript import Recording, TranscriptWriter, header_from_info
from .transport import Address, SocketTransport, TCPSpec, Transport, resolve_address

__all__ = ["Client", "Pending"]

_DEFAULT: Any = object()


class Client(Methods):
    """A blocking connection to a Greenroom host.

    ``Client()`` connects to :func:`~greenroom.transport.default_socket_path`;
    ``Client("/path/host.sock")`` or ``Client(tcp="127.0.0.1:7000",
    token=...)`` connect elsewhere. ``timeout`` (seconds, None for no limit)
    bounds the connect and every reply; :class:`~greenroom.errors.RequestTimeout`
    is raised past it. Use it as a context manager, or call :meth:`close`.

    One thread at a time: calls from several threads are serialised by a lock,
    and a handler may call the client again (it runs on the calling thread).
    ``transport`` replaces the socket with any object that has ``send``,
    ``receive`` and ``close`` (see :class:`~greenroom.transport.Transport`).

    The typed API comes from :class:`~greenroom.api.Methods`, generated from
    the wire contract: ``client.host.ping()``, ``client.clock.advance(ms=16)``,
    ``client.page.create(...)`` returning a :class:`~greenroom.api.PageSession`.
    """

    def __init__(
        self,
        socket: str | os.PathLike[str] | None = None,
        *,
        tcp: TCPSpec | None = None,
        token: str | None = None,
        timeout: float | None = 30.0,
        transport: Transport | None = None,
        logger: logging.Logger | None = None,
    ) -> None:
        self.timeout = timeout
        self.address: Address | None = None
        if transport is None:
            self.address = resolve_address(socket, tcp)
            transport = SocketTransport.connect(self.address, timeout)
        self._transport = transport
        self._log = logger or logging.getLogger("greenroom")
        self._decoder = LineDecoder()
        self._endpoint = Endpoint()
        self._router = EventRouter()
        self._inbox: deque[Any] = deque()  # decoded, not yet handled: shared by nested waits
        self._to_dispatch: deque[tuple[Event, list[Handler]]] = deque()
        self._dispatching = False
        self._events_received = 0  # notifications read so far
        self._events_polled = 0  # of which poll_events has counted
        self._lock = threading.RLock()
        self._eof = False
        self._closed = False
        # An error the host sent to no request ("id": null) as the last thing
        # before it closed the connection: why it closed it (a full host gets
        # -32005, a refused peer -32006). Calls then raise it, not ConnectionClosed.
        self._parting: RPCError | None = None
        # The transcript being written (record()), None when not recording: then it costs one test per send.
        self._recorder: TranscriptWriter | None = None
        if token is not None:
            try:
                self.call("host.auth", {"token": token})
            except BaseException:
                self.close()
                raise

    # -- requests ------------------------------------------------------------

    def call(self, method: str, params: Any = None, *, timeout: float | None = _DEFAULT) -> Any:
        """Send a request and return its result.

        Raises the :class:`~greenroom.errors.RPCError` subclass for the host's
        error code, :class:`~greenroom.errors.RequestTimeout` or
        :class:`~greenroom.errors.ConnectionClosed` (or, when the host said
        why it closed the connection, as a full host does with -32005, that
        error). Events that arrive before
        the reply have been handed to their handlers (or queued) when it returns.
        """
        with self._lock:
            ticket, message = self._endpoint.request(method, params)
            return self._send_and_wait(ticket, message, timeout)

    def start(self, method: str, params: Any = None) -> Pending:
        """Send a request now and take its reply later, with :meth:`Pending.result`.

        For a reply the host holds back while this client goes on: ``showRendered``
        or ``stack.push`` with ``reply: "afterAppear"`` answer only once the
        container has appeared, which under a virtual clock needs a
        ``clock.advance`` from this very client::

            shown = client.start("showRendered", {"class": "Card", "stack": s, "animated": True,
                                                  "reply": "afterAppear"})
            client.clock.advance(300)
            shown.result()["transitionMs"]  # 300

        Other calls meanwhile read the reply as it arrives (``shown.done``).
        """
        with self._lock:
            ticket, message = self._endpoint.request(method, params)
            try:
                self._send(message)
            except BaseException:
                self._endpoint.abandon(ticket, sent=False)
                raise
        return Pending(self, ticket, method)

    def notify(self, method: str, params: Any = None) -> None:
        """Send a notification: no id, no reply, no error.

        A notification the host cannot read (an integer past 64 bits, too
        deep, too long) still gets an ``id: null`` error from it: that error is
        logged (logger ``greenroom``), never taken for a later call's reply.
        """
        with self._lock:
            self._send(self._endpoint.notification(method, params))

    def batch(self, calls: Iterable[Call], *, timeout: float | None = _DEFAULT) -> list[Any]:
        """Send ``[(method, params), ...]`` as one batch and return the outcomes in order.

        Each outcome is the call's result, or the :class:`~greenroom.errors.RPCError`
        instance (returned, not raised). A reply that rejects the whole batch
        (say, more entries than ``--max-batch``) is raised.
        """
        with self._lock:
            ticket, messages = self._endpoint.batch(calls)
            outcomes: list[Any] = self._send_and_wait(ticket, messages, timeout)
            return outcomes

    def ping(self) -> bool:
        """``host.ping``: True when the host answers ``{"pong": true}``."""
        result = self.call("host.ping")
        return isinstance(result, dict) and result.get("pong") is True

    def subscribe(self, topics: str | Iterable[str], scope: str | None = None) -> Any:
        """``events.subscribe``: receive events of ``topics``.

        ``scope="all"`` observes every connection's objects, not only this
        one's. Subscribing does not register handlers: see :meth:`on`.
        """
        params: dict[str, Any] = {"topics": topic_list(topics)}
        if scope is not None:
            params["scope"] = scope
        return self.call("events.subscribe", params)

    def unsubscribe(self, topics: str | Iterable[str]) -> Any:
        """``events.unsubscribe``: stop receiving events of ``topics``."""
        return self.call("events.unsubscribe", {"topics": topic_list(topics)})

    # -- transcripts ---------------------------------------------------------

    def record(self, path: str | os.PathLike[str], *, comment: str | None = None) -> Recording:
        """Write a transcript of this connection to ``path`` (docs/transcripts.md) until the block ends.

        ``with client.record("golden/swipe.ndjson"):`` writes the header (the host's protocol version and
        clock, from a ``host.info`` asked first, which is not in the transcript), then every message sent
        and received while the block runs: requests, notifications, batches, replies and events, in the
        order the client saw them. ``greenroom replay FILE`` checks it against a fresh host. ``comment``
        is a first line for people (the script that made it, say); ``recording.comment(text)`` adds more.

        Without ``with``, it records until ``recording.stop()``. One recording at a time per client.
        Record on a fresh host with ``--clock virtual``, from its start: a replay starts from nothing,
        and only a virtual clock makes time and every event's order the same again.
        """
        with self._lock:
            if self._recorder is not None:
                raise GreenroomError(f"this client is already recording a transcript, to {self._recorder.path}")
            header = header_from_info(self.call("host.info"))
            writer = TranscriptWriter(path, header, comment)
            self._recorder = writer
            self._decoder.tap = writer.received
        return Recording(writer, header, self._stop_recording)

    def _stop_recording(self, writer: TranscriptWriter) -> None:
        with self._lock:
            if self._recorder is writer:
                self._recorder = None
                self._decoder.tap = None

    # -- events --------------------------------------------------------------

    def _on(self, topic: str, handler: Handler | None = None) -> Any:
        """``on``, whose typed signatures (one per topic) are generated in :class:`~greenroom.api.Methods`.

        Handlers run on the thread that is reading (inside ``call``,
        ``batch``, ``poll_events`` or ``events``), one at a time, in arrival
        order; a handler may call the client. An
        exception in a handler is logged, not raised. Events of a topic that
        has handlers do not go to the ``events()`` queue.
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

    def poll_events(self, timeout: float | None = 0.0) -> int:
        """Read and dispatch what the host sent; returns how many events arrived.

        Counts the events handled or queued since the previous ``poll_events``
        (including those read while waiting for replies). When there are none
        yet, waits up to ``timeout`` seconds (None: no limit) for one; then
        takes whatever else has already arrived, without waiting. Raises
        :class:`~greenroom.errors.ConnectionClosed` once the host is gone and
        no event is left to count.
        """
        with self._lock:
            deadline = _deadline(timeout)
            while True:
                arrived = self._events_received > self._events_polled
                try:
                    # Once something has arrived, only take what needs no waiting.
                    message = self._next_message(time.monotonic() if arrived else deadline)
                except ConnectionClosed:
                    if arrived:
                        break
                    raise
                if message is None:
                    break
                self._handle(message)
            count = self._events_received - self._events_polled
            self._events_polled = self._events_received
            return count

    def _events(self, topics: str | Iterable[str] | None = None, timeout: float | None = None) -> Iterator[Event]:
        """``events()``: iterate over queued and arriving events of ``topics`` (all when None).

        ``client.events`` is also the wire's ``events.*`` group
        (:class:`~greenroom.api.EventsMethods`); calling it calls this.

        Each step waits up to ``timeout`` seconds for the next matching event
        (None: no limit; 0: only what has already arrived); iteration ends
        then, or when the host closes the connection. Events of other topics
        stay queued, in order, for a later ``events()``.
        """
        wanted = normalize_topics(topics)
        while True:
            with self._lock:
                event = self._router.take(wanted) or self._wait_for_event(wanted, timeout)
            if event is None:
                return
            yield event

    # -- lifetime ------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """True after :meth:`close` or once the host closed the connection."""
        return self._closed or self._eof

    def close(self) -> None:
        """Close the connection. Idempotent; queued events stay readable."""
        # Not under the lock: another thread blocked in a read is woken by it.
        self._closed = True
        self._transport.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"<greenroom.Client {self.address or 'custom transport'} {state}>"

    # -- internals -----------------------------------------------------------

    def _send(self, message: Any) -> None:
        if self._closed:
            raise ConnectionClosed("the client is closed")
        if self._eof:
            raise connection_closed_error(self._parting)
        data = encode_message(message)
        self._transport.send(data)
        if self._recorder is not None:
            self._recorder.sent(data)  # after the write: a message that never left is not in the transcript

    def _send_and_wait(self, ticket: Ticket, message: Any, timeout: float | None) -> Any:
        if timeout is _DEFAULT:
            timeout = self.timeout
        deadline = None if timeout is None else time.monotonic() + timeout  # _deadline, inline: every call
        sent = False
        try:
            try:
                self._send(message)
                sent = True
            except ConnectionClosed as error:
                if self._closed:
                    raise
                # The host hung up: read what it said before it did (say, the
                # -32005 line of a host at --max-connections), which may answer this call.
                self._read_until_eof(deadline)
                if ticket.done:
                    return ticket.outcome()
                if self._parting is not None:
                    raise connection_closed_error(self._parting) from error
                raise
            while not ticket.done:
                incoming = self._next_message(deadline)
                if incoming is None:
                    raise RequestTimeout(f"no reply from the host within {timeout} s")
                self._handle(incoming)
        except BaseException:
            self._endpoint.abandon(ticket, sent=sent)
            raise
        return ticket.outcome()

    def _wait(self, ticket: Ticket, timeout: float | None) -> Any:
        """Read until ``ticket`` is answered (a :class:`Pending`'s); a timeout keeps it waiting."""
        if timeout is _DEFAULT:
            timeout = self.timeout
        deadline = None if timeout is None else time.monotonic() + timeout
        while not ticket.done:
            try:
                incoming = self._next_message(deadline)
            except ConnectionClosed:
                if not ticket.done:
                    raise
                break
            if incoming is None:
                raise RequestTimeout(f"no reply from the host within {timeout} s")
            self._handle(incoming)
        return ticket.outcome()

    def _read_until_eof(self, deadline: float | None) -> None:
        """Handle what the host sent before it closed the connection (briefly: it is gone)."""
        limit = time.monotonic() + 1.0
        deadline = limit if deadline is None else min(deadline, limit)
        while True:
            try:
                message = self._next_message(deadline)
            except ConnectionClosed:
                return
            if message is None:
                return
            self._handle(message)

    def _wait_for_event(self, wanted: frozenset[str] | None, timeout: float | None) -> Event | None:
        deadline = _deadline(timeout)
        while True:
            try:
                message = self._next_message(deadline)
            except ConnectionClosed:
                return self._router.take(wanted)
            if message is None:
                return None
            self._handle(message)
            event = self._router.take(wanted)
            if event is not None:
                return event

    def _next_message(self, deadline: float | None) -> Any:
        """The next decoded message, reading when none is waiting; None past ``deadline``."""
        while not self._inbox:
            if self._closed:
                raise ConnectionClosed("the client is closed")
            if self._eof:
                raise ConnectionClosed("the host closed the connection")
            remaining = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            data = self._transport.receive(remaining)
            if data is None:
                return None
            if not data:
                self._eof = True
                if self._decoder.pending:
                    self._log.warning("greenroom: the host closed the connection inside a message")
                self._endpoint.fail_all(connection_closed_error(self._parting))
                continue
            self._inbox.extend(self._decoder.feed(data))
        return self._inbox.popleft()

    def _handle(self, message: Any) -> None:
        """Act on one decoded message: settle a ticket, dispatch or queue events, log the rest."""
        self._parting = None
        if isinstance(message, InvalidFrame):
            # The reply being waited for may be that very line: fail now rather than time out.
            self._endpoint.fail_all(message.to_error())
            self._log.error(
                "greenroom: the host sent a line that is not JSON (%s): %r", message.reason, message.line[:200]
            )
            return
        for item in self._endpoint.receive(message):
            if isinstance(item, Completed):
                continue  # its ticket is done: the waiting loop sees it (the common case, so tested first)
            if isinstance(item, NotificationRejected):
                self._parting = item.error
                self._log.warning("greenroom: the host rejected a notification: %s", item.error)
            elif isinstance(item, Notification):
                self._events_received += 1
                self._dispatch(item.event)
            elif isinstance(item, ServerRequest):
                self._log.warning("greenroom: the host sent a request (%s); answering -32601", item.method)
                try:
                    self._send(item.reply)
                except ConnectionClosed:
                    pass
            elif isinstance(item, Unmatched):
                self._parting = null_id_error(item.message)
                self._log.debug("greenroom: dropped a reply to no waiting request: %r", item.message)
            elif isinstance(item, Malformed):
                self._log.error("greenroom: the host sent invalid JSON-RPC (%s): %r", item.reason, item.message)

    def _dispatch(self, event: Event) -> None:
        handlers = self._router.route(event)
        if not handlers:
            return
        self._to_dispatch.append((event, handlers))
        if self._dispatching:
            # A handler is calling the client: run this event's handlers after
            # it returns, so that handlers run one at a time, in arrival order.
            return
        self._dispatching = True
        try:
            while self._to_dispatch:
                queued, queued_handlers = self._to_dispatch.popleft()
                for handler in queued_handlers:
                    try:
                        handler(queued.params)
                    except Exception:
                        self._log.exception("greenroom: the handler %r for %r events failed", handler, queued.topic)
        finally:
            self._dispatching = False


def _deadline(timeout: float | None) -> float | None:
    return None if timeout is None else time.monotonic() + timeout


class Pending:
    """A request :meth:`Client.start` sent, whose reply is taken later."""

    __slots__ = ("_client", "_ticket", "method")

    def __init__(self, client: Client, ticket: Ticket, method: str) -> None:
        self._client = client
        self._ticket = ticket
        self.method = method

    @property
    def done(self) -> bool:
        """True once the reply has been read (by this or any other call on the client)."""
        return self._ticket.done

    def result(self, *, timeout: float | None = _DEFAULT) -> Any:
        """The result, reading the connection until it arrives; the error is raised as :meth:`Client.call`
        raises it. :class:`~greenroom.errors.RequestTimeout` past ``timeout`` leaves it pending: ask again."""
        with self._client._lock:
            return self._client._wait(self._ticket, timeout)

    def __repr__(self) -> str:
        return f"<greenroom.Pending {self.method} {'done' if self.done else 'waiting'}>"
