"""Exceptions raised by the Greenroom clients.

Two families:

* :class:`RPCError` and its subclasses: the host answered a request with a
  JSON-RPC error object. Each subclass stands for one error code; unknown
  codes give a plain :class:`RPCError`. The code table is open: subclass
  :class:`RPCError` with a new ``code`` and :func:`error_from_object` picks it
  up, as sourcekit-lsp does with its extensible error-code struct.
* :class:`GreenroomError` subclasses that are not RPC errors: the transport
  failed (:class:`ConnectError`, :class:`ConnectionClosed`), a reply did not
  come in time (:class:`RequestTimeout`), or the host broke the protocol
  (:class:`ProtocolError`).

Everything here derives from :class:`GreenroomError`, so
``except greenroom.GreenroomError`` catches every failure of the client.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

__all__ = [
    "GreenroomError",
    "ConnectError",
    "ConnectionClosed",
    "RequestTimeout",
    "ProtocolError",
    "RPCError",
    "ParseError",
    "InvalidRequest",
    "MethodNotFound",
    "InvalidParams",
    "InternalError",
    "UnknownClass",
    "UnknownObject",
    "InvalidState",
    "PluginFailed",
    "LimitExceeded",
    "Unauthorized",
    "VirtualClockOnly",
    "error_class_for_code",
    "error_from_object",
    "connection_closed_error",
]


class GreenroomError(Exception):
    """Base class of every exception the Greenroom client raises."""


class ConnectError(GreenroomError, ConnectionError):
    """The client could not connect to the host (no socket, refused, ...)."""


class ConnectionClosed(GreenroomError, ConnectionError):
    """The connection to the host is closed: by the host, or by :meth:`close`."""


class RequestTimeout(GreenroomError, TimeoutError):
    """No reply arrived within the request's timeout.

    The request stays sent; a reply that arrives later is discarded.
    """


class ProtocolError(GreenroomError):
    """The host sent something that is not valid JSON-RPC 2.0."""


# code -> subclass; filled by RPCError.__init_subclass__.
_CLASSES_BY_CODE: dict[int, type[RPCError]] = {}


class RPCError(GreenroomError):
    """The host answered a request with a JSON-RPC error object.

    Attributes:
        code: the JSON-RPC error code (an ``int``).
        message: the host's human-readable message.
        data: the error's ``data`` member (usually a dict with ``kind``), or None.
    """

    #: The code this class stands for; None on the base class.
    code_value: ClassVar[int | None] = None

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(code, message, data)
        self.code = code
        self.message = message
        self.data = data

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.code_value is not None:
            _CLASSES_BY_CODE[cls.code_value] = cls

    @property
    def kind(self) -> str | None:
        """``data.kind`` when the host sent one (Greenroom always does for its own codes)."""
        if isinstance(self.data, dict):
            kind = self.data.get("kind")
            return kind if isinstance(kind, str) else None
        return None

    def __str__(self) -> str:
        text = f"{self.message} (code {self.code})"
        if self.data is not None:
            text += " data=" + json.dumps(self.data, separators=(",", ":"), sort_keys=True, default=str)
        return text

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r}, {self.data!r})"

    def __eq__(self, other: object) -> bool:
        # Value equality makes batch results easy to assert on in tests.
        if not isinstance(other, RPCError):
            return NotImplemented
        return (type(self), self.code, self.message, self.data) == (
            type(other),
            other.code,
            other.message,
            other.data,
        )

    __hash__ = Exception.__hash__


class ParseError(RPCError):
    """-32700: the host could not parse the JSON text."""

    code_value = -32700


class InvalidRequest(RPCError):
    """-32600: not a valid JSON-RPC request (also: message or batch too long)."""

    code_value = -32600


class MethodNotFound(RPCError):
    """-32601: no such method; ``data.method`` names it."""

    code_value = -32601


class InvalidParams(RPCError):
    """-32602: bad params; ``data.path`` names the bad field."""

    code_value = -32602


class InternalError(RPCError):
    """-32603: the host failed internally."""

    code_value = -32603


class UnknownClass(RPCError):
    """-32001: no container class with that name."""

    code_value = -32001


class UnknownObject(RPCError):
    """-32002: no such container, stack, session or batch context (or not yours)."""

    code_value = -32002


class InvalidState(RPCError):
    """-32003: the object is not in a state that allows the request."""

    code_value = -32003


class PluginFailed(RPCError):
    """-32004: a plugin hook failed; the container was torn down."""

    code_value = -32004


class LimitExceeded(RPCError):
    """-32005: a host limit (connections, pool depth, queue, ...) was reached."""

    code_value = -32005


class Unauthorized(RPCError):
    """-32006: authenticate first (``host.auth``) or the peer is not allowed."""

    code_value = -32006


class VirtualClockOnly(RPCError):
    """-32007: the method needs ``serve --clock virtual``."""

    code_value = -32007


def error_class_for_code(code: int) -> type[RPCError]:
    """The :class:`RPCError` subclass registered for ``code``, else :class:`RPCError`."""
    return _CLASSES_BY_CODE.get(code, RPCError)


def error_from_object(error: Any) -> RPCError:
    """Build the typed exception for a JSON-RPC error object ``{code, message, data?}``.

    A malformed error object still gives an :class:`RPCError` (with code -32603
    when the code is missing) so that a failure is never swallowed.
    """
    if not isinstance(error, dict):
        return InternalError(-32603, f"malformed error object from host: {error!r}", None)
    code = error.get("code")
    message = error.get("message")
    if not isinstance(message, str):
        message = str(message) if message is not None else ""
    if not isinstance(code, int) or isinstance(code, bool):
        return InternalError(-32603, f"error object without an integer code: {message}", error.get("data"))
    return error_class_for_code(code)(code, message, error.get("data"))


def connection_closed_error(parting: RPCError | None) -> GreenroomError:
    """What a call on a connection the host closed raises: the error the host sent as it hung up
    (an ``id: null`` error: -32005 from a full host, -32006 for a refused peer), else
    :class:`ConnectionClosed`. A new instance each time: raising one twice chains tracebacks."""
    if parting is not None:
        return type(parting)(parting.code, parting.message, parting.data)
    return ConnectionClosed("the host closed the connection")
