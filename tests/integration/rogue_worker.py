"""A plugin worker that breaks the worker protocol on request (docs/worker-protocol.md), written against the
wire alone (no kit), for tests/integration/test_worker_protocol.py.

    rogue_worker.py START [PLUGIN]

START says how it starts: `ok` (a well-behaved hello/ready), or a way to fail at start-up. Once running, its
class `Rogue` behaves until a `configure` whose data has `"do": MODE`; then it answers that configure as MODE
says (see `misbehave`).
"""

from __future__ import annotations

import json
import os
import struct
import sys
import time

HELLO, READY, REFUSED = 0x56, 0x52, 0x45
CREATE, HOOK, BATCH, DESTROY, WAKE, OK, FAILED = 0x43, 0x48, 0x42, 0x44, 0x57, 0x4F, 0x46

FD = int(os.environ["GREENROOM_WORKER_FD"])
START = sys.argv[1]
PLUGIN = sys.argv[2] if len(sys.argv) > 2 else "rogue"


def write(data: bytes) -> None:
    while data:
        data = data[os.write(FD, data):]


def frame(kind: int, body: bytes = b"") -> bytes:
    return struct.pack("<IB", len(body) + 1, kind) + body


def ok(value: int = 0, output: bytes = b"") -> bytes:
    return frame(OK, struct.pack("<QQ", value, 64) + output)


def read_exact(n: int) -> bytes:
    out = b""
    while len(out) < n:
        chunk = os.read(FD, n - len(out))
        if not chunk:
            sys.exit(0)
        out += chunk
    return out


def read_frame() -> tuple[int, bytes]:
    length, kind = struct.unpack("<IB", read_exact(5))
    return kind, read_exact(length - 1)


def hang() -> None:
    while True:
        time.sleep(60)


def start() -> None:
    if START == "silent":
        hang()
    kind, body = read_frame()
    assert kind == HELLO, kind
    limits = json.loads(body)
    ready = {"protocol": 1, "plugin": PLUGIN, "version": "0.0.1", "classes": ["Rogue"]}
    if START == "garbage":
        write(b"Hello! I am a plugin, not a worker.\n")
        hang()
    elif START == "v2":
        ready["protocol"] = 2
    elif START == "noversion":
        del ready["protocol"]
    elif START == "badhook":
        ready["optionalHooks"] = {"Rogue": ["viewDidWiggle"]}
    elif START == "refuse":
        write(frame(REFUSED, b"rogue cannot find its configuration file"))
        sys.exit(1)
    elif START == "exit":
        sys.exit(4)
    write(frame(READY, json.dumps(ready).encode()))
    serve(limits["maxOutputBytes"])


def misbehave(mode: str, limit: int) -> None:
    """Answers the configure in flight as `mode` says."""
    if mode == "garbage":
        write(b"this is not a frame at all\n" * 4)
    elif mode == "half":
        write(ok(0, b'{"partial":')[:12])
    elif mode == "halfexit":
        write(ok(0, b'{"partial":')[:12])
        sys.exit(0)
    elif mode == "silent":
        pass
    elif mode == "exit":
        sys.exit(5)
    elif mode == "extra":
        # Two replies to one request: the second answers a hook no one asked for.
        write(ok(0, b'{"first":true}') + ok(0, b'{"second":true}'))
        return
    elif mode == "late":
        write(ok(0, b'{"late":false}'))
        time.sleep(0.2)
        write(ok(0, b'{"unasked":true}'))  # between calls: a reply to nothing
        return
    elif mode == "wrongkind":
        write(frame(READY, b"{}"))
    elif mode == "shortok":
        write(frame(OK, b"abc"))
    elif mode == "badfailed":
        write(frame(FAILED, b"not json"))
    elif mode == "huge":
        write(struct.pack("<IB", 0x7FFFFFF0, OK))
    elif mode == "oversize":
        write(ok(0, json.dumps("x" * (limit + 10)).encode()))
        return
    elif mode == "notjson":
        write(ok(0, b"{nope"))
        return
    elif mode == "forge":
        data = {"plugin": "counter", "class": "Counter", "container": "c-999", "hook": "deinit", "reason": "crashed",
                "extra": 1}
        write(frame(FAILED, json.dumps({"message": "rogue says another plugin failed", "data": data}).encode()))
        return
    elif mode == "request":
        # A worker reaching for containers: a hook request of its own, for instance 1, sent to the host.
        body = struct.pack("<QH", 1, 9) + b"configure" + b'{"data":{"failOn":"configure"}}'
        write(frame(HOOK, body) + frame(DESTROY, struct.pack("<Q", 1)))
    hang()


def serve(limit: int) -> None:
    instances: set[int] = set()
    next_handle = 1
    while True:
        kind, body = read_frame()
        if kind == WAKE:
            continue
        if kind == CREATE:
            instances.add(next_handle)
            write(ok(next_handle))
            next_handle += 1
        elif kind == DESTROY:
            instances.discard(struct.unpack_from("<Q", body)[0])
            write(ok())
        elif kind == HOOK:
            handle, n = struct.unpack_from("<QH", body)
            name = body[10:10 + n].decode()
            given = json.loads(body[10 + n:])
            mode = (given.get("data") or {}).get("do") if name == "configure" else None
            if mode:
                misbehave(mode, limit)
            else:
                write(ok(0, json.dumps({"hook": name, "pid": os.getpid()}).encode()) if name == "configure" else ok())
        else:
            sys.exit(3)


start()
