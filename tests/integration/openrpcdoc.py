"""Helpers shared by tests/schema/test_openrpc.py and the integration tests that came from it: rpc-schema/openrpc.json
loaded as a schema registry, validators for params, results, errors and events, and a host of its own (with the
Crashy plugin) with a raw connection that keeps the notifications it reads."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from greenroom import testing
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7


REPO = Path(__file__).resolve().parents[2]


SCHEMA_DIR = REPO / "rpc-schema"


DOC_PATH = SCHEMA_DIR / "openrpc.json"


DOC_URI = "urn:greenroom:openrpc"


TIMEOUT = 10.0


DOC: dict[str, Any] = json.loads(DOC_PATH.read_text())


METHODS: dict[str, dict[str, Any]] = {m["name"]: m for m in DOC.get("methods", []) if isinstance(m, dict) and "name" in m}


REGISTRY = Registry().with_resource(DOC_URI, Resource(contents=DOC, specification=DRAFT7))


ERROR_CODES = {
    -32700: "parseError", -32600: "invalidRequest", -32601: "methodNotFound", -32602: "invalidParams",
    -32603: "internalError", -32001: "unknownClass", -32002: "unknownObject", -32003: "invalidState",
    -32004: "pluginFailed", -32005: "limitExceeded", -32006: "unauthorized", -32007: "virtualClockOnly",
}


def pointer(*parts: Any) -> str:
    return "#/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def resolve_local(ref: str) -> Any:
    """Follows a document-local `#/a/b` reference; raises KeyError/IndexError when it dangles."""
    assert ref.startswith("#/"), f"only document-local $refs are used: {ref}"
    node: Any = DOC
    for raw in ref[2:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def validator_at(ref: str) -> jsonschema.Draft7Validator:
    """A validator for the schema at `ref` (a pointer into the document); its $refs resolve in the document."""
    return jsonschema.Draft7Validator({"$ref": DOC_URI + ref}, registry=REGISTRY)


def check(ref: str, instance: Any, what: str) -> None:
    errors = sorted(validator_at(ref).iter_errors(instance), key=lambda e: list(e.absolute_path))
    if errors:
        lines = [f"  at {'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in errors[:10]]
        pytest.fail(f"{what} does not match {ref}:\n" + "\n".join(lines) + f"\ninstance: {json.dumps(instance)[:2000]}")


def method_params_schema(name: str) -> dict[str, Any]:
    """The by-name params object of a method, as one schema: declared members, `required` ones, nothing else."""
    method = METHODS[name]
    props, required = {}, []
    for p in method["params"]:
        if "$ref" in p:
            p = resolve_local(p["$ref"])
        props[p["name"]] = p["schema"]
        if p.get("required"):
            required.append(p["name"])
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def check_params(name: str, params: Any, not_required: frozenset[str] = frozenset()) -> list[str]:
    # The params' $refs are document-local ("#/components/..."): rewrite them to the document's URI.
    schema = method_params_schema(name)
    schema["required"] = [r for r in schema["required"] if r not in not_required]
    v = jsonschema.Draft7Validator(absolutize(schema), registry=REGISTRY)
    return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in v.iter_errors(params)]


def absolutize(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: (DOC_URI + v if k == "$ref" and isinstance(v, str) and v.startswith("#") else absolutize(v))
                for k, v in schema.items()}
    if isinstance(schema, list):
        return [absolutize(x) for x in schema]
    return schema


def method_error_codes(name: str) -> set[int]:
    codes = set()
    for e in METHODS[name].get("errors", []):
        codes.add((resolve_local(e["$ref"]) if "$ref" in e else e)["code"])
    return codes


def binary() -> Path:
    path = Path(os.environ.get("GREENROOM_BIN") or REPO / ".build" / "debug" / "greenroom")
    if not path.is_file() or not os.access(path, os.X_OK):
        pytest.fail(f"greenroom binary not found at {path} (build it with `swift build`, or set GREENROOM_BIN)",
                    pytrace=False)
    return path


class Host:
    """A `greenroom serve --clock virtual` of our own, started by the shipped harness (greenroom.testing.HostProcess),
    on a socket in a short temporary directory, its stderr in a file there."""

    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="grs-", dir="/tmp")
        self.socket = os.path.join(self.dir, "h.sock")
        # With the Crashy example plugin in a worker: host.info's plugin status, classes.list's pluginState,
        # host.stats' plugins counters and plugins.restart are checked against a real plugin.
        crashy = binary().resolve().parent / "libCrashyPlugin.so"
        try:
            self.host = testing.HostProcess.start(
                ["--plugin", str(crashy)], binary=str(binary()), clock="virtual", socket=self.socket,
                directory=self.dir, stderr=os.path.join(self.dir, "stderr"), ready_timeout=TIMEOUT)
        except testing.HostStartError as error:
            shutil.rmtree(self.dir, ignore_errors=True)
            pytest.fail(f"the host did not start: {error}", pytrace=False)
        self.proc = self.host.process
        self.ready = self.host.ready
        assert f"unix:{self.socket}" in self.ready.get("listen", []), self.ready

    def stderr_text(self) -> str:
        return self.host.stderr_text()[-4000:]

    def connect(self) -> "Conn":
        return Conn(self.socket)

    def wait_exit(self) -> int:
        try:
            return self.proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"host did not exit within {TIMEOUT}s; stderr: {self.stderr_text()}")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def cleanup(self) -> None:
        self.kill()
        self.host.stop()  # already exited: closes its stdout
        shutil.rmtree(self.dir, ignore_errors=True)


class Conn:
    """Newline-delimited JSON-RPC over a Unix socket; notifications read while waiting are kept in order."""

    def __init__(self, path: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(TIMEOUT)
        self.sock.connect(path)
        self.buf = b""
        self.next_id = 1
        self.notifications: list[dict[str, Any]] = []
        self.seen = 0  # notifications already returned by wait_notification

    def close(self) -> None:
        self.sock.close()

    def send_line(self, data: bytes) -> None:
        self.sock.sendall(data + b"\n")

    def read_message(self) -> Any:
        while b"\n" not in self.buf:
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                pytest.fail(f"no message from the host within {TIMEOUT}s")
            if not chunk:
                pytest.fail("the host closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def read_reply(self) -> Any:
        """The next message that is not a notification (a reply, or a batch reply)."""
        while True:
            msg = self.read_message()
            if isinstance(msg, dict) and "method" in msg and "id" not in msg:
                self.notifications.append(msg)
                continue
            return msg

    def request(self, method: str, params: Any = None) -> dict[str, Any]:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.next_id += 1
        self.send_line(json.dumps(msg).encode())
        reply = self.read_reply()
        assert isinstance(reply, dict) and reply.get("id") == msg["id"], f"unexpected reply to {method}: {reply}"
        assert reply.get("jsonrpc") == "2.0", reply
        assert ("result" in reply) != ("error" in reply), f"a reply has exactly one of result/error: {reply}"
        return reply

    def call(self, method: str, params: Any = None) -> Any:
        reply = self.request(method, params)
        assert "result" in reply, f"{method} failed: {reply['error']}"
        return reply["result"]

    def wait_notification(self, predicate) -> dict[str, Any]:
        """Returns the first not-yet-returned notification matching `predicate`, reading until it arrives."""
        while True:
            for i in range(self.seen, len(self.notifications)):
                n = self.notifications[i]
                if predicate(n):
                    self.seen = i + 1
                    return n
            self.seen = len(self.notifications)
            msg = self.read_message()
            assert isinstance(msg, dict) and "method" in msg and "id" not in msg, f"unexpected message: {msg}"
            self.notifications.append(msg)


VP = {"width": 375, "height": 667}  # a range session's viewport


def check_error(reply: dict[str, Any], method: str, code: int, what: str) -> dict[str, Any]:
    """`reply` is an error with `code`, an ErrorObject, and `method` lists the code; returns the error."""
    assert "error" in reply, f"{what}: {method} succeeded: {reply}"
    error = reply["error"]
    check(pointer("components", "schemas", "ErrorObject"), error, f"{what}: {method} error")
    assert error["code"] == code and error["data"]["kind"] == ERROR_CODES[code], f"{what}: {error}"
    assert code in method_error_codes(method), f"{method} does not list {code} in its errors"
    return error


RANGE_TYPES = ("visible", "display", "preload")
