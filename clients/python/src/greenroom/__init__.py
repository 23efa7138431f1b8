"""Python client for Greenroom, the prerendered-container host (JSON-RPC 2.0 over a socket).

::

    import greenroom

    with greenroom.Client() as client:          # $GREENROOM_SOCKET or the default socket
        client.ping()
        client.subscribe(["lifecycle"])
        client.call("classes.define", {"name": "Card"})
        client.call("showRendered", {"class": "Card"})
        for event in client.events("lifecycle", timeout=0):
            print(event.seq, event["event"])   # the hook: "init", ...

The asyncio client with the same method names is :class:`greenroom.aio.AsyncClient`;
the pytest fixtures are in :mod:`greenroom.pytest_plugin`; the lifecycle model tests
are written with (the appearance table's checker, call assertions, gestures) is
:mod:`greenroom.lifecycle`.
"""

from .client import Client, Pending
from .errors import (
    ConnectError,
    ConnectionClosed,
    GreenroomError,
    InternalError,
    InvalidParams,
    InvalidRequest,
    InvalidState,
    LimitExceeded,
    MethodNotFound,
    ParseError,
    PluginFailed,
    ProtocolError,
    RequestTimeout,
    RPCError,
    Unauthorized,
    UnknownClass,
    UnknownObject,
    VirtualClockOnly,
)
from .events import TOPICS, Event
from .transport import default_socket_path

__version__ = "0.1.0"

__all__ = [
    "Client",
    "ConnectError",
    "ConnectionClosed",
    "Event",
    "GreenroomError",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "InvalidState",
    "LimitExceeded",
    "MethodNotFound",
    "ParseError",
    "Pending",
    "PluginFailed",
    "ProtocolError",
    "RPCError",
    "RequestTimeout",
    "TOPICS",
    "Unauthorized",
    "UnknownClass",
    "UnknownObject",
    "VirtualClockOnly",
    "default_socket_path",
    "__version__",
]
