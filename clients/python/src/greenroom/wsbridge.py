"""A WebSocket to lines: stdin's lines go to a Greenroom host's ``ws:`` listener as text frames, and each
message it sends comes out on stdout as one line. ``greenroomctl --ws URL`` runs it where it runs socat for
a Unix or TCP socket (socat cannot frame RFC 6455).

::

    python3 -m greenroom.wsbridge ws://127.0.0.1:8765/rpc     # or: python3 wsbridge.py ws:127.0.0.1:8765

It needs Python 3 and nothing else: the module imports only the standard library and nothing from its
package, so it also runs as a plain file (``python3 -I path/to/wsbridge.py URL``), which is how an installed
``greenroomctl`` finds it. It speaks RFC 6455 as a client: the upgrade (no ``Origin``, as a native client;
the host's ``Host`` rules apply), masked text frames out, text messages in (fragmented or not), pings
answered, the close handshake both ways. It behaves as ``socat -s -t 0.2`` does for greenroomctl: both
directions at once, never blocking one on the other; when stdin ends it closes the connection (close
code 1000) and waits at most 0.2 s for the host's close; when the host closes, stdout ends. Errors go to
stderr as ``greenroomctl-ws E <what>`` (the form of socat's, which greenroomctl quotes), exit status 1.
"""

from __future__ import annotations

import base64
import hashlib
import os
import select
import signal
import socket
import struct
import sys
import time
from urllib.parse import urlsplit

__all__ = ["Decoder", "ProtocolViolation", "encode_frame", "main", "parse_url"]

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
#: After stdin ends and our close is sent: how long to wait for the host's (socat's -t 0.2).
LINGER = 0.2
_TEXT, _BINARY, _CLOSE, _PING, _PONG, _CONTINUATION = 0x1, 0x2, 0x8, 0x9, 0xA, 0x0


class ProtocolViolation(Exception):
    """The host sent something RFC 6455 does not allow a server to send."""


def parse_url(url: str) -> tuple[str, int, str, str]:
    """``ws://HOST:PORT/PATH?QUERY`` (or ``ws:HOST:PORT``, the form of the host's ready line, for
    ``/rpc``) -> (host to connect to, port, request target, Host header)."""
    if url.startswith("ws:") and not url.startswith("ws://"):
        url = "ws://" + url[3:]
    parts = urlsplit(url)
    if parts.scheme == "wss":
        raise ValueError("wss: is not supported: the host serves plain ws: (loopback, or --bind-any with a token)")
    if parts.scheme != "ws" or not parts.hostname:
        raise ValueError(f"not a ws:// URL: {url!r} (e.g. ws://127.0.0.1:8765/rpc)")
    try:
        port = parts.port or 80
    except ValueError as error:
        raise ValueError(f"bad port in {url!r}: {error}") from None
    target = (parts.path or "/rpc") + (f"?{parts.query}" if parts.query else "")
    return parts.hostname, port, target, parts.netloc


def encode_frame(payload: bytes, opcode: int = _TEXT, mask: bytes | None = None) -> bytes:
    """One final frame, masked (a client's frames must be): ``mask`` is 4 bytes, random when None."""
    key = os.urandom(4) if mask is None else mask
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
    elif n < 1 << 16:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
    if n == 0:
        return head + key
    repeated = (key * (n // 4 + 1))[:n]
    masked = (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(n, "big")
    return head + key + masked


class Decoder:
    """The host's frames -> events: ``("message", bytes)``, ``("ping", payload)``, ``("close", payload)``.
    Fragments are joined; control frames may come between them."""

    def __init__(self) -> None:
        self.buffer = b""
        self.fragments: list[bytes] | None = None

    def feed(self, data: bytes) -> list[tuple[str, bytes]]:
        """Takes received bytes; returns the events completed so far."""
        self.buffer += data
        out: list[tuple[str, bytes]] = []
        while True:
            frame = self._frame()
            if frame is None:
                return out
            fin, opcode, payload = frame
            if opcode in (_CLOSE, _PING, _PONG):
                if not fin or len(payload) > 125:
                    raise ProtocolViolation("a fragmented or long control frame")
                if opcode != _PONG:
                    out.append(("close" if opcode == _CLOSE else "ping", payload))
                continue
            if opcode == _BINARY:
                raise ProtocolViolation("a binary frame (the host sends text only)")
            if opcode == _TEXT:
                if self.fragments is not None:
                    raise ProtocolViolation("a new message before the last one ended")
                self.fragments = []
            elif opcode != _CONTINUATION or self.fragments is None:
                raise ProtocolViolation(f"an unexpected frame (opcode {opcode})")
            self.fragments.append(payload)
            if fin:
                out.append(("message", b"".join(self.fragments)))
                self.fragments = None

    def _frame(self) -> tuple[bool, int, bytes] | None:
        b = self.buffer
        if len(b) < 2:
            return None
        fin, opcode, masked, n = b[0] & 0x80, b[0] & 0x0F, b[1] & 0x80, b[1] & 0x7F
        if b[0] & 0x70:
            raise ProtocolViolation("reserved bits set (no extension was agreed)")
        if masked:
            raise ProtocolViolation("a masked frame from the server")
        at = 2
        if n == 126:
            if len(b) < 4:
                return None
            (n,) = struct.unpack_from("!H", b, 2)
            at = 4
        elif n == 127:
            if len(b) < 10:
                return None
            (n,) = struct.unpack_from("!Q", b, 2)
            at = 10
        if len(b) < at + n:
            return None
        self.buffer = b[at + n:]
        return bool(fin), opcode, b[at:at + n]


def _fail(what: str) -> int:
    sys.stderr.write(f"greenroomctl-ws E {what}\n")
    sys.stderr.flush()
    return 1


def _handshake_request(target: str, host_header: str, key: str) -> bytes:
    return (f"GET {target} HTTP/1.1\r\nHost: {host_header}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: greenroom\r\n"
            "\r\n").encode("latin-1")


def _check_upgrade(head: bytes, key: str, body: bytes = b"") -> str | None:
    """None when ``head`` (the response up to its blank line) accepts the upgrade, else why not (with the
    start of the body that came with a refusal: the host says there what to change)."""
    lines = head.decode("latin-1").split("\r\n")
    status = lines[0].split(" ", 2)
    if len(status) < 2 or status[1] != "101":
        said = " ".join(body.decode("utf-8", "replace").split())[:300]
        return f"the host refused the WebSocket upgrade: {lines[0]}" + (f": {said}" if said else "")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    want = base64.b64encode(hashlib.sha1(key.encode() + _GUID).digest()).decode()
    if headers.get("sec-websocket-accept") != want:
        return "the host's upgrade answer has a wrong Sec-WebSocket-Accept"
    return None


def main(argv: list[str] | None = None) -> int:
    """Bridges stdin and stdout to the URL in ``argv[1]``; returns the exit status."""
    argv = sys.argv if argv is None else argv
    if len(argv) != 2:
        sys.stderr.write("usage: wsbridge.py ws://HOST:PORT/rpc\n")
        return 64
    try:
        host, port, target, host_header = parse_url(argv[1])
    except ValueError as error:
        return _fail(str(error))
    # A signal ends the session as the end of stdin does (our close, then the host's), and the exit status
    # says which signal it was; the wakeup pipe makes select() return for it.
    stopping: list[int] = []
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda number, frame: stopping.append(number))
    try:
        sock = socket.create_connection((host, port))
    except OSError as error:
        return _fail(f"connect to {host}:{port}: {error.strerror or error}")
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setblocking(False)
    sock_fd = sock.fileno()
    key = base64.b64encode(os.urandom(16)).decode()
    outgoing = bytearray(_handshake_request(target, host_header, key))
    stdin_fd, stdout = sys.stdin.fileno(), sys.stdout.buffer
    pending = b""  # stdin bytes not yet a whole line
    lines: list[bytes] = []  # whole lines waiting for the upgrade to complete
    head = b""
    upgraded = close_sent = False
    stdin_open = True
    decoder = Decoder()
    linger_until: float | None = None
    try:
        while True:
            if stopping and not close_sent:
                stdin_open = False
            if not stdin_open and upgraded and not close_sent:
                outgoing += encode_frame(struct.pack("!H", 1000), _CLOSE)
                close_sent = True
                linger_until = time.monotonic() + LINGER
            if linger_until is not None and time.monotonic() >= linger_until:
                return 128 + stopping[0] if stopping else 0
            if not stdin_open and not upgraded and linger_until is None:
                linger_until = time.monotonic() + LINGER  # stdin ended before the host answered
            readers = [sock_fd, wake_r] + ([stdin_fd] if stdin_open else [])
            writers = [sock_fd] if outgoing else []
            wait = None if linger_until is None else max(0.0, linger_until - time.monotonic())
            try:
                readable, writable, _ = select.select(readers, writers, [], wait)
            except InterruptedError:
                continue
            if wake_r in readable:
                os.read(wake_r, 64)
                continue
            if writable:
                try:
                    sent = sock.send(outgoing)
                    del outgoing[:sent]
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:
                    outgoing.clear()  # the host is gone: keep reading what it sent (socat -s)
            if stdin_fd in readable:
                data = os.read(stdin_fd, 1 << 16)
                if not data:
                    stdin_open = False
                    if pending.strip():
                        lines.append(pending)
                    pending = b""
                else:
                    pending += data
                    *whole, pending = pending.split(b"\n")
                    lines.extend(whole)
                if upgraded:
                    outgoing += _frames(lines)
            if sock_fd in readable:
                try:
                    data = sock.recv(1 << 16)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError as error:
                    return 0 if close_sent else _fail(f"connection reset: {error.strerror or error}")
                if not data:
                    if not upgraded:
                        return _fail("the host closed the connection during the WebSocket upgrade")
                    return 0
                if not upgraded:
                    head += data
                    end = head.find(b"\r\n\r\n")
                    if end < 0:
                        if len(head) > 1 << 16:
                            return _fail("the host's upgrade answer is too long")
                        continue
                    why = _check_upgrade(head[:end], key, head[end + 4:])
                    if why is not None:
                        return _fail(why)
                    upgraded, data = True, head[end + 4:]
                    outgoing += _frames(lines)
                for kind, payload in decoder.feed(data):
                    if kind == "message":
                        stdout.write(payload + b"\n")
                        stdout.flush()
                    elif kind == "ping":
                        outgoing += encode_frame(payload, _PONG)
                    else:  # the host closes: answer, and stop
                        if not close_sent:
                            code = payload[:2] if len(payload) >= 2 else b""
                            outgoing += encode_frame(code, _CLOSE)
                            close_sent = True
                        _drain(sock, outgoing)
                        return 0
    except ProtocolViolation as error:
        return _fail(f"protocol violation: {error}")
    except BrokenPipeError:
        return 0  # nobody reads our stdout any more
    finally:
        sock.close()
        signal.set_wakeup_fd(-1)
        os.close(wake_r)
        os.close(wake_w)


def _frames(lines: list[bytes]) -> bytes:
    """Each non-blank line (a CR before its LF dropped) as one text frame; empties ``lines``."""
    out = b"".join(encode_frame(line.rstrip(b"\r")) for line in lines if line.strip())
    lines.clear()
    return out


def _drain(sock: socket.socket, outgoing: bytearray) -> None:
    """Writes what is left (our close), for at most LINGER."""
    deadline = time.monotonic() + LINGER
    while outgoing and time.monotonic() < deadline:
        _, writable, _ = select.select([], [sock], [], max(0.0, deadline - time.monotonic()))
        if writable:
            try:
                del outgoing[:sock.send(outgoing)]
            except OSError:
                return


if __name__ == "__main__":
    sys.exit(main())
