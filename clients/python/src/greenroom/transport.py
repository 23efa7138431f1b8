"""Transport: where the host listens, and a blocking byte pipe to it.

:func:`resolve_address` turns the ``Client(socket=..., tcp=...)`` arguments
into an :class:`Address` (both clients use it); :class:`SocketTransport` is
the sync client's connection. Anything with the same three methods
(``send``, ``receive``, ``close``) can stand in for it in tests.
"""

from __future__ import annotations

import math
import os
import select
import socket as socketlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from .errors import ConnectError, ConnectionClosed

__all__ = ["Address", "SocketTransport", "Transport", "default_socket_path", "resolve_address"]

#: ``"host:port"``, ``"tcp:host:port"``, ``(host, port)`` or a bare port on loopback.
TCPSpec = str | tuple[str, int] | int


def default_socket_path(environ: Mapping[str, str] | None = None) -> str:
    """The socket the host listens on by default (docs/security.md).

    ``$GREENROOM_SOCKET`` if set, else ``$XDG_RUNTIME_DIR/greenroom/host.sock``
    if ``XDG_RUNTIME_DIR`` is set, else ``/tmp/greenroom-$UID/host.sock``.
    """
    env = os.environ if environ is None else environ
    explicit = env.get("GREENROOM_SOCKET")
    if explicit:
        return explicit
    runtime_dir = env.get("XDG_RUNTIME_DIR")
    if runtime_dir:
        return os.path.join(runtime_dir, "greenroom", "host.sock")
    return f"/tmp/greenroom-{os.getuid()}/host.sock"


@dataclass(frozen=True)
class Address:
    """A host endpoint: a Unix socket ``path``, or TCP ``host`` and ``port``."""

    kind: str  # "unix" or "tcp"
    path: str | None = None
    host: str | None = None
    port: int | None = None

    def __str__(self) -> str:
        if self.kind == "unix":
            return f"unix:{self.path}"
        return f"tcp:{self.host}:{self.port}"


def resolve_address(socket: str | os.PathLike[str] | None = None, tcp: TCPSpec | None = None) -> Address:
    """Where to connect, from the clients' ``socket`` and ``tcp`` arguments.

    ``socket`` may carry the ``unix:`` prefix the host prints in its ready
    line. With neither argument, :func:`default_socket_path` decides.
    """
    if socket is not None and tcp is not None:
        raise ValueError("pass either socket or tcp, not both")
    if tcp is not None:
        host, port = _parse_tcp(tcp)
        return Address("tcp", host=host, port=port)
    path = os.fspath(socket) if socket is not None else default_socket_path()
    if path.startswith("tcp:"):
        host, port = _parse_tcp(path)
        return Address("tcp", host=host, port=port)
    if path.startswith("unix:"):
        path = path[len("unix:") :]
    return Address("unix", path=path)


def _parse_tcp(spec: TCPSpec) -> tuple[str, int]:
    if isinstance(spec, int) and not isinstance(spec, bool):
        return "127.0.0.1", spec
    if isinstance(spec, tuple):
        host, port = spec
        return str(host), int(port)
    text = str(spec)
    if text.startswith("tcp:"):
        text = text[len("tcp:") :]
    host, sep, digits = text.rpartition(":")
    if not sep or not digits.isdigit():
        raise ValueError(f"tcp address must be 'host:port', not {spec!r}")
    return (host.strip("[]") or "127.0.0.1"), int(digits)


class Transport(Protocol):
    """What the sync client needs from a connection."""

    def send(self, data: bytes) -> None:
        """Write all of ``data``; raise :class:`ConnectionClosed` if the peer is gone."""

    def receive(self, timeout: float | None) -> bytes | None:
        """Bytes that arrived; ``b""`` once the peer closed; None after ``timeout`` seconds."""

    def close(self) -> None:
        """Close the connection (idempotent)."""


class SocketTransport:
    """A connected stream socket (Unix or TCP) used with blocking I/O."""

    READ_SIZE = 256 * 1024

    def __init__(self, sock: socketlib.socket) -> None:
        self._sock: socketlib.socket | None = sock
        sock.setblocking(True)
        # One poller for the connection's life: making and registering one per read cost as much as the poll.
        self._poller = select.poll()
        self._poller.register(sock, select.POLLIN)

    @classmethod
    def connect(cls, address: Address, timeout: float | None = None) -> SocketTransport:
        """Connect to ``address``; raises :class:`ConnectError` with what to check."""
        # Before the try: a ConnectError is an OSError, which the handlers below would wrap a second time.
        if address.kind == "unix" and address.path is None:
            raise ConnectError(f"cannot connect to {address}: a unix address needs a path")
        try:
            if address.kind == "unix" and address.path is not None:
                sock = socketlib.socket(socketlib.AF_UNIX, socketlib.SOCK_STREAM)
                try:
                    sock.settimeout(timeout)
                    sock.connect(address.path)
                except BaseException:
                    sock.close()
                    raise
            else:
                sock = socketlib.create_connection((address.host, address.port), timeout=timeout)
                sock.setsockopt(socketlib.IPPROTO_TCP, socketlib.TCP_NODELAY, 1)
        except (FileNotFoundError, ConnectionRefusedError) as error:
            raise ConnectError(
                f"cannot connect to the Greenroom host at {address}: {error.strerror or error}"
                " (is `greenroom serve` running? set GREENROOM_SOCKET or pass socket=)"
            ) from error
        except OSError as error:
            raise ConnectError(f"cannot connect to the Greenroom host at {address}: {error}") from error
        return cls(sock)

    @property
    def closed(self) -> bool:
        """True after :meth:`close`."""
        return self._sock is None

    def fileno(self) -> int:
        """The socket's descriptor (-1 when closed), for select() or poll()."""
        return self._sock.fileno() if self._sock is not None else -1

    def send(self, data: bytes) -> None:
        sock = self._require()
        try:
            sock.sendall(data)
        except OSError as error:
            raise ConnectionClosed(f"cannot send to the host: {error}") from error

    def receive(self, timeout: float | None) -> bytes | None:
        sock = self._require()
        if timeout is not None and not self._poller.poll(math.ceil(max(timeout, 0.0) * 1000)):
            return None
        try:
            return sock.recv(self.READ_SIZE)
        except ConnectionResetError:
            return b""
        except OSError as error:
            raise ConnectionClosed(f"cannot read from the host: {error}") from error

    def close(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            try:
                sock.shutdown(socketlib.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def _require(self) -> socketlib.socket:
        if self._sock is None:
            raise ConnectionClosed("the connection is closed")
        return self._sock
