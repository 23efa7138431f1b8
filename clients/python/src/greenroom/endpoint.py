"""Endpoint: request ids, matching replies to requests, telling notifications apart.

The middle layer of the client stack. It does no I/O: the session above it
asks for the message to send (:meth:`Endpoint.request`, :meth:`Endpoint.batch`)
and hands every decoded incoming message to :meth:`Endpoint.receive`, which
settles the matching :class:`Ticket` and reports what else arrived. The sync
and the asyncio clients share it, so both match replies the same way.
"""

from __future__ import annotations

import bisect
import itertools
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import ProtocolError, RPCError, error_from_object
from .events import Event

__all__ = [
    "Call",
    "Completed",
    "Endpoint",
    "Incoming",
    "Malformed",
    "Notification",
    "NotificationRejected",
    "ServerRequest",
    "Ticket",
    "Unmatched",
    "null_id_error",
]

#: One entry of a batch: ``"method"``, ``("method",)`` or ``("method", params)``.
Call = str | Sequence[Any]

_UNSET = object()


class Ticket:
    """One request, or one batch of requests, waiting for the host's reply.

    The reply to a single request is its result or an :class:`RPCError`; the
    reply to a batch is a list of those, in the order of the calls. A reply
    that rejects the whole batch (an error object with ``id: null`` where an
    array was expected) is stored in :attr:`failure`.
    """

    __slots__ = ("ids", "is_batch", "position", "failure", "_outcomes")  # one per request: kept small and quick

    def __init__(self, ids: list[int], is_batch: bool, position: int = 0) -> None:
        self.ids = ids
        self.is_batch = is_batch
        self.position = position  # where its message is in the order of what was sent
        self.failure: BaseException | None = None
        self._outcomes: dict[int, Any] = {}

    @property
    def done(self) -> bool:
        """True once every id is answered, or the ticket failed as a whole."""
        return self.failure is not None or len(self._outcomes) == len(self.ids)

    def settle(self, request_id: int, outcome: Any) -> None:
        """Record the result (or :class:`RPCError`) for one of this ticket's ids."""
        self._outcomes.setdefault(request_id, outcome)

    def fail(self, error: BaseException) -> None:
        """Fail every unanswered call of this ticket with ``error``."""
        if not self.done:
            self.failure = error

    def unanswered(self) -> list[int]:
        """Ids still waiting for their reply, in request order."""
        return [request_id for request_id in self.ids if request_id not in self._outcomes]

    def outcome(self) -> Any:
        """The reply: a result (or list of results/errors for a batch); raises on failure.

        A single request whose reply is an error raises that :class:`RPCError`.
        """
        if self.failure is not None:
            raise self.failure
        if not self.done:
            raise RuntimeError("ticket is not settled yet")
        if self.is_batch:
            return [self._outcomes[request_id] for request_id in self.ids]
        result = self._outcomes[self.ids[0]]
        if isinstance(result, RPCError):
            raise result
        return result


@dataclass(frozen=True)
class Notification:
    """A host notification (an event)."""

    event: Event


@dataclass(frozen=True)
class Completed:
    """A ticket received its whole reply."""

    ticket: Ticket


@dataclass(frozen=True)
class NotificationRejected:
    """The host could not read a notification we sent (an ``id: null`` error); logged."""

    message: Any
    error: RPCError


@dataclass(frozen=True)
class ServerRequest:
    """The host sent a request (it has an ``id``); the client answers -32601."""

    request_id: Any
    method: str
    reply: dict[str, Any]


@dataclass(frozen=True)
class Unmatched:
    """A reply to no outstanding request (e.g. one that timed out); dropped."""

    message: Any


@dataclass(frozen=True)
class Malformed:
    """Something that is not JSON-RPC 2.0; logged by the session."""

    message: Any
    reason: str


Incoming = Notification | NotificationRejected | Completed | ServerRequest | Unmatched | Malformed

#: How many sent messages that wait for no reply but may still get an
#: ``id: null`` error (notifications, requests given up on) are remembered,
#: oldest forgotten first: far more than the host leaves unanswered.
MAX_OPEN_SLOTS = 65536


def _is_reply(message: Any) -> bool:
    return isinstance(message, dict) and "method" not in message and ("result" in message or "error" in message)


class Endpoint:
    """Allocates request ids and matches the host's replies to them."""

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        # id -> ticket, and the tickets themselves in the order they were sent:
        # a reply with "id": null belongs to the oldest one (the host answers a
        # connection's requests in order, and only unparseable ones get null).
        self._tickets_by_id: dict[int, Ticket] = {}
        self._outstanding: dict[int, Ticket] = {}
        # The host answers a connection's messages in order, and a message it
        # cannot read (too deep, an integer past 64 bits, too long) gets an
        # error with "id": null, even a notification. So every sent message
        # has a position, and a null-id error belongs to the oldest message
        # that may still be answered: an outstanding ticket, or a "slot" (a
        # notification, or an abandoned request) not yet passed by a later reply.
        self._positions = itertools.count(1)
        self._slots: deque[int] = deque()  # positions, ascending
        # Slots that are requests given up on: position -> their request ids, and
        # request id -> position (a late reply to one passes the slots before it).
        self._abandoned_at: dict[int, list[int]] = {}
        self._abandoned: dict[int, int] = {}

    @property
    def outstanding(self) -> int:
        """How many tickets still wait for their reply."""
        return len(self._outstanding)

    def request(self, method: str, params: Any = None) -> tuple[Ticket, dict[str, Any]]:
        """A new ticket and the request message to send for it."""
        request_id = next(self._ids)
        message = self._message(method, params, request_id)
        ticket = Ticket([request_id], is_batch=False, position=next(self._positions))
        self._track(ticket)
        return ticket, message

    def notification(self, method: str, params: Any = None) -> dict[str, Any]:
        """The message for a notification (no id, so no reply).

        Call it right before sending the message: the host answers a
        notification it cannot read with an ``id: null`` error, and that error
        must not be taken for the reply to a request sent after it.
        """
        message = self._message(method, params, _UNSET)
        self._open_slot(next(self._positions))
        return message

    def batch(self, calls: Iterable[Call]) -> tuple[Ticket, list[dict[str, Any]]]:
        """A new ticket for a batch and the array to send for it.

        Raises ValueError for an empty batch: JSON-RPC makes it invalid, and
        the host's answer to it could not be told from other null-id errors.
        """
        messages = []
        ids = []
        for call in calls:
            method, params = _unpack_call(call)
            request_id = next(self._ids)
            ids.append(request_id)
            messages.append(self._message(method, params, request_id))
        if not ids:
            raise ValueError("a batch needs at least one call")
        ticket = Ticket(ids, is_batch=True, position=next(self._positions))
        self._track(ticket)
        return ticket, messages

    def abandon(self, ticket: Ticket, sent: bool = True) -> None:
        """Stop waiting for ``ticket`` (timed out, cancelled): a late reply is dropped.

        ``sent=False`` when its message never reached the connection (then no
        reply can come for it at all).
        """
        if sent and id(ticket) in self._outstanding:
            self._open_slot(ticket.position)
            self._abandoned_at[ticket.position] = list(ticket.ids)
            for request_id in ticket.ids:
                self._abandoned[request_id] = ticket.position
        self._forget(ticket)

    def fail_all(self, error: BaseException) -> list[Ticket]:
        """Fail every outstanding ticket (the connection is gone); returns them."""
        tickets = list(self._outstanding.values())
        for ticket in tickets:
            ticket.fail(error)
            self._forget(ticket)
        self._slots.clear()
        self._abandoned_at.clear()
        self._abandoned.clear()
        return tickets

    def receive(self, message: Any) -> list[Incoming]:
        """Classify one decoded message from the host and settle what it answers."""
        if isinstance(message, list):
            if message and all(_is_reply(item) for item in message):
                return self._receive_batch_reply(message)
            incoming: list[Incoming] = []
            if not message:
                return [Malformed(message, "empty array")]
            for item in message:
                incoming.extend(self.receive(item))
            return incoming
        if not isinstance(message, dict):
            return [Malformed(message, "not an object or array")]
        if message.get("jsonrpc") != "2.0":
            return [Malformed(message, 'missing "jsonrpc": "2.0"')]
        if "method" in message:
            method = message["method"]
            if not isinstance(method, str):
                return [Malformed(message, "method is not a string")]
            if "id" in message:
                return [ServerRequest(message["id"], method, self._refusal(message["id"], method))]
            return [Notification(Event(method, message.get("params", {})))]
        if _is_reply(message):
            return self._receive_reply(message)
        return [Malformed(message, "neither a request, a notification nor a reply")]

    # -- internals ---------------------------------------------------------

    @staticmethod
    def _message(method: str, params: Any, request_id: Any) -> dict[str, Any]:
        if not isinstance(method, str):
            raise TypeError(f"method must be a str, not {type(method).__name__}")
        message: dict[str, Any] = {"jsonrpc": "2.0"}
        if request_id is not _UNSET:
            message["id"] = request_id
        message["method"] = method
        if params is not None:
            if not isinstance(params, (dict, list, tuple)):
                raise TypeError("params must be a dict (by name) or a list (by position)")
            message["params"] = list(params) if isinstance(params, tuple) else params
        return message

    @staticmethod
    def _refusal(request_id: Any, method: str) -> dict[str, Any]:
        return {
            "jsonrpc": "2.0",
            "id": request_id,
            "error": {
                "code": -32601,
                "message": "the client handles no requests",
                "data": {"kind": "methodNotFound", "method": method},
            },
        }

    def _open_slot(self, position: int) -> None:
        if len(self._slots) >= MAX_OPEN_SLOTS:
            self._close_slot(self._slots.popleft())
        if not self._slots or self._slots[-1] < position:
            self._slots.append(position)  # a notification: the newest message
        else:
            self._slots.insert(bisect.bisect(self._slots, position), position)  # a timed-out request

    def _passed(self, position: int) -> None:
        """The host answered the message at ``position``: everything sent before it was read."""
        while self._slots and self._slots[0] <= position:
            self._close_slot(self._slots.popleft())

    def _close_slot(self, position: int) -> None:
        """The slot at ``position`` can get no answer any more; if it was a request, neither can its ids."""
        for request_id in self._abandoned_at.pop(position, ()):
            del self._abandoned[request_id]

    def _track(self, ticket: Ticket) -> None:
        self._outstanding[id(ticket)] = ticket
        for request_id in ticket.ids:
            self._tickets_by_id[request_id] = ticket

    def _forget(self, ticket: Ticket) -> None:
        self._outstanding.pop(id(ticket), None)
        for request_id in ticket.ids:
            self._tickets_by_id.pop(request_id, None)

    def _oldest(self, *, batch: bool | None = None) -> Ticket | None:
        # Tickets are created in the order their messages are sent.
        for ticket in self._outstanding.values():
            if batch is None or ticket.is_batch == batch:
                return ticket
        return None

    def _complete_if_done(self, ticket: Ticket) -> list[Incoming]:
        if ticket.done:
            self._forget(ticket)
            return [Completed(ticket)]
        return []

    def _receive_reply(self, message: dict[str, Any]) -> list[Incoming]:
        request_id = message.get("id")
        if request_id is None:
            # Unparseable request, empty or oversized batch: the host could not
            # read an id, so the reply belongs to the oldest thing we sent that
            # may still be answered (a request, or a notification).
            ticket = self._oldest()
            if "error" not in message:
                return [Unmatched(message)]
            if self._slots and (ticket is None or self._slots[0] < ticket.position):
                position = self._slots[0]
                abandoned = position in self._abandoned_at
                self._passed(position)
                if not abandoned:
                    return [NotificationRejected(message, error_from_object(message["error"]))]
                return [Unmatched(message)]
            if ticket is None:
                return [Unmatched(message)]
            ticket.fail(_outcome(message))
            return self._complete_if_done(ticket)
        ticket = self._tickets_by_id.get(request_id) if isinstance(request_id, int) else None
        if ticket is None:
            if isinstance(request_id, int) and request_id in self._abandoned:
                self._passed(self._abandoned[request_id])
            return [Unmatched(message)]
        if self._slots:  # usually empty: then nothing sent before this request waits to be passed
            self._passed(ticket.position)
        ticket.settle(request_id, _outcome(message))
        return self._complete_if_done(ticket)

    def _receive_batch_reply(self, replies: list[Any]) -> list[Incoming]:
        ticket = None
        for reply in replies:
            request_id = reply.get("id")
            if isinstance(request_id, int) and request_id in self._tickets_by_id:
                ticket = self._tickets_by_id[request_id]
                break
        if ticket is None:
            ticket = self._oldest(batch=True)
        if ticket is None:
            for reply in replies:
                request_id = reply.get("id")
                if isinstance(request_id, int) and request_id in self._abandoned:
                    self._passed(self._abandoned[request_id])
                    break
            return [Unmatched(replies)]
        self._passed(ticket.position)
        incoming: list[Incoming] = []
        for reply in replies:
            request_id = reply.get("id")
            if request_id is None:
                # An entry the host could not read an id from: give it to the
                # first call of this batch that has no answer yet.
                unanswered = ticket.unanswered()
                if unanswered:
                    ticket.settle(unanswered[0], _outcome(reply))
                continue
            if request_id in ticket.ids:
                ticket.settle(request_id, _outcome(reply))
            else:
                incoming.append(Unmatched(reply))
        if not ticket.done:
            # A batch is answered with one array; calls missing from it never
            # get a reply, so fail them rather than wait forever.
            for request_id in ticket.unanswered():
                ticket.settle(request_id, ProtocolError(f"no reply for request {request_id} in the batch reply"))
        return incoming + self._complete_if_done(ticket)


def _outcome(reply: dict[str, Any]) -> Any:
    if "error" in reply:
        return error_from_object(reply["error"])
    return reply.get("result")


def _unpack_call(call: Call) -> tuple[str, Any]:
    if isinstance(call, str):
        return call, None
    if len(call) == 1:
        return call[0], None
    if len(call) == 2:
        return call[0], call[1]
    raise ValueError(f"a batch entry is 'method' or (method, params), not {call!r}")


def null_id_error(message: Any) -> RPCError | None:
    """The error of an ``id: null`` error reply (the host could not tell which message it answers)."""
    if isinstance(message, dict) and message.get("id", 0) is None and "error" in message and "method" not in message:
        return error_from_object(message["error"])
    return None
