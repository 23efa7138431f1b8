"""Write Greenroom container classes in Python: a plugin the host runs as a worker process.

A plugin is a script that declares its classes and calls :func:`serve`::

    from greenroom.plugin import Container, HookCall, PluginError, serve

    class Banner(Container):
        def configure(self, call: HookCall) -> dict[str, int]:
            text = (call.data or {}).get("text")
            if not isinstance(text, str):
                raise PluginError("data.text is required")
            return {"length": len(text)}

    if __name__ == "__main__":
        serve("banner", [Banner], version="1.0.0")

and the host starts it with ``greenroom serve --plugin-command "python3 banner.py"``. The host runs it in
a worker process of its own, exactly as it runs a native plugin: a crash, an exit or a hook past
``--hook-timeout-ms`` fails only this plugin's containers, and the worker is restarted.

- **Hooks are methods** named as the hook is (``init``, ``loadView``, ``viewDidLoad``, ``viewWillAppear``,
  ..., ``configure``, ``didReceiveMemoryWarning``, ``willMoveToParent``, ``didMoveToParent``, ``deinit``),
  plain or ``async``, taking the :class:`HookCall` (or nothing). A hook the class does not define does
  nothing. :meth:`Container.hook` dispatches them; override it to see every hook.
- **The container's state** is the instance: ``self.id`` (the container's id), ``self.data`` (the data
  the last ``init`` or ``configure`` brought) and ``self.size`` (the size of the last layout hook) are
  kept up to date before each hook runs.
- **Output**: what ``configure`` (or any hook) returns, JSON-encodable, is its output (``configure``'s is
  what the client gets back). ``None`` is no output.
- **Failure**: raise. :class:`PluginError` fails the hook with its message (and ``data``); any other
  exception fails it with the exception's type and message, and its traceback is logged. The container
  fails, as with a native plugin; the worker lives on.
- **Logging**: the :mod:`logging` module; records go to the host's standard error, one line each, in the
  host's format (``greenroom: plugin NAME: LEVEL: message``). ``print`` goes there too.
- **Optional hooks** (``viewSafeAreaInsetsDidChange``, ``viewLayoutMarginsDidChange``) reach a class only
  when it lists them in ``optional_hooks``.
- **Memory**: ``memory_bytes`` (a property to override) is what a purge would free.

The wire protocol beneath is docs/worker-protocol.md in the Greenroom repository.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
import socket
import struct
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

__all__ = ["PROTOCOL_VERSION", "Container", "HookCall", "PluginError", "Size", "command", "serve"]

#: The worker protocol version this kit speaks.
PROTOCOL_VERSION = 1

#: Every hook a class may receive, in UIKit's names.
HOOKS = frozenset({
    "init", "loadView", "viewDidLoad", "viewWillAppear", "viewIsAppearing", "viewDidAppear", "viewWillDisappear", "viewDidDisappear",
    "viewWillLayoutSubviews", "viewDidLayoutSubviews", "viewSafeAreaInsetsDidChange", "viewLayoutMarginsDidChange",
    "viewWillTransitionToSize", "configure", "didReceiveMemoryWarning", "willMoveToParent", "didMoveToParent", "deinit",
})
#: The hooks a class receives only when it asks for them (``optional_hooks``).
OPTIONAL_HOOKS = frozenset({"viewSafeAreaInsetsDidChange", "viewLayoutMarginsDidChange", "viewWillTransitionToSize"})

_HELLO, _READY, _REFUSED = 0x56, 0x52, 0x45
_CREATE, _HOOK, _BATCH, _DESTROY, _WAKE = 0x43, 0x48, 0x42, 0x44, 0x57
_OK, _FAILED = 0x4F, 0x46

log = logging.getLogger("greenroom.plugin")


class PluginError(Exception):
    """Fails the hook that raised it, with ``message`` and ``data`` (a JSON object) in the host's -32004."""

    def __init__(self, message: str, data: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.data: dict[str, Any] = dict(data or {})


@dataclass(frozen=True)
class Size:
    """A size in points, as the layout hooks give it."""

    width: float
    height: float

    def to_json(self) -> dict[str, float]:
        return {"width": self.width, "height": self.height}


@dataclass(frozen=True)
class HookCall:
    """One hook's call: its name and the host's input (a JSON object)."""

    hook: str
    input: Mapping[str, Any]

    @property
    def data(self) -> Any:
        """``init`` and ``configure``: the container's data (None when none was given)."""
        return self.input.get("data")

    @property
    def size(self) -> Size | None:
        """The layout hooks: the size the container is laid out at."""
        return _size(self.input.get("size"))

    @property
    def animated(self) -> bool:
        """The appearance hooks: whether the transition is animated."""
        return self.input.get("animated") is True

    @property
    def parent(self) -> str | None:
        """``willMoveToParent`` and ``didMoveToParent``: the parent's id, or None when leaving it."""
        parent = self.input.get("parent")
        return parent if isinstance(parent, str) else None

    @property
    def level(self) -> Any:
        """``didReceiveMemoryWarning``: the warning's level."""
        return self.input.get("level")


def _size(value: Any) -> Size | None:
    if isinstance(value, Mapping):
        w, h = value.get("width"), value.get("height")
        if isinstance(w, (int, float)) and isinstance(h, (int, float)):
            return Size(float(w), float(h))
    return None


class Container:
    """One container's state in the plugin: subclass it and define the hooks as methods.

    The class's name in the host is ``name`` (default: the Python class's name).
    """

    #: The class's name in the host (None: the Python class's name).
    name: ClassVar[str | None] = None
    #: Optional hooks this class asks for.
    optional_hooks: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, container_id: str) -> None:
        self.id = container_id
        #: The data the last ``init`` or ``configure`` brought (None until one did).
        self.data: Any = None
        #: The size of the last layout hook (None until one ran).
        self.size: Size | None = None

    @classmethod
    def class_name(cls) -> str:
        return cls.name or cls.__name__

    @property
    def memory_bytes(self) -> int:
        """What a purge would free (the host's memory accounting); 0 unless overridden."""
        return 0

    def hook(self, call: HookCall) -> Any:
        """Runs ``call``'s hook: the method of that name, given the call when it takes an argument."""
        method = _hook_method(type(self), call.hook)
        if method is None:
            return None
        return method(self, call) if method.__code__.co_argcount > 1 else method(self)


_methods: dict[tuple[type[Container], str], Any] = {}


def _hook_method(cls: type[Container], hook: str) -> Any:
    key = (cls, hook)
    if key not in _methods:
        method = getattr(cls, hook, None) if hook in HOOKS else None
        _methods[key] = method if inspect.isfunction(method) else None
    return _methods[key]


# -- the worker ----------------------------------------------------------------------------------------


class _ProtocolError(Exception):
    """The host sent something this worker cannot read: the worker exits (the host sees a crash)."""


class _Worker:
    def __init__(self, plugin: str, version: str, classes: Sequence[type[Container]]) -> None:
        self.plugin = plugin
        self.version = version
        self.classes = list(classes)
        self.instances: dict[int, Container] = {}
        self.next_instance = 1
        self.max_output_bytes = 1 << 20

    def ready(self, hello: Mapping[str, Any]) -> bytes:
        offered = hello.get("protocols")
        if not isinstance(offered, list) or PROTOCOL_VERSION not in offered:
            return _frame(_REFUSED, (f"plugin {self.plugin} speaks worker protocol version {PROTOCOL_VERSION}; the host "
                                     f"offers {offered!r}: update the greenroom package or the host").encode())
        limit = hello.get("maxOutputBytes")
        if isinstance(limit, int) and limit > 0:
            self.max_output_bytes = limit
        declared = {
            "protocol": PROTOCOL_VERSION, "plugin": self.plugin, "version": self.version,
            "classes": [c.class_name() for c in self.classes],
            "optionalHooks": {c.class_name(): sorted(c.optional_hooks) for c in self.classes if c.optional_hooks},
            "batches": True,
        }
        return _frame(_READY, _dumps(declared))

    async def answer(self, kind: int, body: bytes) -> tuple[bytes, bool]:
        """The reply to one create, hook or destroy request, and whether it is a failure."""
        if kind == _HOOK:
            if len(body) < 10:
                raise _ProtocolError("a hook request shorter than its header")
            handle, n = struct.unpack_from("<QH", body)
            name = body[10:10 + n].decode()
            instance = self.instances.get(handle)
            if instance is None:
                raise _ProtocolError(f"a hook for instance {handle}, which this worker does not have")
            return await self._hook(instance, name, body[10 + n:])
        if kind == _CREATE:
            (index,) = struct.unpack_from("<I", body)
            if index >= len(self.classes):
                raise _ProtocolError(f"create for class index {index}; there are {len(self.classes)}")
            cls = self.classes[index]
            try:
                instance = cls(body[4:].decode())
            except Exception as error:  # noqa: BLE001 - any failure of the class's constructor fails create
                return _failure(cls.class_name(), "create", error), True
            handle = self.next_instance
            self.next_instance += 1
            self.instances[handle] = instance
            return _frame(_OK, struct.pack("<QQ", handle, _memory(instance))), False
        if kind == _DESTROY:
            (handle,) = struct.unpack_from("<Q", body)
            self.instances.pop(handle, None)
            return _frame(_OK, struct.pack("<QQ", 0, 0)), False
        raise _ProtocolError(f"a request of kind 0x{kind:02x}")

    async def _hook(self, instance: Container, name: str, raw: bytes) -> tuple[bytes, bool]:
        cls_name = type(instance).class_name()
        try:
            given = json.loads(raw)
            call = HookCall(name, given if isinstance(given, dict) else {})
            if name in ("init", "configure") and call.data is not None:
                instance.data = call.data
            size = call.size
            if size is not None:
                instance.size = size
            result = instance.hook(call)
            if inspect.isawaitable(result):
                result = await result
        except Exception as error:  # noqa: BLE001 - a hook that raises fails its container, not the worker
            return _failure(cls_name, name, error), True
        if result is None:
            return _frame(_OK, struct.pack("<QQ", 0, _memory(instance))), False
        try:
            output = _dumps(result)
        except (TypeError, ValueError) as error:
            message = f"{cls_name}.{name} returned output that is not JSON: {error}"
            return _frame(_FAILED, _dumps({"message": message, "data": {"reason": "invalidOutput"}})), True
        if len(output) > self.max_output_bytes:
            message = (f"{cls_name}.{name} set {len(output)} bytes of output, over the limit of {self.max_output_bytes} "
                       "(--plugin-output-limit)")
            data = {"reason": "outputTooLarge", "outputBytes": len(output), "limitBytes": self.max_output_bytes}
            return _frame(_FAILED, _dumps({"message": message, "data": data})), True
        return _frame(_OK, struct.pack("<QQ", 0, _memory(instance)) + output), False


def _memory(instance: Container) -> int:
    try:
        return max(0, int(instance.memory_bytes))
    except Exception:  # noqa: BLE001 - a broken estimate is no reason to fail the hook
        return 0


def _failure(cls_name: str, hook: str, error: Exception) -> bytes:
    if isinstance(error, PluginError):
        message, data = error.message, error.data
    else:
        message, data = f"{cls_name}.{hook} raised {type(error).__name__}: {error}", {}
        log.error("%s.%s raised", cls_name, hook, exc_info=error)
    try:
        body = _dumps({"message": message, "data": data})
    except (TypeError, ValueError):
        body = _dumps({"message": message, "data": {}})
    return _frame(_FAILED, body)


def _dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def _frame(kind: int, body: bytes) -> bytes:
    return struct.pack("<IB", len(body) + 1, kind) + body


async def _read_frame(reader: asyncio.StreamReader) -> tuple[int, bytes] | None:
    try:
        header = await reader.readexactly(5)
        length, kind = struct.unpack("<IB", header)
        if length < 1:
            raise _ProtocolError("a frame of length 0")
        return kind, await reader.readexactly(length - 1)
    except asyncio.IncompleteReadError:
        return None


async def _serve(worker: _Worker, fd: int) -> int:
    sock = socket.socket(fileno=fd)
    reader, writer = await asyncio.open_connection(sock=sock, limit=1 << 30)
    first = await _read_frame(reader)
    if first is None:
        return 0
    kind, body = first
    if kind != _HELLO:
        writer.write(_frame(_REFUSED, b"the host's first frame is not hello"))
        await writer.drain()
        return 2
    reply = worker.ready(json.loads(body))
    writer.write(reply)
    await writer.drain()
    if reply[4] == _REFUSED:
        return 2
    while True:
        frame = await _read_frame(reader)
        if frame is None:
            return 0  # the host closed its end: it stopped us, or it is gone
        kind, body = frame
        if kind == _WAKE:
            continue
        if kind == _BATCH:
            (count,) = struct.unpack_from("<I", body)
            at = 4
            for _ in range(count):
                (n,) = struct.unpack_from("<I", body, at)
                if n < 1 or body[at + 4] != _HOOK:
                    raise _ProtocolError("a batch entry that is not a hook request")
                # Each reply goes as its hook ends: the host tells which hook a crash or a hang was in.
                answer, failed = await worker.answer(_HOOK, body[at + 5:at + 4 + n])
                writer.write(answer)
                at += 4 + n
                if failed:
                    break
        else:
            answer, _ = await worker.answer(kind, body)
            writer.write(answer)
        if writer.transport.get_write_buffer_size():
            await writer.drain()


class _HostFormat(logging.Formatter):
    def __init__(self, plugin: str) -> None:
        super().__init__()
        self.plugin = plugin

    def format(self, record: logging.LogRecord) -> str:
        level = {"DEBUG": "debug", "INFO": "info", "WARNING": "warning"}.get(record.levelname, "error")
        text = record.getMessage()
        if record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        return f"greenroom: plugin {self.plugin}: {level}: {text}"


def serve(plugin: str, classes: Iterable[type[Container]], *, version: str = "",
          level: int = logging.INFO) -> None:
    """Runs the plugin's worker until the host stops it (then exits the process).

    ``plugin`` names the plugin (``host.info``, ``pluginCrashed`` events, ``plugins.restart``);
    ``classes`` are its container classes. Logging goes to standard error in the host's format (a
    handler on the root logger at ``level``, unless the root logger already has one). Started by hand,
    outside a host, it says how to run it and exits with status 2.
    """
    declared = list(classes)
    names = [c.class_name() for c in declared]
    if not declared or len(set(names)) != len(names):
        raise ValueError(f"a plugin declares one or more classes with distinct names, got {names}")
    for c in declared:
        unknown = set(c.optional_hooks) - OPTIONAL_HOOKS
        if unknown:
            raise ValueError(f"{c.class_name()}.optional_hooks names {sorted(unknown)}, not optional hooks "
                             f"({sorted(OPTIONAL_HOOKS)})")
    fd_text = os.environ.get("GREENROOM_WORKER_FD")
    if not fd_text:
        script = sys.argv[0] if sys.argv and sys.argv[0] else "plugin.py"
        sys.stderr.write(f"{script} is a Greenroom plugin: the host runs it, as in\n"
                         f"  greenroom serve --plugin-command \"{command(script)}\"\n")
        raise SystemExit(2)
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(_HostFormat(plugin))
        root.addHandler(handler)
        root.setLevel(level)
    worker = _Worker(plugin, version, declared)
    try:
        status = asyncio.run(_serve(worker, int(fd_text)))
    except _ProtocolError as error:
        log.error("the host broke the worker protocol: %s", error)
        status = 3
    except (ConnectionError, BrokenPipeError):
        status = 0
    raise SystemExit(status)


def command(script: str | os.PathLike[str], *, python: str | None = None) -> str:
    """The ``--plugin-command`` that runs ``script`` with this Python (or ``python``), quoted for the host.

    A ``.js`` or ``.mjs`` script is run with ``node`` instead.
    """
    path = os.fspath(script)
    runner = "node" if path.endswith((".js", ".mjs")) else (python or sys.executable)
    return " ".join(_quote(w) for w in (runner, path))


def _quote(word: str) -> str:
    safe = word and all(c.isalnum() or c in "-_./=:,+@%" for c in word)
    return word if safe else "'" + word.replace("'", "'\\''") + "'"

